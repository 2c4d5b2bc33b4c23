"""Any Metro Data network written as a GTFS feed: the inverse of :mod:`graphkit.gtfs.compiler`.

One route per line (``route_type`` 1, metro; its colour from the overlay's ``line_styles``, else a fixed
palette), each station a parent station with one platform per line serving it, interchanges as
``transfers.txt`` rows between a station's platforms, one service running every day of 2024. Trips: a
line's trunk both ways (two trips each way), each branch from the trunk's first station both ways (one
each way), and a loop as one trip round it and back to its first station, each way. Coordinates are the
overlay's ``places``; where it has none, stations sit on a grid 0.01 degree apart (about a kilometre: no
two stations of one name within a walk of each other), near 0° N 0° E. ``gtfs`` of the feed gives the same
lines with the same stations in the same order (see the round-trip test).
"""

from __future__ import annotations

import csv
import io
import zipfile

from graphkit.graph import TransitGraph
from graphkit.topology import LineTopology

__all__ = ["feed_bytes", "PALETTE"]

#: Line colours where the overlay gives none (a line's index picks one, round robin).
PALETTE = ("E6194B", "3CB44B", "4363D8", "F58231", "911EB4", "42D4F4", "F032E6", "9A6324", "800000", "469990")
_DATE = "20240101"
_END = "20241231"


def _table(header: list[str], rows: list[list]) -> bytes:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return text.getvalue().encode("utf-8")


def _walks(topology: LineTopology, loop: bool) -> list[tuple[list[str], int]]:
    """The line's trips one way, each with how many run: the trunk and each branch from the trunk's start."""
    stations = list(topology.stations)
    if loop:
        order = [stations[0]]
        while len(order) < len(stations):
            order.append(next(s for s in topology.adjacency[order[-1]] if s not in order))
        return [([*order, order[0]], 2)]
    adjacency = topology.adjacency
    start = stations[0]
    if len(adjacency[start]) > 1:  # a junction listed first: start from the first station that ends the line
        start = next((s for s in stations if len(adjacency[s]) == 1), start)
    parents = {start: None}
    queue = [start]
    for here in queue:
        for there in adjacency[here]:
            if there not in parents:
                parents[there] = here
                queue.append(there)

    def path_to(end: str) -> list[str]:
        found = [end]
        while parents[found[-1]] is not None:
            found.append(parents[found[-1]])
        return found[::-1]

    ends = [s for s in stations if s != start and len(adjacency[s]) == 1] or [stations[-1]]
    trunk_end = ends[0]  # the trunk: to the first end the list reaches (branches are listed after it)
    walks = [(path_to(trunk_end), 2)]
    walks += [(path_to(end), 1) for end in ends if end != trunk_end]
    return walks


def _stops(
    graph: TransitGraph, station_ids: dict[str, str], line_ids: dict[str, str]
) -> tuple[list[list[str]], list[list[str]]]:
    """The rows of ``stops.txt`` (each station, then its platforms) and of ``transfers.txt``."""
    places = {place.station: place for place in graph.overlay.places}
    stops, transfers = [], []
    for number, station in enumerate(graph.stations):
        place = places.get(station)
        lat, lon = (
            (place.lat, place.lon) if place else (round(0.01 * (number // 100), 6), round(0.01 * (number % 100), 6))
        )
        sid = station_ids[station]
        name = graph.display_name(station)
        stops.append([sid, name, f"{lat:.6f}", f"{lon:.6f}", "1", ""])
        serving = graph.lines_at(station)
        for line in serving:
            stops.append([f"{sid}-{line_ids[line]}", name, f"{lat:.6f}", f"{lon:.6f}", "0", sid])
        for a in serving:
            for b in serving:
                if a != b:
                    transfers.append([f"{sid}-{line_ids[a]}", f"{sid}-{line_ids[b]}", "2", "180"])
    return stops, transfers


def _routes(
    graph: TransitGraph, station_ids: dict[str, str], line_ids: dict[str, str]
) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """The rows of ``routes.txt``, ``trips.txt`` and ``stop_times.txt``."""
    overlay = graph.overlay
    loops = {loop.line for loop in overlay.loops} | {
        line.name for line in graph.given_metro.lines if line.closes_on_itself
    }
    styles = {style.line: style for style in overlay.line_styles}
    routes, trips, stop_times = [], [], []
    for number, (line, topology) in enumerate(graph.lines.items()):
        style = styles.get(line)
        color = style.color.lstrip("#") if style else PALETTE[number % len(PALETTE)]
        text = style.text_color.lstrip("#") if style else "FFFFFF"
        routes.append([line_ids[line], line, "", "1", color, text])
        count = 0
        for walk, runs in _walks(topology, line in loops):
            for direction, order in ((0, walk), (1, walk[::-1])):
                for _ in range(runs):
                    count += 1
                    trip_id = f"{line_ids[line]}-{count}"
                    trips.append([line_ids[line], "ALL", trip_id, str(direction)])
                    for sequence, station in enumerate(order, start=1):
                        minutes = 6 * 60 + count + 2 * sequence
                        time = f"{minutes // 60:02d}:{minutes % 60:02d}:00"
                        stop = f"{station_ids[station]}-{line_ids[line]}"
                        stop_times.append([trip_id, time, time, stop, str(sequence)])
    return routes, trips, stop_times


def feed_bytes(graph: TransitGraph, *, agency: str = "ReasonMap toolkit") -> bytes:
    """The network of ``graph`` as a zipped GTFS feed (the bytes of a ``.zip``), the same bytes every time.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    agency : str, optional
        The agency's name in ``agency.txt``.

    Returns
    -------
    bytes
        The zip archive.
    """
    station_ids = {station: f"S{number + 1}" for number, station in enumerate(graph.stations)}
    line_ids = {line: f"L{number + 1}" for number, line in enumerate(graph.lines)}
    stops, transfers = _stops(graph, station_ids, line_ids)
    routes, trips, stop_times = _routes(graph, station_ids, line_ids)
    files = {
        "agency.txt": _table(
            ["agency_name", "agency_url", "agency_timezone"], [[agency, "https://example.org", "UTC"]]
        ),
        "stops.txt": _table(["stop_id", "stop_name", "stop_lat", "stop_lon", "location_type", "parent_station"], stops),
        "routes.txt": _table(
            ["route_id", "route_short_name", "route_long_name", "route_type", "route_color", "route_text_color"], routes
        ),
        "trips.txt": _table(["route_id", "service_id", "trip_id", "direction_id"], trips),
        "stop_times.txt": _table(["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"], stop_times),
        "calendar.txt": _table(
            [
                "service_id",
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday",
                "start_date",
                "end_date",
            ],
            [["ALL", "1", "1", "1", "1", "1", "1", "1", _DATE, _END]],
        ),
        "transfers.txt": _table(["from_stop_id", "to_stop_id", "transfer_type", "min_transfer_time"], transfers),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()
