"""Scoring files: the report folder's manifest vouches for one complete run, and only for it."""

from __future__ import annotations

import json

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.manifests import MANIFEST, check_manifest
from benchmarks.reasonmap import report
from reasonmap.cli import main
from reasonmap.evaluate import evaluate_files


@pytest.fixture
def inputs(tmp_path):
    questions, predictions = tmp_path / "q.jsonl", tmp_path / "p.jsonl"
    assert main(["generate", "--cities", "rome", "--per-city", "3", "--out", str(questions), "--quiet"]) == 0
    assert main(["baseline", "oracle", "--questions", str(questions), "--out", str(predictions)]) == 0
    return questions, predictions


def test_a_complete_score_is_vouched_for(inputs, tmp_path):
    evaluation = evaluate_files(*inputs, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert check_manifest(tmp_path / "report") == []
    record = json.loads((tmp_path / "report" / MANIFEST).read_text(encoding="utf-8"))
    names = [entry["name"] for entry in record["files"]]
    assert names == ["../scored.jsonl", *(path.name for path in evaluation.report_files)]


def test_a_score_killed_after_the_scored_rows_leaves_no_complete_manifest(inputs, tmp_path, monkeypatch):
    questions, predictions = inputs
    evaluate_files(questions, predictions, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    old_scored = (tmp_path / "scored.jsonl").read_bytes()
    # the second run scores other answers: the echo baseline's
    assert main(["baseline", "echo", "--questions", str(questions), "--out", str(predictions)]) == 0

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as if killed after scored.jsonl and before the report

    monkeypatch.setattr(report, "write_report", killed)
    with pytest.raises(KeyboardInterrupt):
        evaluate_files(questions, predictions, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert (tmp_path / "scored.jsonl").read_bytes() != old_scored  # the new rows beside the old report
    problems = check_manifest(tmp_path / "report")
    assert problems == [f"{tmp_path / 'report' / MANIFEST}: the run of score that wrote it did not finish"]


def test_rescoring_files_of_an_unfinished_run_warns(inputs, tmp_path, capsys):
    questions, predictions = inputs
    (tmp_path / MANIFEST).write_text('{"command": "demo", "complete": false, "files": []}\n', encoding="utf-8")
    argv = ["score", "--questions", questions, "--predictions", predictions]
    code = main([str(arg) for arg in [*argv, "--out", tmp_path / "s.jsonl", "--report", tmp_path / "report"]])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert err[0] == (
        f"reasonmap score: warning: --questions {questions}: {tmp_path / MANIFEST} says the run that wrote it"
        " did not finish; its files may mix two runs"
    )
    assert err[1].startswith(f"reasonmap score: warning: --predictions {predictions}: ")


def test_a_score_refused_before_it_writes_leaves_the_good_report_vouched_for(inputs, tmp_path):
    questions, predictions = inputs
    given = dict(out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    evaluate_files(questions, predictions, **given)
    with pytest.raises(ValueError, match="not 'nonsense'"):
        evaluate_files(questions, predictions, variant="nonsense", **given)
    assert check_manifest(tmp_path / "report") == []
    with pytest.raises(InvalidRecord, match="missing.jsonl"):
        evaluate_files(questions, tmp_path / "missing.jsonl", **given)
    assert check_manifest(tmp_path / "report") == []


def test_a_comparison_refused_before_it_writes_leaves_the_good_report_vouched_for(inputs, tmp_path):
    from reasonmap.evaluate import compare_files

    questions, predictions = inputs
    given = dict(out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    compare_files(questions, predictions, **given)
    assert check_manifest(tmp_path / "report") == []
    with pytest.raises(InvalidRecord, match="missing.jsonl"):
        compare_files(questions, tmp_path / "missing.jsonl", **given)
    assert check_manifest(tmp_path / "report") == []
