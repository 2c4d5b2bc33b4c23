"""The GTFS tables the compiler needs, read and checked row by row (see :mod:`graphkit.gtfs.feed`).

Every id a row refers to must be defined (a trip's route, a stop time's trip and stop, a platform's
parent), numbers must parse, a trip's stop sequences must be distinct non-negative integers and its first
and last stops must carry times. ``stop_times.txt`` is streamed into integer arrays (trip, sequence, stop):
about 12 bytes a row, whatever the file's text.
"""

from __future__ import annotations

import datetime as dt
from array import array
from collections import Counter
from dataclasses import dataclass

import numpy as np

from graphkit.gtfs.feed import Feed, InvalidFeed

__all__ = ["Stop", "Route", "Stops", "read_stops", "read_routes", "read_trips", "service_days", "read_stop_times"]


@dataclass(frozen=True, slots=True)
class Stop:
    """A row of ``stops.txt``.

    Attributes
    ----------
    stop_id, name : str
        Its id and ``stop_name``.
    lat, lon : float or None
        Its position, where given.
    parent : str
        Its ``parent_station`` (empty for none).
    """

    stop_id: str
    name: str
    lat: float | None
    lon: float | None
    parent: str


@dataclass(frozen=True, slots=True)
class Route:
    """A row of ``routes.txt``.

    Attributes
    ----------
    route_id, short_name, long_name : str
        Its id and names.
    route_type : int
        Its GTFS ``route_type``.
    color, text_color : str
        Its colours as the file writes them (``RRGGBB``; empty for none).
    """

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
    """Stops by id; a platform's parent must be a stop of the file.

    Parameters
    ----------
    feed : Feed
        The opened feed.

    Returns
    -------
    dict of str to Stop
        The stops, in the file's order.

    Raises
    ------
    InvalidFeed
        A bad row, or a parent that is no stop of the file.
    """
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
    """Routes by id, in the file's order.

    Parameters
    ----------
    feed : Feed
        The opened feed.

    Returns
    -------
    dict of str to Route
        The routes.

    Raises
    ------
    InvalidFeed
        A bad row.
    """
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
    """``trip id: (route id, service id, direction id)``; every route must be defined.

    Parameters
    ----------
    feed : Feed
        The opened feed.
    routes : dict of str to Route
        The feed's routes (:func:`read_routes`).

    Returns
    -------
    dict of str to (str, str, str)
        Each trip's route, service and direction.

    Raises
    ------
    InvalidFeed
        A bad row, or a trip of a route ``routes.txt`` does not define.
    """
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
    """The dates each service of ``services`` runs on (calendar.txt's weeks, calendar_dates.txt's changes).

    Parameters
    ----------
    feed : Feed
        The opened feed.
    services : Counter of str
        The services asked about (counted by trips).

    Returns
    -------
    dict of str to set of datetime.date
        Each service's days.

    Raises
    ------
    InvalidFeed
        A bad row or date.
    """
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
    """The trip and stop (indices) of every stop time, sorted by trip and stop sequence, and where each trip's
    rows start; checked.

    ``trip_index`` numbers the trips of ``trips.txt``, ``stop_index`` the stops. A stop where no one may
    board nor alight (pickup and drop-off type 1: the train passes, or a depot) is left out. The rows are
    read straight off the csv reader into typed arrays (8 bytes a number, not an object each); a row number
    an error needs is found again by reading the file once more.

    Parameters
    ----------
    feed : Feed
        The opened feed.
    trip_index, stop_index : dict of str to int
        Each trip's and each stop's number.

    Returns
    -------
    trips, stops : numpy.ndarray
        Each stop time's trip and stop numbers.
    starts : numpy.ndarray
        Where each trip's rows start.

    Raises
    ------
    InvalidFeed
        A bad row, or a trip or stop the other files do not define.
    """
    name = "stop_times.txt"
    # the sequence and whether the row has a time share one number: sequence * 2 + timed
    trips, keys, stops = array("q"), array("q"), array("q")
    with feed.table(name, ("trip_id", "stop_id", "stop_sequence")) as table:
        columns, where, reader = table.columns, table.where, table.reader
        ti, si, qi = columns["trip_id"], columns["stop_id"], columns["stop_sequence"]
        if "arrival_time" not in columns and "departure_time" not in columns:
            raise InvalidFeed(f"{where}: row 1: missing column 'arrival_time' (and 'departure_time')")
        ai = columns.get("arrival_time", columns.get("departure_time"))
        di = columns.get("departure_time", ai)
        pi, oi = columns.get("pickup_type"), columns.get("drop_off_type")
        passing = pi is not None and oi is not None
        width = len(table.header)
        for cells in reader:
            if len(cells) != width:
                table.check(cells)
                continue
            trip = trip_index.get(cells[ti])
            stop = stop_index.get(cells[si])
            try:
                sequence = int(cells[qi])
            except ValueError:
                sequence = -1
            if trip is None or stop is None or sequence < 0:
                _bad_stop_time(where, reader.line_num, cells, trip is None, stop is None, (ti, si, qi))
            if passing and cells[pi] == "1" and cells[oi] == "1":
                continue  # the train passes: no one boards or alights
            trips.append(trip)
            keys.append(sequence * 2 + (1 if cells[ai] or cells[di] else 0))
            stops.append(stop)
    if not trips:
        empty = np.empty(0, np.int64)
        return empty, empty, empty
    as_array = (np.frombuffer(values, dtype=np.int64) for values in (trips, keys, stops))
    return _ordered(feed, trip_index, *as_array)


