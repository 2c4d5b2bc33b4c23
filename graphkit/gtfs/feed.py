"""Reading a GTFS feed (a zip archive or a folder) table by table, checking what the compiler relies on.

Every problem is one :class:`InvalidFeed` naming the feed, the file, the row (the header is row 1) and the
field: a text file that is no archive, a required file or column missing, a file that is not UTF-8 (a UTF-8
byte order mark is allowed), a NUL byte, a row with more or fewer cells than its header. Archives may hold
their files in one folder and carry ``__MACOSX`` entries, which are ignored. Rows are streamed: a table is
never held as text, so a large ``stop_times.txt`` costs the memory of what the compiler keeps of it.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from graphkit.errors import TransitError, shorten

__all__ = ["InvalidFeed", "Feed", "Table", "open_feed", "REQUIRED_FILES"]

#: The files the compiler reads (``calendar.txt`` or ``calendar_dates.txt`` must be there too).
REQUIRED_FILES = ("agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt")
_CALENDARS = ("calendar.txt", "calendar_dates.txt")


class InvalidFeed(TransitError, ValueError):
    """A GTFS feed the compiler cannot read: the message names the file, the row and the field."""


@dataclass(frozen=True, slots=True)
class Feed:
    """An opened feed: where it is and the GTFS files it holds (name to member path or file path).

    Attributes
    ----------
    source : str
        The zip archive or folder, for messages.
    members : dict of str to str
        Each GTFS file's name to its member (in an archive) or its path.
    archive : bool
        Whether ``source`` is a zip archive.
    """

    source: str
    members: dict[str, str]
    archive: bool

    @property
    def stem(self) -> str:
        """The feed's name without folder and suffix (``la_metro_rail``)."""
        return Path(self.source).name.removesuffix(".zip") or "feed"

    def has(self, name: str) -> bool:
        """Whether the feed holds the file ``name``."""
        return name in self.members

    @contextlib.contextmanager
    def table(self, name: str, required: tuple[str, ...]) -> Iterator[Table]:
        """The file ``name`` opened as a :class:`Table` (its header read and checked); a malformed row met
        while reading it in the block (text that is not UTF-8, a NUL byte) is an :class:`InvalidFeed`.

        Raises
        ------
        InvalidFeed
            The file is UTF-16, empty, lacks a ``required`` column, or holds such a row.
        """
        where = f"{self.source}: {name}"
        with self._binary(name) as raw:
            head = raw.peek(3)[:3] if hasattr(raw, "peek") else b""
            if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
                raise InvalidFeed(f"{where}: row 1: the file is UTF-16; GTFS files are UTF-8")
            reader = csv.reader(io.TextIOWrapper(raw, encoding="utf-8-sig", newline=""))
            try:
                header = next(reader, None)
                if header is None:
                    raise InvalidFeed(f"{where}: row 1: the file is empty (no header)")
                columns = {cell.strip(): index for index, cell in enumerate(header)}
                for column in required:
                    if column not in columns:
                        shown = shorten(",".join(header))
                        raise InvalidFeed(f"{where}: row 1: missing column {column!r} (header: {shown})")
                yield Table(where, header, columns, reader)
            except csv.Error as error:
                raise InvalidFeed(f"{where}: row {reader.line_num + 1}: {error}") from None
            except UnicodeDecodeError:
                raise self._not_utf8(name, where) from None

    def rows(self, name: str, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, int], list[str]]]:
        """``(row number, column index by name, cells)`` of each data row of ``name`` (the header is row 1).

        Raises
        ------
        InvalidFeed
            As :meth:`table`, and for a row whose cell count differs from its header's.
        """
        with self.table(name, required) as table:
            width, reader = len(table.header), table.reader
            for cells in reader:
                if len(cells) != width:
                    table.check(cells)
                    continue
                yield reader.line_num, table.columns, cells

    def _not_utf8(self, name: str, where: str) -> InvalidFeed:
        """The error naming the first row (and its cell) that is not UTF-8."""
        with self._binary(name) as raw:
            for number, line in enumerate(raw, start=1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as error:
                    cell = line[: error.start].count(b",") + 1
                    return InvalidFeed(
                        f"{where}: row {number}: not UTF-8 (byte {line[error.start]:#04x} in cell {cell})"
                    )
        return InvalidFeed(f"{where}: not UTF-8")

    def _binary(self, name: str):
        member = self.members[name]
        if not self.archive:
            return open(member, "rb")  # noqa: SIM115 (closed by the caller's with)
        archive = zipfile.ZipFile(self.source)  # noqa: SIM115
        return io.BufferedReader(_ArchiveMember(archive, archive.open(member)), 1 << 16)


@dataclass(frozen=True, slots=True)
class Table:
    """An opened table: where it is (for errors), its header, its columns by name and its csv reader.

    Attributes
    ----------
    where : str
        The feed and file, for messages.
    header : list of str
        The column names as written.
    columns : dict of str to int
        Each column's index by name.
    reader : csv reader
        The rows after the header.
    """

    where: str
    header: list[str]
    columns: dict[str, int]
    reader: Any

    def check(self, cells: list[str]) -> None:
        """Raise for a row whose cell count differs from the header's (a blank line passes)."""
        if cells and len(cells) != len(self.header):
            raise InvalidFeed(
                f"{self.where}: row {self.reader.line_num}: {len(cells)} fields where the header has"
                f" {len(self.header)} (field {_field_at(self.header, cells)!r})"
            )


class _ArchiveMember(io.RawIOBase):
    """A member's stream that closes its archive with it."""

    def __init__(self, archive: zipfile.ZipFile, stream: io.BufferedIOBase):
        super().__init__()
        self._archive, self._stream = archive, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self._stream.readinto(buffer)

    def close(self) -> None:
        self._stream.close()
        self._archive.close()
        super().close()


def _field_at(header: list[str], cells: list[str]) -> str:
    return header[len(cells)] if len(cells) < len(header) else f"cell {len(header) + 1} (no column)"


def open_feed(path: str | Path) -> Feed:
    """Open a feed: a zip archive or a folder of ``.txt`` files.

    Parameters
    ----------
    path : str or Path
        The feed.

    Returns
    -------
    Feed
        The feed, its files found (none read yet).

    Raises
    ------
    InvalidFeed
        No such file, a file that is no zip archive, or a required file missing.
    """
    source = Path(path)
    if source.is_dir():
        members = {child.name: str(child) for child in sorted(source.iterdir()) if child.is_file()}
        archive = False
    elif source.is_file():
        if not zipfile.is_zipfile(source):
            raise InvalidFeed(f"{source}: not a GTFS feed (neither a zip archive nor a folder)")
        members = _archive_members(source)
        archive = True
    else:
        raise InvalidFeed(f"{source}: no such feed (a zip archive or a folder)")
    feed = Feed(source=str(source), members=members, archive=archive)
    missing = [name for name in REQUIRED_FILES if name not in members]
    if not any(name in members for name in _CALENDARS):
        missing.append(" or ".join(_CALENDARS))
    if missing:
        raise InvalidFeed(f"{source}: missing {', '.join(missing)} (a GTFS feed needs {', '.join(REQUIRED_FILES)})")
    return feed


def _archive_members(source: Path) -> dict[str, str]:
    """GTFS file name to member, ignoring ``__MACOSX`` and dot files; the files may sit in one folder."""
    try:
        with zipfile.ZipFile(source) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError) as error:
        raise InvalidFeed(f"{source}: not a readable zip archive ({error})") from None
    found: dict[str, str] = {}
    for member in names:
        parts = PurePosixPath(member).parts
        if not parts or parts[0] == "__MACOSX" or parts[-1].startswith("."):
            continue
        if len(parts) <= 2:  # at the root, or in one folder
            found.setdefault(parts[-1], member)
    return found
