"""The names of a transit graph: what people write resolved to its stations and lines, and stations shown.

:class:`StationNames` is the half of :class:`graphkit.graph.TransitGraph` that reads names only (the
:class:`~graphkit.matching.NameIndex` matching, the overlays' display names and spellings, the lines at a
station); it touches no igraph: the search graph and the route queries stay in :mod:`graphkit.graph`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from graphkit.errors import AmbiguousStation, InvalidName, UnknownLine, UnknownStation
from graphkit.identities import QUALIFIER
from graphkit.matching import NameIndex
from graphkit.names import unsafe_character
from graphkit.segments import Route, Segment

if TYPE_CHECKING:
    from graphkit.metro import MetroData
    from graphkit.topology import LineTopology

__all__ = ["StationNames"]


class StationNames:
    """Name queries of a compiled graph (mixed into :class:`graphkit.graph.TransitGraph`, which sets what they read)."""

    __slots__ = ()
    metro: MetroData
    lines: dict[str, LineTopology]
    stations: tuple[str, ...]
    _display: dict[str, str]
    _spellings: dict[str, tuple[str, ...]]
    _station_index: NameIndex | None
    _line_index: NameIndex | None
    _lines_at: dict[str, tuple[str, ...]]

    @property
    def city(self) -> str:
        return self.metro.city

    @property
    def station_index(self) -> NameIndex:
        """Name matching over the stations (built on first use: romanizing is slow)."""
        if self._station_index is None:
            self._station_index = NameIndex(self.stations, kind="station", city=self.city, spellings=self._spellings)
        return self._station_index

    @property
    def line_index(self) -> NameIndex:
        """Name matching over the lines."""
        if self._line_index is None:
            self._line_index = NameIndex(self.lines, kind="line", city=self.city)
        return self._line_index

    def resolve_station(self, query: str) -> str:
        """The station ``query`` names (see :class:`graphkit.matching.NameIndex`).

        A name that several stations share is told apart by a line serving it:
        ``"125 St@1"`` is the 125 St on the 1.

        Raises
        ------
        InvalidName
            The query holds a control or bidi character (it would fold, unseen, into another name).
        UnknownStation
            Nothing fits; the error lists close matches.
        AmbiguousStation
            Several stations fit; the error lists them with their lines.
        """
        _check_query(query, "station")
        index = self.station_index
        found = index.lookup(query)
        name, qualifier = query, None
        if found.status == "unknown" and QUALIFIER in query:
            name, _, qualifier = query.rpartition(QUALIFIER)
            found = index.lookup(name)
        if qualifier is not None and found.status != "unknown":
            line = self.resolve_line(qualifier)
            on_line = tuple(station for station in found.names if line in self._lines_at[station])
            if len(on_line) == 1:
                return on_line[0]
            if not on_line:
                raise UnknownStation(query, found.names, city=self.city)
            found = replace(found, names=on_line)
        if found.status in ("exact", "matched"):
            return found.names[0]
        if found.status == "unknown":
            raise UnknownStation(query, found.names, city=self.city)
        described = tuple(f"{station} (lines {', '.join(self._lines_at[station])})" for station in found.names)
        raise AmbiguousStation(
            query,
            found.names,
            city=self.city,
            hint=f"{'; '.join(described)}; pick one as NAME{QUALIFIER}LINE, e.g. "
            f"{name.strip()}{QUALIFIER}{self._lines_at[found.names[0]][0]}",
        )

    def display_name(self, station: str) -> str:
        """The name to show for ``station``: its own, or for one of several sharing a name, that name."""
        return self._display.get(station, station)

    def spellings(self, station: str) -> tuple[str, ...]:
        """Every name ``station`` answers to, the shown one first (an alias's spellings too)."""
        return self._spellings.get(station, (station,))

    def namesakes(self, station: str) -> tuple[str, ...]:
        """The stations shown under ``station``'s name, itself included (several for a homonym)."""
        if station not in self._display:
            return (station,)
        shown = self._display[station]
        return tuple(other for other, name in self._display.items() if name == shown)

    def display_route(self, route: Route) -> Route:
        """``route`` with its stations shown by name (see :meth:`display_name`)."""
        if not self._display:
            return route
        show = self.display_name
        return Route(
            tuple(
                Segment(s.route_name, show(s.departure_stop), show(s.arrival_stop), tuple(show(v) for v in s.via_stops))
                for s in route.segments
            )
        )

    def resolve_line(self, query: str) -> str:
        """The line ``query`` names (see :class:`graphkit.matching.NameIndex`); see :meth:`resolve_station`."""
        if query not in self.lines:  # line names are free text: a data's own name is taken as written
            _check_query(query, "line")
        return self.line_index.resolve(query)

    def lines_at(self, station: str) -> tuple[str, ...]:
        """Lines serving ``station``, in data order."""
        return self._lines_at[station]

    def line(self, name: str) -> LineTopology:
        try:
            return self.lines[name]
        except KeyError:
            raise UnknownLine(name, tuple(self.lines)[:3], city=self.city) from None

    def transfer_stations(self) -> tuple[str, ...]:
        """Stations served by two or more lines: where transfers are possible."""
        return tuple(station for station in self.stations if len(self._lines_at[station]) > 1)


def _check_query(query: str, kind: str) -> None:
    unsafe = unsafe_character(query)
    if unsafe is not None:
        raise InvalidName(query, unsafe, kind=kind)
