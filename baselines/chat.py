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

import base64
import functools
import http.client
import io
import itertools
import json
import math
import random
import re
import socket
import ssl
import string
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit

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
_REDACTED = "[redacted]"
_URL_SAFE = str.maketrans("+/", "-_")
_SHORTEST_PIECE = 8  # a run of the key shorter than this is not taken for it (ordinary text holds such runs)
_SURROGATE = re.compile("[\ud800-\udfff]")
# for the rare text that lower() lengthens ("İ"): its ASCII letters alone are lowered
_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _folded(text: str) -> str:
    """``text`` lower-cased, every character in its place: the key is looked for in any case (a server may
    echo it upper-cased, or its percent-encoding as ``%2b``). A key is ASCII (it travels in an HTTP header),
    and its ASCII letters are lowered either way."""
    lowered = text.lower()  # C speed on ASCII
    return lowered if len(lowered) == len(text) else text.translate(_FOLD)


def _spellings(key: str) -> set[str]:
    """The ways a server may write ``key``: as is, JSON-escaped, percent-encoded, base64 (at each of the three
    byte alignments it may sit at inside a longer text, standard and URL-safe alphabets) and hex."""
    forms = {key, json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1]}
    forms |= {form.replace("/", "\\/") for form in forms}  # JSON may escape "/" too
    forms |= {quote(key, safe=""), quote(key), quote_plus(key), quote_plus(key, safe="/")}
    data = key.encode("utf-8")
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii")
        inside = encoded[4 if shift else 0 : -4 if (shift + len(data)) % 3 else None]  # what other bytes leave
        for form in {encoded, encoded.rstrip("="), inside} if not shift else {inside}:
            forms |= {form, form.translate(_URL_SAFE)}
    forms.add(data.hex())
    return {_folded(form) for form in forms if form}


@functools.lru_cache(maxsize=8)
def _key_ends(key: str) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The spellings of ``key`` by their first :data:`_SHORTEST_PIECE` characters, then by their last: where a
    text holds one of these pieces, a prefix (a suffix) of the key may start (end)."""
    found = []
    for cut in (slice(None, _SHORTEST_PIECE), slice(-_SHORTEST_PIECE, None)):
        by_piece: dict[str, list[str]] = {}
        for form in sorted(_spellings(key)):
            by_piece.setdefault(form[cut], []).append(form)
        found.append({piece: tuple(forms) for piece, forms in by_piece.items()})
    return found[0], found[1]


def _key_spans(text: str, key: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a spelling of ``key`` whole, or a prefix or a suffix of one of
    :data:`_SHORTEST_PIECE` characters or more, in any case of its ASCII letters: sorted, merged
    ``(start, end)`` spans."""
    by_start, by_end = _key_ends(key)
    text = _folded(text)  # the spellings are folded alike (_spellings); no character moves
    spans = []
    # str.find per piece: a few times faster than one pattern of them all
    for piece, forms in by_start.items():
        at = -1
        while (at := text.find(piece, at + 1)) >= 0:  # the longest prefix held there: none is left half-shown
            if length := max(_held(_run_on(text, at, form, 0), form) for form in forms):
                spans.append((at, at + length))
    prefixes = tuple(spans)
    for piece, forms in by_end.items():
        at = -1
        while (at := text.find(piece, at + 1)) >= 0:  # the longest suffix held there
            end = at + len(piece)
            if any(start <= at and end <= stop for start, stop in prefixes):
                continue  # the end of a key already found from its start
            if length := max(_held(_run_back(text, end, form, len(form)), form) for form in forms):
                spans.append((end - length, end))
    return _merged(spans)


def _held(length: int, form: str) -> int:
    """``length`` when that much of ``form`` counts as the key, else 0."""
    return length if length >= min(_SHORTEST_PIECE, len(form)) else 0


