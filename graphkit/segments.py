"""Route values: a route is a sequence of segments ridden on one line each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["Segment", "Route", "RouteSet"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A ride on one line from ``departure_stop`` to ``arrival_stop``.

    Attributes
    ----------
    route_name : str
        The line ridden.
    departure_stop, arrival_stop : str
        Where the ride starts and ends.
    via_stops : tuple of str
        The stations strictly between the two, in riding order.

    Examples
    --------
    >>> Segment("Line 2", "A", "C", ("B",)).to_dict()["num_via_stops"]
    1
    """

    route_name: str
    departure_stop: str
    arrival_stop: str
    via_stops: tuple[str, ...] = ()

    @property
    def num_via_stops(self) -> int:
        return len(self.via_stops)

    @property
    def stops(self) -> int:
        """Stations ridden past or to: hops along the line."""
        return len(self.via_stops) + 1

    def to_dict(self) -> dict[str, Any]:
        """The record form used in every file the toolkit writes."""
        return {
            "route_name": self.route_name,
            "departure_stop": self.departure_stop,
            "arrival_stop": self.arrival_stop,
            "via_stops": list(self.via_stops),
            "num_via_stops": len(self.via_stops),
        }


@dataclass(frozen=True, slots=True)
class Route:
    """Segments that chain from the first departure to the last arrival.

    Attributes
    ----------
    segments : tuple of Segment
        The rides in order; each departs where the one before arrives.

    Examples
    --------
    >>> route = Route((Segment("L1", "A", "C", ("B",)), Segment("L2", "C", "D")))
    >>> route.departure, route.arrival, route.transfers, route.stops
    ('A', 'D', 1, 3)
    """

    segments: tuple[Segment, ...]

    @property
    def transfers(self) -> int:
        return len(self.segments) - 1

    @property
    def stops(self) -> int:
        return sum(len(segment.via_stops) + 1 for segment in self.segments)

    @property
    def departure(self) -> str:
        return self.segments[0].departure_stop

    @property
    def arrival(self) -> str:
        return self.segments[-1].arrival_stop

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(segment.route_name for segment in self.segments)

    def to_list(self) -> list[dict[str, Any]]:
        return [segment.to_dict() for segment in self.segments]


class RouteSet(NamedTuple):
    """The reference routes of one ordered station pair.

    An immutable value like the others; a named tuple because hundreds of
    thousands are made per city and it is the cheapest to build.
    """

    city: str
    source: str
    target: str
    transfers: int
    routes: tuple[Route, ...]

    def to_record(self) -> dict:
        """The references record: ``{city, station_1, station_2, question_transfer_count, routes}``."""
        return {
            "city": self.city,
            "station_1": self.source,
            "station_2": self.target,
            "question_transfer_count": self.transfers,
            "routes": {f"route_{number}": route.to_list() for number, route in enumerate(self.routes, start=1)},
        }

    def to_text(self) -> str:
        """A readable table of the routes, one block per route."""
        plural = "" if self.transfers == 1 else "s"
        lines = [f"{self.source} -> {self.target}: {self.transfers} transfer{plural}, {len(self.routes)} route(s)"]
        for number, route in enumerate(self.routes, start=1):
            lines.append(f"route {number} ({route.stops} stop{'' if route.stops == 1 else 's'})")
            width = max(len(segment.route_name) for segment in route.segments)
            for segment in route.segments:
                via = ", ".join(segment.via_stops) if segment.via_stops else "-"
                lines.append(
                    f"  {segment.route_name:<{width}}  {segment.departure_stop} -> {segment.arrival_stop}"
                    f"  [{segment.num_via_stops} via: {via}]"
                )
        return "\n".join(lines)
