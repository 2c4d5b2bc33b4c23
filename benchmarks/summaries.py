"""Writing a report's files: the summary as sorted, indented JSON and its tables as text, each atomically.

One writer for every report (scores of each task, evaluation results, VDI,
diagnosis, leaderboards and comparisons), so the same numbers always give the
same bytes. The JSON is strict: a NaN or an infinity has no JSON token, so a
summary holding one is refused, naming the field, instead of being written as
``NaN`` / ``Infinity`` (which strict readers reject). :func:`partial_lines` is
what a report's table says of a run that scored only part of its log; :func:`write_report_files` writes a task's
report folder (summary, table, figures or none); :func:`model_table` is a table of models × types (or
another group) in markdown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_text
from benchmarks.metrics import row_cell
from graphkit.files import atomic_writer

__all__ = ["summary_json", "write_summary", "write_text", "partial_lines", "write_report_files", "model_table"]

#: What :func:`summary_json` lays out: ``json.dumps`` with these options, and a final newline.
_OPTIONS = {"ensure_ascii": False, "indent": 2, "sort_keys": True, "allow_nan": False}
_INDENT = " " * _OPTIONS["indent"]
# the values the writer encodes itself; anything else (another type, a key that is no string, a cycle) leaves the
# whole summary to json.dumps, so that its output or its error is what the caller gets
_LEAVES = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})


class _Unusual(Exception):
    """A value the writer leaves to ``json.dumps``."""


def summary_json(summary: Mapping[str, Any]) -> str:
    """The summary as the report writes it: keys sorted, indented, non-ASCII kept, strict, a final newline.

    The bytes are ``json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False)``'s.
    That call runs the standard library's pure-Python encoder (an indent turns its C encoder off), one generator
    step per value: a 40-model report took a fifth of a second. Here each container of plain values (most of a
    summary: every interval, every failure count), and each run of plain values between a dictionary's
    containers, is one call of the C encoder, whose item separator carries the newline and indent of its
    depth; only the containers around them are laid out in Python.

    Parameters
    ----------
    summary : mapping
        A summary (JSON-ready).

    Returns
    -------
    str
        The JSON text.

    Examples
    --------
    >>> summary_json({"b": 1, "a": "é"})
    '{\\n  "a": "é",\\n  "b": 1\\n}\\n'
    >>> print(summary_json({"rows": [{"n": 2, "x": [1.5, None]}, {}]}), end="")
    {
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
    >>> summary_json({"models": {"m": {"accuracy": float("nan")}}})
    Traceback (most recent call last):
    ...
    ValueError: field models.m.accuracy is nan: JSON holds no NaN or infinity

    Raises
    ------
    ValueError
        A float that is NaN or infinite (the message names the first such field), or a cycle.
    """
    try:
        try:
            return _laid_out(summary, 0) + "\n"
        except (_Unusual, RecursionError):
            return json.dumps(summary, **_OPTIONS) + "\n"
    except ValueError:
        where = _non_finite(summary, ())
        if where is None:
            raise
        field, value = where
        raise ValueError(f"field {field or '(the value)'} is {value!r}: JSON holds no NaN or infinity") from None


def _non_finite(value: Any, path: tuple[str, ...]) -> tuple[str, float] | None:
    """The dotted path and value of the first float in ``value`` that is NaN or infinite (keys in sorted order)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, path)]
    seen: set[int] = set()  # a container met again (a cycle) is not walked twice
    while stack:
        item, where = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return ".".join(where), item
        if isinstance(item, Mapping | list | tuple):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, Mapping):
            entries = sorted(item.items(), key=lambda entry: str(entry[0]))
            stack.extend((inner, (*where, str(key))) for key, inner in reversed(entries))
        elif isinstance(item, list | tuple):
            stack.extend((inner, (*where, str(index))) for index, inner in reversed(list(enumerate(item))))
    return None


