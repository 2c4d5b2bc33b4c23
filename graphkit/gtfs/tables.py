"""The GTFS tables the compiler needs, read and checked row by row (see :mod:`graphkit.gtfs.feed`).

Every id a row refers to must be defined (a trip's route, a stop time's trip and stop, a platform's
parent), numbers must parse, a trip's stop sequences must be distinct non-negative integers and its first
and last stops must carry times. ``stop_times.txt`` is streamed into integer arrays (trip, sequence, stop):
about 12 bytes a row, whatever the file's text.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass

import numpy as np

from graphkit.gtfs.feed import Feed, InvalidFeed

__all__ = ["Stop", "Route", "Stops", "read_stops", "read_routes", "read_trips", "service_days", "read_stop_times"]


@dataclass(frozen=True, slots=True)
class Stop:
    """A row of ``stops.txt``."""

    stop_id: str
    name: str
    lat: float | None
    lon: float | None
    parent: str


@dataclass(frozen=True, slots=True)
class Route:
    """A row of ``routes.txt``."""

    route_id: str
    short_name: str
    long_name: str
    route_type: int
    color: str
    text_color: str


def _cell(cells: list[str], columns: dict[str, int], name: str) -> str:
    index = columns.get(name)
    return cells[index].strip() if index is not None else ""


def _number(text: str, where: str, field: str, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise InvalidFeed(f"{where}, field {field!r}: {text!r} is not a number") from None


Stops = dict[str, Stop]


def read_stops(feed: Feed) -> Stops:
    """Stops by id; a platform's parent must be a stop of the file."""
    stops: Stops = {}
    for row, columns, cells in feed.rows("stops.txt", ("stop_id",)):
        where = f"{feed.source}: stops.txt: row {row}"
        stop_id = _cell(cells, columns, "stop_id")
        if not stop_id:
            raise InvalidFeed(f"{where}, field 'stop_id': empty")
        lat_text, lon_text = _cell(cells, columns, "stop_lat"), _cell(cells, columns, "stop_lon")
        lat = _number(lat_text, where, "stop_lat") if lat_text else None
        lon = _number(lon_text, where, "stop_lon") if lon_text else None
        if (lat is not None and not -90 <= lat <= 90) or (lon is not None and not -180 <= lon <= 180):
            raise InvalidFeed(f"{where}, field 'stop_lat': ({lat_text}, {lon_text}) is not on Earth")
        if stop_id in stops:
            raise InvalidFeed(f"{where}, field 'stop_id': {stop_id!r} is defined twice")
        stops[stop_id] = Stop(
            stop_id, _cell(cells, columns, "stop_name"), lat, lon, _cell(cells, columns, "parent_station")
        )
    for stop in stops.values():
        if stop.parent and stop.parent not in stops:
            raise InvalidFeed(
                f"{feed.source}: stops.txt: stop {stop.stop_id!r}, field 'parent_station': {stop.parent!r} is no stop"
            )
    return stops


def read_routes(feed: Feed) -> dict[str, Route]:
    """Routes by id, in the file's order."""
    routes: dict[str, Route] = {}
    for row, columns, cells in feed.rows("routes.txt", ("route_id", "route_type")):
        where = f"{feed.source}: routes.txt: row {row}"
        route_id = _cell(cells, columns, "route_id")
        if not route_id:
            raise InvalidFeed(f"{where}, field 'route_id': empty")
        short, long = _cell(cells, columns, "route_short_name"), _cell(cells, columns, "route_long_name")
        if not short and not long:
            raise InvalidFeed(f"{where}, field 'route_short_name': the route has neither a short nor a long name")
        kind = _number(_cell(cells, columns, "route_type"), where, "route_type", int)
        routes[route_id] = Route(
            route_id, short, long, kind, _cell(cells, columns, "route_color"), _cell(cells, columns, "route_text_color")
        )
    return routes


def read_trips(feed: Feed, routes: dict[str, Route]) -> dict[str, tuple[str, str, str]]:
    """``trip id: (route id, service id, direction id)``; every route must be defined."""
    trips: dict[str, tuple[str, str, str]] = {}
    for row, columns, cells in feed.rows("trips.txt", ("route_id", "service_id", "trip_id")):
        route = _cell(cells, columns, "route_id")
        if route not in routes:
            raise InvalidFeed(f"{feed.source}: trips.txt: row {row}, field 'route_id': {route!r} is not in routes.txt")
        trips[_cell(cells, columns, "trip_id")] = (
            route,
            _cell(cells, columns, "service_id"),
            _cell(cells, columns, "direction_id"),
        )
    return trips


def _date(text: str, where: str, field: str) -> dt.date:
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:8])) if len(text) == 8 else dt.date.fromisoformat(text)
    except ValueError:
        raise InvalidFeed(f"{where}, field {field!r}: {text!r} is not a date (YYYYMMDD)") from None


