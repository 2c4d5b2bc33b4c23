"""One chat-completions request, sent until it is answered: HTTP, retries and what is kept of the answer.

The worker side of :mod:`baselines.client`, standard library only
(``http.client``, one connection per attempt, no proxy). :func:`ask` turns a
:class:`~baselines.requests.Request` into an :class:`Outcome`:

- 429 (honouring ``Retry-After``, capped), 408, 5xx, timeouts, dropped or
  reset connections, and bodies that are not a chat completion are retried
  with exponential backoff and deterministic jitter (:class:`Backoff`), up to
  ``max_retries`` times; then the request gets an error row;
- other 4xx (a prompt too long, say) get an error row at once;
- 401, 403 and 404 (wrong key, URL or model), a TLS failure that would repeat
  (``https://`` to a plain-HTTP port, a bad certificate) and an endpoint that
  cannot be reached at all are ``fatal`` / ``unreachable``: the run stops, and
  no error row blames the model for them;
- a body over :data:`MAX_BODY_BYTES`, or an answer whose row would be over the
  readers' line cap, gets an error row at once.

One attempt has one deadline (``timeout``) for all of it: connect, send,
status line, headers, body and chunk sizes (:class:`_Deadline`). Error rows
have ``response`` ``""`` (scored as invalid) and the reason in ``error``. What
the server sends is data: an answer of any shape is an error row for its
request, never the end of the run. Everything from the server is redacted of
the key (:func:`redact`) before it is cut, kept or shown.
"""

from __future__ import annotations

import http.client
import io
import json
import math
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from baselines.redaction import redact, shown_url, url_secrets, whole_characters
from baselines.requests import Request
from benchmarks.jsonl import MAX_LINE_BYTES

__all__ = [
    "RETRY_STATUSES",
    "MAX_BODY_BYTES",
    "FATAL_STATUSES",
    "Backoff",
    "ChatSession",
    "Outcome",
    "chat_url",
    "redact",
    "shown_url",
    "whole_characters",
    "ask",
]

RETRY_STATUSES = frozenset({408, 429})
#: the largest response body read: a larger one is an error row (a row must stay under the readers' line cap)
MAX_BODY_BYTES = 32 << 20
FATAL_STATUSES = frozenset({401, 403, 404})
_EXCERPT = 300


