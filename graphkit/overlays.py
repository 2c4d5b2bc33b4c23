"""Topology overlays: what the station lists cannot say.

An overlay is a JSON file beside the Metro Data (``<city>.overlay.json``)
declaring loop lines, where an appended branch leaves its main line, branches
that are marked but not listed, distinct stations that share a name on one
line, and what the names get wrong: one station spelt two ways, one name
shared by several stations, a shared name lint doubts that is one station
after all, and look-alike names that are distinct stations. Every entry
carries a one-line ``note`` with the fact it encodes::

    {
      "loops": [{"line": "Line 2", "note": "..."}],
      "branches": [{"line": "Line B", "leaves_at": "Bologna Station",
                    "first": "S. Agnese Annibaliano Station",
                    "last": "Jonio Station", "note": "..."}],
      "unlisted_branches": [{"line": "Line 6", "at": "美院象山站", "note": "..."}],
      "repeated_stations": [{"line": "R", "station": "36 St Station", "note": "..."}],
      "aliases": [{"station": "西单站", "spellings": ["西单"], "note": "..."}],
      "homonyms": [{"station": "36 St Station", "groups": [["M", "R#1"], ["D", "N", "R#2"]],
                    "note": "..."}],
      "interchanges": [{"station": "望京站", "note": "..."}],
      "distinct": [{"stations": ["Hunts Point Av Station", "Hunters Point Av Station"],
                    "note": "..."}],
      "line_styles": [{"line": "Metro A Line", "color": "#0072BC", "text_color": "#FFFFFF",
                       "short_name": "", "long_name": "Metro A Line", "note": "..."}],
      "places": [{"station": "Union Station", "lat": 34.056, "lon": -118.234,
                  "names": ["Union Station"], "note": "..."}]
    }

``line_styles`` and ``places`` are what a map of a real city needs (written by
:mod:`graphkit.gtfs`): each line's colour, text colour and name parts as its
feed gives them, and each station's coordinates and the names the feed spells
it with (a homonym's station by its identity, ``<name>@<first member>``).

``first`` .. ``last`` is a contiguous run of the line's list (``last``
defaults to the end of the list): the branch, in order from the junction
outwards. The compiler cuts it out of the list, joins its neighbours, and
hangs it on ``leaves_at``.

An alias renames each of its ``spellings`` to ``station`` (the spellings
still resolve). A homonym's ``groups`` list the lines that serve each of the
stations sharing the name, every line serving it in exactly one group
(``R#2``: the second time line R lists it); each becomes a station of its own,
identified as ``<name>@<first member>`` (see :mod:`graphkit.identities`).
Names are the data's cleaned names; aliases apply before homonyms.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphkit.errors import InvalidOverlay, shorten
from graphkit.metro import MetroData
from graphkit.reading import read_json_file

__all__ = [
    "Loop",
    "Branch",
    "UnlistedBranch",
    "RepeatedStation",
    "Alias",
    "Homonym",
    "Interchange",
    "Distinct",
    "LineStyle",
    "Place",
    "Overlay",
    "load_overlay",
    "overlay_path_for",
    "check_overlay",
]


@dataclass(frozen=True, slots=True)
class Loop:
    """A line whose listed stations run round: the last one leads back to the first.

    Attributes
    ----------
    line : str
        The line.
    note : str
        Why, for people (the source the fact comes from).
    """

    line: str
    note: str


@dataclass(frozen=True, slots=True)
class Branch:
    """A branch a line's list holds: from ``first`` to ``last`` (default: the list's end), leaving at ``leaves_at``.

    Attributes
    ----------
    line : str
        The line.
    leaves_at : str
        The station where the branch leaves the trunk.
    first, last : str
        The branch's first station after ``leaves_at``, and its last (``None``: the end of the list).
    note : str
        Why, for people (the source the fact comes from).
    """

    line: str
    leaves_at: str
    first: str
    last: str | None
    note: str


@dataclass(frozen=True, slots=True)
class UnlistedBranch:
    """A branch of a line that its list leaves out, leaving at ``at``.

    Attributes
    ----------
    line : str
        The line.
    at : str
        The station where the unlisted branch leaves.
    note : str
        Why, for people (the source the fact comes from).
    """

    line: str
    at: str
    note: str


@dataclass(frozen=True, slots=True)
class RepeatedStation:
    """A station a line lists twice on purpose (it passes there twice).

    Attributes
    ----------
    line : str
        The line.
    station : str
        The station listed twice.
    note : str
        Why, for people (the source the fact comes from).
    """

    line: str
    station: str
    note: str


@dataclass(frozen=True, slots=True)
class Alias:
    """One station that the data spells several ways: ``spellings`` are renamed to ``station``.

    Attributes
    ----------
    station : str
        The name kept.
    spellings : tuple of str
        The other spellings in the data.
    note : str
        Why, for people (the source the fact comes from).
    """

    station: str
    spellings: tuple[str, ...]
    note: str


@dataclass(frozen=True, slots=True)
class Homonym:
    """Several stations sharing one name: ``groups`` are the lines (``line`` or ``line#n``) serving each.

    Attributes
    ----------
    station : str
        The shared name.
    groups : tuple of tuple of str
        Per station, the lines serving it (``line#n``: the n-th time a line lists the name).
    note : str
        Why, for people (the source the fact comes from).
    """

    station: str
    groups: tuple[tuple[str, ...], ...]
    note: str


@dataclass(frozen=True, slots=True)
class Interchange:
    """A shared name that lint doubts but that is one station where its lines meet.

    Attributes
    ----------
    station : str
        The name.
    note : str
        Why, for people (the source the fact comes from).
    """

    station: str
    note: str


@dataclass(frozen=True, slots=True)
class Distinct:
    """Names that look like one station spelt several ways but are different stations.

    Attributes
    ----------
    stations : tuple of str
        The names kept apart.
    note : str
        Why, for people (the source the fact comes from).
    """

    stations: tuple[str, ...]
    note: str


@dataclass(frozen=True, slots=True)
class LineStyle:
    """A line's colours (``#RRGGBB``) and name parts, as its feed gives them.

    Attributes
    ----------
    line : str
        The line.
    color, text_color : str
        Its colour and that of text on it.
    short_name, long_name : str or None
        Its name parts, where the feed gives them.
    note : str
        Why, for people (the source the fact comes from).
    """

    line: str
    color: str
    text_color: str
    short_name: str | None
    long_name: str | None
    note: str


@dataclass(frozen=True, slots=True)
class Place:
    """A station's coordinates (WGS 84 degrees) and the names its feed spells it with.

    Attributes
    ----------
    station : str
        The station.
    lat, lon : float
        Its latitude and longitude.
    names : tuple of str
        The names its feed's stops give it.
    note : str
        Why, for people (the source the fact comes from).
    """

    station: str
    lat: float
    lon: float
    names: tuple[str, ...]
    note: str


@dataclass(frozen=True, slots=True)
class Overlay:
    """The topology and naming facts of one city (empty by default).

    Attributes
    ----------
    source : str
        Where it was read from (a file path or ``<dict>``; empty for none); used in errors.
    loops, branches, unlisted_branches, repeated_stations : tuple
        The topology entries: lines that run in a loop, branches listed in a line, branches the list leaves
        out, and stations a line lists twice on purpose.
    aliases, homonyms, interchanges, distinct : tuple
        The naming entries: spellings of one station, one name for several stations, stations joined into one
        interchange, and names kept apart.
    line_styles, places : tuple
        Each line's colours and names, and stations' coordinates and other names.
    """

    source: str = ""
    loops: tuple[Loop, ...] = ()
    branches: tuple[Branch, ...] = ()
    unlisted_branches: tuple[UnlistedBranch, ...] = ()
    repeated_stations: tuple[RepeatedStation, ...] = ()
    aliases: tuple[Alias, ...] = ()
    homonyms: tuple[Homonym, ...] = ()
    interchanges: tuple[Interchange, ...] = ()
    distinct: tuple[Distinct, ...] = ()
    line_styles: tuple[LineStyle, ...] = ()
    places: tuple[Place, ...] = ()

    @property
    def allowed_repeats(self) -> tuple[tuple[str, str], ...]:
        return tuple((entry.line, entry.station) for entry in self.repeated_stations)

    def covers(self, line: str) -> bool:
        """Whether any topology entry speaks about ``line``."""
        return any(
            entry.line == line
            for group in (self.loops, self.branches, self.unlisted_branches, self.repeated_stations)
            for entry in group
        )


_FIELDS: dict[str, tuple[type, tuple[str, ...], tuple[str, ...]]] = {
    # section: (entry type, required fields, optional fields)
    "loops": (Loop, ("line", "note"), ()),
    "branches": (Branch, ("line", "leaves_at", "first", "note"), ("last",)),
    "unlisted_branches": (UnlistedBranch, ("line", "at", "note"), ()),
    "repeated_stations": (RepeatedStation, ("line", "station", "note"), ()),
    "aliases": (Alias, ("station", "spellings", "note"), ()),
    "homonyms": (Homonym, ("station", "groups", "note"), ()),
    "interchanges": (Interchange, ("station", "note"), ()),
    "distinct": (Distinct, ("stations", "note"), ()),
    "line_styles": (LineStyle, ("line", "color", "text_color", "note"), ("short_name", "long_name")),
    "places": (Place, ("station", "lat", "lon", "names", "note"), ()),
}
# fields holding a list of names (at least this many), or a list of such lists; every other field is one name
_LISTS = {"spellings": 1, "stations": 2, "names": 1}
# fields holding a number within these bounds
_NUMBERS = {"lat": 90.0, "lon": 180.0}
_GROUPS = {"groups": 2}


def overlay_path_for(metro_path: str | Path) -> Path:
    """Where the overlay of a Metro Data file lives: ``<stem>.overlay.json`` beside it.

    Parameters
    ----------
    metro_path : str or Path
        The Metro Data file.

    Returns
    -------
    Path
        Its overlay's path (which need not exist).

    Examples
    --------
    >>> overlay_path_for("metro/rome.json").as_posix()
    'metro/rome.overlay.json'
    """
    path = Path(metro_path)
    return path.with_name(f"{path.stem}.overlay.json")


def load_overlay(source: str | Path | Mapping[str, Any] | None) -> Overlay:
    """Read and check the shape of an overlay (a path, a dict, or ``None`` for none).

    Parameters
    ----------
    source : str, Path, mapping or None
        An overlay file, its parsed JSON object, or ``None`` (no overlay).

    Returns
    -------
    Overlay
        The checked overlay (empty for ``None``); whether it fits a city's data is checked when the graph is
        compiled.

    Raises
    ------
    InvalidOverlay
        Naming the file, the section and the entry that are wrong.

    Examples
    --------
    >>> overlay = load_overlay({"loops": [{"line": "Circle", "note": "runs round"}]})
    >>> overlay.covers("Circle"), overlay.covers("Line 1")
    (True, False)
    """
    if source is None:
        return Overlay()
    if isinstance(source, Mapping):
        label, obj = "<dict>", source
    else:
        label = str(source)
        obj = read_json_file(source, what="overlay", error=InvalidOverlay)
    if not isinstance(obj, Mapping):
        raise InvalidOverlay(f"{label}: an overlay must be a JSON object")
    unknown = sorted(set(obj) - set(_FIELDS))
    if unknown:
        raise InvalidOverlay(f"{label}: unknown section(s) {unknown}; valid: {sorted(_FIELDS)}")
    sections: dict[str, tuple[Any, ...]] = {}
    for section, (kind, required, optional) in _FIELDS.items():
        entries = obj.get(section, [])
        if not isinstance(entries, list):
            raise InvalidOverlay(f"{label}, {section}: expected a list")
        parsed = []
        for number, entry in enumerate(entries, start=1):
            where = f"{label}, {section} #{number}"
            if not isinstance(entry, Mapping):
                raise InvalidOverlay(f"{where}: expected an object")
            extra = sorted(set(entry) - set(required) - set(optional))
            missing = [name for name in required if name not in entry]
            if extra or missing:
                raise InvalidOverlay(f"{where}: missing {missing}, unexpected {extra}")
            values = {name: _field(name, entry.get(name), name in optional, where) for name in required + optional}
            parsed.append(kind(**values))
        sections[section] = tuple(parsed)
    return Overlay(source=label, **sections)


def _names(value: Any, least: int, what: str) -> tuple[str, ...]:
    if not (isinstance(value, list) and len(value) >= least and all(isinstance(v, str) and v.strip() for v in value)):
        raise InvalidOverlay(
            f"{what} must be a list of at least {least} non-empty string(s), got {shorten(repr(value))}"
        )
    if len(set(value)) != len(value):
        raise InvalidOverlay(f"{what} lists a name twice: {shorten(repr(value))}")
    return tuple(value)


def _field(name: str, value: Any, optional: bool, where: str) -> Any:
    """One field's value, checked: a name, a list of names, or a list of groups of names."""
    what = f"{where}: field {shorten(name)!r}"
    if name in _NUMBERS:
        bound = _NUMBERS[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -bound <= value <= bound:
            raise InvalidOverlay(f"{what} must be a number from {-bound:g} to {bound:g}, got {shorten(repr(value))}")
        return float(value)
    if name in _LISTS:
        return _names(value, _LISTS[name], what)
    if name in _GROUPS:
        if not (isinstance(value, list) and len(value) >= _GROUPS[name]):
            raise InvalidOverlay(
                f"{what} must be a list of at least {_GROUPS[name]} groups, got {shorten(repr(value))}"
            )
        groups = tuple(_names(group, 1, f"{what}, group #{n}") for n, group in enumerate(value, start=1))
        _names([member for group in groups for member in group], 1, what)
        return groups
    if not (isinstance(value, str) and value.strip()) and not (optional and value is None):
        raise InvalidOverlay(f"{what} must be a non-empty string, got {shorten(repr(value))}")
    return value


def check_overlay(overlay: Overlay, metro: MetroData) -> None:
    """Raise :class:`InvalidOverlay` when an entry names a line the data lacks,
    or declares a repeated station that the line does not repeat.

    A typo in a line name would otherwise silently drop a loop or a branch.

    Parameters
    ----------
    overlay : Overlay
        The overlay.
    metro : MetroData
        The data it is for.

    Raises
    ------
    InvalidOverlay
        Naming the overlay, the entry and the line.
    """
    lines = {line.name: line for line in metro.lines}
    where = overlay.source or "overlay"
    for section in ("loops", "branches", "unlisted_branches", "repeated_stations", "line_styles"):
        for number, entry in enumerate(getattr(overlay, section), start=1):
            if entry.line not in lines:
                raise InvalidOverlay(
                    f"{where}, {section} #{number}: line {shorten(entry.line)!r} is not in {metro.source}"
                    f" (lines: {', '.join(map(repr, lines))})"
                )
    for number, entry in enumerate(overlay.repeated_stations, start=1):
        if lines[entry.line].stations.count(entry.station) < 2:
            raise InvalidOverlay(
                f"{where}, repeated_stations #{number}: {shorten(entry.station)!r}"
                f" is not listed twice on line {shorten(entry.line)!r}"
            )
