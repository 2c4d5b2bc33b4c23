"""The model client against a real HTTP server on loopback that injects faults per request.

Invariants checked throughout: every request ends with exactly one row, every
line of the prediction file is complete JSON, the scorer reads the file, and
the key never appears in anything the client writes or prints.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from baselines.client import (
    Backoff,
    EndpointRefused,
    EndpointUnreachable,
    OutputFileError,
    RunSummary,
    chat_url,
    run_requests,
)
from baselines.requests import Request
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.loading import load_questions, read_predictions
from reasonmap.cli import main
from tests.baselines.chat_server import Call, ChatServer, Reply

REPO = Path(__file__).resolve().parents[2]
FAST = Backoff(base=0.01, cap=0.05)
SECRET = "sk-test-Zq8VbXw3-do-not-leak"
FIXTURE = REPO / "tests" / "benchmarks" / "reasonmap" / "fixtures" / "official_sample.jsonl"


def make_requests(count: int, kinds: tuple[str, ...] = ("short", "long")) -> list[Request]:
    """Requests whose message text is ``"<id>/<kind>"``: the server's call key."""
    return [
        Request(str(number), kind, "text-only", ({"role": "user", "content": f"{number}/{kind}"},))
        for number in range(count)
        for kind in kinds
    ]


def read_rows(path: Path) -> list[dict]:
    """Every row of a prediction file, checking that each line is whole."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the file ends with a torn line"
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def row_keys(rows: list[dict]) -> list[tuple[str, str]]:
    return sorted((row["id"], row["question"]) for row in rows)


def ask(server: ChatServer, requests: list[Request], out: Path, **options) -> RunSummary:
    options = {"model": "m", "progress": False, "api_key": "", "backoff": FAST, "timeout": 5.0, **options}
    return run_requests(requests, endpoint=server.url, out=out, **options)


@pytest.fixture
def waits(monkeypatch) -> list[tuple[str, int, float | None, float]]:
    """Every wait the backoff policy gave the client: (request key, retry number, Retry-After, seconds).

    Tests check these, not the clock: the client sleeps on its stop event for exactly the wait it was given.
    """
    given = []
    policy = Backoff.delay

    def recorded(self, retry, *, key, retry_after=None):
        wait = policy(self, retry, key=key, retry_after=retry_after)
        given.append((key, retry, retry_after, wait))
        return wait

    monkeypatch.setattr(Backoff, "delay", recorded)
    return given


pytestmark = pytest.mark.usefixtures("no_key_from_the_environment")


# -- endpoint URL -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("http://host:8000/v1", "http://host:8000/v1/chat/completions"),
        ("http://host:8000/v1/", "http://host:8000/v1/chat/completions"),
        ("http://host:8000", "http://host:8000/v1/chat/completions"),
        ("https://api.example.com/openai/v1", "https://api.example.com/openai/v1/chat/completions"),
        ("https://h/v1/chat/completions", "https://h/v1/chat/completions"),
        ("https://h/deploy/v1?api-version=2", "https://h/deploy/v1/chat/completions?api-version=2"),
    ],
)
def test_chat_url_accepts_the_base_url_with_or_without_v1(endpoint, url):
    assert chat_url(endpoint) == url


@pytest.mark.parametrize("endpoint", ["host:8000/v1", "ftp://host/v1", "http:///v1", ""])
def test_chat_url_rejects_what_is_not_an_http_url(endpoint):
    with pytest.raises(ValueError, match="endpoint: expected an http"):
        chat_url(endpoint)


def test_the_endpoint_may_be_given_without_v1(server, tmp_path):
    requests = make_requests(2)
    summary = run_requests(requests, endpoint=server.base_url, model="m", out=tmp_path / "p.jsonl", progress=False)
    assert summary.done_now == 4 and summary.errors == 0


# -- answers ------------------------------------------------------------------------------------------------------


def test_every_request_gets_one_row_with_response_tokens_usage_and_reasoning(server, tmp_path):
    usage = {"prompt_tokens": 30, "completion_tokens": 11, "total_tokens": 41, "completion_tokens_details": {"x": 1}}
    server.script = {
        "0/short": [Reply(reasoning="think A", usage=usage)],
        "1/short": [Reply(reasoning="think B", reasoning_field="reasoning")],
        "2/short": [Reply(content=None, usage=None, finish_reason="length")],
        "3/short": [Reply(content="only answer", reasoning=None)],
    }
    out = tmp_path / "p.jsonl"
    requests = make_requests(6)
    summary = ask(server, requests, out, concurrency=3, max_tokens=64, temperature=0.0)
    assert (summary.total, summary.done_before, summary.done_now, summary.errors) == (12, 0, 12, 0)
    rows = {(row["id"], row["question"]): row for row in read_rows(out)}
    assert sorted(rows) == sorted(request.key for request in requests)
    assert rows["0", "short"]["reasoning"] == "think A"
    assert rows["0", "short"]["usage"] == usage and rows["0", "short"]["tokens"] == 11
    assert rows["1", "short"]["reasoning"] == "think B"
    assert rows["2", "short"]["response"] == "" and rows["2", "short"]["tokens"] is None
    assert rows["2", "short"]["usage"] is None and rows["2", "short"]["finish_reason"] == "length"
    assert rows["3", "short"]["reasoning"] is None
    for (number, kind), row in rows.items():
        assert row["model"] == "m" and row["mode"] == "text-only" and row["error"] is None
        assert row["attempts"] == 1 and row["latency_s"] >= 0
        if number not in {"2", "3"} or kind == "long":
            assert row["response"] == f"answer to {number}/{kind}"
    predictions, problems = read_predictions(out)
    assert problems == [] and len(predictions) == 12


def test_the_body_carries_model_messages_and_only_the_options_given(server, tmp_path):
    ask(server, make_requests(1, ("short",)), tmp_path / "a.jsonl", max_tokens=99, temperature=0.5)
    ask(server, make_requests(1, ("long",)), tmp_path / "b.jsonl")
    with_options, without = server.calls
    assert with_options.body == {
        "model": "m",
        "messages": [{"role": "user", "content": "0/short"}],
        "max_tokens": 99,
        "temperature": 0.5,
    }
    assert without.body == {"model": "m", "messages": [{"role": "user", "content": "0/long"}]}
    assert "Authorization" not in without.headers


def test_concurrency_is_bounded(server, tmp_path):
    server.default = Reply(delay=0.05)
    ask(server, make_requests(8), tmp_path / "p.jsonl", concurrency=3)
    assert 2 <= server.max_in_flight <= 3


# -- faults -------------------------------------------------------------------------------------------------------


def test_each_fault_is_retried_or_recorded_and_every_request_ends_with_one_row(server, tmp_path, waits):
    server.script = {
        "0/short": [Reply(status=429, headers={"Retry-After": "0.2"})],
        "1/short": [Reply(status=500), Reply(status=503), Reply(status=502)],
        "2/short": [Reply(delay=60.0)],  # far longer than the client's timeout (abandoned when the server stops)
        "3/short": [Reply(drop="close"), Reply(drop="reset")],
        "4/short": [Reply(body=b'{"choices": [{"mess'), Reply(body=b'{"object": "error"}')],
        "5/short": [Reply(status=400, error="prompt too long")],
        "6/short": [Reply(status=503)] * 10,
        "7/short": [Reply(status=408)],
    }
    out = tmp_path / "p.jsonl"
    requests = make_requests(8)
    # a timeout that a loaded machine's loopback answers keep well within, so only the delayed call times out
    summary = ask(server, requests, out, concurrency=8, timeout=2.0, max_retries=3)
    assert (summary.done_now, summary.errors) == (16, 2)
    rows = read_rows(out)
    assert row_keys(rows) == sorted(request.key for request in requests)
    by_key = {(row["id"], row["question"]): row for row in rows}
    expected_hits = {"0/short": 2, "1/short": 4, "2/short": 2, "3/short": 3, "4/short": 3, "5/short": 1}
    expected_hits |= {"6/short": 4, "7/short": 2}
    for key, hits in expected_hits.items():
        assert server.hits(key) == hits, key
        number, kind = key.split("/")
        assert by_key[number, kind]["attempts"] == hits
    # the waits, not the clock: one per retry, numbered from 1; the Retry-After of 0.2 s is honoured (plus at
    # most 10 % jitter); the others double from FAST's base of 0.01 s, each scaled by a jitter in [0.5, 1]
    assert sorted((key, retry) for key, retry, _, _ in waits) == sorted(
        (key, retry) for key, hits in expected_hits.items() for retry in range(1, hits)
    )
    doubling = {1: 0.01, 2: 0.02, 3: 0.04}
    for key, retry, retry_after, wait in waits:
        if key == "0/short":
            assert retry_after == 0.2 and 0.2 <= wait <= 0.2 * 1.1
        else:
            assert retry_after is None and doubling[retry] / 2 <= wait <= doubling[retry], (key, retry, wait)
    assert all(server.hits(f"{number}/long") == 1 for number in range(8))
    for number in ("0", "1", "2", "3", "4", "7"):
        assert by_key[number, "short"]["response"] == f"answer to {number}/short"
        assert by_key[number, "short"]["error"] is None
    refused = by_key["5", "short"]
    assert refused["response"] == "" and refused["tokens"] is None
    assert refused["error"] == "HTTP 400: prompt too long"
    exhausted = by_key["6", "short"]
    assert exhausted["response"] == "" and "HTTP 503" in exhausted["error"] and "after 4 attempts" in exhausted["error"]
    predictions, problems = read_predictions(out)
    assert problems == [] and len(predictions) == 16


def test_retry_after_is_capped(server, tmp_path, waits):
    server.script = {"0/short": [Reply(status=503, headers={"Retry-After": "100"})]}
    policy = Backoff(base=0.0, cap=0.0, retry_after_cap=0.2)
    ask(server, make_requests(1, ("short",)), tmp_path / "p.jsonl", backoff=policy)
    assert server.hits("0/short") == 2
    ((key, retry, retry_after, wait),) = waits
    assert (key, retry, retry_after) == ("0/short", 1, 100.0) and 0.2 <= wait <= 0.2 * 1.1


def test_retry_after_below_the_cap_is_waited_in_full(server, tmp_path, waits):
    server.script = {"0/short": [Reply(status=429, headers={"Retry-After": "0.2"})]}
    ask(server, make_requests(1, ("short",)), tmp_path / "p.jsonl", backoff=Backoff(base=0.0, cap=0.0))
    assert server.hits("0/short") == 2
    ((key, retry, retry_after, wait),) = waits
    assert (key, retry, retry_after) == ("0/short", 1, 0.2) and 0.2 <= wait <= 0.2 * 1.1


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_wrong_key_url_or_model_stops_the_run_without_error_rows(server, tmp_path, status):
    server.default = Reply(status=status, error="invalid model or key")
    out = tmp_path / "p.jsonl"
    with pytest.raises(EndpointRefused, match=f"HTTP {status}: invalid model or key"):
        ask(server, make_requests(10), out, concurrency=2)
    assert not out.exists()  # stopped before its first row: no empty file left behind
    assert server.hits() <= 2


def test_a_run_stopped_before_its_first_row_keeps_a_link_it_found_in_place(server, tmp_path):
    server.default = Reply(status=401, error="invalid model or key")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "p.jsonl"
    out.symlink_to(elsewhere / "p.jsonl")  # dangling: the user's link, not a file this run wrote
    with pytest.raises(EndpointRefused):
        ask(server, make_requests(2), out)
    assert out.is_symlink()


def test_an_unreachable_endpoint_stops_the_run(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "p.jsonl"
    with pytest.raises(EndpointUnreachable, match="cannot connect"):
        run_requests(
            make_requests(3), endpoint=f"http://127.0.0.1:{port}/v1", model="m", out=out, progress=False, backoff=FAST
        )
    assert not out.exists() and not out.with_name("p.jsonl.settings.json").exists()


def test_retries_are_shown_with_their_reason_a_line_per_reason_and_not_one_per_request(tmp_path, capfd):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(EndpointUnreachable):
        run_requests(
            make_requests(4),
            endpoint=f"http://127.0.0.1:{port}/v1",
            model="m",
            out=tmp_path / "p.jsonl",
            progress=True,
            backoff=FAST,
            max_retries=3,
            concurrency=4,
        )
    lines = [line for line in capfd.readouterr().err.replace("\r", "\n").splitlines() if "retrying:" in line]
    # four requests retried 3 times each within a second: the reason is told once, not twelve times
    assert len(lines) == 1
    assert "cannot connect" in lines[0] and "; retry 1 of 3 in " in lines[0]


def test_an_unreachable_endpoint_exits_1_as_the_readme_says(tmp_path, capsys):
    from reasonmap.cli import main

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    questions = tmp_path / "q.jsonl"
    assert main(["generate", "--city", "rome", "--per-city", "1", "--out", str(questions), "--quiet"]) == 0
    argv = ["run", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m", "--mode", "text-only"]
    code = main([*argv, "--questions", str(questions), "--out", str(tmp_path / "p.jsonl"), "--max-retries", "0"])
    assert code == 1
    assert "cannot connect" in capsys.readouterr().err


# -- the key ------------------------------------------------------------------------------------------------------


def test_the_key_is_sent_but_never_written_printed_or_raised(server, tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    leaky = json.dumps({"object": "error", "detail": f"Bearer {SECRET}"}).encode()
    server.script = {
        "0/short": [Reply(status=500, echo_headers=True)] * 3,
        "1/short": [Reply(status=400, echo_headers=True)],
        "2/short": [Reply(body=leaky)] * 3,
        "3/short": [Reply(status=503, echo_headers=True)],
    }
    out = tmp_path / "p.jsonl"
    run_requests(make_requests(4), endpoint=server.url, model="m", out=out, max_retries=1, backoff=FAST, progress=True)
    assert all(call.headers["Authorization"] == f"Bearer {SECRET}" for call in server.calls)
    rows = {(row["id"], row["question"]): row for row in read_rows(out)}
    for number in ("0", "1", "2"):
        assert "[redacted]" in rows[number, "short"]["error"]  # the server did echo it
    assert rows["3", "short"]["error"] is None

    server.script = {}
    server.default = Reply(status=401, echo_headers=True)
    with pytest.raises(EndpointRefused) as refused:
        run_requests(make_requests(5), endpoint=server.url, model="m", out=out, backoff=FAST, progress=True)
    assert "[redacted]" in str(refused.value) and SECRET not in str(refused.value)
    assert SECRET not in repr(refused.value)
    captured = capfd.readouterr()
    assert SECRET not in captured.out and SECRET not in captured.err
    assert SECRET.encode() not in out.read_bytes()


CUT_KEY = "sk-SECRET-TEST-KEY-0123456789abcdef"  # the key, long enough to be cut


def shows_key(data: bytes | str, key: str = CUT_KEY) -> bool:
    """Whether ``data`` holds the key or any cut of it of 8+ characters, as is or JSON-escaped."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return any(form[:8] in text for form in (key, json.dumps(key)[1:-1], json.dumps(key)[1:-1].replace("/", "\\/")))


