"""Reports, end-to-end scoring of files, and the RL rewards."""

from __future__ import annotations

import json

import pytest

from baselines.answers import render_answer
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_set
from benchmarks.reasonmap.records import Question
from benchmarks.reasonmap.report import REPORT_FILES, markdown_table
from benchmarks.reasonmap.rewards import REWARDS, accuracy_reward, compute_score, format_reward
from graphkit import city_graph
from reasonmap.score_files import ScoreSettings, evaluate_files


def render(route, kind, template):
    """A reference route written in the answer format."""
    return render_answer(route, kind, template)


@pytest.fixture(scope="module")
def questions():
    return generate_set([city_graph("rome"), city_graph("beijing")], seed=11, per_city=12)


def write_predictions(path, questions, extra_lines=()):
    rows = []
    for question in questions:
        for kind in ("short", "long"):
            text = render(question.routes[0], kind, question.long_template)
            rows.append({"id": question.id, "model": "oracle", "question": kind, "response": text, "tokens": 7})
            rows.append({"id": question.id, "model": "refuser", "question": kind, "response": "I cannot.", "tokens": 3})
    with open(path, "w", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row, ensure_ascii=False) + "\n")
        for line in extra_lines:
            stream.write(line + "\n")
    return rows


def test_scoring_files_writes_rows_summary_table_and_plots(tmp_path, questions):
    write_jsonl(tmp_path / "q.jsonl", questions)
    rows = write_predictions(
        tmp_path / "p.jsonl",
        questions,
        extra_lines=['{"broken', json.dumps({"id": "nope", "model": "m", "question": "short", "response": "x"})],
    )
    result = evaluate_files(
        tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "s.jsonl", report_dir=tmp_path / "r"
    )
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(scored) == len(rows)
    assert {"id", "model", "question", "parsed", "correct", "map_score", "weight", "failure"} <= set(scored[0])
    assert all((tmp_path / "r" / name).exists() for name in REPORT_FILES)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    oracle, refuser = summary["models"]["oracle"], summary["models"]["refuser"]
    assert oracle["weighted_accuracy_short"] == oracle["weighted_accuracy_long"] == 1.0
    assert refuser["accuracy_short"] == 0.0 and refuser["n_invalid"] == refuser["n"] == 2 * len(questions)
    assert set(oracle["per_city"]) == {"rome", "beijing"}
    assert summary["weighting"] == "paper" and summary["skipped_records"] == 2
    assert summary["inputs"]["questions"]["file"] == "q.jsonl"
    assert all(len(found["sha256"]) == 64 for found in summary["inputs"].values())
    assert any("nope" in problem for problem in result.problems)
    assert "| oracle | 100.00 ± – |" in markdown_table(summary)  # every answer right: no variance, no interval


@pytest.mark.slow
def test_weighted_and_unweighted_accuracy_differ_as_the_scheme_says(tmp_path, questions):
    write_jsonl(tmp_path / "q.jsonl", questions)
    # right only on Rome (an easy map): weighted accuracy falls below the unweighted share
    rows = []
    for question in questions:
        text = render(question.routes[0], "short", None) if question.city == "rome" else "I cannot."
        rows.append({"id": question.id, "model": "m", "question": "short", "response": text})
    write_jsonl(tmp_path / "p.jsonl", rows)
    paper = evaluate_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "a", report_dir=tmp_path / "ra")
    flat = evaluate_files(
        tmp_path / "q.jsonl",
        tmp_path / "p.jsonl",
        out=tmp_path / "b",
        report_dir=tmp_path / "rb",
        settings=ScoreSettings(weighting="none"),
    )
    weighted = paper.summary["models"]["m"]["weighted_accuracy_short"]
    unweighted = paper.summary["models"]["m"]["accuracy_short"]
    assert flat.summary["models"]["m"]["weighted_accuracy_short"] == unweighted == pytest.approx(0.5)
    assert weighted < unweighted