def _run_on(text: str, at: int, form: str, offset: int) -> int:
    """How many characters ``text`` from ``at`` and ``form`` from ``offset`` share (a binary search of slices:
    a key of thousands of characters is matched at C speed)."""
    low, high = 0, min(len(text) - at, len(form) - offset)
    if text.startswith(form[offset : offset + high], at):  # the usual case: all of it
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if text.startswith(form[offset : offset + middle], at):
            low = middle
        else:
            high = middle - 1
    return low


def _run_back(text: str, at: int, form: str, offset: int) -> int:
    """How many characters ``text`` before ``at`` and ``form`` before ``offset`` share."""
    low, high = 0, min(at, offset)
    if text.endswith(form[offset - high : offset], 0, at):
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if text.endswith(form[offset - middle : offset], 0, at):
            low = middle
        else:
            high = middle - 1
    return low


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:  # overlapping; a key right after a key is shown as two
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _redact_text(text: str, key: str) -> str:
    return _replaced(text, _key_spans(text, key))


def _replaced(text: str, spans: list[tuple[int, int]]) -> str:
    pieces = []
    done = 0
    for start, end in spans:
        pieces += [text[done:start], _REDACTED]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def redact(value: Any, key: str) -> Any:
    """``value`` with every form of ``key`` replaced by ``[redacted]``, in strings at any depth of lists and dicts.

    The forms are the key as it is, JSON-escaped, percent-encoded, in base64
    and in hex, each in any case of its ASCII letters (``SK-SECRET-TEST-KEY``,
    ``%2b``); of each, any run of 8 characters or more is taken
    for the key (a prefix, a suffix without the first characters, a piece),
    also when it runs on from one string of ``value`` into the next (a key
    split across fields). Called on every text from the server before it is
    parsed, cut, stored or printed.

    Examples
    --------
    >>> redact("auth: Bearer sk-SECRET-TEST-KEY", "sk-SECRET-TEST-KEY")
    'auth: Bearer [redacted]'
    >>> redact({"note": ["cut at sk-SECRET-TE..."], "n": 3}, "sk-SECRET-TEST-KEY")
    {'note': ['cut at [redacted]...'], 'n': 3}
    >>> redact("sk-SECRE is only 8 characters of it, sk-SECR is 7", "sk-SECRET-TEST-KEY")
    '[redacted] is only 8 characters of it, sk-SECR is 7'
    >>> redact({"response": "key: sk-SECRET", "reasoning": "-TEST-KEY"}, "sk-SECRET-TEST-KEY")
    {'response': 'key: [redacted]', 'reasoning': '[redacted]'}
    >>> redact("ECRET-TEST-KEY / c2stU0VDUkVULVRFU1QtS0VZ / 736b2d534543524554", "sk-SECRET-TEST-KEY")
    '[redacted] / [redacted] / [redacted]'
    >>> redact("YOUR KEY SK-SECRET-TEST-KEY, or sk-secret-test-key", "sk-SECRET-TEST-KEY")
    'YOUR KEY [redacted], or [redacted]'
    """
    if not key:
        return value
    if isinstance(value, str):
        return _redact_text(value, key)
    texts: list[str] = []
    _strings(value, texts)
    ends = list(itertools.accumulate(map(len, texts)))
    spans = _key_spans("".join(texts), key)
    if not spans and not _names_hold(value, key):
        return value
    shown = []
    for number, text in enumerate(texts):
        start = ends[number] - len(text)
        inside = [(max(low, start) - start, min(high, ends[number]) - start) for low, high in spans]
        shown.append(_replaced(text, [(low, high) for low, high in inside if low < high]))
    return _rebuilt(value, iter(shown), key)


def _names_hold(value: Any, key: str) -> bool:
    """Whether a name of a dict in ``value`` holds the key."""
    if isinstance(value, dict):
        return any(
            (isinstance(name, str) and _key_spans(name, key)) or _names_hold(item, key) for name, item in value.items()
        )
    if isinstance(value, list | tuple):
        return any(_names_hold(item, key) for item in value)
    return False


