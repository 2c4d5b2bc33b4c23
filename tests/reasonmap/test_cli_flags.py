"""One set of flags: every command spells an option one way, and a mistake is named in the error."""

from __future__ import annotations

import json

import pytest

from reasonmap.cli import main
from vision.analyse import write_evidence
from vision.evidence import read_truth


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def latin_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth") / "set"
    argv = ["synth", "--count", "2", "--stations", "20", "--lines", "3", "--questions", "--render", "--script", "latin"]
    assert main([*argv, "--out", str(folder), "--workers", "1", "--quiet"]) == 0
    return folder


def test_diagnose_of_a_set_reads_the_truth_of_its_maps_with_metro_dir(capsys, latin_set, tmp_path):
    folder = latin_set
    evidence = tmp_path / "evidence"
    for city in ("synth_0000", "synth_0001"):
        write_evidence(
            evidence / f"{city}.evidence.json", read_truth(folder / "maps" / f"{city}.truth.json", city=city)
        )
    predictions = tmp_path / "noisy.jsonl"
    given = ("--questions", folder / "questions.jsonl", "--metro-dir", folder / "metro")
    assert run(capsys, "baseline", "noisy", *given, "--out", predictions, "--wrong-line", 0.5)[0] == 0
    diagnose = ("diagnose", *given, "--predictions", predictions, "--workers", 1)
    assert run(capsys, *diagnose, "--evidence-dir", evidence, "--out", tmp_path / "by-evidence.jsonl")[0] == 0
    code, _, err = run(capsys, *diagnose, "--maps", folder / "maps", "--truth", "--out", tmp_path / "by-truth.jsonl")
    assert code == 0 and "skipped" not in err, err
    by_truth = [json.loads(line) for line in (tmp_path / "by-truth.jsonl").read_text(encoding="utf-8").splitlines()]
    by_evidence = (tmp_path / "by-evidence.jsonl").read_text(encoding="utf-8").splitlines()
    assert [row["label"] for row in by_truth] == [json.loads(line)["label"] for line in by_evidence]
    assert len(by_truth) == len(predictions.read_text(encoding="utf-8").splitlines())