def service_days(feed: Feed, services: Counter[str]) -> dict[str, set[dt.date]]:
    """The dates each service of ``services`` runs on (calendar.txt's weeks, calendar_dates.txt's changes)."""
    days: dict[str, set[dt.date]] = {}
    if feed.has("calendar.txt"):
        weekdays = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        for row, columns, cells in feed.rows("calendar.txt", ("service_id", *weekdays, "start_date", "end_date")):
            where = f"{feed.source}: calendar.txt: row {row}"
            service = _cell(cells, columns, "service_id")
            start = _date(_cell(cells, columns, "start_date"), where, "start_date")
            end = _date(_cell(cells, columns, "end_date"), where, "end_date")
            running = {index for index, day in enumerate(weekdays) if _cell(cells, columns, day) == "1"}
            if service not in services or not running:
                continue
            span = min((end - start).days + 1, 3 * 366)  # a calendar of years: its first three are enough
            found = days.setdefault(service, set())
            found.update(d for d in (start + dt.timedelta(n) for n in range(max(span, 0))) if d.weekday() in running)
    if feed.has("calendar_dates.txt"):
        for row, columns, cells in feed.rows("calendar_dates.txt", ("service_id", "date", "exception_type")):
            where = f"{feed.source}: calendar_dates.txt: row {row}"
            service = _cell(cells, columns, "service_id")
            if service not in services:
                continue
            day = _date(_cell(cells, columns, "date"), where, "date")
            kind = _cell(cells, columns, "exception_type")
            if kind not in ("1", "2"):
                raise InvalidFeed(f"{where}, field 'exception_type': {kind!r} is neither 1 (added) nor 2 (removed)")
            (days.setdefault(service, set()).add if kind == "1" else days.setdefault(service, set()).discard)(day)
    return days


def read_stop_times(
    feed: Feed, trip_index: dict[str, int], stop_index: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(trip, stop)`` index arrays of every stop time, sorted by trip and stop sequence, checked.

    ``trip_index`` numbers the trips of ``trips.txt``. A stop where no one may board nor alight (pickup and
    drop-off type 1: the train passes, or a depot) is left out.
    """
    name = "stop_times.txt"
    trips: list[int] = []
    sequences: list[int] = []
    stops: list[int] = []
    rows: list[int] = []
    timed: list[bool] = []
    where = f"{feed.source}: {name}"
    ti = si = qi = ai = di = -1
    pi = oi = None
    for row, columns, cells in feed.rows(name, ("trip_id", "stop_id", "stop_sequence")):
        if ti < 0:
            ti, si, qi = columns["trip_id"], columns["stop_id"], columns["stop_sequence"]
            ai, di = columns.get("arrival_time", qi), columns.get("departure_time", qi)
            pi, oi = columns.get("pickup_type"), columns.get("drop_off_type")
            if ai == qi and di == qi:
                raise InvalidFeed(f"{where}: row 1: missing column 'arrival_time' (and 'departure_time')")
        trip = trip_index.get(cells[ti])
        if trip is None:
            raise InvalidFeed(f"{where}: row {row}, field 'trip_id': {cells[ti]!r} is not in trips.txt")
        stop = stop_index.get(cells[si])
        if stop is None:
            raise InvalidFeed(f"{where}: row {row}, field 'stop_id': {cells[si]!r} is not in stops.txt")
        try:
            sequence = int(cells[qi])
        except ValueError:
            raise InvalidFeed(f"{where}: row {row}, field 'stop_sequence': {cells[qi]!r} is not an integer") from None
        if sequence < 0:
            raise InvalidFeed(f"{where}: row {row}, field 'stop_sequence': {sequence} is negative")
        if pi is not None and oi is not None and cells[pi] == "1" and cells[oi] == "1":
            continue  # the train passes: no one boards or alights
        trips.append(trip)
        sequences.append(sequence)
        stops.append(stop)
        rows.append(row)
        timed.append(bool(cells[ai] or cells[di]))
    if not trips:
        empty = np.empty(0, np.int64)
        return empty, empty, empty
    return _ordered(where, np.array(trips), np.array(sequences), np.array(stops), np.array(rows), np.array(timed))


def _ordered(where, trips, sequences, stops, rows, timed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.lexsort((sequences, trips))
    trips, sequences, stops, rows, timed = trips[order], sequences[order], stops[order], rows[order], timed[order]
    same = (trips[1:] == trips[:-1]) & (sequences[1:] == sequences[:-1])
    if same.any():
        at = int(np.argmax(same)) + 1
        raise InvalidFeed(
            f"{where}: row {rows[at]}, field 'stop_sequence': {sequences[at]} repeats the sequence of"
            f" row {rows[at - 1]} in the same trip"
        )
    starts = np.flatnonzero(np.r_[True, trips[1:] != trips[:-1]])
    ends = np.r_[starts[1:] - 1, len(trips) - 1] if len(trips) else starts
    for ends_at in (starts, ends):
        untimed = ends_at[~timed[ends_at]]
        if len(untimed):
            at = int(untimed.min())
            field = "arrival_time" if ends_at is ends else "departure_time"
            which = "last" if ends_at is ends else "first"
            raise InvalidFeed(f"{where}: row {rows[at]}, field {field!r}: the trip's {which} stop has no time")
    return trips, stops, starts
