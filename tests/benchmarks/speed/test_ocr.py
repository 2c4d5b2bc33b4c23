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
    assert isinstance(figures["seconds_per_megapixel"], float)  # a time: reported, not bounded
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
    assert isinstance(figures["cpu_seconds_per_megapixel"], float)
    assert isinstance(figures["maps"]["america__miami"]["cpu_seconds"], float)


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
