"""Repeats read from plain prediction files: numbered answers are all scored, unnumbered duplicates are not."""

from __future__ import annotations

import json
from pathlib import Path

from baselines.answers import render_answer
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_set, parse_quota
from graphkit.cities import city_graph
from reasonmap.evaluate import evaluate_files

MAPQA = Path(__file__).resolve().parents[1] / "benchmarks" / "mapqa" / "fixtures" / "questions.jsonl"


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def test_route_answers_numbered_by_repeat_are_each_scored_and_summarised(tmp_path):
    questions = generate_set([city_graph("rome")], seed=3, per_city=2, quota=parse_quota("1:1:0"))
    write_jsonl(tmp_path / "q.jsonl", questions)
    rows = []
    for question in questions:
        for kind in ("short", "long"):
            right = render_answer(question.routes[0], kind, question.long_template)
            rows += [
                {"id": question.id, "model": "m", "question": kind, "response": right},
                {"id": question.id, "model": "m", "question": kind, "response": "I cannot.", "repeat": 1},
            ]
    rows.append({**rows[0], "response": "I cannot."})  # no repeat: a second repeat 0, the first counts
    result = evaluate_files(
        tmp_path / "q.jsonl", _write(tmp_path / "p.jsonl", rows), out=tmp_path / "s.jsonl", report_dir=tmp_path / "r"
    )
    assert len(result.verdicts) == 8 and [p for p in result.problems if "again" in p]
    row = result.summary["models"]["m"]
    assert row["accuracy_short"] == row["accuracy_long"] == 0.5  # every repeat is a row of the headline
    # 4 requests, each right once in two answers: mean 1/2, pass@2 1, and no request agrees with itself
    assert row["repeats"]["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert row["repeats"]["consistency"] == 0.0 and row["repeats"]["n_requests"] == 4
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text("utf-8").splitlines()]
    assert sorted(row.get("repeat", 0) for row in scored) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert "| m | 2 | 50.00 | 50.00 | 100.00 | 0.00 |" in (tmp_path / "r" / "table.md").read_text("utf-8")


def test_map_qa_answers_numbered_by_repeat_are_kept_and_a_bad_repeat_is_skipped(tmp_path):
    ids = [json.loads(line)["id"] for line in MAPQA.read_text("utf-8").splitlines() if line.strip()]
    rows = [
        {"id": id, "model": "m", "response": "I cannot see it.", "repeat": repeat} for id in ids for repeat in (0, 1, 2)
    ]
    rows.append({"id": ids[0], "model": "m", "response": "A", "repeat": -1})
    result = evaluate_files(
        MAPQA, _write(tmp_path / "p.jsonl", rows), out=tmp_path / "s.jsonl", report_dir=tmp_path / "r"
    )
    assert len(result.verdicts) == 3 * len(ids)
    assert any("field 'repeat' must be a non-negative integer" in problem for problem in result.problems)
    repeats = result.summary["models"]["m"]["repeats"]
    # every answer a refusal: all wrong, every request consistent
    assert (repeats["k"], repeats["mean_at_k"], repeats["pass_at_k"]["3"], repeats["consistency"]) == (3, 0.0, 0.0, 1.0)
    assert result.summary["models"]["m"]["n_unanswered"] == 0


def test_plus_answers_numbered_by_repeat_are_each_scored(tmp_path):
    from baselines.plus_oracle import plus_oracle_predictions
    from benchmarks.plus.questions import generate_plus_set

    questions = generate_plus_set([city_graph("rome")], seed=1, per_type=1)
    write_jsonl(tmp_path / "q.jsonl", questions)
    rows = [p.to_dict() for p in plus_oracle_predictions(questions, lambda q: city_graph(q.city))]
    rows += [{**row, "response": "", "repeat": 1} for row in rows]  # a second answer, empty: wrong
    result = evaluate_files(
        tmp_path / "q.jsonl", _write(tmp_path / "p.jsonl", rows), out=tmp_path / "s.jsonl", report_dir=tmp_path / "r"
    )
    (model,) = result.summary["models"]
    repeats = result.summary["models"][model]["repeats"]
    # each question right once in two: pass@1 1/2, pass@2 1, consistency 0
    assert repeats["n_requests"] == len(questions) and repeats["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert repeats["consistency"] == 0.0 and result.summary["models"][model]["accuracy"] == 0.5