@dataclass(frozen=True, slots=True)
class Backoff:
    """When to retry: exponential backoff with deterministic jitter.

    Retry ``n`` (1, 2, ...) waits ``min(cap, base * 2**(n-1))`` scaled by a
    jitter in [0.5, 1], drawn from a generator seeded by ``seed``, the request
    key and ``n``. A ``Retry-After`` from the server is honoured instead (at
    most ``retry_after_cap`` seconds, plus up to 10 % jitter).

    Attributes
    ----------
    base, cap : float
        The first wait and the longest, in seconds.
    retry_after_cap : float
        The longest ``Retry-After`` honoured, in seconds.
    seed : int
        Seeds the jitter.

    Examples
    --------
    >>> policy = Backoff(base=1.0, cap=8.0)
    >>> [0.5 <= policy.delay(n, key="q1") / min(8.0, 2 ** (n - 1)) <= 1.0 for n in (1, 2, 5)]
    [True, True, True]
    >>> policy.delay(3, key="q1") == policy.delay(3, key="q1")
    True
    >>> 2.0 <= policy.delay(1, key="q1", retry_after=2.0) <= 2.2
    True
    """

    base: float = 1.0
    cap: float = 30.0
    retry_after_cap: float = 60.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("base", "cap", "retry_after_cap"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
                raise ValueError(f"Backoff: {name} must be a finite number of seconds >= 0, got {value!r}")

    def delay(self, retry: int, *, key: str, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (from 1) of the request ``key``."""
        jitter = random.Random(f"{self.seed}/{key}/{retry}").random()
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_cap) * (1.0 + 0.1 * jitter)
        return min(self.cap, self.base * 2 ** (retry - 1)) * (0.5 + 0.5 * jitter)


def chat_url(endpoint: str) -> str:
    """The chat-completions URL of an OpenAI-compatible base URL.

    Parameters
    ----------
    endpoint : str
        A base URL (with or without ``/v1``) or the chat-completions URL itself.

    Returns
    -------
    str
        The chat-completions URL.

    Examples
    --------
    >>> chat_url("http://localhost:8000/v1")
    'http://localhost:8000/v1/chat/completions'
    >>> chat_url("http://localhost:8000/")
    'http://localhost:8000/v1/chat/completions'
    >>> chat_url("https://api.example.com/openai/v1/chat/completions")
    'https://api.example.com/openai/v1/chat/completions'
    """
    parts = urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            "endpoint: expected an http:// or https:// base URL such as http://host:8000/v1,"
            f" got {shown_url(endpoint)!r}"
        )
    if "@" in parts.path:
        raise ValueError(
            "endpoint: an '@' after the host (a password holding an unescaped '/'?): percent-encode it as %2F"
            f" (got {shown_url(endpoint)!r})"
        )
    try:
        _ = parts.port  # read here: a bad port is an error before anything is written
    except ValueError as error:
        raise ValueError(f"endpoint: {error} (got {shown_url(endpoint)!r})") from None
    path = parts.path.rstrip("/")
    if not path:
        path = "/v1"
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return parts._replace(path=path, fragment="").geturl()


class _Retry(Exception):
    def __init__(self, message: str, *, retry_after: float | None = None, unreachable: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.unreachable = unreachable


class _Final(Exception):
    """Not worth retrying: the request gets an error row."""


class _Fatal(Exception):
    """The whole run cannot succeed (wrong key, URL or model)."""


@dataclass(frozen=True, slots=True)
class ChatSession:
    """Everything a worker needs to ask: the chat URL (see :func:`chat_url`), model, options, the key
    (never shown in the repr) and the run's stop event (set: no more retries).

    Attributes
    ----------
    url : str
        The chat-completions URL.
    model : str
        The model asked.
    max_tokens, temperature : int or None, float or None
        The request's options (None: the server's).
    timeout : float
        Seconds a request may take.
    max_retries : int
        Retries of a request.
    backoff : Backoff
        When to retry.
    api_key : str
        The key (redacted from everything the server sends back).
    stop : threading.Event
        Set when the run stops.
    label : str
        The name written in each row (default: the model's).
    on_retry : callable or None
        Told of every retry, in one line.
    """

    url: str
    model: str
    max_tokens: int | None
    temperature: float | None
    timeout: float
    max_retries: int
    backoff: Backoff
    api_key: str = field(repr=False)
    stop: threading.Event = field(repr=False)
    #: the name written in each row (``--name``: two runs of one model kept apart); default the model's
    label: str = ""
    #: told of every retry, in one line (the key redacted): a run waiting on a server says so
    on_retry: Callable[[str], None] | None = field(default=None, repr=False, compare=False)

    def redact(self, value: Any) -> Any:
        """``value`` without this session's key, nor the secrets its URL may hold: see :func:`redact`."""
        value = redact(value, self.api_key)
        for secret in url_secrets(self.url):
            value = redact(value, secret)
        return value


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one request ended: a ``row`` to write (answer or error row), or ``fatal``, ``unreachable`` (the run
    must stop, ``message`` says why) or ``stopped`` (the run is stopping; nothing to write).

    Attributes
    ----------
    kind : {"row", "fatal", "unreachable", "stopped"}
        How it ended.
    request : Request
        The request.
    row : dict or None
        The row to write (``kind`` ``row``).
    line : bytes
        The row as written: one JSON line.
    message : str
        Why the run must stop.
    """

    kind: Literal["row", "fatal", "unreachable", "stopped"]
    request: Request
    row: dict[str, Any] | None = None
    line: bytes = b""  # the row as written: one JSON line, under the readers' cap
    message: str = ""


class _Deadline:
    """A socket whose every read and write must end by ``deadline`` (``time.monotonic()``): a server that
    dribbles its status line, headers or chunk sizes a byte at a time cannot stretch one attempt."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def _left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        self._sock.settimeout(left)
        return left

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._left()
        return self._sock.recv_into(buffer, nbytes, flags)

    def sendall(self, data: Any, flags: int = 0) -> None:
        self._left()
        self._sock.sendall(data, flags)

    def makefile(self, mode: str = "rb", *args: Any, **options: Any) -> io.BufferedReader:
        self._sock._io_refs += 1  # as socket.makefile does: closing the connection first leaves the file open
        return io.BufferedReader(socket.SocketIO(self, "rb"))  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _TooLarge(Exception):
    """The response body is over :data:`MAX_BODY_BYTES`."""


def _post(session: ChatSession, body: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One POST within ``session.timeout`` seconds in all (connect, send, status, headers, body, chunk sizes)."""
    deadline = time.monotonic() + session.timeout
    parts = urlsplit(session.url)
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parts.hostname, parts.port, timeout=session.timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "reasonmap-toolkit"}
    if session.api_key:
        headers["Authorization"] = f"Bearer {session.api_key}"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.connect()
        connection.sock = _Deadline(connection.sock, deadline)  # type: ignore[assignment]
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        if (response.length or 0) > MAX_BODY_BYTES:
            raise _TooLarge(f"a body of {response.length:,} bytes")
        chunks = []
        size = 0
        while chunk := response.read1(1 << 16):
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise _TooLarge("a longer body")
            chunks.append(chunk)
        return response.status, response.headers, b"".join(chunks)
    finally:
        connection.close()


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date); ``None`` when absent, unreadable, or not
    a finite number of seconds >= 0."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    # nan, inf or a negative number is no wait a server meant: the backoff applies
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _excerpt(text: str) -> str:
    """The readable part of an error body (already redacted), cut to a few hundred characters."""
    try:
        error = json.loads(text).get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
    except (ValueError, AttributeError):
        pass
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + "..."


def _attempt(session: ChatSession, body: bytes) -> dict[str, Any]:
    """One call; returns the completion fields or raises ``_Retry``, ``_Final`` or ``_Fatal``."""
    try:
        status, headers, data = _post(session, body)
    except TimeoutError:
        raise _Retry(f"timed out after {session.timeout:g} s") from None
    except _TooLarge as error:
        raise _Final(f"the response is too large ({error} is over {MAX_BODY_BYTES:,} bytes)") from None
    except (ssl.SSLEOFError, ssl.SSLZeroReturnError) as error:  # a connection cut during TLS: transient
        raise _Retry(f"connection failed: {type(error).__name__}: {error}") from None
    except ssl.SSLError as error:  # the same on every attempt: https to a plain-HTTP port, a bad certificate
        raise _Fatal(f"TLS failed: {error.reason or error} (is the endpoint https?)") from None
    except (ConnectionRefusedError, socket.gaierror) as error:
        raise _Retry(f"cannot connect: {error}", unreachable=True) from None
    except (OSError, http.client.HTTPException) as error:
        raise _Retry(f"connection failed: {type(error).__name__}: {error}") from None
    text = data.decode("utf-8", errors="replace")
    if status != 200:
        # redacted before anything reads it: an excerpt cut first could end in the middle of the key
        message = f"HTTP {status}: {_excerpt(session.redact(text))}"
        if status in RETRY_STATUSES or status >= 500:
            raise _Retry(message, retry_after=_retry_after(headers.get("Retry-After")))
        if status in FATAL_STATUSES:
            raise _Fatal(message)
        raise _Final(message)
    try:
        # the fields redacted together, not the body first: a key split across fields is found whole
        # every string made encodable: one lone surrogate from the server must not keep the row from being written
        return whole_characters(session.redact(_completion(json.loads(text))))
    except _SHAPES:
        pass
    # any shape the server sends is a bad answer to this request, never the end of the run; the reason is
    # told from the redacted body, as it may quote it
    try:
        whole_characters(session.redact(_completion(json.loads(session.redact(text)))))
        what = "not a chat completion"
    except _SHAPES as error:
        what = "nested too deeply" if isinstance(error, RecursionError) else str(error)
    raise _Retry(f"malformed response: {what}")


#: what reading an answer of any shape may raise
_SHAPES = (ValueError, TypeError, KeyError, AttributeError, RecursionError)


def _completion(payload: Any) -> dict[str, Any]:
    """The fields kept from a chat-completion body; ``ValueError`` when it is not one."""
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError(f"no choices in the body ({_excerpt(json.dumps(payload, ensure_ascii=False))})")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("choices[0] has no message")
    content = message.get("content")
    if isinstance(content, list):  # content parts, as some servers send
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        if not all(text is None or isinstance(text, str) for text in texts):
            raise ValueError("choices[0].message.content has a part whose text is not a string")
        content = "".join(text or "" for text in texts)
    if content is not None and not isinstance(content, str):
        raise ValueError(f"choices[0].message.content is a {type(content).__name__}")
    usage = payload.get("usage")
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        tokens = None
    reasoning = message.get("reasoning_content")
    if reasoning is None:
        reasoning = message.get("reasoning")
    # in the order a server writes them, so that a key split across them is found (see redact)
    return {
        "response": content or "",
        "reasoning": reasoning,
        "finish_reason": choices[0].get("finish_reason"),
        "tokens": tokens,
        "usage": usage,
    }


def _row(
    request: Request, model: str, fields: dict[str, Any], attempts: int, latency: float, repeat: int = 0
) -> dict[str, Any]:
    # the answer's fields are made encodable as they are read (see _attempt); an error quotes the server too
    return {
        "id": request.id,
        "model": model,
        "question": request.question,
        **({"repeat": repeat} if repeat else {}),  # absent means 0: single-answer rows keep their bytes
        "mode": request.mode,
        "response": fields.get("response", ""),
        "tokens": fields.get("tokens"),
        "reasoning": fields.get("reasoning"),
        "usage": fields.get("usage"),
        "finish_reason": fields.get("finish_reason"),
        "error": whole_characters(fields.get("error")),
        "attempts": attempts,
        "latency_s": round(latency, 3),
    }


def ask(session: ChatSession, request: Request, repeat: int = 0) -> Outcome:
    """Send ``request`` until it is answered, fails for good, or retries run out; the row is answer ``repeat``
    (0-based) of the request's answers.

    Parameters
    ----------
    session : ChatSession
        The endpoint, model, options and key.
    request : Request
        The request.
    repeat : int, optional
        Which of the request's answers this is.

    Returns
    -------
    Outcome
        A row to write (an answer or an error row), or why the run must stop.
    """
    payload: dict[str, Any] = {"model": session.model, "messages": list(request.messages)}
    if session.max_tokens is not None:
        payload["max_tokens"] = session.max_tokens
    if session.temperature is not None:
        payload["temperature"] = session.temperature
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    key = f"{request.id}/{request.question}" + (f"/{repeat}" if repeat else "")
    attempts = 0
    while True:
        attempts += 1
        started = time.monotonic()
        try:
            fields = _attempt(session, body)
        except _Fatal as error:
            return Outcome("fatal", request, message=session.redact(str(error)))
        except _Final as error:
            fields = {"error": session.redact(str(error))}
        except _Retry as error:
            if attempts <= session.max_retries and not session.stop.is_set():
                wait = session.backoff.delay(attempts, key=key, retry_after=error.retry_after)
                if session.on_retry is not None:
                    reason = session.redact(str(error))
                    session.on_retry(f"{reason}; retry {attempts} of {session.max_retries} in {wait:.1f} s")
                if not session.stop.wait(wait):
                    continue
            if session.stop.is_set():
                return Outcome("stopped", request)
            message = session.redact(str(error))
            if error.unreachable:
                return Outcome("unreachable", request, message=message)
            fields = {"error": f"{message} (gave up after {attempts} attempts)"}
        row = _row(request, session.label or session.model, fields, attempts, time.monotonic() - started, repeat)
        return Outcome("row", request, *_as_line(row))


def _as_line(row: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """``row`` and its line as written; an error row instead when the answer cannot be one line a reader takes
    (over :data:`~benchmarks.jsonl.MAX_LINE_BYTES`, or not encodable): never a row the scorer would skip."""
    try:
        line = (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        if len(line) <= MAX_LINE_BYTES:
            return row, line
        problem = f"the answer is too large to keep ({len(line):,} bytes as a row, over {MAX_LINE_BYTES:,})"
    except (ValueError, TypeError, RecursionError) as error:
        problem = f"the answer cannot be written: {'nested too deeply' if isinstance(error, RecursionError) else error}"
    row = {**row, "response": "", "tokens": None, "reasoning": None, "usage": None, "finish_reason": None}
    row["error"] = problem
    return row, (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
