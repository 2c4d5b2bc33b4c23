"""Writing a report's files: the summary as sorted, indented JSON and its tables as text, each atomically.

One writer for every report (scores of each task, evaluation results, VDI,
diagnosis), so the same numbers always give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphkit.files import atomic_writer

__all__ = ["summary_json", "write_summary", "write_text"]

#: What :func:`summary_json` lays out: ``json.dumps`` with these options, and a final newline.
_OPTIONS = {"ensure_ascii": False, "indent": 2, "sort_keys": True}
_INDENT = " " * _OPTIONS["indent"]
# the values the writer encodes itself; anything else (another type, a key that is no string, a cycle) leaves the
# whole summary to json.dumps, so that its output or its error is what the caller gets
_LEAVES = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})


class _Unusual(Exception):
    """A value the writer leaves to ``json.dumps``."""


def summary_json(summary: Mapping[str, Any]) -> str:
    """The summary as the report writes it: keys sorted, indented, non-ASCII kept, a final newline.

    The bytes are ``json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True)``'s. That call runs
    the standard library's pure-Python encoder (an indent turns its C encoder off), one generator step per
    value: a 40-model report took a fifth of a second. Here each container of plain values (most of a
    summary: every interval, every failure count), and each run of plain values between a dictionary's
    containers, is one call of the C encoder, whose item separator carries the newline and indent of its
    depth; only the containers around them are laid out in Python.

    >>> summary_json({"b": 1, "a": "é"})
    '{\\n  "a": "é",\\n  "b": 1\\n}\\n'
    >>> print(summary_json({"rows": [{"n": 2, "x": [1.5, None]}, {}], "nan": float("nan")}), end="")
    {
      "nan": NaN,
      "rows": [
        {
          "n": 2,
          "x": [
            1.5,
            null
          ]
        },
        {}
      ]
    }
    """
    try:
        return _laid_out(summary, 0) + "\n"
    except (_Unusual, RecursionError):
        return json.dumps(summary, **_OPTIONS) + "\n"


@lru_cache(maxsize=64)
def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The C encoder of a container of plain values at ``depth``: its items on lines indented one level deeper."""
    return json.JSONEncoder(
        ensure_ascii=False, sort_keys=True, separators=(",\n" + _INDENT * (depth + 1), ": "), check_circular=False
    )


_leaf = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def _laid_out(value: Any, depth: int) -> str:
    """``value`` as ``json.dumps(value, **_OPTIONS)`` lays it out when it starts at indent level ``depth``."""
    kind = type(value)
    if kind in _LEAVES:
        return _leaf(value)
    if kind not in _CONTAINERS:
        raise _Unusual
    if not value:
        return "{}" if kind is dict else "[]"
    inner = "\n" + _INDENT * (depth + 1)
    close = "\n" + _INDENT * depth
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise _Unusual
        encode = _flat_encoder(depth).encode
        parts, run = [], {}
        for key, item in sorted(value.items()):
            if type(item) in _LEAVES:
                run[key] = item
                continue
            if run:  # the plain items before this one, in one call
                parts.append(encode(run)[1:-1])
                run = {}
            parts.append(_leaf(key) + ": " + _laid_out(item, depth + 1))
        if run:
            parts.append(encode(run)[1:-1])
        return "{" + inner + ("," + inner).join(parts) + close + "}"
    if all(type(item) in _LEAVES for item in value):
        return "[" + inner + _flat_encoder(depth).encode(list(value))[1:-1] + close + "]"
    return "[" + inner + ("," + inner).join(_laid_out(item, depth + 1) for item in value) + close + "]"


def write_summary(path: str | Path, summary: Mapping[str, Any]) -> Path:
    """Write ``summary`` to ``path`` (atomically); returns the path."""
    return write_text(path, summary_json(summary))


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (atomically); returns the path."""
    with atomic_writer(path) as stream:
        stream.write(text)
    return Path(path)
