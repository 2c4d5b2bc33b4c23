"""A scripted OpenAI-compatible chat server on loopback, for tests.

It speaks ``POST /v1/chat/completions`` over real HTTP (``http.server`` in a
thread, port chosen by the system) and answers each call from a script, so
tests can inject faults per request: error statuses with headers
(``429`` + ``Retry-After``), delays longer than a client's timeout, dropped or
reset connections, malformed bodies, and bodies that echo the request headers
or the ``Authorization`` header alone anywhere in the answer (to check that a
client never leaks its key).

Calls are identified by a *key*, by default the text of the last message, and
counted per key: the n-th call of a key gets the n-th scripted reply of that
key, then the default reply.

Examples
--------
>>> import json, urllib.request
>>> faults = {"q1": [Reply(status=503)]}
>>> with ChatServer(faults) as server:
...     def ask(text):
...         body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
...         request = urllib.request.Request(server.url + "/chat/completions", data=body)
...         try:
...             with urllib.request.urlopen(request, timeout=5) as response:
...                 return json.load(response)["choices"][0]["message"]["content"]
...         except urllib.error.HTTPError as error:
...             return error.code
...     ask("q1"), ask("q1"), server.hits("q1")
(503, 'answer to q1', 2)
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = ["Reply", "Call", "ChatServer", "last_message_text"]


def _default_usage() -> dict[str, int]:
    return {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}


@dataclass(frozen=True, slots=True)
class Reply:
    """What the server does with one call.

    Parameters
    ----------
    status
        HTTP status; anything but 200 sends an OpenAI-style error body.
    content
        The message content; ``None`` sends ``null``. In it, and in ``reasoning``, ``error`` and any
        string of ``usage``, ``{key}`` is replaced by the call's key and ``{authorization}`` by the
        request's ``Authorization`` header, as a server that echoes what it was sent.
    reasoning
        Reasoning text, sent in the message field ``reasoning_field`` when not ``None``.
    usage
        The ``usage`` object; ``None`` leaves it out.
    delay
        Seconds to wait before answering (the request has been read by then).
    headers
        Extra response headers, e.g. ``{"Retry-After": "0.2"}``.
    body
        Raw response body sent instead of JSON (malformed bodies).
    drop
        ``"close"`` closes the connection without a response; ``"reset"`` resets it.
    echo_headers
        Put the request headers in the response body, in the error message of an
        error reply (to test that secrets do not leak).
    error
        The message of an error reply.
    raw
        Bytes sent as they are, status line and headers included (a hand-made response), one byte every
        ``raw_pace`` seconds when that is set (a slow-loris server), until the client hangs up; the first
        ``raw_at_once`` bytes are sent at once.
    """

    status: int = 200
    content: str | None = "answer to {key}"
    reasoning: str | None = None
    reasoning_field: str = "reasoning_content"
    usage: dict[str, Any] | None = field(default_factory=_default_usage)
    finish_reason: str = "stop"
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None
    drop: Literal["close", "reset"] | None = None
    echo_headers: bool = False
    error: str = "scripted failure"
    raw: bytes | None = None
    raw_pace: float = 0.0
    raw_at_once: int = 0


@dataclass(frozen=True, slots=True)
class Call:
    """One call the server received: its key, the how-many-th call of that key, path, headers and JSON body."""

    key: str
    attempt: int
    path: str
    headers: dict[str, str]
    body: Any
    received: float


def last_message_text(body: Any) -> str:
    """The default call key: the text of the request's last message (``""`` when there is none)."""
    try:
        content = body["messages"][-1]["content"]
    except (KeyError, IndexError, TypeError):
        return ""
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


Script = Callable[[Call], Reply]


def _fill(value: Any, call: Call) -> Any:
    """``value`` with ``{key}`` and ``{authorization}`` filled in, in strings at any depth."""
    if isinstance(value, str):
        return value.replace("{key}", call.key).replace("{authorization}", call.headers.get("Authorization", ""))
    if isinstance(value, dict):
        return {name: _fill(item, call) for name, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, call) for item in value]
    return value


