"""lmms-eval's short and long answers are two files: `score` and `predictions` take both, or the model's folder.

The layout, as EvolvingLMMs-Lab/lmms-eval writes it: ``EvaluationTracker.save_results_samples``
(``lmms_eval/loggers/evaluation_tracker.py``, commit 0716c69d) writes
``<output_path>/<model_name_sanitized>/<date_id>_samples_<task_name>.jsonl`` for one task, and the
command line calls it once per task of the run (``for task_name, config in results["configs"].items()``
after ``save_results_aggregated``, ``lmms_eval/__main__.py``). A run of a short and a long ReasonMap task
(``reasonmap_short``, ``reasonmap_long``) so leaves two files beside ``<date_id>_results.json`` in the
model's folder; the rows of versions 0.4 and later keep no document, so each file's kind is its task name.
The rows are built by ``harness_writers.lmms_eval_row`` (version 0.7), the files by ``write_lmms_eval_log``.
"""

from __future__ import annotations

import json

import pytest

from baselines.answers import render_answer
from benchmarks.errors import InvalidRecord
from benchmarks.harness_rows import harness_files
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from graphkit import city_graph
from reasonmap.cli import main
from reasonmap.convert import convert_predictions

from .harness_writers import lmms_eval_row, write_lmms_eval_log


@pytest.fixture(scope="module")
def questions():
    return generate_questions(city_graph("rome"), seed=1, per_city=3)


def _run(tmp_path, questions):
    """A model folder as lmms-eval leaves it: the short task's log, the long task's, and the results file."""
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    for kind in ("short", "long"):
        rows = [
            lmms_eval_row(
                "0.7",
                n,
                {},
                [render_answer(q.routes[0], kind, q.long_template if kind == "long" else None)],
                prompt=q.text(kind),
            )
            for n, q in enumerate(questions)
        ]
        write_lmms_eval_log(tmp_path / "logs", "llava", f"reasonmap_{kind}", rows)
    folder = tmp_path / "logs" / "llava"
    (folder / "20260101_120000_results.json").write_text("{}", encoding="utf-8")
    return q_path, folder


def _kinds(path):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return sorted((row["id"], row["question"]) for row in rows)  # a row names its kind "question"


def test_a_model_folder_stands_for_its_per_task_logs_sorted(tmp_path, questions):
    _, folder = _run(tmp_path, questions)
    assert [path.name for path in harness_files(folder, "lmms-eval")] == [
        "20260101_120000_samples_reasonmap_long.jsonl",
        "20260101_120000_samples_reasonmap_short.jsonl",
    ]
    assert harness_files(["a.jsonl", "b.jsonl"], "lmms-eval") == ("a.jsonl", "b.jsonl")


def test_a_folder_without_logs_or_for_another_source_is_refused(tmp_path, questions):
    _, folder = _run(tmp_path, questions)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidRecord, match="no lmms-eval per-sample log"):
        harness_files(tmp_path / "empty", "lmms-eval")
    with pytest.raises(InvalidRecord, match="only --from lmms-eval reads a folder"):
        harness_files(folder, "vlmevalkit")


@pytest.mark.parametrize("how", ["folder", "both files"])
def test_score_takes_the_short_and_the_long_log_without_kind(tmp_path, questions, how):
    q_path, folder = _run(tmp_path, questions)
    logs = sorted(folder.glob("*_samples_*.jsonl"))
    given = ["--predictions", str(folder)] if how == "folder" else [a for p in logs for a in ("--predictions", str(p))]
    out, report = tmp_path / "scored.jsonl", tmp_path / "report"
    argv = ["score", "--questions", str(q_path), *given, "--from", "lmms-eval", "--out", str(out)]
    assert main([*argv, "--report", str(report)]) == 0
    # every question answered twice, once per kind, each answer the reference route: all correct
    assert _kinds(out) == sorted((q.id, kind) for q in questions for kind in ("short", "long"))
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    figures = summary["models"]["llava"]
    assert (figures["n_short"], figures["n_long"], figures["accuracy_short"]) == (3, 3, 1.0)
    assert [entry["file"] for entry in summary["inputs"]["predictions"]] == [path.name for path in logs]


def test_predictions_writes_both_kinds_from_the_folder(tmp_path, questions):
    q_path, folder = _run(tmp_path, questions)
    out = tmp_path / "p.jsonl"
    assert main(["predictions", str(folder), "--from", "lmms-eval", "--questions", str(q_path), "--out", str(out)]) == 0
    assert _kinds(out) == sorted((q.id, kind) for q in questions for kind in ("short", "long"))
    count, problems = convert_predictions(sorted(folder.glob("*_samples_*.jsonl")), "lmms-eval", out, questions=q_path)
    # one note per file: how its rows were matched to the questions and checked
    assert count == 6 and [problem.line for problem in problems] == [0, 0]
