"""The model client's guards: answers UTF-8 cannot hold, keys no header can carry, credentials in the endpoint,
rows of another mode or other settings, rows of the wrong shape, and long keys to redact."""

from __future__ import annotations

import json
import socket

import pytest

import baselines.client
from baselines.chat import redact
from baselines.client import EndpointRefused, EndpointUnreachable, OutputFileError, run_requests
from baselines.requests import Request
from reasonmap.cli import main
from tests.baselines.chat_server import Reply
from tests.baselines.test_client import FAST, SECRET, ask, make_requests, read_rows

pytestmark = pytest.mark.usefixtures("no_key_from_the_environment")


def settings_of(out) -> dict:
    return json.loads(out.with_name(out.name + ".settings.json").read_text(encoding="utf-8"))["runs"]


# -- answers UTF-8 cannot hold ------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_an_answer_is_replaced_and_the_row_written(server, tmp_path):
    # JSON may spell half of a surrogate pair alone; a pair split over two content parts is whole again
    body = {
        "choices": [
            {
                "message": {
                    "content": [{"type": "text", "text": "Route: \ud83d"}, {"type": "text", "text": "\ude00 x \udfff"}],
                    "reasoning_content": "lone \ud800 here",
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"completion_tokens": 4, "note": "\udc00"},
    }
    server.default = Reply(body=json.dumps(body).encode())
    assert "\\ud83d" in server.default.body.decode()  # the escape itself is sent
    out = tmp_path / "p.jsonl"
    first = ask(server, make_requests(2), out)
    assert (first.done_now, first.errors) == (4, 0)
    for row in read_rows(out):
        assert row["response"] == "Route: \U0001f600 x \ufffd"
        assert row["reasoning"] == "lone \ufffd here"
        assert row["usage"] == {"completion_tokens": 4, "note": "\ufffd"}
    again = ask(server, make_requests(2), out)
    assert (again.done_before, again.done_now, server.hits()) == (4, 0, 4)  # nothing asked twice


# -- the key ------------------------------------------------------------------------------------------------------


def test_a_key_pasted_with_its_newline_is_sent_without_it(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", f"  {SECRET}\r\n")
    run_requests(make_requests(1), endpoint=server.url, model="m", out=tmp_path / "p.jsonl", progress=False)
    assert [call.headers["Authorization"] for call in server.calls] == [f"Bearer {SECRET}"] * 2


@pytest.mark.parametrize("key", [f"{SECRET[:10]}\r\n{SECRET[10:]}", f"{SECRET}\x1b", f"{SECRET[:5]}\x7f{SECRET[5:]}"])
def test_a_key_holding_a_control_character_is_refused_without_showing_it(server, tmp_path, monkeypatch, capsys, key):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    out = tmp_path / "p.jsonl"
    with pytest.raises(ValueError, match="^OPENAI_API_KEY holds a control character$"):
        run_requests(make_requests(1), endpoint=server.url, model="m", out=out, progress=False)
    with pytest.raises(ValueError, match="^api_key holds a control character$"):
        run_requests(make_requests(1), endpoint=server.url, model="m", out=out, progress=False, api_key=key)
    argv = ["run", "--requests", str(tmp_path / "r.jsonl"), "--endpoint", server.url, "--model", "m"]
    (tmp_path / "r.jsonl").write_text(json.dumps(make_requests(1)[0].to_dict()) + "\n", encoding="utf-8")
    assert main([*argv, "--out", str(out), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "OPENAI_API_KEY holds a control character" in captured.err
    assert SECRET[:8] not in captured.err + captured.out
    assert server.hits() == 0


def test_a_worker_error_holding_the_key_is_raised_without_it(server, tmp_path, monkeypatch):
    def fails(session, request, repeat=0):  # as http.client does with a header value it refuses
        raise ValueError(f"Invalid header value b'Bearer {session.api_key}'")

    monkeypatch.setattr(baselines.client, "ask", fails)
    with pytest.raises(ValueError) as raised:
        run_requests(
            make_requests(1), endpoint=server.url, model="m", out=tmp_path / "p.jsonl", progress=False, api_key=SECRET
        )
    assert str(raised.value) == "Invalid header value b'Bearer [redacted]'"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_a_jwt_size_key_is_redacted_whole_cut_and_escaped():
    key = "eyJhbGciOiJSUzI1NiJ9." + "".join(f"{n:04d}/+_-" for n in range(147)) + ".si"
    assert len(key) == 1_200
    escaped = json.dumps(key)[1:-1].replace("/", "\\/")
    text = f"a {key} b {key[:600]}... c {escaped} d {escaped[:9]}| e {key[:7]} f"
    assert redact(text, key) == f"a [redacted] b [redacted]... c [redacted] d [redacted]| e {key[:7]} f"
    assert redact(key * 3, key) == "[redacted]" * 3


# -- credentials in the endpoint ----------------------------------------------------------------------------------


def test_user_info_and_query_of_the_endpoint_are_never_shown(server, tmp_path):
    password = "pw-SECRET-0123456789"
    server.default = Reply(status=401, error=f"bad password {password} (and user bob)")
    endpoint = server.url.replace("http://", f"http://bob:{password}@")
    with pytest.raises(EndpointRefused) as refused:
        run_requests(make_requests(1), endpoint=endpoint, model="m", out=tmp_path / "p.jsonl", progress=False)
    message = str(refused.value)
    assert message.startswith(f"{server.url}/chat/completions: HTTP 401: bad password [redacted] (and user bob)")
    assert password[:8] not in message and "bob:" not in message
    # the server echoes the query in its 404 (it routes on the path and the query): redacted there too
    with pytest.raises(EndpointRefused) as refused:
        run_requests(
            make_requests(1),
            endpoint=f"{endpoint}?api-key=QUERY-SECRET-42&v=1",
            model="m",
            out=tmp_path / "p.jsonl",
            progress=False,
        )
    message = str(refused.value)
    assert message.startswith(f"{server.url}/chat/completions: HTTP 404: no route /v1/chat/completions?api-key=[red")
    assert "QUERY-SECRET" not in message and password[:8] not in message and "&v=1" in message
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(EndpointUnreachable) as unreachable:
        run_requests(
            make_requests(1),
            endpoint=f"http://bob:{password}@127.0.0.1:{port}/v1?key=QUERY-SECRET-42",
            model="m",
            out=tmp_path / "q.jsonl",
            progress=False,
            backoff=FAST,
            max_retries=0,
        )
    assert str(unreachable.value).startswith(f"http://127.0.0.1:{port}/v1/chat/completions: cannot connect")
    assert password[:8] not in str(unreachable.value) and "QUERY-SECRET" not in str(unreachable.value)
    with pytest.raises(ValueError, match="got 'ftp://h/v1'") as refused_url:
        run_requests([], endpoint=f"ftp://bob:{password}@h/v1?key=QUERY-SECRET-42", model="m", out=tmp_path / "r")
    assert password[:8] not in str(refused_url.value)
    from baselines.chat import shown_url

    assert shown_url(f"bob:{password}@h:80/v1/x@y") == "h:80/v1/x@y"


# -- resuming: modes and settings ---------------------------------------------------------------------------------


def in_mode(requests: list[Request], mode: str) -> list[Request]:
    return [Request(request.id, request.question, mode, request.messages) for request in requests]


def test_rows_of_another_mode_under_the_same_key_are_refused(server, tmp_path):
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(2), out)
    before = out.read_bytes()
    with pytest.raises(OutputFileError, match=r"p\.jsonl holds text-only answers of m; write symbolic answers to"):
        ask(server, in_mode(make_requests(3), "symbolic"), out)
    assert out.read_bytes() == before and server.hits() == 4
    # another model's rows, or rows and requests saying no mode, are no conflict
    assert ask(server, in_mode(make_requests(2), "symbolic"), out, model="other").done_now == 4
    assert ask(server, in_mode(make_requests(3), ""), out).done_now == 2


def test_a_resumed_file_written_with_other_settings_is_refused_naming_the_option(server, tmp_path):
    out = tmp_path / "p.jsonl"
    sidecar = tmp_path / "p.jsonl.settings.json"
    ask(server, make_requests(2), out, max_tokens=64)
    assert settings_of(out) == {
        "m": {"endpoint": f"{server.url}/chat/completions", "model": "m", "name": "m", "temperature": None,
              "max_tokens": 64}
    }  # fmt: skip
    recorded, rows = sidecar.read_bytes(), out.read_bytes()
    changes = [
        ({"temperature": 0.9}, "--temperature (none), not 0.9"),
        ({"max_tokens": 65}, "--max-tokens 64, not 65"),
        ({"max_tokens": None}, "--max-tokens 64, not (none)"),
        ({"model": "m2", "name": "m"}, "--model m, not m2"),
    ]
    for change, said in changes:
        with pytest.raises(OutputFileError) as refused:
            ask(server, make_requests(3), out, **{"max_tokens": 64, **change})
        assert str(refused.value) == (
            f"{out} was written with {said}; use another --out or remove {out} and {sidecar}"
        ), change
    with pytest.raises(OutputFileError, match="--endpoint"):
        run_requests(make_requests(3), endpoint=server.url + "/other", model="m", out=out, max_tokens=64, api_key="")
    assert (sidecar.read_bytes(), out.read_bytes(), server.hits()) == (recorded, rows, 4)
    # how fast or how stubbornly it asks is no setting of the answers; nor is the endpoint's spelling
    endpoint = server.url.replace("http://", "http://u:p@").removesuffix("/v1")
    summary = run_requests(make_requests(3), endpoint=endpoint, model="m", out=out, max_tokens=64, concurrency=1,
                           timeout=9.0, max_retries=0, progress=False, api_key="")  # fmt: skip
    assert summary.done_now == 2 and sidecar.read_bytes() == recorded
    # another model name keeps its own settings in the same file
    ask(server, make_requests(1), out, model="m", name="hot", temperature=0.9)
    assert settings_of(out)["hot"]["temperature"] == 0.9 and settings_of(out)["m"]["max_tokens"] == 64


def test_a_file_without_settings_resumes_as_before_and_is_given_them(server, tmp_path):
    out = tmp_path / "p.jsonl"
    sidecar = tmp_path / "p.jsonl.settings.json"
    ask(server, make_requests(2), out)
    sidecar.unlink()  # as older versions left it
    summary = ask(server, make_requests(2), out, temperature=0.9)
    assert (summary.done_before, summary.done_now) == (4, 0)
    assert settings_of(out)["m"]["temperature"] == 0.9
    sidecar.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(OutputFileError, match=r"p\.jsonl\.settings\.json: not the settings of a prediction file"):
        ask(server, make_requests(2), out, temperature=0.9)


def test_a_cli_run_of_another_mode_into_one_file_is_refused(server, tmp_path, capsys):
    requests = tmp_path / "r.jsonl"
    out = tmp_path / "p.jsonl"
    for mode in ("text-only", "symbolic"):
        requests.write_text(
            "".join(json.dumps(r.to_dict()) + "\n" for r in in_mode(make_requests(2), mode)), encoding="utf-8"
        )
        code = main(["run", "--requests", str(requests), "--endpoint", server.url, "--model", "m", "--out", str(out),
                     "--quiet"])  # fmt: skip
    assert code == 2 and server.hits() == 4
    assert f"{out} holds text-only answers of m; write symbolic answers to another file" in capsys.readouterr().err


# -- rows of the wrong shape --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"), [("question", ["short"]), ("id", ["0"]), ("model", {"m": 1}), ("id", True), ("mode", 3)]
)
def test_a_row_whose_key_is_of_the_wrong_type_is_an_error_naming_its_line(server, tmp_path, field, value):
    out = tmp_path / "p.jsonl"
    ask(server, make_requests(2), out)
    lines = out.read_bytes().splitlines(keepends=True)
    bad = json.loads(lines[1]) | {field: value}
    out.write_bytes(lines[0] + json.dumps(bad).encode() + b"\n" + b"".join(lines[2:]))
    with pytest.raises(OutputFileError, match=rf"p\.jsonl: line 2: not a prediction row \(field '{field}' must be"):
        ask(server, make_requests(2), out)
