"""What the client may keep or show of a server's text: the key redacted in every form, whole characters only,
and URLs without their secrets.

Used by :mod:`baselines.chat` on everything from the server before it is parsed, cut, stored or printed.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import re
import string
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit

__all__ = ["redact", "shown_url", "url_secrets", "whole_characters"]

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

    Parameters
    ----------
    value : Any
        A string, or lists and dicts of them (other values pass through).
    key : str
        The API key.

    Returns
    -------
    Any
        ``value`` with the key's forms redacted, of the same shape.

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

    Parameters
    ----------
    value : Any
        A string, or lists and dicts of them (other values pass through).

    Returns
    -------
    Any
        ``value`` with whole characters only, of the same shape.

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

    Parameters
    ----------
    url : str
        An endpoint URL.

    Returns
    -------
    str
        The URL without the parts that may hold a key.

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


@functools.lru_cache(maxsize=8)
def url_secrets(url: str) -> tuple[str, ...]:
    """What of ``url`` may be a credential: its user info's password and its query's values, as written and
    decoded, of 8 characters or more (a shorter one, ``api-version=1`` say, would blot out ordinary text).

    The password is never sent, but a server may echo the query (in a 404's message, say).

    Parameters
    ----------
    url
        The chat URL.

    Returns
    -------
    tuple of str
        The secrets, longest first (none is left half-shown).

    Examples
    --------
    >>> url_secrets("https://user:sk-PASSWORD@host/v1/chat/completions?api-version=1&key=sk-QUERY-KEY")
    ('sk-QUERY-KEY', 'sk-PASSWORD')
    """
    parts = urlsplit(url)
    values = [parts.password or "", *(pair.partition("=")[2] for pair in parts.query.split("&"))]
    forms = {form for value in values for form in (value, unquote_plus(value)) if len(form) >= _SHORTEST_PIECE}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))  # longest first: none left half-shown
