"""Topology overlays: what the station lists cannot say.

An overlay is a JSON file beside the Metro Data (``<city>.overlay.json``)
declaring loop lines, where an appended branch leaves its main line, branches
that are marked but not listed, and distinct stations that share a name on one
line. Every entry carries a one-line ``note`` with the fact it encodes::

    {
      "loops": [{"line": "Line 2", "note": "..."}],
      "branches": [{"line": "Line B", "leaves_at": "Bologna Station",
                    "first": "S. Agnese Annibaliano Station",
                    "last": "Jonio Station", "note": "..."}],
      "unlisted_branches": [{"line": "Line 6", "at": "美院象山站", "note": "..."}],
      "repeated_stations": [{"line": "R", "station": "36 St Station", "note": "..."}]
    }

``first`` .. ``last`` is a contiguous run of the line's list (``last``
defaults to the end of the list): the branch, in order from the junction
outwards. The compiler cuts it out of the list, joins its neighbours, and
hangs it on ``leaves_at``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphkit.errors import InvalidOverlay
from graphkit.metro import MetroData

__all__ = [
    "Loop",
    "Branch",
    "UnlistedBranch",
    "RepeatedStation",
    "Overlay",
    "load_overlay",
    "overlay_path_for",
    "check_overlay",
]


@dataclass(frozen=True, slots=True)
class Loop:
    line: str
    note: str


@dataclass(frozen=True, slots=True)
class Branch:
    line: str
    leaves_at: str
    first: str
    last: str | None
    note: str


@dataclass(frozen=True, slots=True)
class UnlistedBranch:
    line: str
    at: str
    note: str


@dataclass(frozen=True, slots=True)
class RepeatedStation:
    line: str
    station: str
    note: str


@dataclass(frozen=True, slots=True)
class Overlay:
    """The topology facts of one city (empty by default)."""

    source: str = ""
    loops: tuple[Loop, ...] = ()
    branches: tuple[Branch, ...] = ()
    unlisted_branches: tuple[UnlistedBranch, ...] = ()
    repeated_stations: tuple[RepeatedStation, ...] = ()

    @property
    def allowed_repeats(self) -> tuple[tuple[str, str], ...]:
        return tuple((entry.line, entry.station) for entry in self.repeated_stations)

    def covers(self, line: str) -> bool:
        """Whether any entry speaks about ``line``."""
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
}


def overlay_path_for(metro_path: str | Path) -> Path:
    """Where the overlay of a Metro Data file lives: ``<stem>.overlay.json`` beside it."""
    path = Path(metro_path)
    return path.with_name(f"{path.stem}.overlay.json")


def load_overlay(source: str | Path | Mapping[str, Any] | None) -> Overlay:
    """Read and check the shape of an overlay (a path, a dict, or ``None`` for none).

    Raises
    ------
    InvalidOverlay
        Naming the file, the section and the entry that are wrong.
    """
    if source is None:
        return Overlay()
    if isinstance(source, Mapping):
        label, obj = "<dict>", source
    else:
        label = str(source)
        try:
            obj = json.loads(Path(source).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidOverlay(f"{label}: no such overlay file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InvalidOverlay(f"{label}: cannot read overlay ({error})") from None
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
            values = {name: entry.get(name) for name in required + optional}
            for name, value in values.items():
                if not (isinstance(value, str) and value.strip()) and not (name in optional and value is None):
                    raise InvalidOverlay(f"{where}: field {name!r} must be a non-empty string, got {value!r}")
            parsed.append(kind(**values))
        sections[section] = tuple(parsed)
    return Overlay(source=label, **sections)


def check_overlay(overlay: Overlay, metro: MetroData) -> None:
    """Raise :class:`InvalidOverlay` when an entry names a line the data lacks,
    or declares a repeated station that the line does not repeat.

    A typo in a line name would otherwise silently drop a loop or a branch.
    """
    lines = {line.name: line for line in metro.lines}
    where = overlay.source or "overlay"
    for section in ("loops", "branches", "unlisted_branches", "repeated_stations"):
        for number, entry in enumerate(getattr(overlay, section), start=1):
            if entry.line not in lines:
                raise InvalidOverlay(
                    f"{where}, {section} #{number}: line {entry.line!r} is not in {metro.source}"
                    f" (lines: {', '.join(map(repr, lines))})"
                )
    for number, entry in enumerate(overlay.repeated_stations, start=1):
        if lines[entry.line].stations.count(entry.station) < 2:
            raise InvalidOverlay(
                f"{where}, repeated_stations #{number}: {entry.station!r} is not listed twice on line {entry.line!r}"
            )
