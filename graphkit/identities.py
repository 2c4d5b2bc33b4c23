"""Station identities: which listed names are one station, and which one name is several.

The graph identifies a station by its cleaned name, which the data gets wrong
in two ways an overlay can declare (see :mod:`graphkit.overlays`):

- one station spelt two ways (Beijing's ``西单`` on Line 1, ``西单站`` on Line 4)
  splits a real transfer: an *alias* renames the spellings to one name;
- several stations sharing a name (New York's ``125 St Station`` on the 1, the
  2/3, the 4/5/6 and the A/B/C/D) make false transfers: a *homonym* gives each
  group of lines a station of its own, identified as ``<name>@<first member>``
  (``125 St Station@1``, ``125 St Station@A``).

:func:`station_identities` rewrites the Metro Data's cleaned names to these
identities (the raw texts stay, so the data as written is unchanged) and
records, for every identity, the name to show and the spellings it answers to.

Examples
--------
>>> from graphkit.metro import load_metro
>>> from graphkit.overlays import load_overlay
>>> data = load_metro({"1": ["A", "86 St"], "4": ["B", "86 St"]})
>>> overlay = load_overlay({"homonyms": [{"station": "86 St", "groups": [["1"], ["4"]], "note": "two"}]})
>>> found = station_identities(data, overlay)
>>> found.metro.station_names, found.display["86 St@4"]
(('A', '86 St@1', 'B', '86 St@4'), '86 St')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from graphkit.errors import InvalidOverlay, shorten
from graphkit.metro import Line, MetroData
from graphkit.overlays import Overlay

__all__ = ["Identities", "station_identities", "QUALIFIER"]

#: Joins a shared name and the line that tells its station apart: ``125 St Station@1``.
QUALIFIER = "@"


@dataclass(frozen=True, slots=True)
class Identities:
    """The Metro Data with stations named by identity, and how to show and read each.

    Attributes
    ----------
    metro : MetroData
        The data with every entry's ``name`` replaced by its station's identity.
    overlay : Overlay
        The overlay with its topology entries' stations renamed likewise, line by line.
    display : Mapping
        Identity to the name to show (only where they differ).
    spellings : Mapping
        Identity to every name it answers to, the shown one first (only where
        that is more than the identity itself).
    """

    metro: MetroData
    overlay: Overlay
    display: Mapping[str, str]
    spellings: Mapping[str, tuple[str, ...]]


def station_identities(metro: MetroData, overlay: Overlay) -> Identities:
    """Apply an overlay's aliases and homonyms to Metro Data.

    Parameters
    ----------
    metro : MetroData
        The data as listed.
    overlay : Overlay
        Its overlay.

    Returns
    -------
    Identities
        The data and overlay with stations named by identity (aliases joined, homonyms split), and how each
        identity is shown and read.

    Raises
    ------
    InvalidOverlay
        An alias or homonym names a station the data lacks, a line that does
        not serve it, leaves a serving line out of its groups, or makes a line
        list one station twice.
    """
    where = overlay.source or "overlay"
    _check_decisions(metro, overlay, where)
    if not overlay.aliases and not overlay.homonyms:
        return Identities(metro, overlay, MappingProxyType({}), MappingProxyType({}))
    listed = {name for line in metro.lines for name in line.stations}
    renamed: dict[str, str] = {}
    spelt: dict[str, list[str]] = {}
    for number, alias in enumerate(overlay.aliases, start=1):
        for spelling in alias.spellings:
            if spelling not in listed:
                raise InvalidOverlay(
                    f"{where}, aliases #{number}: {shorten(spelling)!r} is not a station of {metro.source}"
                )
            if spelling in renamed:
                raise InvalidOverlay(f"{where}, aliases #{number}: {shorten(spelling)!r} is already an alias")
            renamed[spelling] = alias.station
        spelt.setdefault(alias.station, [alias.station]).extend(s for s in alias.spellings if s != alias.station)
    groups = _homonym_groups(metro, overlay, renamed, where)
    lines, line_renames = [], {}
    for line in metro.lines:
        seen: dict[str, int] = {}
        entries, names = [], {}
        for entry in line.entries:
            name = renamed.get(entry.name, entry.name)
            seen[name] = seen.get(name, 0) + 1
            identity = groups.get((name, f"{line.name}#{seen[name]}"), groups.get((name, line.name), name))
            names.setdefault(entry.name, identity)
            entries.append(replace(entry, name=identity))
        lines.append(Line(line.name, tuple(entries)))
        line_renames[line.name] = names
    for line in lines:
        _check_no_repeat(line, metro, overlay, where)
    display, spellings = {}, {}
    for (name, _), identity in groups.items():
        display[identity] = name
        spellings[identity] = tuple(spelt.get(name, [name]))
    for name, names in spelt.items():
        spellings.setdefault(name, tuple(names))
    return Identities(
        replace(metro, lines=tuple(lines)),
        _renamed_topology(overlay, line_renames),
        MappingProxyType(display),
        MappingProxyType(spellings),
    )


def _check_decisions(metro: MetroData, overlay: Overlay, where: str) -> None:
    """Interchanges name a station that several lines serve; distinct names are stations of the data."""
    renamed = {spelling: alias.station for alias in overlay.aliases for spelling in alias.spellings}
    serving: dict[str, set[str]] = {}
    for line in metro.lines:
        for name in line.stations:
            serving.setdefault(renamed.get(name, name), set()).add(line.name)
    for number, entry in enumerate(overlay.interchanges, start=1):
        if len(serving.get(entry.station, ())) < 2:
            raise InvalidOverlay(
                f"{where}, interchanges #{number}: {shorten(entry.station)!r} is not a station that several lines serve"
            )
    for number, entry in enumerate(overlay.distinct, start=1):
        missing = [name for name in entry.stations if name not in serving]
        if missing:
            raise InvalidOverlay(f"{where}, distinct #{number}: {missing} not station(s) of {metro.source}")


def _homonym_groups(
    metro: MetroData, overlay: Overlay, renamed: Mapping[str, str], where: str
) -> dict[tuple[str, str], str]:
    """``(name, member)`` to the identity of that member's station, ``member`` a line or ``line#n``."""
    found: dict[tuple[str, str], str] = {}
    for number, homonym in enumerate(overlay.homonyms, start=1):
        at = f"{where}, homonyms #{number} ({shorten(homonym.station)!r})"
        counts = {
            line.name: count
            for line in metro.lines
            if (count := sum(renamed.get(name, name) == homonym.station for name in line.stations))
        }
        if not counts:
            raise InvalidOverlay(f"{at}: no line of {metro.source} lists it")
        members = [member for group in homonym.groups for member in group]
        expected = {
            line if count == 1 else f"{line}#{n}" for line, count in counts.items() for n in range(1, count + 1)
        }
        unknown = [member for member in members if member not in expected]
        missing = sorted(expected - set(members))
        if unknown or missing:
            raise InvalidOverlay(
                f"{at}: groups must name each line serving it once (a line listing it n times as LINE#1..LINE#n);"
                f" unexpected {unknown}, missing {missing}"
            )
        for group in homonym.groups:
            identity = f"{homonym.station}{QUALIFIER}{group[0]}"
            for member in group:
                found[homonym.station, member] = identity
    return found


def _check_no_repeat(line: Line, metro: MetroData, overlay: Overlay, where: str) -> None:
    names = line.stations
    allowed = {station for name, station in overlay.allowed_repeats if name == line.name}
    for index, name in enumerate(names):
        if name in names[:index] and name not in allowed and not (index == len(names) - 1 and name == names[0]):
            raise InvalidOverlay(
                f"{where}: after aliases, line {shorten(line.name)!r} of {metro.source} lists {shorten(name)!r} twice"
                f" (station #{names.index(name) + 1} and #{index + 1})"
            )


def _renamed_topology(overlay: Overlay, renames: Mapping[str, Mapping[str, str]]) -> Overlay:
    """The overlay with the stations its branches name renamed on their line."""

    def on(line: str, name: str | None) -> str | None:
        return None if name is None else renames.get(line, {}).get(name, name)

    branches = tuple(
        replace(b, leaves_at=on(b.line, b.leaves_at), first=on(b.line, b.first), last=on(b.line, b.last))
        for b in overlay.branches
    )
    unlisted = tuple(replace(u, at=on(u.line, u.at)) for u in overlay.unlisted_branches)
    return replace(overlay, branches=branches, unlisted_branches=unlisted)