class ChatServer:
    """A loopback chat-completions server answering from a script.

    Parameters
    ----------
    script
        Either a mapping ``key -> [Reply, ...]`` (the n-th call of a key gets the
        n-th reply, later calls get ``default``) or a function ``Call -> Reply``.
        Can be replaced while the server runs (``server.script = ...``).
    default
        The reply once a key's scripted replies are used up (default: a plain answer).
    key
        How a call's key is taken from its JSON body (default: the last message's text).
    """

    def __init__(
        self,
        script: Mapping[str, Sequence[Reply]] | Script | None = None,
        *,
        default: Reply | None = None,
        key: Callable[[Any], str] = last_message_text,
    ) -> None:
        self.script = script if script is not None else {}
        self.default = default if default is not None else Reply()
        self._key = key
        self._lock = threading.Lock()
        self._hits: Counter[str] = Counter()
        self._calls: list[Call] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._stopping = threading.Event()
        self._raw_sent: list[int] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------------------------

    def start(self) -> ChatServer:
        """Listen on 127.0.0.1 on a free port and serve in a background thread; returns ``self``."""
        if self._httpd is not None:
            raise RuntimeError("ChatServer.start: the server is already running")
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        # stop() waits for the serving loop's next poll: every 10 ms (at 50 ms, the suite's 180-odd servers spent
        # about 4 s waiting to stop); a poll costs microseconds
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, name="chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; delayed replies still waiting are abandoned."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- what tests read -----------------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ChatServer.port: the server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no ``/v1``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL a client is given: ``http://127.0.0.1:PORT/v1``."""
        return self.base_url + "/v1"

    def hits(self, key: str | None = None) -> int:
        """Calls received for ``key``, or in all when ``key`` is ``None``."""
        with self._lock:
            return sum(self._hits.values()) if key is None else self._hits[key]

    def hit_counts(self) -> dict[str, int]:
        """Calls received per key."""
        with self._lock:
            return dict(self._hits)

    @property
    def calls(self) -> tuple[Call, ...]:
        """Every call received, in arrival order."""
        with self._lock:
            return tuple(self._calls)

    @property
    def raw_sent(self) -> tuple[int, ...]:
        """For each ``raw`` reply, how many of its bytes were written before it ended or the client hung up."""
        with self._lock:
            return tuple(self._raw_sent)

    @property
    def max_in_flight(self) -> int:
        """The most calls that were being answered at the same time."""
        with self._lock:
            return self._max_in_flight

    def reset(self) -> None:
        """Forget the calls and counts (the script stays)."""
        with self._lock:
            self._hits.clear()
            self._calls.clear()
            self._max_in_flight = self._in_flight

    # -- serving -------------------------------------------------------------------------------------------------

    def _record(self, path: str, headers: dict[str, str], body: Any) -> tuple[Call, Reply]:
        key = self._key(body)
        with self._lock:
            self._hits[key] += 1
            call = Call(key, self._hits[key], path, headers, body, time.monotonic())
            self._calls.append(call)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        script = self.script
        if callable(script):
            return call, script(call)
        replies = script.get(key, ())
        return call, replies[call.attempt - 1] if call.attempt <= len(replies) else self.default

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that go away mid-answer (killed, timed out) are expected here: stay quiet."""


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the call records instead."""

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            headers = dict(self.headers.items())
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"no route {self.path}", "code": 404}})
                return
            call, reply = server._record(self.path, headers, body)
            try:
                stopping = bool(reply.delay) and server._stopping.wait(reply.delay)
            finally:
                server._done()  # before the reply leaves: a client that has it may send its next call at once
            if not stopping:
                self._answer(call, reply)

        def _answer(self, call: Call, reply: Reply) -> None:
            if reply.drop == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                return
            if reply.drop == "close":
                self.close_connection = True
                return
            if reply.raw is not None:
                self.close_connection = True
                sent = 0
                step = 1 if reply.raw_pace else len(reply.raw)
                try:
                    if reply.raw_at_once:
                        self.wfile.write(reply.raw[: reply.raw_at_once])
                        sent = reply.raw_at_once
                    while sent < len(reply.raw):
                        if reply.raw_pace and server._stopping.wait(reply.raw_pace):
                            break
                        self.wfile.write(reply.raw[sent : sent + step])
                        self.wfile.flush()
                        sent += step
                except OSError:  # the client hung up
                    pass
                with server._lock:
                    server._raw_sent.append(sent)
                return
            if reply.body is not None:
                self._send(reply.status, reply.body, reply.headers)
                return
            if reply.status != 200:
                message = _fill(reply.error, call)
                if reply.echo_headers:  # as careless proxies do: the headers land in the message clients show
                    message += f" (request headers: {json.dumps(call.headers)})"
                error: dict[str, Any] = {"message": message, "type": "scripted", "code": reply.status}
                self._send_json(reply.status, {"error": error}, reply.headers)
                return
            message: dict[str, Any] = {
                "role": "assistant",
                "content": _fill(reply.content, call),
            }
            if reply.reasoning is not None:
                message[reply.reasoning_field] = _fill(reply.reasoning, call)
            payload: dict[str, Any] = {
                "id": f"chatcmpl-{call.attempt}",
                "object": "chat.completion",
                "model": (call.body or {}).get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            }
            if reply.usage is not None:
                payload["usage"] = _fill(reply.usage, call)
            if reply.echo_headers:
                payload["request_headers"] = call.headers
            self._send_json(200, payload, reply.headers)

        def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
            self._send(status, json.dumps(payload).encode(), headers or {})

        def _send(self, status: int, data: bytes, headers: Mapping[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler
