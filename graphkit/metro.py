"""Metro Data: a city's ``{line name: [station, ...]}`` lists, parsed and validated.

Stations carry annotations that are not part of their name (``(Transfer
Station)``, ``（换乘站）``, ``(Branch-starting Station)``, ``（支线起始站）``). They
are parsed into fields and stripped; any other parenthesised text stays,
because it tells stations apart (``Cathedral Pkwy (110 St) Station``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphkit.errors import InvalidMetroData, shorten
from graphkit.names import unsafe_character
from graphkit.reading import parse_json_text, read_json_file

__all__ = ["StationEntry", "Line", "MetroData", "parse_station", "strip_annotations", "load_metro"]

_TRANSFER = {"transfer station", "换乘站"}
_BRANCH_START = {"branch-starting station", "支线起始站"}
# Parenthesised text that reads like an annotation but is none of the known ones
# (a typo such as "(Transfer Statoin)") must not silently become part of a name.
_ANNOTATION_LIKE = re.compile(
    r"^(?:transfer|branch|interchange)\w*(?:\s+st\w*)?$|^(?:transfer|branch|interchange)\w*[\s-]+\w*\s+st\w*$|换乘|支线|起始",
    re.IGNORECASE,
)
_PARENTHESISED = re.compile(r"\s*[(（]([^()（）]*)[)）]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class StationEntry:
    """One station as listed on one line.

    Attributes
    ----------
    raw : str
        The text as written in the Metro Data.
    name : str
        The cleaned name (annotations stripped); it identifies the station.
    transfer_mark : bool
        The entry carries a transfer annotation.
    branch_start_mark : bool
        The entry carries a branch-start annotation.
    """

    raw: str
    name: str
    transfer_mark: bool = False
    branch_start_mark: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """A line and its stations in travel order, as listed.

    Attributes
    ----------
    name : str
        The line's name as in the data.
    entries : tuple of StationEntry
        Its stations in listed order (a loop written out repeats its first one at the end).
    """

    name: str
    entries: tuple[StationEntry, ...]

    @property
    def stations(self) -> tuple[str, ...]:
        """Cleaned station names in listed order (a closing repeat included)."""
        return tuple(entry.name for entry in self.entries)

    @property
    def closes_on_itself(self) -> bool:
        """The list repeats its first station at the end: a loop written out."""
        return len(self.entries) > 2 and self.entries[0].name == self.entries[-1].name


@dataclass(frozen=True, slots=True)
class MetroData:
    """A city's validated Metro Data.

    Attributes
    ----------
    city, country : str
        Names of the city and its country (empty when unknown).
    source : str
        Where it was read from (a file path, ``<dict>`` or ``<json>``); used in errors.
    lines : tuple of Line
        The lines in the order of the data.
    """

    city: str
    country: str
    source: str
    lines: tuple[Line, ...]

    @property
    def line_names(self) -> tuple[str, ...]:
        return tuple(line.name for line in self.lines)

    @property
    def station_names(self) -> tuple[str, ...]:
        """Distinct cleaned station names, in order of first appearance."""
        return tuple(dict.fromkeys(name for line in self.lines for name in line.stations))

    def line(self, name: str) -> Line:
        """The line with exactly this name (see ``graphkit.names`` for loose matching)."""
        for line in self.lines:
            if line.name == name:
                return line
        raise KeyError(name)

    def to_dict(self) -> dict[str, list[str]]:
        """The data as written (raw station texts), ready for ``json.dump``."""
        return {line.name: [entry.raw for entry in line.entries] for line in self.lines}


def parse_station(raw: str, *, where: str = "") -> StationEntry:
    """Parse one listed station: strip and record its annotations.

    Parameters
    ----------
    raw : str
        The station as written in the Metro Data.
    where : str, optional
        Location used in error messages.

    Returns
    -------
    StationEntry

    Raises
    ------
    InvalidMetroData
        The name is empty once cleaned, carries an unknown annotation, or
        holds a control or bidi character.

    Examples
    --------
    >>> parse_station("大连站（换乘站）")
    StationEntry(raw='大连站（换乘站）', name='大连站', transfer_mark=True, branch_start_mark=False)
    >>> parse_station("Cathedral Pkwy (110 St) Station").name
    'Cathedral Pkwy (110 St) Station'
    """
    at = f"{where}: " if where else ""
    unsafe = unsafe_character(raw)
    if unsafe is not None:
        raise InvalidMetroData(f"{at}station name {shorten(raw)!r} contains {unsafe}")
    transfer = branch = False
    kept: list[str] = []
    position = 0
    for match in _PARENTHESISED.finditer(raw):
        label = _SPACES.sub(" ", match.group(1)).strip().casefold()
        if label in _TRANSFER:
            transfer = True
        elif label in _BRANCH_START:
            branch = True
        elif _ANNOTATION_LIKE.search(label):
            raise InvalidMetroData(f"{at}unknown annotation ({shorten(match.group(1))}) in {shorten(raw)!r}")
        else:
            continue
        kept.append(raw[position : match.start()])
        position = match.end()
    kept.append(raw[position:])
    name = _SPACES.sub(" ", "".join(kept)).strip()
    if not name:
        raise InvalidMetroData(f"{at}empty station name {shorten(raw)!r}")
    return StationEntry(raw=raw, name=name, transfer_mark=transfer, branch_start_mark=branch)


def strip_annotations(text: str) -> str:
    """``text`` without the Metro Data's annotations; never raises (for answers that copy them).

    Parameters
    ----------
    text : str
        A station name as written (in the data or an answer).

    Returns
    -------
    str
        The name without its transfer and branch annotations, spaces tidied.

    Unlike :func:`parse_station`, an unknown annotation-like text stays as
    written: an answer is judged as given, not rejected here.

    Examples
    --------
    >>> strip_annotations("徐家汇站（换乘站）"), strip_annotations("Termini Station (transfer station)")
    ('徐家汇站', 'Termini Station')
    >>> strip_annotations("Cathedral Pkwy (110 St) Station")
    'Cathedral Pkwy (110 St) Station'
    """
    if "(" not in text and "（" not in text:
        return text
    kept: list[str] = []
    position = 0
    for match in _PARENTHESISED.finditer(text):
        label = _SPACES.sub(" ", match.group(1)).strip().casefold()
        if label in _TRANSFER or label in _BRANCH_START:
            kept.append(text[position : match.start()])
            position = match.end()
    if not position:
        return text
    kept.append(text[position:])
    return _SPACES.sub(" ", "".join(kept)).strip()


def _parse_line(line_name: Any, stations: Any, *, source: str, allowed_repeats: frozenset[tuple[str, str]]) -> Line:
    if not isinstance(line_name, str) or not line_name.strip():
        raise InvalidMetroData(f"{source}: line names must be non-empty strings, got {shorten(repr(line_name))}")
    where = f"{source}, line {shorten(line_name)!r}"
    if not isinstance(stations, list):
        raise InvalidMetroData(f"{where}: expected a list of stations, got {type(stations).__name__}")
    if not stations:
        raise InvalidMetroData(f"{where}: the line has no stations")
    entries = []
    for index, raw in enumerate(stations):
        at = f"{where}, station #{index + 1}"
        if not isinstance(raw, str):
            raise InvalidMetroData(f"{at}: expected a string, got {shorten(repr(raw))}")
        entries.append(parse_station(raw, where=at))
    line = Line(name=line_name, entries=tuple(entries))
    seen: dict[str, int] = {}
    last = len(entries) - 1
    for index, entry in enumerate(entries):
        first = seen.setdefault(entry.name, index)
        if first == index:
            continue
        if first == 0 and index == last and line.closes_on_itself:
            continue  # a loop's closing repeat
        if (line_name, entry.name) in allowed_repeats:
            continue  # declared by the city's overlay: two stations share a name
        raise InvalidMetroData(
            f"{where}, station #{index + 1}: {shorten(entry.name)!r} is repeated (first as station #{first + 1})"
        )
    return line


def load_metro(
    source: str | Path | Mapping[str, Any],
    *,
    city: str = "",
    country: str = "",
    allowed_repeats: Iterable[tuple[str, str]] = (),
) -> MetroData:
    """Load and validate Metro Data from a path, a dict or a JSON string.

    Parameters
    ----------
    source : str, Path or Mapping
        A file path, a JSON text (a string starting with ``{`` or ``[``) or the object itself.
    city, country : str, optional
        Names to record; for a path, ``city`` defaults to the file's stem and
        ``country`` to its folder's name.
    allowed_repeats : iterable of (line, station)
        Stations that may appear twice on a line (distinct stations sharing a
        name), as declared by a topology overlay.

    Returns
    -------
    MetroData

    Raises
    ------
    InvalidMetroData
        With the file, the line and the station that are wrong; a file that
        is not a regular one, is over :data:`graphkit.reading.MAX_METRO_BYTES`,
        is not UTF-8 JSON, nests too deeply or gives a key twice.

    Examples
    --------
    >>> data = load_metro({"Line 1": ["A", "B (Transfer Station)"], "Line 2": ["B", "C"]})
    >>> data.station_names
    ('A', 'B', 'C')
    """
    if isinstance(source, Mapping):
        label, obj = "<dict>", source
    elif isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        label, obj = "<json>", parse_json_text(source, "<json>", what="Metro Data", error=InvalidMetroData)
    else:
        path = Path(source)
        obj = read_json_file(path, what="Metro Data", error=InvalidMetroData)
        label = str(path)
        city = city or path.stem
        country = country or path.parent.name
    if not isinstance(obj, Mapping):
        raise InvalidMetroData(
            f"{label}: Metro Data must be a JSON object {{line: [stations]}}, got {type(obj).__name__}"
        )
    if not obj:
        raise InvalidMetroData(f"{label}: Metro Data has no lines")
    repeats = frozenset(tuple(pair) for pair in allowed_repeats)
    lines = tuple(_parse_line(name, stations, source=label, allowed_repeats=repeats) for name, stations in obj.items())
    return MetroData(city=city, country=country, source=label, lines=lines)