@lru_cache(maxsize=64)
def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The C encoder of a container of plain values at ``depth``: its items on lines indented one level deeper."""
    return json.JSONEncoder(
        ensure_ascii=False,
        sort_keys=True,
        separators=(",\n" + _INDENT * (depth + 1), ": "),
        check_circular=False,
        allow_nan=False,
    )


_leaf = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=False).encode


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
    """Write ``summary`` to ``path`` (atomically); returns the path.

    Parameters
    ----------
    path : str or Path
        The JSON file to write.
    summary : mapping
        The summary (JSON-ready; written with sorted keys and no NaN).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        A NaN or infinite figure: ``PATH: field F is nan: ...``; nothing is written.
    """
    try:
        text = summary_json(summary)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return write_text(path, text)


def partial_lines(summary: Mapping[str, Any]) -> list[str]:
    """The line a report's table adds for a run scored from part of its log (``summary["partial"]``); else none.

    Parameters
    ----------
    summary : mapping
        A task's summary.

    Returns
    -------
    list of str
        A blank line and the note, or none.

    Examples
    --------
    >>> partial_lines({"partial": {"source": "inspect", "status": "cancelled", "samples": 3}})
    ['', '**Partial run**: the Inspect log ended with status `cancelled`; only its 3 finished samples are scored.']
    """
    partial = summary.get("partial")
    if not isinstance(partial, Mapping):
        return []
    from benchmarks.cells import markdown_code

    status = markdown_code(partial.get("status", "?"))
    return [
        "",
        f"**Partial run**: the Inspect log ended with status {status}; only its {partial.get('samples', '?')} finished"
        " samples are scored.",
    ]


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (atomically); returns the path.

    Parameters
    ----------
    path : str or Path
        The file to write (replaced whole, or left as it was when writing fails).
    text : str
        Its content, written as UTF-8.

    Returns
    -------
    Path
        ``path``.
    """
    with atomic_writer(path) as stream:
        stream.write(text)
    return Path(path)


def write_report_files(
    directory: str | Path,
    summary: Mapping[str, Any],
    *,
    files: Sequence[str],
    table: Callable[[Mapping[str, Any]], str],
    cap: Any,
    plot: Callable[[Path], None],
    figures: bool = True,
) -> list[Path]:
    """Write a task's report into ``directory``: ``summary.json``, ``table.md`` and, with ``figures``, its plots.

    Parameters
    ----------
    directory : str or Path
        Made when missing.
    summary : mapping
        The task's summary; when the plots leave models out (``cap.capped``), it is written with ``"plots"``
        (``cap.to_dict()``) added.
    files : sequence of str
        ``summary.json``, ``table.md``, then the figure files ``plot`` writes.
    table : callable
        The summary's markdown table.
    cap : benchmarks.plotting.ModelCap
        The models the plots draw.
    plot : callable
        Draws the figures into the folder it is given.
    figures : bool
        Without figures, the figure files an earlier run wrote here are removed (they would not match the
        tables) and ``plot`` is not called (nor matplotlib imported).

    Returns
    -------
    list of Path
        The files written, in the order of ``files``.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    write_summary(out / "summary.json", {**summary, "plots": cap.to_dict()} if cap.capped else summary)
    write_text(out / "table.md", table(summary))
    if not figures:
        from benchmarks.plotting import remove_figures

        remove_figures(out, files[2:])
        return [out / name for name in files[:2]]
    plot(out)
    return [out / name for name in files]


def model_table(
    summary: Mapping[str, Any],
    keys: Sequence[str],
    metric: str,
    *,
    group: str = "per_type",
    labels: Sequence[str] | None = None,
    overall: bool = True,
    invalid: bool = True,
) -> list[str]:
    """A markdown table of models × ``keys``: each model's ``metric`` (in %, with its interval) per key of its
    ``group``, then overall and the invalid answers when asked.

    Parameters
    ----------
    summary : mapping
        A task's summary: ``summary["models"][model][group][key]`` holds ``metric`` (and its ``intervals``).
    keys : sequence of str
        The columns, in order (a key a model lacks shows ``–``).
    metric : str
        The share shown.
    group : str, optional
        The rows' group the keys index.
    labels : sequence of str, optional
        The columns' headers (the keys when not given).
    overall : bool, optional
        Whether an ``Overall`` column (the model's own row) follows.
    invalid : bool, optional
        Whether an ``Invalid`` column (``n_invalid/n``) ends the row.

    Returns
    -------
    list of str
        The header, the rule and one line per model (models in the summary's order; names escaped).

    Examples
    --------
    >>> summary = {"models": {"m": {"accuracy": 0.5, "n": 2, "n_invalid": 0, "per_type": {"a": {"accuracy": 0.5}}}}}
    >>> print("\\n".join(model_table(summary, ("a", "b"), "accuracy")))
    | Model | a | b | Overall | Invalid |
    |---|---:|---:|---:|---:|
    | m | 50.00 | – | 50.00 | 0/2 |
    """
    tail = [" Overall |"] * overall + [" Invalid |"] * invalid
    lines = [
        "| Model | " + " | ".join(labels or keys) + " |" + "".join(tail),
        "|---|" + "---:|" * (len(keys) + len(tail)),
    ]
    for model, row in summary["models"].items():
        cells = [row_cell(row[group].get(key, {}), metric) for key in keys] + [row_cell(row, metric)] * overall
        cells += [f"{row['n_invalid']}/{row['n']}"] * invalid
        lines.append(f"| {markdown_text(model)} | " + " | ".join(cells) + " |")
    return lines