@pytest.mark.parametrize("key", [CUT_KEY, "sk-proj/ab+cd\\ef/\u00e9t\u00e9-0123456789", "short7!"])
def test_redact_removes_the_key_its_cuts_and_its_json_escaped_forms(key):
    from baselines.chat import redact

    escaped = json.dumps(key)[1:-1]
    forms = {key, escaped, escaped.replace("/", "\\/"), json.dumps(key, ensure_ascii=False)[1:-1]}
    cuts = {form[:end] for form in forms for end in range(min(8, len(form)), len(form) + 1)}
    for cut in sorted(cuts):
        text = f"before Bearer {cut}... after"
        assert redact(text, key) == "before Bearer [redacted]... after", cut
    nested = {"usage": [f"x{key}y", {f"k {key}": 1}], "n": 3, "none": None}
    assert redact(nested, key) == {"usage": ["x[redacted]y", {"k [redacted]": 1}], "n": 3, "none": None}
    if len(key) > 8:  # a 7-character start is not taken for the key: ordinary text keeps it
        assert redact(key[:7] + "!", key) == key[:7] + "!"
    assert redact(f"Bearer {key}", "") == f"Bearer {key}"  # no key, nothing to hide


def test_a_key_echoed_past_the_excerpt_cut_of_an_error_body_is_redacted_before_the_cut(server, tmp_path, capfd):
    # one request per offset: the key starts anywhere from well before the 300-character cut to past it
    requests = make_requests(40, ("short",))
    server.script = lambda call: Reply(status=400, error="e" * (265 + int(call.key.split("/")[0])) + " {authorization}")
    out = tmp_path / "p.jsonl"
    summary = run_requests(
        requests, endpoint=server.url, model="m", out=out, api_key=CUT_KEY, backoff=FAST, progress=True
    )
    assert (summary.done_now, summary.errors) == (40, 40)
    assert all(call.headers["Authorization"] == f"Bearer {CUT_KEY}" for call in server.calls)  # it was sent
    rows = read_rows(out)
    assert len(rows) == 40 and all(row["error"].startswith("HTTP 400: eeee") for row in rows)
    for row in rows:  # the message is the padding, a space, then the echo; the excerpt keeps 300 characters of it
        assert ("Bearer [redacted]" in row["error"]) == (265 + int(row["id"]) + 1 + len("Bearer [redacted]") <= 300)
    assert not shows_key(out.read_bytes())
    captured = capfd.readouterr()
    assert not shows_key(captured.err) and not shows_key(captured.out)


