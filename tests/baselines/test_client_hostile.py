"""The model client against a hostile endpoint and hostile options: every wait has a deadline, what the server
sends is data (never the end of the run, never the key), every option is checked first, signals end in one line,
and the prediction file is read with a line cap and written straight through to streams."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest

import baselines.chat
import baselines.client
from baselines.chat import _retry_after, redact
from baselines.client import EndpointRefused, OutputFileError, run_requests
from benchmarks.jsonl import write_jsonl
from reasonmap.cli import main
from tests.baselines.chat_server import ChatServer, Reply
from tests.baselines.test_client import FAST, REPO, ask, make_requests, read_rows

KEY = "sk-ADV+TEST/7f3a9c2e=1b5d4a8f6e0c9b7a"  # the hostile report's key, with characters URLs escape


pytestmark = pytest.mark.usefixtures("no_key_from_the_environment")


def completion(content: object) -> bytes:
    return json.dumps({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]}).encode()


# -- every wait has a deadline ------------------------------------------------------------------------------------


ANSWER = completion("slow but whole")
SLOW = {
    # the status line, then a long header a byte at a time: each read is quick, the whole is not
    "headers": b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 400 + b"\r\nContent-Length: %d\r\n\r\n" % len(ANSWER) + ANSWER,
    # chunked, with a chunk-size line of 400 leading zeros dribbled a byte at a time
    "chunk-size": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"0" * 400
    + b"%x\r\n" % len(ANSWER)
    + ANSWER
    + b"\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("case", sorted(SLOW))
def test_a_slow_loris_server_cannot_stretch_a_request_past_its_timeout(server, tmp_path, case):
    # a whole answer, sent a byte every 0.05 s (about 25 s): a timeout per read would wait for all of it; the
    # timeout of 1 s bounds the whole request, so the client hangs up long before the end (no clock is read)
    at_once = SLOW[case].index(b"\r\n\r\n") + 4 if case == "chunk-size" else 0  # the headers, then the dribble
    server.default = Reply(raw=SLOW[case], raw_pace=0.05, raw_at_once=at_once)
    out = tmp_path / "p.jsonl"
    summary = ask(server, make_requests(1, ("short",)), out, timeout=1.0, max_retries=0)
    assert (summary.done_now, summary.errors) == (1, 1)
    (row,) = read_rows(out)
    assert row["error"] == "timed out after 1 s (gave up after 1 attempts)"
    server.stop()  # the handler ends and records what it sent
    for _ in range(200):
        if server.raw_sent:
            break
        time.sleep(0.05)
    (sent,) = server.raw_sent
    assert sent < len(SLOW[case]) // 2


def test_a_body_over_the_size_limit_is_an_error_row_not_read_whole(server, tmp_path, monkeypatch):
    monkeypatch.setattr(baselines.chat, "MAX_BODY_BYTES", 10_000)
    big = completion("x" * 20_000)
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(big) + big + b"\r\n0\r\n\r\n"
    server.script = {"0/short": [Reply(body=big)], "1/short": [Reply(raw=chunked)]}
    out = tmp_path / "p.jsonl"
    summary = ask(server, make_requests(3, ("short",)), out, max_retries=3)
    assert (summary.done_now, summary.errors) == (3, 2)
    rows = {row["id"]: row for row in read_rows(out)}
    assert rows["0"]["error"] == f"the response is too large (a body of {len(big):,} bytes is over 10,000 bytes)"
    assert rows["1"]["error"] == "the response is too large (a longer body is over 10,000 bytes)"
    assert rows["0"]["attempts"] == rows["1"]["attempts"] == 1  # not retried: it would be as large again
    assert rows["2"]["error"] is None


def test_an_answer_too_large_for_a_row_is_an_error_row_the_reader_takes(server, tmp_path, monkeypatch):
    monkeypatch.setattr(baselines.chat, "MAX_LINE_BYTES", 5_000)
    server.script = {"0/short": [Reply(content="y" * 8_000)]}
    out = tmp_path / "p.jsonl"
    summary = ask(server, make_requests(2, ("short",)), out)
    assert (summary.done_now, summary.errors) == (2, 1)
    rows = {row["id"]: row for row in read_rows(out)}
    assert rows["0"]["response"] == "" and rows["0"]["error"].startswith("the answer is too large to keep (")
    assert all(len(line) <= 5_000 for line in out.read_bytes().splitlines())


def test_https_to_a_plain_http_port_stops_the_run_at_once(server, tmp_path):
    out = tmp_path / "p.jsonl"
    endpoint = server.url.replace("http://", "https://")
    with pytest.raises(EndpointRefused, match=r"TLS failed: .*\(is the endpoint https\?\)"):
        run_requests(make_requests(6), endpoint=endpoint, model="m", out=out, progress=False, backoff=FAST)
    assert not out.exists()  # no error rows to block the rerun with the right URL


@pytest.mark.parametrize("value", ["nan", "-5", "-inf", "inf", "1e400"])
def test_a_retry_after_that_is_not_a_finite_wait_falls_back_to_the_backoff(server, tmp_path, value, monkeypatch):
    assert _retry_after(value) is None
    given = []
    policy = baselines.chat.Backoff.delay

    def recorded(self, retry, *, key, retry_after=None):
        given.append(retry_after)
        return policy(self, retry, key=key, retry_after=retry_after)

    monkeypatch.setattr(baselines.chat.Backoff, "delay", recorded)
    server.script = {"0/short": [Reply(status=429, headers={"Retry-After": value})] * 2}
    ask(server, make_requests(1, ("short",)), tmp_path / "p.jsonl")
    assert given == [None, None]  # each wait was the backoff's, none was 0 s


def test_finite_retry_after_values_are_still_honoured():
    assert (_retry_after("2"), _retry_after("0"), _retry_after(" 1.5 ")) == (2.0, 0.0, 1.5)


# -- what the server sends is data --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        completion([{"type": "text", "text": 5}]),
        completion([{"type": "text", "text": ["a"]}, {"text": "b"}]),
        b'{"choices": [{"message": {"content": "ok"}}], "usage": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["int-text", "list-text", "deep-usage", "deep-body"],
)
def test_any_answer_shape_is_an_error_row_and_the_run_goes_on(server, tmp_path, body):
    server.script = {"0/short": [Reply(body=body)]}
    out = tmp_path / "p.jsonl"
    summary = ask(server, make_requests(4, ("short",)), out, max_retries=0)
    assert (summary.done_now, summary.errors) == (4, 1)
    rows = {row["id"]: row for row in read_rows(out)}
    assert rows["0"]["error"].startswith("malformed response: ")
    assert [rows[str(n)]["response"] for n in (1, 2, 3)] == [f"answer to {n}/short" for n in (1, 2, 3)]


def test_a_usage_nested_just_under_the_decoder_limit_is_still_a_row(server, tmp_path):
    # json decodes it; redaction and encoding of the row must not end the run either
    usage = b"[" * 900 + b"]" * 900
    server.script = {"0/short": [Reply(body=b'{"choices": [{"message": {"content": "ok"}}], "usage": ' + usage + b"}")]}
    out = tmp_path / "p.jsonl"
    summary = ask(server, make_requests(2, ("short",)), out, max_retries=0, api_key=KEY)
    assert summary.done_now == 2
    assert len(read_rows(out)) == 2


ENCODED = {
    "whole": KEY,
    "suffix": KEY[3:],
    "last-12": KEY[-12:],
    "percent": quote(KEY, safe=""),
    "percent-plus": quote(KEY).replace("%2B", "%2b"),
    "base64": base64.b64encode(KEY.encode()).decode(),
    "base64-shifted": base64.b64encode(b"key=" + KEY.encode()).decode(),
    "base64-url": base64.urlsafe_b64encode(KEY.encode()).decode(),
    "hex": KEY.encode().hex(),
    "HEX": KEY.encode().hex().upper(),
    "json": json.dumps(KEY)[1:-1].replace("/", "\\/"),
    # a server that changes the case of what it echoes (campaign 3: SK-ADV+TEST/... was stored and printed)
    "upper": KEY.upper(),
    "lower": KEY.lower(),
    "swapped-suffix": KEY[3:].swapcase(),
    "percent-upper": quote(KEY.upper(), safe=""),
}


# what must not be shown of each: in base64 after other bytes, the groups mixing them with the key's may stay
SHOWN = {**ENCODED, "base64-shifted": ENCODED["base64-shifted"][8:-4]}


def shows_key(text: str) -> bool:
    """Whether ``text`` holds 8 characters in a row of any form of the key, in any case."""
    text = text.lower()
    return any(form.lower()[at : at + 8] in text for form in SHOWN.values() for at in range(len(form) - 7))


@pytest.mark.parametrize("form", sorted(ENCODED))
def test_the_key_echoed_in_a_401_is_redacted_in_every_encoding(server, tmp_path, form, capsys):
    server.default = Reply(status=401, error=f"invalid key {ENCODED[form]} (check it)")
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(1))
    argv = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--quiet"]
    os.environ["OPENAI_API_KEY"] = KEY
    try:
        assert main([*argv, "--out", str(tmp_path / "p.jsonl")]) == 2
    finally:
        del os.environ["OPENAI_API_KEY"]
    err = capsys.readouterr().err
    assert "invalid key " in err and "[redacted]" in err and not shows_key(err)


@pytest.mark.parametrize("form", sorted(ENCODED))
def test_the_key_in_a_200_answer_is_not_stored_in_any_encoding(server, tmp_path, form):
    server.default = Reply(content=f"your key is {ENCODED[form]} ok", reasoning=f"I saw {ENCODED[form]}")
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(1, ("short",)), out, api_key=KEY)
    (row,) = read_rows(out)
    assert row["response"].startswith("your key is ") and row["reasoning"].startswith("I saw ")
    assert "[redacted]" in row["response"] and "[redacted]" in row["reasoning"]
    assert not shows_key(out.read_text(encoding="utf-8"))


def test_the_key_split_across_fields_is_not_stored(server, tmp_path):
    body = {
        "choices": [
            {
                "message": {"content": f"part1:{KEY[:13]}", "reasoning_content": KEY[13:20]},
                "finish_reason": KEY[20:],
            }
        ]
    }
    server.default = Reply(body=json.dumps(body).encode())
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(1, ("short",)), out, api_key=KEY)
    (row,) = read_rows(out)
    assert (row["response"], row["reasoning"], row["finish_reason"]) == ("part1:[redacted]", "[redacted]", "[redacted]")


def test_ordinary_text_and_pieces_under_8_characters_are_kept():
    assert redact("the route takes Line 1, then Line 2b", KEY) == "the route takes Line 1, then Line 2b"
    assert redact(f"{KEY[:7]} and {KEY[-7:]}", KEY) == f"{KEY[:7]} and {KEY[-7:]}"


# -- every option is checked at the start -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--timeout", "inf", "--timeout: expected a number of seconds > 0 and <= 86400, got inf"),
        ("--timeout", "1e300", "--timeout: expected a number of seconds > 0 and <= 86400, got 1e+300"),
        ("--temperature", "inf", "--temperature: expected a number >= 0 and <= 100 or None, got inf"),
        ("--concurrency", "99999999999999999999", "--concurrency: expected an integer >= 1 and <= 10,000, got"),
        ("--max-retries", "1000000", "--max-retries: expected an integer >= 0 and <= 1,000, got 1000000"),
        ("--pixel-budget", "-100", "--pixel-budget: expected pixels >= 4,096 and <= 300,000,000, got -100"),
        ("--pixel-budget", "0", "--pixel-budget: expected pixels >= 4,096 and <= 300,000,000, got 0"),
    ],
)
def test_an_option_out_of_range_is_one_line_and_exit_2_before_anything_is_asked(
    server, tmp_path, capsys, flag, value, message
):
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(1))
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--out", str(out)]
    assert main([*argv, "--quiet", flag, value]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"reasonmap run: error: {message}")
    assert server.hits() == 0 and not out.exists()


def test_vdi_refuses_a_budget_out_of_range_before_anything_is_asked(server, tmp_path, capsys):
    argv = ["vdi", "--endpoint", server.url, "--model", "m", "--questions", str(tmp_path / "none.jsonl")]
    assert main([*argv, "--out", str(tmp_path / "v"), "--budgets", "128,99999999999999999999"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "reasonmap vdi: error: budgets: expected integers >= 1 and <= 1,000,000 separated by commas,"
        " got '99999999999999999999'"
    )
    assert server.hits() == 0 and not (tmp_path / "v").exists()


def test_vdi_refuses_an_infinite_timeout_before_reading_the_questions(server, tmp_path, capsys):
    argv = ["vdi", "--endpoint", server.url, "--model", "m", "--questions", str(tmp_path / "none.jsonl")]
    assert main([*argv, "--out", str(tmp_path / "v"), "--timeout", "inf"]) == 2
    assert capsys.readouterr().err.startswith("reasonmap vdi: error: --timeout: expected")


def test_an_endpoint_password_holding_a_slash_is_refused_and_never_written(tmp_path, capsys):
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(1))
    out = tmp_path / "p.jsonl"
    endpoint = "http://user:sk/PASSWORDSECRET123@127.0.0.1:9/v1"
    assert (
        main(["run", "--endpoint", endpoint, "--model", "m", "--requests", str(requests_file), "--out", str(out)]) == 2
    )
    err = capsys.readouterr().err
    assert "PASSWORDSECRET" not in err and "percent-encode it as %2F" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["requests.jsonl"]  # no settings, no rows


def test_a_dead_endpoint_exits_1_and_leaves_no_empty_output(tmp_path, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(2))
    out = tmp_path / "p.jsonl"
    argv = ["run", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m", "--requests", str(requests_file)]
    assert main([*argv, "--out", str(out), "--quiet", "--max-retries", "0"]) == 1
    assert "cannot connect" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["requests.jsonl"]


# -- resuming with a line cap -------------------------------------------------------------------------------------


def test_a_row_over_the_line_cap_before_the_end_is_refused_naming_its_line(server, tmp_path, monkeypatch):
    monkeypatch.setattr(baselines.client, "MAX_LINE_BYTES", 1_000)
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(2), out)
    lines = out.read_bytes().splitlines(keepends=True)
    huge = json.dumps({"id": "9", "model": "m", "question": "short", "response": "z" * 30_000}).encode() + b"\n"
    out.write_bytes(lines[0] + huge + b"".join(lines[1:]))
    with pytest.raises(OutputFileError, match=r"p\.jsonl: line 2: not a prediction row \(longer than 1,000 bytes\)"):
        ask(server, make_requests(2), out)


def test_a_torn_last_line_over_the_line_cap_is_dropped(server, tmp_path, monkeypatch):
    monkeypatch.setattr(baselines.client, "MAX_LINE_BYTES", 1_000)
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(1), out)
    sound = out.read_bytes()
    out.write_bytes(sound + b'{"id": "9", "response": "' + b"z" * 30_000)
    summary = ask(server, make_requests(1), out)
    assert summary.done_before == 2 and out.read_bytes() == sound


# -- outputs that are streams -------------------------------------------------------------------------------------


def run_argv(server: ChatServer, tmp_path: Path, out: str, count: int = 2) -> list[str]:
    requests_file = tmp_path / "requests.jsonl"
    write_jsonl(requests_file, make_requests(count))
    return ["run", "--endpoint", server.url, "--model", "m", "--requests", str(requests_file), "--out", out, "--quiet"]


def test_out_dash_writes_the_rows_to_standard_output(server, tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    assert main(run_argv(server, tmp_path, "-")) == 0
    rows = [json.loads(line) for line in capfd.readouterr().out.splitlines()]
    assert sorted((row["id"], row["question"]) for row in rows) == [
        (str(n), q) for n in range(2) for q in ("long", "short")
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["requests.jsonl"]  # no file named '-'


def test_out_dev_null_is_written_straight_through(server, tmp_path, capsys):
    assert main(run_argv(server, tmp_path, "/dev/null")) == 0
    assert "4 answered now (0 errors)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX-only")
def test_out_fifo_is_written_straight_through(server, tmp_path):
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert main(run_argv(server, tmp_path, str(fifo), count=3)) == 0
    reader.join(timeout=30)
    assert len(received[0].splitlines()) == 6


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_out_dev_full_names_the_file(server, tmp_path, capsys):
    assert main(run_argv(server, tmp_path, "/dev/full")) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "reasonmap run: error: /dev/full: no space left on device"


# -- signals and closed streams (real processes) ------------------------------------------------------------------


def command(*arguments: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from reasonmap.cli import main; sys.exit(main())", *arguments]


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": ""}


@pytest.mark.parametrize(
    ("signum", "status", "name"), [(signal.SIGINT, 130, "Ctrl-C (SIGINT)"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_a_signal_ends_run_with_one_line_and_its_status(server, tmp_path, signum, status, name):
    server.default = Reply(delay=0.3)
    server.script = {"0/short": [Reply()], "0/long": [Reply()]}
    out = tmp_path / "p.jsonl"
    argv = run_argv(server, tmp_path, str(out), count=40)
    process = subprocess.Popen(
        command(*argv, "--concurrency", "1"), env=environment(), stderr=subprocess.PIPE, text=True
    )
    try:
        for _ in range(600):  # until the first answers are on disk (polled: no clock is asserted)
            if out.exists() and out.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.05)
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == status
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (
        f"reasonmap run: interrupted by {name}; every answer written so far is kept;"
        " run the same command again to resume (it asks only what is missing)"
    )
    assert len(read_rows(out)) >= 2


def test_a_closed_stderr_does_not_stop_run(server, tmp_path):
    out = tmp_path / "p.jsonl"
    argv = run_argv(server, tmp_path, str(out))
    argv.remove("--quiet")  # the progress bar has nowhere to go: it must not crash
    done = subprocess.run(["bash", "-c", '"$@" 2>&-', "bash", *command(*argv)], env=environment(), timeout=120)
    assert done.returncode == 0 and len(read_rows(out)) == 4


def test_a_closed_stdout_is_one_line_for_out_dash(server, tmp_path):
    argv = run_argv(server, tmp_path, "-")
    done = subprocess.run(
        ["bash", "-c", '"$@" >&-', "bash", *command(*argv)], env=environment(), timeout=120, capture_output=False,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "reasonmap run: error: standard output: cannot be written (standard output is closed)"
    ]


def test_ssl_errors_that_repeat_are_fatal_and_cut_connections_are_not():
    assert issubclass(ssl.SSLEOFError, ssl.SSLError)  # the order of the client's except clauses relies on it


@pytest.mark.parametrize(("raised", "status"), [(KeyboardInterrupt, 130), (SystemExit, None)])
def test_an_interrupted_command_that_does_not_resume_says_its_outputs_are_whole(monkeypatch, capsys, raised, status):
    import reasonmap.graph_commands

    def interrupted(args):
        raise raised

    monkeypatch.setattr(reasonmap.graph_commands, "cmd_cities", interrupted)
    if status is None:  # anything else than a signal is not taken for one
        with pytest.raises(SystemExit):
            main(["cities"])
        return
    assert main(["cities"]) == status
    assert capsys.readouterr().err.splitlines() == [
        "reasonmap cities: interrupted by Ctrl-C (SIGINT); files are written whole or not at all, so earlier"
        " outputs are untouched; run the same command again to redo it"
    ]
