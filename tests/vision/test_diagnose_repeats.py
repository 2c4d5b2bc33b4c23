"""The diagnosis labels every numbered answer to a request (repeated sampling), not only the first."""

from __future__ import annotations

import json

from baselines.answers import render_answer
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_set, parse_quota
from graphkit.cities import city_graph
from vision.diagnosis_report import diagnose_files


def test_each_repeat_is_diagnosed_and_an_unnumbered_duplicate_is_reported(tmp_path):
    graph = city_graph("rome")
    (question,) = generate_set([graph], seed=5, per_city=1, quota=parse_quota("1:0:0"))
    write_jsonl(tmp_path / "q.jsonl", [question])
    right = render_answer(question.routes[0], "short", None)
    rows = [
        {"id": question.id, "model": "m", "question": "short", "response": right},
        {"id": question.id, "model": "m", "question": "short", "response": "I cannot tell.", "repeat": 1},
        {"id": question.id, "model": "m", "question": "short", "response": "I cannot tell."},  # repeat 0 again
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = diagnose_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", None, lambda q: graph, out=tmp_path / "d.jsonl")
    assert [(d.repeat, d.category) for d in run.diagnoses] == [(0, "correct"), (1, "other")]
    assert any("answered" in problem and "again" in problem for problem in run.problems)
    written = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text("utf-8").splitlines()]
    assert "repeat" not in written[0] and written[1]["repeat"] == 1