def test_a_200_answer_echoing_the_key_keeps_none_of_it_in_response_reasoning_or_usage(server, tmp_path, capfd):
    echo = "{authorization}"
    server.default = Reply(
        content=f"Route: Line 1. (you sent {echo})",
        reasoning=f"The header was {echo}",
        usage={"completion_tokens": 5, "debug": {"auth": echo, "seen": [echo, "ok"]}},
    )
    out = tmp_path / "p.jsonl"
    summary = run_requests(
        make_requests(2), endpoint=server.url, model="m", out=out, api_key=CUT_KEY, backoff=FAST, progress=True
    )
    assert (summary.done_now, summary.errors) == (4, 0)
    for row in read_rows(out):
        assert row["response"] == "Route: Line 1. (you sent Bearer [redacted])"
        assert row["reasoning"] == "The header was Bearer [redacted]"
        assert row["usage"] == {
            "completion_tokens": 5,
            "debug": {"auth": "Bearer [redacted]", "seen": ["Bearer [redacted]", "ok"]},
        }
        assert row["tokens"] == 5
    assert not shows_key(out.read_bytes())
    captured = capfd.readouterr()
    assert not shows_key(captured.err) and not shows_key(captured.out)


def test_a_refusal_cut_past_the_key_raises_without_it(server, tmp_path, capfd):
    server.default = Reply(status=401, error="x" * 275 + " {authorization}")
    with pytest.raises(EndpointRefused) as refused:
        run_requests(make_requests(1), endpoint=server.url, model="m", out=tmp_path / "p.jsonl", api_key=CUT_KEY)
    assert "Bearer [redacted]" in str(refused.value)
    assert not shows_key(str(refused.value)) and not shows_key(repr(refused.value))
    assert not shows_key(capfd.readouterr().err)


