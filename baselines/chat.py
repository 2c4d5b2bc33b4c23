"""One chat-completions request, sent until it is answered: HTTP, retries and what is kept of the answer.

The worker side of :mod:`baselines.client`, standard library only
(``http.client``, one connection per attempt, no proxy). :func:`ask` turns a
:class:`~baselines.requests.Request` into an :class:`Outcome`:

- 429 (honouring ``Retry-After``, capped), 408, 5xx, timeouts, dropped or
  reset connections, and bodies that are not a chat completion are retried
  with exponential backoff and deterministic jitter (:class:`Backoff`), up to
  ``max_retries`` times; then the request gets an error row;
- other 4xx (a prompt too long, say) get an error row at once;
- 401, 403 and 404 (wrong key, URL or model) and an endpoint that cannot be
  reached at all are ``fatal`` / ``unreachable``: the run stops, and no error
  row blames the model for them.

Error rows have ``response`` ``""`` (scored as invalid) and the reason in
``error``. Everything from the server is redacted of the key (:func:`redact`)
before it is parsed, cut, kept or shown.
"""

from __future__ import annotations

import functools
import http.client
import json
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import unquote_plus, urlsplit

from baselines.requests import Request

__all__ = [
    "RETRY_STATUSES",
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
FATAL_STATUSES = frozenset({401, 403, 404})
_EXCERPT = 300
_REDACTED = "[redacted]"
_SHORTEST_PREFIX = 8  # a cut key keeps this much of its start at least to count as the key
_SURROGATE = re.compile("[\ud800-\udfff]")


@functools.lru_cache(maxsize=8)
def _key_forms(key: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """The spellings of ``key`` a text may hold (as is or JSON-escaped), and a pattern finding their starts."""
    forms = {key, json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1]}
    forms |= {form.replace("/", "\\/") for form in forms}  # JSON may escape "/" too
    # only the starts: a pattern of every prefix takes seconds to compile for a 1,200-character key (a JWT)
    starts = sorted({form[:_SHORTEST_PREFIX] for form in forms})
    return re.compile("|".join(map(re.escape, starts))), tuple(sorted(forms))


def _cut_length(text: str, start: int, form: str) -> int:
    """How much of ``form`` ``text`` holds from ``start`` on (0 when less than its shortest cut)."""
    if text.startswith(form, start):
        return len(form)
    low, high = min(_SHORTEST_PREFIX, len(form)), len(form) - 1
    if not text.startswith(form[:low], start):
        return 0
    while low < high:  # the longest prefix held: every shorter one is held too
        middle = (low + high + 1) // 2
        if text.startswith(form[:middle], start):
            low = middle
        else:
            high = middle - 1
    return low


def _redact_text(text: str, key: str) -> str:
    starts, forms = _key_forms(key)
    pieces = []
    done = position = 0
    while found := starts.search(text, position):
        # the longest form held there: a whole key is never left half-shown
        length = max(_cut_length(text, found.start(), form) for form in forms)
        if not length:
            position = found.start() + 1
            continue
        pieces += [text[done : found.start()], _REDACTED]
        done = position = found.start() + length
    pieces.append(text[done:])
    return "".join(pieces)


def redact(value: Any, key: str) -> Any:
    """``value`` with every form of ``key`` replaced by ``[redacted]``, in strings at any depth of lists and dicts.

    The forms are the key itself (so ``Bearer <key>`` too), its JSON-escaped
    spelling, and every prefix of either of 8 or more characters: a text cut
    in the middle of the key still shows none of it. Called on every text
    from the server before it is parsed, cut, stored or printed.

    Examples
    --------
    >>> redact("auth: Bearer sk-SECRET-TEST-KEY", "sk-SECRET-TEST-KEY")
    'auth: Bearer [redacted]'
    >>> redact({"note": ["cut at sk-SECRET-TE..."], "n": 3}, "sk-SECRET-TEST-KEY")
    {'note': ['cut at [redacted]...'], 'n': 3}
    >>> redact("sk-SECRE is only 8 characters of it, sk-SECR is 7", "sk-SECRET-TEST-KEY")
    '[redacted] is only 8 characters of it, sk-SECR is 7'
    """
    if not key:
        return value
    if isinstance(value, str):
        return _redact_text(value, key)
    if isinstance(value, dict):
        return {redact(name, key): redact(item, key) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact(item, key) for item in value)
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
    """
    text = url.split("#", 1)[0].split("?", 1)[0]
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "", text
    authority, slash, path = rest.partition("/")
    return f"{scheme}{separator}{authority.rpartition('@')[2]}{slash}{path}"


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
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Backoff: {name} must be a non-negative number of seconds, got {value!r}")

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
    forms = {form for value in values for form in (value, unquote_plus(value)) if len(form) >= _SHORTEST_PREFIX}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))  # longest first: none left half-shown


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one request ended: a ``row`` to write (answer or error row), or ``fatal``, ``unreachable`` (the run
    must stop, ``message`` says why) or ``stopped`` (the run is stopping; nothing to write)."""

    kind: Literal["row", "fatal", "unreachable", "stopped"]
    request: Request
    row: dict[str, Any] | None = None
    message: str = ""


def _post(session: ChatSession, body: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One POST within ``session.timeout`` seconds in all (connect, send, wait, read)."""
    deadline = time.monotonic() + session.timeout

    def remaining() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        return left

    parts = urlsplit(session.url)
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parts.hostname, parts.port, timeout=session.timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "reasonmap-toolkit"}
    if session.api_key:
        headers["Authorization"] = f"Bearer {session.api_key}"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.connect()
        sock = connection.sock
        sock.settimeout(remaining())
        connection.request("POST", path, body=body, headers=headers)
        sock.settimeout(remaining())
        response = connection.getresponse()
        chunks = []
        while True:
            sock.settimeout(remaining())
            chunk = response.read1(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        return response.status, response.headers, b"".join(chunks)
    finally:
        connection.close()


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date); ``None`` when absent or unreadable."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


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
    except (ConnectionRefusedError, socket.gaierror) as error:
        raise _Retry(f"cannot connect: {error}", unreachable=True) from None
    except (OSError, http.client.HTTPException) as error:
        raise _Retry(f"connection failed: {type(error).__name__}: {error}") from None
    # redacted before anything reads it: an excerpt cut first could end in the middle of the key
    text = session.redact(data.decode("utf-8", errors="replace"))
    if status != 200:
        message = f"HTTP {status}: {_excerpt(text)}"
        if status in RETRY_STATUSES or status >= 500:
            raise _Retry(message, retry_after=_retry_after(headers.get("Retry-After")))
        if status in FATAL_STATUSES:
            raise _Fatal(message)
        raise _Final(message)
    try:
        return session.redact(_completion(json.loads(text)))
    except ValueError as error:
        raise _Retry(f"malformed response: {error}") from None


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
        content = "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    if content is not None and not isinstance(content, str):
        raise ValueError(f"choices[0].message.content is a {type(content).__name__}")
    usage = payload.get("usage")
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        tokens = None
    reasoning = message.get("reasoning_content")
    if reasoning is None:
        reasoning = message.get("reasoning")
    return {
        "response": content or "",
        "tokens": tokens,
        "reasoning": reasoning,
        "usage": usage,
        "finish_reason": choices[0].get("finish_reason"),
    }


def _row(request: Request, model: str, fields: dict[str, Any], attempts: int, latency: float) -> dict[str, Any]:
    # every string made encodable: one lone surrogate from the server must not keep the row from being written
    return whole_characters(
        {
            "id": request.id,
            "model": model,
            "question": request.question,
            "mode": request.mode,
            "response": fields.get("response", ""),
            "tokens": fields.get("tokens"),
            "reasoning": fields.get("reasoning"),
            "usage": fields.get("usage"),
            "finish_reason": fields.get("finish_reason"),
            "error": fields.get("error"),
            "attempts": attempts,
            "latency_s": round(latency, 3),
        }
    )


def ask(session: ChatSession, request: Request) -> Outcome:
    """Send ``request`` until it is answered, fails for good, or retries run out."""
    payload: dict[str, Any] = {"model": session.model, "messages": list(request.messages)}
    if session.max_tokens is not None:
        payload["max_tokens"] = session.max_tokens
    if session.temperature is not None:
        payload["temperature"] = session.temperature
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    key = f"{request.id}/{request.question}"
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
                if not session.stop.wait(wait):
                    continue
            if session.stop.is_set():
                return Outcome("stopped", request)
            message = session.redact(str(error))
            if error.unreachable:
                return Outcome("unreachable", request, message=message)
            fields = {"error": f"{message} (gave up after {attempts} attempts)"}
        return Outcome(
            "row", request, _row(request, session.label or session.model, fields, attempts, time.monotonic() - started)
        )
