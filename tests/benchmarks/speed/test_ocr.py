"""The OCR speed benchmark runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks.speed.ocr import DEFAULT_MAPS, main
from tests.shared import SHARED_MAPS
from tests.vision.maps import real_map


def test_the_benchmark_and_the_tests_read_one_folder_of_shared_maps():
    # two spellings of one path (the library may not take it from the tests, nor the tests from a benchmark)
    assert DEFAULT_MAPS == SHARED_MAPS


@pytest.mark.slow
def test_benchmark_on_a_rendered_map_prints_one_json_object_last(capsys):
    # Budapest: the smallest rendered map with several lines (2.5 MP, against Geneva's 10.3 MP), so the colour
    # check compares more than one line. Its Metro Data (graphkit/data/metro/hungary/budapest.json) lists 4
    # lines and 38 distinct station names once the "(Transfer Station)" suffix is dropped.
    assert main(["--rendered", "--only", "budapest"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out.strip().splitlines()[-1])
    assert figures["source"] == "rendered"
    assert figures["mean_recall"] >= 0.97
    _check_per_megapixel(figures, "seconds")
    good, lines = figures["colours_within_10"]
    assert lines == 4 and good >= 0.8 * lines
    assert set(figures["maps"]) == {"budapest"} and figures["maps"]["budapest"]["stations"] == 38
    assert "budapest: " in captured.err


@pytest.mark.slow
def test_benchmark_on_a_real_map(capsys):
    folder = real_map("america__miami").parent
    assert main(["--maps", str(folder), "--only", "miami"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["source"] == str(folder)
    assert set(figures["maps"]) == {"america__miami"} and figures["mean_recall"] >= 0.9
    # the megapixels are the image's own (its header, read apart), and the figure per megapixel is the total over
    # them: the benchmark's arithmetic, never its speed, is checked here
    from PIL import Image

    with Image.open(real_map("america__miami")) as image:
        width, height = image.size
    assert figures["maps"]["america__miami"]["megapixels"] == round(width * height / 1e6, 2) == figures["megapixels"]
    _check_per_megapixel(figures, "cpu_seconds")


def _check_per_megapixel(figures, seconds):
    """``<seconds>_per_megapixel`` is ``<seconds>`` over ``megapixels``, as far as their rounding lets it be told."""
    ratio, total, megapixels = figures[f"{seconds}_per_megapixel"], figures[seconds], figures["megapixels"]
    # the total and the megapixels are rounded to 2 decimals (±0.005 each), the ratio to 3 (±0.0005)
    assert abs(ratio - total / megapixels) <= 0.0005 + (0.005 + 0.005 * (ratio + 0.0005)) / (megapixels - 0.005)


def test_a_worktree_in_a_folder_of_worktrees_finds_the_shared_data_above_it(tmp_path, monkeypatch):
    from benchmarks.speed.ocr import _shared_data

    monkeypatch.delenv("REASONMAP_SHARED_DATA", raising=False)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    worktree, checkout = tmp_path / "wt" / "refs", tmp_path / "main"
    worktree.mkdir(parents=True), checkout.mkdir()
    assert _shared_data(worktree) == tmp_path / "shared" / "data"  # two folders up, not wt/shared
    assert _shared_data(checkout) == tmp_path / "shared" / "data"
    monkeypatch.setenv("REASONMAP_SHARED_DATA", str(tmp_path / "elsewhere"))
    assert _shared_data(worktree) == tmp_path / "elsewhere"
