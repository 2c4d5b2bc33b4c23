"""``diagnose --probes``: each wrong route put down to line following or reasoning by the same model's probes."""

from __future__ import annotations

import json

from benchmarks.jsonl import write_jsonl
from benchmarks.probe.questions import generate_probe_questions
from benchmarks.reasonmap.generate import generate_questions
from graphkit.cities import city_graph
from reasonmap.cli import main


def _wrong(question, line):
    return f"Route Name: {line}\nDeparture Stop: {question.station_1}\nArrival Stop: {question.station_2}"


def test_a_failed_follow_probe_makes_a_wrong_route_a_line_following_failure(tmp_path, capsys):
    from vision.render import render_map, write_rendered

    graph = city_graph("rome")
    image, _ = write_rendered(render_map(graph, seed=1), tmp_path / "rome.png")
    questions = generate_questions(graph, seed=4, per_city=12)
    write_jsonl(tmp_path / "q.jsonl", questions)
    # one wrong answer on each line, riding a line that serves neither end (so it cannot be right)
    chosen = {}
    for line in ("Line A", "Line B", "Line C"):
        chosen[line] = next(
            q
            for q in questions
            if q not in chosen.values()
            and line not in graph.lines_at(q.station_1)
            and line not in graph.lines_at(q.station_2)
        )
    rows = [{"id": q.id, "model": "m", "question": "short", "response": _wrong(q, line)} for line, q in chosen.items()]
    refused = next(q for q in questions if q not in chosen.values())
    rows.append({"id": refused.id, "model": "m", "question": "short", "response": "I cannot see the map."})
    write_jsonl(tmp_path / "p.jsonl", rows)
    probes = generate_probe_questions(graph, per_type=9, types=["follow"])
    write_jsonl(tmp_path / "probes.jsonl", probes)
    # the model traces Line A (every follow probe right) and fails one of Line C's; Line B was never probed
    scored = [
        {
            "id": p.id,
            "model": "m",
            "correct": int(p.line == "Line A" or p is not next(x for x in probes if x.line == p.line)),
        }
        for p in probes
        if p.line != "Line B"
    ]
    write_jsonl(tmp_path / "scored.jsonl", scored)
    base = ["diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl"]
    base += ["--map", image, "--truth", "--city", "rome"]
    assert main([str(a) for a in [*base, "--out", tmp_path / "plain.jsonl"]]) == 0
    capsys.readouterr()
    more = ["--probes", tmp_path / "scored.jsonl", "--probe-questions", tmp_path / "probes.jsonl"]
    assert main([str(a) for a in [*base, *more, "--out", tmp_path / "d.jsonl"]]) == 0
    out = capsys.readouterr().out
    found = json.loads((tmp_path / "d.probes.json").read_text("utf-8"))
    by_id = {row["id"]: row for row in found["rows"]}
    assert {line: by_id[q.id]["attribution"] for line, q in chosen.items()} == {
        "Line A": "reasoning",
        "Line B": "untested",
        "Line C": "line_following",
    }
    assert by_id[chosen["Line C"].id]["failed_lines"] == ["Line C"] and refused.id not in by_id
    assert found["models"]["m"] == {"wrong": 3, "line_following": 1, "reasoning": 1, "untested": 1}
    assert "| m | 3 | 1 | 1 | 1 |" in out
    # the diagnoses themselves are as they were without the probes
    assert (tmp_path / "d.jsonl").read_bytes() == (tmp_path / "plain.jsonl").read_bytes()


def test_probes_without_their_questions_are_refused_in_one_line(tmp_path, capsys):
    argv = ["diagnose", "--questions", "q.jsonl", "--predictions", "p.jsonl", "--evidence", "e.json", "--city", "rome"]
    code = main([*argv, "--probes", str(tmp_path / "scored.jsonl"), "--out", str(tmp_path / "d.jsonl")])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "--probes and --probe-questions go together" in err
