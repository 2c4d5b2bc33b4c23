"""Reading the JSON files graphkit takes (Metro Data, overlays): bounded, checked, one-line errors.

A file is refused before it is read when it is not a regular file (a FIFO
with no writer would block forever, ``/dev/zero`` never ends) or when it is
larger than :data:`MAX_METRO_BYTES`; the read itself stops there too, so a
file that grows meanwhile is still bounded. A UTF-8 byte-order mark is
accepted; UTF-16 is named as such. What the JSON decoder can raise (deep
nesting, exhausted memory) becomes the caller's error, naming the file, and
a key given twice in one object is an error naming the key: JSON keeps only
the last, which would silently drop a line.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from graphkit.errors import shorten

__all__ = ["MAX_METRO_BYTES", "open_regular", "read_json_file", "parse_json_text", "file_label"]

#: The largest Metro Data or overlay file read (the 30 cities' largest is under 100 KB).
MAX_METRO_BYTES = 64 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


_BYTE_ORDER_MARKS = (
    ((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "UTF-32"),
    ((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), "UTF-16"),
)


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


def file_label(path: str | Path) -> str:
    """``path`` as errors show it: as given, escaped when it holds characters that would break the line.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
        The path as given, or its ``ascii()`` form.

    Examples
    --------
    >>> file_label("maps/rome.png"), file_label("evil\\nname.json")
    ('maps/rome.png', "'evil\\\\nname.json'")
    """
    text = str(path)
    return text if text.isprintable() else ascii(text)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | Path, *, what: str, error: type[Exception]) -> BinaryIO:
    """``path`` opened for binary reading, if it is a regular file; every reader of user files starts here.

    A FIFO with no writer would block for ever and ``/dev/zero`` never ends: both are refused before they
    are opened, and the open itself is non-blocking, so that a FIFO put in the file's place since the
    check cannot hang it.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        The kind of file, for the message.
    error : type of Exception
        The error raised.

    Returns
    -------
    BinaryIO
        The open file (a regular file, checked again once open).

    Raises
    ------
    error
        One line naming the file and what is wrong with it.
    """
    label = file_label(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise error(f"{label}: no such {what} file") from None
    except (OSError, ValueError) as problem:
        raise error(f"{label}: cannot read {what} ({getattr(problem, 'strerror', None) or problem})") from None
    if not stat.S_ISREG(status.st_mode):
        raise error(f"{label}: {_kind(status.st_mode)}, not a {what} file (only regular files are read)")
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        stream = os.fdopen(handle, "rb")
    except OSError as problem:
        raise error(f"{label}: cannot read {what} ({problem.strerror or problem})") from None
    if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
        stream.close()
        raise error(f"{label}: not a regular file any more, not a {what} file")
    return stream


def read_json_file(path: str | Path, *, what: str, error: type[Exception], max_bytes: int = MAX_METRO_BYTES) -> Any:
    """The JSON value of the file at ``path``; ``what`` names the kind of file in errors.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        The kind of file (``"overlay"``), for the message.
    error : type of Exception
        The error raised.
    max_bytes : int, optional
        The largest file read.

    Returns
    -------
    Any
        The JSON value.

    Raises
    ------
    error
        One line naming the file and what is wrong with it.
    """
    label = file_label(path)
    limit = f"over the {max_bytes:,}-byte limit for {what} files"
    with open_regular(path, what=what, error=error) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > max_bytes:
            raise error(f"{label}: {size:,} bytes, {limit}")
        try:
            data = stream.read(max_bytes + 1)
        except OSError as problem:
            raise error(f"{label}: cannot read {what} ({problem.strerror or problem})") from None
        except MemoryError:
            raise error(f"{label}: not enough memory to read {what}") from None
    if len(data) > max_bytes:
        raise error(f"{label}: grew while read, {limit}")
    return parse_json_text(_decode(data, label, what, error), label, what=what, error=error)


def _decode(data: bytes, label: str, what: str, error: type[Exception]) -> str:
    for marks, name in _BYTE_ORDER_MARKS:
        mark = next((mark for mark in marks if data.startswith(mark)), None)
        if mark is not None:
            raise error(f"{label}: the {what} is {name} (byte-order mark {mark.hex(' ').upper()}); save it as UTF-8")
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte-order mark is dropped
    except UnicodeDecodeError as problem:
        line = data[: problem.start].count(b"\n") + 1
        raise error(
            f"{label}: not UTF-8 at line {line} (byte 0x{data[problem.start]:02X}); save the {what} as UTF-8"
        ) from None


def parse_json_text(text: str, label: str, *, what: str, error: type[Exception]) -> Any:
    """The JSON value of ``text`` (read from ``label``), any key given twice in one object refused.

    Parameters
    ----------
    text : str
        The JSON text.
    label : str
        Where it was read from, for the message.
    what : str
        The kind of file, for the message.
    error : type of Exception
        The error raised.

    Returns
    -------
    Any
        The value.

    Raises
    ------
    error
        Not valid JSON, or a key given twice; one line naming ``label``, the line and column or the key.
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as problem:
        raise error(
            f"{label}: not valid JSON at line {problem.lineno}, column {problem.colno}: {problem.msg}"
        ) from None
    except _DuplicateKey as duplicate:
        raise error(
            f"{label}: key {shorten(duplicate.key)!r} is given twice in one object (JSON would keep only the last)"
        ) from None
    except RecursionError:
        raise error(f"{label}: {what} nested too deeply to read") from None
    except MemoryError:
        raise error(f"{label}: not enough memory to read {what}") from None
    except (ValueError, UnicodeError) as problem:  # e.g. a number too long to convert
        raise error(f"{label}: cannot read {what} ({shorten(str(problem))})") from None