# -- resuming -----------------------------------------------------------------------------------------------------


def test_a_second_run_asks_only_what_is_missing(server, tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(5)
    first = ask(server, requests[:4], out)
    second = ask(server, requests, out)
    third = ask(server, requests, out)
    assert (first.done_now, second.done_before, second.done_now, third.done_now) == (4, 4, 6, 0)
    assert set(server.hit_counts().values()) == {1} and server.hits() == 10
    assert row_keys(read_rows(out)) == sorted(request.key for request in requests)


def test_rows_of_another_model_are_kept_and_do_not_count(server, tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(2)
    ask(server, requests, out, model="other")
    summary = ask(server, requests, out, model="m")
    assert summary.done_before == 0 and summary.done_now == 4
    rows = read_rows(out)
    assert sorted(row["model"] for row in rows) == ["m"] * 4 + ["other"] * 4


def test_error_rows_are_final_unless_retry_errors(server, tmp_path):
    out = tmp_path / "p.jsonl"
    requests = make_requests(3)
    server.script = {"1/long": [Reply(status=400)], "2/short": [Reply(status=400)]}
    assert ask(server, requests, out).errors == 2
    assert ask(server, requests, out).done_now == 0
    server.script = {}
    server.reset()
    summary = ask(server, requests[:4], out, retry_errors=True)  # 2/short is not asked for: its error row stays
    assert (summary.done_before, summary.done_now, summary.errors) == (3, 1, 0)
    assert server.hit_counts() == {"1/long": 1}
    rows = read_rows(out)
    assert row_keys(rows) == sorted(request.key for request in requests)
    assert [row["id"] for row in rows if row["error"]] == ["2"]


@pytest.mark.parametrize(
    "tail",
    [
        b'{"id": "1", "model": "m", "question": "sho',  # cut inside the row
        b"\x00\x00\x00\x00\n",  # a complete line that is not a row
    ],
)
def test_a_torn_last_line_is_dropped_and_asked_again(server, tmp_path, tail, capsys):
    out = tmp_path / "p.jsonl"
    requests = make_requests(2, ("short",))
    ask(server, requests[:1], out)
    sound = out.read_bytes()
    out.write_bytes(sound + tail)
    summary = ask(server, requests, out, progress=True)
    assert (summary.done_before, summary.done_now) == (1, 1)
    assert f"dropped a torn last line ({len(tail)} bytes)" in capsys.readouterr().err
    rows = read_rows(out)
    assert out.read_bytes().startswith(sound)
    assert row_keys(rows) == [("0", "short"), ("1", "short")]


def test_a_whole_last_row_without_its_newline_is_kept_and_ended(server, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    requests = make_requests(3, ("short",))
    ask(server, requests[:2], out)
    sound = out.read_bytes()
    out.write_bytes(sound[:-1])  # an editor stripped the final newline
    summary = ask(server, requests, out, progress=False)
    assert (summary.done_before, summary.done_now) == (2, 1)
    assert server.hits() == 3 and "torn" not in capsys.readouterr().err
    assert out.read_bytes().startswith(sound)
    assert row_keys(read_rows(out)) == [("0", "short"), ("1", "short"), ("2", "short")]


def test_a_torn_line_is_reported_even_when_quiet(server, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(1), out)
    out.write_bytes(out.read_bytes() + b'{"id": "9", "mod')
    ask(server, make_requests(1), out, progress=False)
    assert "dropped a torn last line (16 bytes)" in capsys.readouterr().err


def test_a_bad_line_before_the_end_is_an_error_naming_the_line(server, tmp_path):
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(2), out)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2] + [b"not json\n"] + lines[2:]))
    with pytest.raises(OutputFileError, match=r"p\.jsonl: line 3: not a prediction row"):
        ask(server, make_requests(3), out)
    out.write_bytes(b'{"id": "0", "question": "short"}\n' + b"".join(lines))
    with pytest.raises(OutputFileError, match=r"line 1: missing field 'model'"):
        ask(server, make_requests(3), out)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="advisory locks are POSIX-only")
