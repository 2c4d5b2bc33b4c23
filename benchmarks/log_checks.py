"""Whether a row of another harness's file was made from the question it is matched to: what every task compares.

lmms-eval (0.4 and later) names a question by its position in the file it iterated, Inspect and
VLMEvalKit by its id; neither tells one question file from another of the same length or the same
ids (two seeds of one city, before ids carried the seed). So each row's own record of its question
(the prompt it sent, the document it logged, the sheet's columns) is compared with the question it
is matched to, and the first row that disagrees refuses the whole file.

This module holds what the tasks share: a row's record (:class:`Logged`), the error
(:class:`Mismatch`) and the comparisons, tolerant of what legitimately differs (case, Unicode
normal form, runs of white space, a prompt wrapped around the question): a named field must equal
the question's (:func:`field_mismatch`), a logged text must hold the question's
(:func:`text_mismatch`). Each task says what its questions must agree with
(:mod:`benchmarks.reasonmap.log_checks`, :func:`benchmarks.plus.loading.check_plus_row`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from benchmarks.errors import BenchmarkError

__all__ = [
    "Logged",
    "Mismatch",
    "normalized",
    "texts_in",
    "excerpt",
    "field_mismatch",
    "text_mismatch",
    "logged_fields",
]

_EXCERPT = 70
#: The deepest nesting searched for text in a logged prompt (chat messages, content parts).
_DEPTH = 8


class Mismatch(BenchmarkError):
    """A row was not made from the question it is matched to; the message says how they differ."""


@dataclass(frozen=True, slots=True)
class Logged:
    """What a harness's row records of the question it answered: its prompts and its named fields.

    Attributes
    ----------
    prompts : tuple of str
        The prompt texts logged.
    fields : mapping of str to str
        The question's fields the row logs (a question text, its stations).
    """

    prompts: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def empty(self) -> bool:
        """Whether the row records nothing to compare."""
        return not self.prompts and not self.fields


def normalized(text: str) -> str:
    """Text compared without case, Unicode normal form or runs of white space.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        Its folded form.

    Examples
    --------
    >>> normalized("  Termini\\n\\tStation ") == normalized("termini station")
    True
    """
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def texts_in(value: Any, depth: int = 0) -> Iterable[str]:
    """Every string in a logged value (a prompt, or chat messages nested as lists and objects).

    Parameters
    ----------
    value : Any
        The logged value.
    depth : int, optional
        How deep it is already (deeper values are not read).

    Yields
    ------
    str
        Each string, in order.
    """
    if isinstance(value, str):
        yield value
    elif depth < _DEPTH and isinstance(value, Mapping):
        for item in value.values():
            yield from texts_in(item, depth + 1)
    elif depth < _DEPTH and isinstance(value, list | tuple):
        for item in value:
            yield from texts_in(item, depth + 1)


def excerpt(text: str, start: int = 0) -> str:
    """``text`` from ``start``, at most 70 characters, quoted, with an ellipsis where it was cut.

    Parameters
    ----------
    text : str
    start : int, optional
        Where the excerpt starts.

    Returns
    -------
    str
        The excerpt.
    """
    piece = text[max(start, 0) : max(start, 0) + _EXCERPT]
    return repr(("…" if start > 0 else "") + piece + ("…" if len(text) > start + _EXCERPT else ""))


def _field(name: str, logged: str, wanted: str) -> str | None:
    if normalized(logged) == normalized(wanted):
        return None
    return f"field {name!r}: the log says {excerpt(normalized(logged))}, the question says {excerpt(wanted)}"


def field_mismatch(logged: Logged, wanted: Mapping[str, str]) -> str | None:
    """The first named field of ``logged`` that ``wanted`` names and that differs, said in words; else ``None``.

    Parameters
    ----------
    logged : Logged
        What the row logged.
    wanted : mapping of str to str
        The question's own fields.

    Returns
    -------
    str or None
        Which field differs and where.
    """
    for name, value in logged.fields.items():
        if name in wanted and (found := _field(name, value, wanted[name])):
            return found
    return None


def text_mismatch(name: str, logged: str, wanted: str) -> str | None:
    """``None`` when the logged text holds the wanted one; else where they part.

    Parameters
    ----------
    name : str
        What the text is, for the message.
    logged : str
        The text logged.
    wanted : str
        The question's text.

    Returns
    -------
    str or None
        Where they part, with excerpts.
    """
    text, asked = normalized(logged), normalized(wanted)
    if asked in text:
        return None
    head = asked[:24]
    start = text.find(head)
    if start < 0:
        return f"{name}: the log's {excerpt(text)} does not hold the question's {excerpt(asked)}"
    same = 0
    while same < len(asked) and start + same < len(text) and text[start + same] == asked[same]:
        same += 1
    back = max(same - 20, 0)
    return f"{name}: the log says {excerpt(text, start + back)}, the question says {excerpt(asked, back)}"


def logged_fields(found: Mapping[str, Any], names: Sequence[str]) -> dict[str, str]:
    """The named fields of a logged record that hold text (a document, a sheet's row, a sample's metadata).

    Parameters
    ----------
    found : mapping
        The logged record.
    names : sequence of str
        The fields wanted.

    Returns
    -------
    dict of str to str
        Those of ``names`` that hold non-blank text.
    """
    return {name: found[name] for name in names if isinstance(found.get(name), str) and found[name].strip()}