@pytest.mark.slow
@pytest.mark.figures
def test_reports_are_byte_identical_across_runs(tmp_path, questions):
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_predictions(tmp_path / "p.jsonl", questions)
    for run in ("one", "two"):
        evaluate_files(
            tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / f"{run}.jsonl", report_dir=tmp_path / run
        )
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    for name in REPORT_FILES:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_rewards_in_both_calling_conventions(questions):
    question = questions[0]
    record = question.to_dict()
    right = render(question.routes[0], "long", question.long_template)
    wrong_line = right.replace(question.routes[0][0].route_name, "Line Z", 1)
    completions = [right, [{"role": "assistant", "content": right}], wrong_line, "I cannot."]
    accuracy = accuracy_reward(completions, question=[record] * 4, kind=["long"] * 4)
    assert accuracy == [1.0, 1.0, 0.0, 0.0]
    assert format_reward(completions, question=[record] * 4, kind=["long"] * 4) == [1.0, 1.0, 1.0, 0.0]
    assert compute_score("reasonmap", right, json.dumps(record), {"kind": "long"}) == 1.0
    assert compute_score("reasonmap", "Route Name: X", record, {"kind": "short", "reward": "format"}) == 0.0
    with pytest.raises(ValueError, match="format"):
        compute_score("reasonmap", right, record, {"reward": "style"})
    assert set(REWARDS) == {"accuracy", "format"}


def test_rewards_accept_a_records_own_metro_data(questions):
    question = questions[0]
    record = {**question.to_dict(), "metro": city_graph(question.city).metro.to_dict()}
    text = render(question.routes[0], "short", None)
    assert accuracy_reward([text], question=[record]) == [1.0]
    assert Question.from_dict(record).id == question.id


@pytest.mark.slow
def test_a_repeated_answer_is_reported_and_the_first_counts(tmp_path, questions):
    write_jsonl(tmp_path / "q.jsonl", questions[:1])
    question = questions[0]
    right = {
        "id": question.id,
        "model": "m",
        "question": "short",
        "response": render(question.routes[0], "short", None),
    }
    wrong = {**right, "response": "I cannot."}
    write_jsonl(tmp_path / "p.jsonl", [right, wrong])
    result = evaluate_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "s", report_dir=tmp_path / "r")
    assert [v.correct for v in result.verdicts] == [1]
    assert any("again" in problem for problem in result.problems)


def test_a_kinds_figures_are_the_generic_metric_figures_to_the_bit():
    # the report reads each metric's column with one map; the generic path (MetricSpec.pairs, weighted_mean) reads
    # each verdict's pairs one by one: both must give the same bits, tokens missing and weights zero included
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchmarks.metrics import figures
    from benchmarks.reasonmap.metrics import route_metrics_of
    from benchmarks.reasonmap.records import Verdict
    from benchmarks.reasonmap.report import _kind_figures

    verdict = st.builds(
        Verdict,
        id=st.sampled_from(["q1", "q2", "q3"]),
        model=st.just("m"),
        question=st.sampled_from(["short", "long"]),
        parsed=st.none() | st.just(()),
        correct=st.integers(0, 1),
        map_score=st.floats(0, 40, allow_nan=False),
        weight=st.sampled_from([0.0, 1.0, 1.5, 2.0, 3.0, 1 / 3]),
        tokens=st.none() | st.integers(0, 5000),
    )

    @settings(max_examples=200, deadline=None)
    @given(st.lists(verdict, max_size=30), st.sampled_from(["short", "long"]))
    def check(verdicts, kind):
        found = _kind_figures(kind, verdicts)
        expected = figures(route_metrics_of(kind), verdicts)
        assert {name: found[name] for name in expected} == expected
        assert [repr(found[name]) for name in expected] == [repr(value) for value in expected.values()]
        assert found[f"n_{kind}"] == len(verdicts)

    check()