def test_a_second_writer_on_the_same_file_is_refused(server, tmp_path):
    import fcntl

    out = tmp_path / "p.jsonl"
    with open(out, "a") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        with pytest.raises(OutputFileError, match="another run is writing to this file"):
            ask(server, make_requests(1), out)
    assert ask(server, make_requests(1), out).done_now == 2


class Gate:
    """A server script that answers ``allowed`` calls, then holds the others until it is opened further.

    A run it serves cannot finish, so a test can kill it mid-run once the run has written enough rows: the test
    waits on the rows, never on a sleep.
    """

    def __init__(self, allowed: int) -> None:
        self._condition = threading.Condition()
        self._allowed = allowed
        self._answered = 0
        self._round = 0

    def __call__(self, call: Call) -> Reply:
        with self._condition:
            round_ = self._round
            # the timeout is a failsafe: a call held this long belongs to a test that has failed already
            opened = self._condition.wait_for(
                lambda: self._answered < self._allowed or self._round != round_, timeout=60
            )
            if not opened or self._round != round_:
                return Reply(drop="close")  # held for a client killed since: it never counts as answered
            self._answered += 1
        return Reply(delay=0.04)

    def open_more(self, calls: int) -> None:
        """Answer ``calls`` more calls; the calls held until now (their client was killed) are dropped."""
        with self._condition:
            self._round += 1
            self._allowed = self._answered + calls
            self._condition.notify_all()


