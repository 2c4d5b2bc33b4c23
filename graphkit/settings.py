"""Settings a notebook or script takes as text (environment variables, a papermill parameters cell), checked.

Each check returns the value it read and raises :class:`InvalidSetting` in one line naming the setting,
what it expects and what it got; a notebook turns that into its one line on stderr and a non-zero exit
(``raise SystemExit(f"ablations: {error}")``) instead of a traceback. Nothing here is about transit
networks: it sits on the lowest floor so that every notebook and script can use it.

Examples
--------
>>> whole_number("ABLATIONS_RESAMPLES", "2000", low=200, high=50_000)
2000
>>> whole_number("ABLATIONS_RESAMPLES", "abc", low=200, high=50_000)
Traceback (most recent call last):
...
graphkit.settings.InvalidSetting: ABLATIONS_RESAMPLES: expected a whole number from 200 to 50,000, got 'abc'
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from graphkit.errors import TransitError

__all__ = ["InvalidSetting", "whole_number", "name_list", "folder_list", "output_folder"]

# more digits than this is out of any range a setting has (and Python reads no int of over 4,300 digits)
_MAX_DIGITS = 40


class InvalidSetting(TransitError, ValueError):
    """A setting's value is wrong; the message names the setting."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text)} characters)"


def whole_number(name: str, value: Any, *, low: int, high: int) -> int:
    """``value`` (an ``int`` or its decimal text, spaces around allowed) as an integer in ``[low, high]``.

    Parameters
    ----------
    name : str
        The setting's name, for the message.
    value : int or str
        What was given.
    low, high : int
        The smallest and the largest value allowed.

    Returns
    -------
    int
        The number.

    Raises
    ------
    InvalidSetting
        Not a whole number, or out of the range.

    Examples
    --------
    >>> whole_number("--top", " 12 ", low=1, high=100)
    12
    >>> whole_number("--top", "0", low=1, high=100)
    Traceback (most recent call last):
        ...
    graphkit.settings.InvalidSetting: --top: expected a whole number from 1 to 100, got 0
    """
    expected = f"{name}: expected a whole number from {low:,} to {high:,}"
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        digits = value.strip().lstrip("+-").lstrip("0")
        if len(digits) > _MAX_DIGITS:
            raise InvalidSetting(f"{expected}, got {_shown(value)}")
        number = int(value)
    else:
        raise InvalidSetting(f"{expected}, got {_shown(value)}")
    if not low <= number <= high:
        raise InvalidSetting(f"{expected}, got {number:,}")
    return number


def _pieces(name: str, value: Any) -> list[str]:
    if not isinstance(value, str):
        raise InvalidSetting(f"{name}: expected names separated by commas, got {_shown(value)}")
    pieces = [piece.strip() for piece in value.split(",") if piece.strip()]
    if not pieces:
        raise InvalidSetting(f"{name}: expected at least one name, got {_shown(value)}")
    return pieces


def name_list(name: str, value: Any, choices: Sequence[str], *, what: str) -> tuple[str, ...]:
    """The comma-separated names of ``value``, each one of ``choices`` (in the order given, each once).

    Parameters
    ----------
    name : str
        The setting's name, for the message.
    value : str
        What was given: names separated by commas (spaces around them are dropped).
    choices : sequence of str
        The names allowed.
    what : str
        What a name is, for the message (``"city"``).

    Returns
    -------
    tuple of str
        The names, in the order given, each once.

    Raises
    ------
    InvalidSetting
        Empty, or a name that is none of the choices (the close ones are suggested).

    Examples
    --------
    >>> name_list("--cities", "rome, oslo,rome", ("oslo", "rome"), what="city")
    ('rome', 'oslo')
    """
    from graphkit.choices import close_choices

    found = []
    for piece in _pieces(name, value):
        if piece not in choices:
            close = close_choices(piece, choices)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise InvalidSetting(f"{name}: unknown {what} {_shown(piece)}{hint}")
        found.append(piece)
    return tuple(dict.fromkeys(found))


def folder_list(name: str, value: Any) -> tuple[Path, ...]:
    """The comma-separated folders of ``value``, each an existing folder (each once, by where it leads).

    Parameters
    ----------
    name : str
        The setting's name, for the message.
    value : str
        What was given: paths separated by commas.

    Returns
    -------
    tuple of Path
        The folders as given, in order; one leading where an earlier one does is left out.

    Raises
    ------
    InvalidSetting
        Empty, or a path that does not exist (``no such folder``) or is not a folder.
    """
    folders: dict[str, Path] = {}
    for piece in _pieces(name, value):
        path = Path(piece)
        if not path.exists():
            raise InvalidSetting(f"{name}: {piece}: no such folder")
        if not path.is_dir():
            raise InvalidSetting(f"{name}: {piece}: not a folder")
        folders.setdefault(os.path.realpath(path), path)
    return tuple(folders.values())


def output_folder(name: str, value: Any, *, read: Iterable[tuple[str, Path]] = ()) -> Path:
    """``value`` as the folder outputs are written to: not a file, and neither one of the folders ``read``
    (``(setting, folder)`` pairs) nor inside one, so that nothing is written into what is read (symbolic
    links followed).

    Parameters
    ----------
    name : str
        The setting's name, for the message.
    value : str or PathLike
        The folder given (it need not exist yet).
    read : iterable of (str, Path), optional
        The folders read, each with the setting that names it.

    Returns
    -------
    Path
        The folder.

    Raises
    ------
    InvalidSetting
        Naming the setting and the folder read.
    """
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise InvalidSetting(f"{name}: expected a folder, got {_shown(value)}")
    out = Path(value)
    if out.exists() and not out.is_dir():
        raise InvalidSetting(f"{name}: {out}: a file, not a folder")
    where = os.path.realpath(out)
    for setting, folder in read:
        inside = os.path.realpath(folder)
        if where == inside or where.startswith(inside.rstrip(os.sep) + os.sep):
            raise InvalidSetting(
                f"{name}: {out} is {'' if where == inside else 'inside '}the folder {folder} ({setting}), which is"
                " read: writing there would mix files into it; give another folder"
            )
    return out
