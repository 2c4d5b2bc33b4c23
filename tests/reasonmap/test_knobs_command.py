"""``reasonmap knobs`` end to end on a tiny sweep (2 networks, 2 colour distances), with the noisy probe solver
whose misreads grow as colours get closer."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from baselines.probe_solvers import misread_probability, solve_probe
from benchmarks.probe.questions import generate_probe_questions
from benchmarks.probe.scoring import score_prediction
from graphkit import city_graph
from reasonmap.cli import main


def test_the_misread_probability_by_hand():
    # 1 / (1 + exp(0.4 * (d - 8)))
    assert misread_probability({"colour_distance": 2.0}) == pytest.approx(1 / (1 + math.exp(-2.4)))
    assert misread_probability({"colour_distance": 8}) == 0.5
    assert misread_probability({"label_height_px": 15.0}) == 0.0


@pytest.mark.parametrize(("distance", "right"), [(-200.0, 0), (400.0, 1)])
def test_a_misread_probe_is_wrong_and_an_unmisread_one_right(distance, right):
    graph = city_graph("rome")
    questions = [
        dataclasses.replace(question, knobs=(("colour_distance", distance),))
        for question in generate_probe_questions(graph, per_type=3)
    ]
    predictions = solve_probe("noisy", questions, lambda q: graph, seed=1)
    verdicts = [score_prediction(p, q) for p, q in zip(predictions, questions, strict=True)]
    assert {q.type for q in questions} == {"lines_at", "follow", "neighbours", "same_line", "count_between"}
    assert {v.correct for v in verdicts} == {right} and not any(v.invalid_reason for v in verdicts)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("knobs")
    sweep = root / "sweep"
    argv = ["synth", "--count", "2", "--stations", "16", "--lines", "3", "--questions", "--probes", "--render"]
    assert main([*argv, "--sweep", "colour-distance=2,40", "--out", str(sweep), "--workers", "1", "--quiet"]) == 0
    for label in ("colour_distance=2", "colour_distance=40"):
        probes = sweep / "probes" / f"{label}.jsonl"
        predictions, scored = root / "pred" / f"{label}.jsonl", root / "scored" / f"{label}.jsonl"
        assert (
            main(
                [
                    "baseline",
                    "noisy",
                    "--questions",
                    str(probes),
                    "--metro-dir",
                    str(sweep / "metro"),
                    "--out",
                    str(predictions),
                    "--quiet",
                ]
            )
            == 0
        )
        assert (
            main(
                [
                    "score",
                    "--task",
                    "probe",
                    "--questions",
                    str(probes),
                    "--predictions",
                    str(predictions),
                    "--out",
                    str(scored),
                    "--report",
                    str(root / "r" / label),
                    "--quiet",
                ]
            )
            == 0
        )
    out = root / "knobs"
    assert (
        main(
            [
                "knobs",
                str(sweep),
                "--probes",
                str(root / "scored"),
                "--out",
                str(out),
                "--figures",
                "--resamples",
                "200",
            ]
        )
        == 0
    )
    return root, out


def test_the_knob_report_of_a_tiny_sweep(report):
    root, out = report
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["knob"] == "colour_distance" and summary["values"] == [2.0, 40.0]
    assert sorted(row["type"] for row in summary["rows"]) == [
        "count_between",
        "follow",
        "lines_at",
        "neighbours",
        "same_line",
    ]
    for row in summary["rows"]:
        scored = {}
        for label in ("colour_distance=2", "colour_distance=40"):
            lines = (root / "scored" / f"{label}.jsonl").read_text(encoding="utf-8").splitlines()
            mine = [json.loads(line)["correct"] for line in lines if json.loads(line)["question"] == row["type"]]
            scored[label] = sum(mine) / len(mine)
        assert [v["accuracy"] for v in row["values"]] == [scored["colour_distance=2"], scored["colour_distance=40"]]
        # a misread at DE 40 has a chance of 1 / (1 + e^12.8) each: every probe is right there
        assert row["values"][1]["accuracy"] == 1.0 and row["values"][0]["accuracy"] < 0.5
    assert (out / "table.md").read_text(encoding="utf-8").startswith("# Accuracy against colour_distance\n")
    assert (out / "knobs.png").stat().st_size > 0 and (out / "knobs.pdf").stat().st_size > 0


def test_knobs_refuses_a_folder_with_no_scored_value(report, tmp_path, capsys):
    root, _ = report
    assert main(["knobs", str(root / "sweep"), "--probes", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "holds none of the sweep's scored files (colour_distance=2.jsonl" in capsys.readouterr().err