def wait_for_rows(out: Path, rows: int, process: subprocess.Popen) -> None:
    """Return once ``out`` holds ``rows`` lines; fail if the run ends first (or, as a failsafe, after a minute)."""
    deadline = time.monotonic() + 60
    while not out.exists() or out.read_bytes().count(b"\n") < rows:
        if process.poll() is not None:
            pytest.fail(f"the run ended (exit {process.returncode}) before {out.name} held {rows} rows")
        if time.monotonic() > deadline:
            pytest.fail(f"{out.name} did not reach {rows} rows within 60 s")
        time.sleep(0.01)


@pytest.mark.slow
def test_killed_at_any_moment_and_restarted_every_answer_is_there_exactly_once(server, tmp_path):
    # each run may get a few answers more than the rows waited for, so it is killed while answers still arrive,
    # and never all of them, so it is killed before it ends
    gate = Gate(allowed=12)
    server.script = gate
    requests = make_requests(30)
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, requests)
    out = tmp_path / "p.jsonl"
    command = [sys.executable, "-m", "reasonmap.cli", "run", "--endpoint", server.url, "--model", "m"]
    command += ["--requests", str(requests_file), "--out", str(out), "--concurrency", "4", "--quiet"]
    environment = {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
    kills = 0
    for rows_before_kill, more_answers in ((8, None), (30, 30)):
        if more_answers is not None:
            gate.open_more(more_answers)
        process = subprocess.Popen(command, cwd=REPO, env=environment, stderr=subprocess.DEVNULL)
        wait_for_rows(out, rows_before_kill, process)
        process.send_signal(signal.SIGKILL)
        process.wait()
        kills += 1
        assert rows_before_kill <= out.read_bytes().count(b"\n") < len(requests)
    gate.open_more(len(requests))
    finished = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=30)
    assert finished.returncode == 0, finished.stderr
    rows = read_rows(out)
    assert row_keys(rows) == sorted(request.key for request in requests)
    assert all(row["error"] is None for row in rows)
    repeated = server.hits() - len(requests)
    assert 0 <= repeated <= 4 * kills
    assert max(server.hit_counts().values()) <= 1 + kills


