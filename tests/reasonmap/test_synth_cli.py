"""``reasonmap synth``: one network, a whole benchmark folder, and the commands that read it."""

from __future__ import annotations

import json

import pytest

from graphkit.cities import graph_from_file
from graphkit.lint import lint_graph
from reasonmap.cli import main
from vision.analyse import write_evidence
from vision.evidence import read_truth


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def files_of(folder):
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_one_network_with_a_loop_and_a_branch_writes_its_overlay_beside_it(capsys, tmp_path):
    out = tmp_path / "nowhere.json"
    code, _, err = run(capsys, "synth", "--stations", 40, "--lines", 3, "--loops", 1, "--branches", 1, "--out", out)
    assert code == 0 and "3 lines, 40 stations" in err
    overlay = json.loads((tmp_path / "nowhere.overlay.json").read_text(encoding="utf-8"))
    assert len(overlay["loops"]) == 1 and len(overlay["branches"]) == 1
    graph = graph_from_file(out)
    assert graph.city == "nowhere" and len(graph.stations) == 40 and lint_graph(graph) == ()
    first = out.read_bytes()
    run(capsys, "synth", "--stations", 40, "--lines", 3, "--loops", 1, "--branches", 1, "--out", out)
    assert out.read_bytes() == first


def test_a_set_needs_count(capsys, tmp_path):
    code, _, err = run(capsys, "synth", "--render", "--out", tmp_path / "x.json")
    assert code == 2 and "add --count M" in err


@pytest.fixture(scope="module")
def synthetic_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth") / "set"
    argv = ["synth", "--count", "2", "--stations", "24", "--lines", "3", "--questions", "--render", "--script", "cjk"]
    assert main([*argv, "--out", str(folder), "--workers", "1", "--quiet"]) == 0
    return folder, argv


def test_a_set_holds_networks_maps_truths_and_questions(synthetic_set):
    folder, _ = synthetic_set
    names = set(files_of(folder))
    for city in ("synth_0000", "synth_0001"):
        assert {f"metro/synthetic/{city}.json", f"maps/{city}.png", f"maps/{city}.truth.json"} <= names
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {q["city"] for q in questions} == {"synth_0000", "synth_0001"}
    assert all(q["routes"] and q["country"] == "synthetic" for q in questions)
    assert (folder / "plus.jsonl").stat().st_size > 0
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert [n["stations"] for n in manifest["networks"]] == [24, 24]


def test_a_set_is_the_same_bytes_on_a_pool(synthetic_set, tmp_path):
    folder, argv = synthetic_set
    assert main([*argv, "--out", str(tmp_path / "pooled"), "--workers", "2", "--quiet"]) == 0
    assert files_of(tmp_path / "pooled") == files_of(folder)


def test_the_oracle_scores_full_marks_on_a_set_through_metro_dir(capsys, synthetic_set, tmp_path):
    folder, _ = synthetic_set
    predictions = tmp_path / "oracle.jsonl"
    metro = ("--metro-dir", folder / "metro")
    assert (
        run(capsys, "baseline", "oracle", "--questions", folder / "questions.jsonl", *metro, "--out", predictions)[0]
        == 0
    )
    code, out, _ = run(
        capsys,
        "score",
        "--questions",
        folder / "questions.jsonl",
        "--predictions",
        predictions,
        *metro,
        "--out",
        tmp_path / "scored.jsonl",
        "--report",
        tmp_path / "report",
    )
    assert code == 0 and "| baseline:oracle | 100.00 ± – |" in out
    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    assert scored and all(row["correct"] for row in scored)


def test_hard_sets_take_the_shapes_of_hard_cities(tmp_path):
    folder = tmp_path / "hard"
    assert (
        main(["synth", "--count", "2", "--difficulty", "hard", "--out", str(folder), "--workers", "1", "--quiet"]) == 0
    )
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert [network["difficulty"] for network in manifest["networks"]] == ["hard", "hard"]
    assert not (folder / "questions.jsonl").exists()  # questions only when asked


@pytest.mark.slow
def test_a_set_is_the_same_bytes_on_ray(synthetic_set, tmp_path):
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    folder, argv = synthetic_set
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert main([*argv, "--out", str(tmp_path / "ray"), "--executor", "ray", "--quiet"]) == 0
    finally:
        ray.shutdown()
    assert files_of(tmp_path / "ray") == files_of(folder)


def test_render_of_a_folder_draws_the_same_maps_as_the_set(capsys, synthetic_set, tmp_path):
    folder, _ = synthetic_set
    code, _, err = run(capsys, "render", "--metro-dir", folder / "metro", "--out", tmp_path / "maps", "--workers", 2)
    assert code == 0 and "wrote 2 maps" in err
    assert files_of(tmp_path / "maps") == files_of(folder / "maps")


def test_references_of_a_folder_cover_every_network(capsys, synthetic_set, tmp_path):
    folder, _ = synthetic_set
    code, _, err = run(capsys, "references", "--metro-dir", folder / "metro", "--out", tmp_path / "r.jsonl", "--quiet")
    assert code == 0 and f"wrote {2 * 24 * 23} station pairs" in err


@pytest.mark.slow
def test_ocr_of_a_folder_writes_the_evidence_one_map_gives(capsys, tmp_path):
    folder = tmp_path / "small"
    assert main(["synth", "--count", "1", "--stations", "8", "--lines", "2", "--render", "--out", str(folder)]) == 0
    metro, png, cache = folder / "metro" / "synthetic" / "synth_0000.json", folder / "maps" / "synth_0000.png", tmp_path
    single = tmp_path / "single.json"
    code, _, _ = run(capsys, "ocr", png, "--metro", metro, "--evidence", single, "--cache-dir", cache, "--quiet")
    assert code == 0
    code, out, _ = run(
        capsys,
        "ocr",
        "--maps",
        folder / "maps",
        "--metro-dir",
        folder / "metro",
        "--evidence-dir",
        tmp_path / "ev",
        "--cache-dir",
        cache,
        "--quiet",
        "--workers",
        1,
    )
    assert code == 0 and "synth_0000.png: recall" in out
    assert (tmp_path / "ev" / "synth_0000.evidence.json").read_bytes() == single.read_bytes()


def test_diagnose_of_a_set_uses_each_citys_graph_and_evidence(capsys, synthetic_set, tmp_path):
    folder, _ = synthetic_set
    evidence = tmp_path / "evidence"
    for city in ("synth_0000", "synth_0001"):  # the truth of the rendered maps stands in for OCR evidence
        write_evidence(
            evidence / f"{city}.evidence.json", read_truth(folder / "maps" / f"{city}.truth.json", city=city)
        )
    predictions = tmp_path / "noisy.jsonl"
    metro = ("--metro-dir", folder / "metro")
    questions = ("--questions", folder / "questions.jsonl")
    assert run(capsys, "baseline", "noisy", *questions, *metro, "--out", predictions, "--wrong-line", 0.5)[0] == 0
    code, _, err = run(
        capsys,
        "diagnose",
        *questions,
        "--predictions",
        predictions,
        *metro,
        "--evidence-dir",
        evidence,
        "--out",
        tmp_path / "d.jsonl",
        "--workers",
        1,
    )
    assert code == 0 and "skipped" not in err
    rows = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(predictions.read_text(encoding="utf-8").splitlines())
    assert any(row.get("label") == "correct" for row in rows) and any(row.get("label") != "correct" for row in rows)
