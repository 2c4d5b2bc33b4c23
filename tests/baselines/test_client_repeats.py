"""``run_requests(..., repeats=K)`` against the loopback chat server: K rows per request, resumed per repeat."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from baselines.client import Backoff, EndpointRefused, run_requests
from tests.baselines.chat_server import ChatServer, Reply
from tests.baselines.test_client import make_requests, read_rows

FAST = Backoff(base=0.01, cap=0.05)


def _pairs(rows):
    return Counter((row["id"], row["question"], row.get("repeat", 0)) for row in rows)


def test_each_request_is_asked_k_times_and_its_rows_are_numbered(tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(2)  # 4 requests
    with ChatServer() as server:
        summary = run_requests(
            requests, endpoint=server.url, model="m", out=out, repeats=3, temperature=0.7, progress=False
        )
        assert len(server.calls) == 12 and set(server.hits(f"{r.id}/{r.question}") for r in requests) == {3}
    rows = read_rows(out)
    assert _pairs(rows) == {(r.id, r.question, repeat): 1 for r in requests for repeat in range(3)}
    assert all("repeat" not in row for row in rows if row.get("repeat", 0) == 0)  # repeat 0 keeps its old bytes
    assert (summary.total, summary.done_now, summary.done_before) == (12, 12, 0)


def test_an_interrupted_run_asks_only_the_missing_request_repeat_pairs(tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(3)  # 6 requests, 2 repeats: 12 answers
    served = Counter()

    def failing_after_seven(call):  # the 8th call finds the model gone: the run stops with 7 rows kept
        served["calls"] += 1
        return Reply(status=404) if served["calls"] > 7 else Reply()

    with ChatServer(failing_after_seven) as server:
        with pytest.raises(EndpointRefused):
            run_requests(
                requests, endpoint=server.url, model="m", out=out, repeats=2, concurrency=1, backoff=FAST,
                progress=False,
            )  # fmt: skip
        first = _pairs(read_rows(out))
        assert sum(first.values()) == 7
        # one round of every request before the second round of any: all six repeat-0 answers, one repeat-1
        assert sum(repeat == 0 for _, _, repeat in first) == 6
        before = len(server.calls)
        server.script = {}  # the model is back
        summary = run_requests(requests, endpoint=server.url, model="m", out=out, repeats=2, progress=False)
        asked = {tuple(call.key.split("/")) for call in server.calls[before:]}
        assert len(server.calls) - before == 12 - 7
    done = {(id, kind) for id, kind, repeat in first if repeat == 1}
    assert asked == {(r.id, r.question) for r in requests} - done
    assert _pairs(read_rows(out)) == {(r.id, r.question, repeat): 1 for r in requests for repeat in range(2)}
    assert (summary.done_before, summary.done_now) == (7, 5)


def test_more_repeats_later_ask_only_the_new_ones(tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(2)
    with ChatServer() as server:
        run_requests(requests, endpoint=server.url, model="m", out=out, repeats=2, progress=False)
        run_requests(requests, endpoint=server.url, model="m", out=out, repeats=2, progress=False)
        assert len(server.calls) == 8  # the second run had nothing to ask
        run_requests(requests, endpoint=server.url, model="m", out=out, repeats=3, progress=False)
        assert len(server.calls) == 12
    assert max(row.get("repeat", 0) for row in read_rows(out)) == 2


@pytest.mark.parametrize("repeats", [0, -1, 1_001, True])
def test_a_repeat_count_out_of_range_is_refused_before_anything_is_written(tmp_path, repeats):
    with pytest.raises(ValueError, match="repeats: expected an integer >= 1"):
        run_requests(make_requests(1), endpoint="http://127.0.0.1:9/v1", model="m", out=tmp_path / "p", repeats=repeats)
    assert not (tmp_path / "p").exists()


def test_repeats_at_temperature_zero_are_refused_unless_forced(tmp_path):
    out = tmp_path / "p.jsonl"
    with pytest.raises(ValueError, match="at temperature 0 would be one answer 2 times"):
        run_requests(make_requests(1), endpoint="http://127.0.0.1:9/v1", model="m", out=out, repeats=2, temperature=0)
    assert not out.exists()
    with ChatServer() as server:
        summary = run_requests(
            make_requests(1), endpoint=server.url, model="m", out=out, repeats=2, temperature=0,
            force_repeats=True, progress=False,
        )  # fmt: skip
        assert summary.done_now == 4 and all(call.body["temperature"] == 0 for call in server.calls)


def test_a_row_with_a_bad_repeat_stops_the_resume_naming_the_line(tmp_path):
    out = tmp_path / "p.jsonl"
    good = {"id": "0", "question": "short", "model": "m", "response": "x"}
    out.write_text(json.dumps({**good, "repeat": "one"}) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1: not a prediction row \\(field 'repeat' must be a non-negative"):
        run_requests(make_requests(1), endpoint="http://127.0.0.1:9/v1", model="m", out=out, repeats=2)


def test_the_run_command_takes_repeats_and_refuses_them_at_temperature_zero(tmp_path, capsys):
    from benchmarks.jsonl import write_jsonl
    from reasonmap.cli import main

    requests = tmp_path / "r.jsonl"
    write_jsonl(requests, make_requests(2))
    out = tmp_path / "p.jsonl"
    with ChatServer() as server:
        given = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests), "--out", str(out)]
        assert main([*given, "--quiet", "--repeats", "2", "--temperature", "0"]) == 2
        assert "--repeats: 2 answers at temperature 0" in capsys.readouterr().err and not out.exists()
        assert main([*given, "--quiet", "--repeats", "2", "--temperature", "0.5"]) == 0
        assert len(server.calls) == 8
    assert _pairs(read_rows(out)) == {
        (str(n), kind, r): 1 for n in range(2) for kind in ("short", "long") for r in (0, 1)
    }