# -- options ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [("concurrency", 0), ("timeout", 0), ("max_retries", -1), ("max_tokens", 0), ("model", " "), ("temperature", -1)],
)
def test_bad_options_are_named(server, tmp_path, option, value):
    with pytest.raises(ValueError, match=f"^{option}: expected"):
        ask(server, make_requests(1), tmp_path / "p.jsonl", **{option: value})
    assert not (tmp_path / "p.jsonl").exists()


def test_duplicate_requests_are_refused(server, tmp_path):
    with pytest.raises(ValueError, match=r"requests\[2\]: duplicate request id='0', question='short'"):
        ask(server, make_requests(1) + make_requests(1), tmp_path / "p.jsonl")


# -- the command line ---------------------------------------------------------------------------------------------


def test_reasonmap_run_with_a_requests_file(server, tmp_path, capsys):
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(3))
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--out", str(out)]
    assert main([*argv, "--quiet", "--max-tokens", "16"]) == 0
    assert "6 answered now (0 errors), 0 done before, 0 left, of 6 requests" in capsys.readouterr().err
    assert len(read_rows(out)) == 6 and all(call.body["max_tokens"] == 16 for call in server.calls)


def test_reasonmap_run_builds_requests_from_questions(server, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", server.url, "--model", "m", "--questions", str(FIXTURE), "--out", str(out)]
    assert main([*argv, "--mode", "text-only", "--quiet"]) == 0
    questions, _, problems = load_questions(FIXTURE)  # the fixture holds bad records too: skipped, reported
    assert questions and problems
    assert row_keys(read_rows(out)) == sorted((id, kind) for id in questions for kind in ("short", "long"))
    sent = {call.body["messages"][-1]["content"] for call in server.calls}
    assert sent == {question.text(kind) for question in questions.values() for kind in ("short", "long")}
    err = capsys.readouterr().err
    assert all(f"skipped: {problem}" in err for problem in problems)


def test_reasonmap_run_needs_a_mode_with_questions(server, tmp_path, capsys):
    argv = ["run", "--endpoint", server.url, "--model", "m", "--questions", str(FIXTURE), "--out", str(tmp_path / "p")]
    assert main(argv) == 2
    assert "--questions needs --mode" in capsys.readouterr().err


def test_requests_without_a_usable_id_are_reported_by_line_and_never_asked(server, tmp_path, capsys):
    message = [{"role": "user", "content": "text"}]
    records = [
        {"id": "a", "question": "short", "messages": message},
        {"question": "short", "messages": message},  # line 2: no id
        {"id": None, "question": "short", "messages": message},
        {"id": "  ", "question": "short", "messages": message},
        {"id": ["a"], "question": "short", "messages": message},
        {"id": 7, "question": "short", "messages": message},  # an int id names question "7", as in question files
    ]
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, records)
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    err = capsys.readouterr().err
    for number, got in [(2, "it is missing"), (3, "got None"), (4, "got '  '"), (5, "got ['a']")]:
        assert f"skipped: {requests_file}:{number}: field 'id' must be a non-empty string, {got}" in err
    assert sorted(row["id"] for row in read_rows(out)) == ["7", "a"]
    assert server.hits() == 2