def _strings(value: Any, into: list[str]) -> None:
    """Every string of ``value`` but the names of dicts, in order."""
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, into)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings(item, into)


def _rebuilt(value: Any, strings: Iterator[str], key: str) -> Any:
    """``value`` with its strings taken in order from ``strings`` (see :func:`_strings`), and the names of its
    dicts redacted one by one."""
    if isinstance(value, str):
        return next(strings)
    if isinstance(value, dict):
        return {_redact_text(name, key) if isinstance(name, str) else name: _rebuilt(item, strings, key)
                for name, item in value.items()}  # fmt: skip
    if isinstance(value, list | tuple):
        return type(value)(_rebuilt(item, strings, key) for item in value)
    return value


def whole_characters(value: Any) -> Any:
    """``value`` with each lone surrogate (U+D800 to U+DFFF not part of a pair) replaced by U+FFFD, in strings
    at any depth of lists and dicts; a pair becomes the character it encodes.

    A server may send ``"\\ud83d"`` alone in its JSON: Python decodes it, but UTF-8 cannot encode it, so a row
    holding it could not be written (and every rerun would ask again and fail again).

    Examples
    --------
    >>> whole_characters({"response": "Route: \\ud83d!", "usage": ["\\ud83d\\ude00"], "n": 1})
    {'response': 'Route: \\ufffd!', 'usage': ['\\U0001f600'], 'n': 1}
    """
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        return {whole_characters(name): whole_characters(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(whole_characters(item) for item in value)
    return value


def shown_url(url: str) -> str:
    """``url`` as a message may show it: without user info (``user:key@``), query string or fragment.

    Examples
    --------
    >>> shown_url("https://user:sk-KEY@api.example.com/v1/chat/completions?api-key=sk-KEY#x")
    'https://api.example.com/v1/chat/completions'
    >>> shown_url("user:sk-KEY@host:8000/v1")
    'host:8000/v1'
    >>> shown_url("http://user:sk/KEY@host:8000/v1")
    'http://host:8000/v1'
    """
    text = url.split("#", 1)[0].split("?", 1)[0]
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "", text
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        rest = f"{authority.rpartition('@')[2]}{slash}{path}"
    elif "@" in path:  # a password holding an unescaped "/" ends the authority early: hide up to its "@"
        rest = rest.partition("@")[2]
    return f"{scheme}{separator}{rest}"


@dataclass(frozen=True, slots=True)
class Backoff:
    """When to retry: exponential backoff with deterministic jitter.

    Retry ``n`` (1, 2, ...) waits ``min(cap, base * 2**(n-1))`` scaled by a
    jitter in [0.5, 1], drawn from a generator seeded by ``seed``, the request
    key and ``n``. A ``Retry-After`` from the server is honoured instead (at
    most ``retry_after_cap`` seconds, plus up to 10 % jitter).

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
    (never shown in the repr) and the run's stop event (set: no more retries)."""

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
        for secret in _url_secrets(self.url):
            value = redact(value, secret)
        return value


@functools.lru_cache(maxsize=8)
def _url_secrets(url: str) -> tuple[str, ...]:
    """What of ``url`` may be a credential: its user info's password and its query's values, as written and
    decoded, of 8 characters or more (a shorter one, ``api-version=1`` say, would blot out ordinary text).

    The password is never sent, but a server may echo the query (in a 404's message, say)."""
    parts = urlsplit(url)
    values = [parts.password or "", *(pair.partition("=")[2] for pair in parts.query.split("&"))]
    forms = {form for value in values for form in (value, unquote_plus(value)) if len(form) >= _SHORTEST_PIECE}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))  # longest first: none left half-shown


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one request ended: a ``row`` to write (answer or error row), or ``fatal``, ``unreachable`` (the run
    must stop, ``message`` says why) or ``stopped`` (the run is stopping; nothing to write)."""

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
    (0-based) of the request's answers."""
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