def _bad_stop_time(where: str, row: int, cells: list[str], no_trip: bool, no_stop: bool, at: tuple) -> None:
    ti, si, qi = at
    if no_trip:
        raise InvalidFeed(f"{where}: row {row}, field 'trip_id': {cells[ti]!r} is not in trips.txt")
    if no_stop:
        raise InvalidFeed(f"{where}: row {row}, field 'stop_id': {cells[si]!r} is not in stops.txt")
    if cells[qi].strip().lstrip("-").isdigit():
        raise InvalidFeed(f"{where}: row {row}, field 'stop_sequence': {cells[qi]} is negative")
    raise InvalidFeed(f"{where}: row {row}, field 'stop_sequence': {cells[qi]!r} is not an integer")


def _rows_of(feed: Feed, trip_id: str, sequence: int | None) -> list[int]:
    """Row numbers of ``stop_times.txt`` of the trip (at the stop sequence), in the file's order."""
    found = []
    for row, columns, cells in feed.rows("stop_times.txt", ("trip_id", "stop_sequence")):
        if cells[columns["trip_id"]] != trip_id:
            continue
        text = cells[columns["stop_sequence"]].strip()
        if sequence is None or (text.isdigit() and int(text) == sequence):
            found.append(row)
    return found


def _ordered(feed: Feed, trip_index: dict[str, int], trips, keys, stops) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted by trip and sequence; a sequence twice in a trip, or a trip's end without a time, is an error."""
    where = f"{feed.source}: stop_times.txt"
    order = np.lexsort((keys >> 1, trips))
    trips, keys, stops = trips[order], keys[order], stops[order]
    sequences, timed = keys >> 1, (keys & 1).astype(bool)
    names = None
    same = (trips[1:] == trips[:-1]) & (sequences[1:] == sequences[:-1])
    if same.any():
        at = int(np.argmax(same)) + 1
        names = list(trip_index)
        first, second = _rows_of(feed, names[trips[at]], int(sequences[at]))[:2]
        raise InvalidFeed(
            f"{where}: row {second}, field 'stop_sequence': {sequences[at]} repeats the sequence of"
            f" row {first} in the same trip"
        )
    starts = np.flatnonzero(np.r_[True, trips[1:] != trips[:-1]])
    ends = np.r_[starts[1:] - 1, len(trips) - 1]
    for ends_at, field, which in ((starts, "departure_time", "first"), (ends, "arrival_time", "last")):
        untimed = ends_at[~timed[ends_at]]
        if len(untimed):
            at = int(untimed.min())
            names = names or list(trip_index)
            row = _rows_of(feed, names[trips[at]], int(sequences[at]))[0]
            raise InvalidFeed(f"{where}: row {row}, field {field!r}: the trip's {which} stop has no time")
    return trips, stops, starts