@pytest.mark.parametrize("identifier", [None, "", " ", 7])
def test_a_request_made_in_code_without_a_string_id_is_refused_before_anything_is_sent(server, tmp_path, identifier):
    request = Request(identifier, "short", "text-only", ({"role": "user", "content": "x"},))
    with pytest.raises(ValueError, match=r"requests\[1\]: the id must be a non-empty string"):
        ask(server, [*make_requests(1, ("short",)), request], tmp_path / "p.jsonl")
    assert server.hits() == 0 and not (tmp_path / "p.jsonl").exists()


def test_reasonmap_run_where_every_request_failed_exits_non_zero_in_one_line(server, tmp_path, capsys):
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(12))
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--out", str(out)]
    server.default = Reply(status=400)
    assert main([*argv, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "24 answered now (24 errors)" in err and "Traceback" not in err
    assert "reasonmap run: error: not one of the 24 requests has an answer" in err
    assert main([*argv, "--quiet"]) == 1  # resumed: still nothing answered, nothing asked
    capsys.readouterr()
    server.default = Reply()
    server.script = {"0/short": [Reply(status=400)]}
    server.reset()
    assert main([*argv, "--quiet", "--retry-errors"]) == 0  # 23 answers and one error row: the run did its job
    assert "24 answered now (1 errors), 0 done before" in capsys.readouterr().err
    server.default = Reply(status=400)
    assert main([*argv, "--quiet", "--retry-errors"]) == 0  # fails again, but 23 answers are in the file


def test_reasonmap_run_against_a_closed_port_exits_non_zero_in_one_line(tmp_path, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(3))
    argv = ["run", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m", "--requests", str(requests_file)]
    assert main([*argv, "--out", str(tmp_path / "p.jsonl"), "--quiet", "--max-retries", "0"]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "error" in line]
    assert line.startswith(f"reasonmap run: error: http://127.0.0.1:{port}/v1/chat/completions: cannot connect")
