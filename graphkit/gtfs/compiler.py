"""A GTFS feed compiled into Metro Data and its overlay: the network a rider of its rail lines knows.

The rules (the README's "Any city from GTFS" states them for users):

- only routes of the rail modes asked for (never a bus), and only the trips that run on the service day
  (default: the day with the most such trips, the earliest of ties);
- a platform (or entrance) is its parent station; stations of one name (a line's name inside it aside:
  ``Expo / Crenshaw E-Line``, ``... K-Line``) within :data:`WALK_METRES` of each other are one station
  (PATH's stops, one per direction, have no parent); a pair of stations joined by ``transfers.txt`` is
  one station when no route serves both;
- one line per route; routes sharing a short name (or, without one, a long name) are one line; its stop
  patterns make its trunk, branches and services (:mod:`graphkit.gtfs.lines`);
- a station on two lines or more is an interchange; distinct stations sharing a name are homonyms;
- names as riders read them (:func:`graphkit.gtfs.names.rider_name`); the feed's spellings, each
  station's coordinates and each line's colours go in the overlay (``places``, ``line_styles``).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from graphkit.gtfs.feed import Feed, InvalidFeed, open_feed
from graphkit.gtfs.lines import LineShape, shape_line
from graphkit.gtfs.names import DEFAULT_MODES, rider_name, route_modes
from graphkit.gtfs.tables import Route, Stops, read_routes, read_stop_times, read_stops, read_trips, service_days

__all__ = ["CompileOptions", "CompiledCity", "CompileJob", "compile_feed", "compile_job", "WALK_METRES"]

#: Stations of one name this close (metres) are one station.
WALK_METRES = 300.0
_TRANSFER_TYPES = frozenset({"", "0", "1", "2"})
# a line named inside a station's name (LA's "Expo / Crenshaw E-Line Station" and "... K-Line Station")
_LINE_WORD = re.compile(r"\s*\b[A-Z0-9]{1,3}[- ]Line\b", re.IGNORECASE)


def _name_key(name: str) -> str:
    """What two stations' names must share to be one station: the rider's name without a line's name."""
    return " ".join(_LINE_WORD.sub("", rider_name(name)).split()).casefold()


@dataclass(frozen=True, slots=True)
class CompileOptions:
    """What to compile: the city's name (default: the feed's file name), the service day (default the
    busiest), the modes and the route ids (default every route of those modes).

    Attributes
    ----------
    city : str or None
        The city's name in the files written.
    date : datetime.date or None
        The service day whose trips make the lines.
    modes : tuple of str
        The rail modes compiled (:data:`graphkit.gtfs.names.MODES`).
    routes : tuple of str
        Only these route ids.
    """

    city: str | None = None
    date: dt.date | None = None
    modes: tuple[str, ...] = DEFAULT_MODES
    routes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CompiledCity:
    """A compiled feed: the files' texts and what they hold.

    Attributes
    ----------
    city : str
        The city's name.
    date : datetime.date
        The service day compiled.
    metro_json, overlay_json : str
        The Metro Data and overlay files' texts.
    lines, stations : int
        What they hold.
    """

    city: str
    date: dt.date
    metro_json: str
    overlay_json: str
    lines: int
    stations: int


def _read_agency(feed: Feed) -> None:
    for row, columns, cells in feed.rows("agency.txt", ("agency_name", "agency_url", "agency_timezone")):
        for column in ("agency_name", "agency_timezone"):
            if not cells[columns[column]].strip():
                raise InvalidFeed(f"{feed.source}: agency.txt: row {row}, field {column!r}: empty")


def _kept_routes(feed: Feed, routes: dict[str, Route], options: CompileOptions) -> dict[str, Route]:
    types = route_modes(options.modes)
    for route_id in options.routes:
        if route_id not in routes:
            raise ValueError(f"--route {route_id}: no such route in {feed.source} (routes: {', '.join(routes)})")
    chosen = {r: route for r, route in routes.items() if route.route_type in types}
    if options.routes:
        chosen = {r: route for r, route in chosen.items() if r in options.routes}
    if not chosen:
        kinds = sorted({route.route_type for route in routes.values()})
        raise InvalidFeed(
            f"{feed.source}: no rail route of the modes {', '.join(options.modes)} (its route types: {kinds})"
        )
    return chosen


def _service_day(feed: Feed, trips, kept: dict[str, Route], options: CompileOptions) -> tuple[dt.date, set[str]]:
    """The day compiled and the services running on it."""
    services = Counter(service for route, service, _ in trips.values() if route in kept)
    days = service_days(feed, services)
    counts: Counter[dt.date] = Counter()
    for service, dates in days.items():
        for day in dates:
            counts[day] += services[service]
    if not counts:
        raise InvalidFeed(f"{feed.source}: calendar.txt, calendar_dates.txt: no rail trip runs on any day")
    busiest = min(counts, key=lambda day: (-counts[day], day))
    date = options.date or busiest
    if date not in counts:
        raise ValueError(f"--date {date}: no rail trip of {feed.source} runs that day (the busiest: {busiest})")
    return date, {service for service, dates in days.items() if date in dates}


def compile_feed(path, options: CompileOptions = CompileOptions()) -> CompiledCity:
    """Compile the feed at ``path`` (a zip archive or a folder).

    Parameters
    ----------
    path : str or Path
        The feed.
    options : CompileOptions, optional
        What to compile.

    Returns
    -------
    CompiledCity
        The files' texts (checked to load and compile into a graph) and what they hold.

    Raises
    ------
    InvalidFeed
        The feed is malformed (the message names the file, the row and the field) or has no rail route.
    ValueError
        An option names a route or a day the feed lacks.
    """
    feed = open_feed(path)
    _read_agency(feed)
    stops = read_stops(feed)
    routes = read_routes(feed)
    trips = read_trips(feed, routes)
    trip_ids = list(trips)
    trip_index = {trip: index for index, trip in enumerate(trip_ids)}
    stop_ids = list(stops)
    stop_index = {stop: index for index, stop in enumerate(stop_ids)}
    trip_of, stop_of, starts = read_stop_times(feed, trip_index, stop_index)  # checked whatever the modes
    kept = _kept_routes(feed, routes, options)
    date, running = _service_day(feed, trips, kept, options)
    keep = np.array([trips[t][0] in kept and trips[t][1] in running for t in trip_ids], dtype=bool)
    root = _roots(stops, stop_ids)
    patterns = _patterns(trip_of, root[stop_of] if len(stop_of) else stop_of, starts, keep)
    if not patterns:
        raise InvalidFeed(f"{feed.source}: stop_times.txt: no rail trip of {date} has two stops")
    routes_at: dict[int, set[str]] = defaultdict(set)
    for trip, pattern in patterns.items():
        for station in pattern:
            routes_at[station].add(trips[trip_ids[trip]][0])
    group = _stations(feed, stops, stop_ids, routes_at, stop_index, root)
    return _assemble(feed, options, date, stops, stop_ids, kept, trips, trip_ids, patterns, group)


def _roots(stops: Stops, stop_ids: list[str]) -> np.ndarray:
    """Each stop's station: its parent's parent ..., up to a stop without one."""
    index = {stop: n for n, stop in enumerate(stop_ids)}
    roots = np.empty(len(stop_ids), dtype=np.int64)
    for n, stop_id in enumerate(stop_ids):
        seen, at = set(), stop_id
        while stops[at].parent and at not in seen:
            seen.add(at)
            at = stops[at].parent
        roots[n] = index[at]
    return roots


def _patterns(trip_of: np.ndarray, station_of: np.ndarray, starts: np.ndarray, keep: np.ndarray) -> dict:
    """Each kept trip's stations in order, a station repeated in a row once."""
    found: dict[int, tuple[int, ...]] = {}
    ends = np.r_[starts[1:], len(trip_of)]
    for start, end in zip(starts.tolist(), ends.tolist()):
        trip = int(trip_of[start])
        if not keep[trip]:
            continue
        stations = station_of[start:end]
        if len(stations) > 1:
            stations = stations[np.r_[True, stations[1:] != stations[:-1]]]
        if len(stations) >= 2:
            found[trip] = tuple(stations.tolist())
    return found


def _pieces(stations: list[int]) -> list[list[int]]:
    """A trip's stations cut where it calls at a station a second time (a train that reverses), each piece
    from the station before the cut; a trip that ends where it started (a loop) stays whole."""
    if len(stations) > 2 and stations[0] == stations[-1] and len(set(stations)) == len(stations) - 1:
        return [stations]
    pieces, current = [], []
    for station in stations:
        if station in current:
            pieces.append(current)
            current = [current[-1]]
        current.append(station)
    return [piece for piece in [*pieces, current] if len(piece) >= 2]


def _metres(a, b) -> float:
    if a.lat is None or b.lat is None or a.lon is None or b.lon is None:
        return math.inf
    y = math.radians(b.lat - a.lat)
    x = math.radians(b.lon - a.lon) * math.cos(math.radians((a.lat + b.lat) / 2))
    return 6_371_000 * math.hypot(x, y)


def _stations(feed: Feed, stops: Stops, stop_ids, routes_at, stop_index, root) -> dict[int, int]:
    """Each used station's representative: same name within walking distance, or joined by a transfer."""
    parent = {station: station for station in routes_at}
    served = {station: set(routes) for station, routes in routes_at.items()}  # by representative

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
            served[ra] |= served.pop(rb)

    by_name: dict[str, list[int]] = defaultdict(list)
    for station in sorted(routes_at):
        by_name[_name_key(stops[stop_ids[station]].name)].append(station)
    for same in by_name.values():
        for i, a in enumerate(same):
            for b in same[i + 1 :]:
                if _metres(stops[stop_ids[a]], stops[stop_ids[b]]) <= WALK_METRES:
                    join(a, b)
    if feed.has("transfers.txt"):
        for a, b in _transfers(feed, stop_index, root):
            if a in parent and b in parent and not served[find(a)] & served[find(b)]:
                join(a, b)
    return {station: find(station) for station in parent}


def _transfers(feed: Feed, stop_index: dict[str, int], root) -> Iterator[tuple[int, int]]:
    """The pairs of distinct stations ``transfers.txt`` joins (a transfer that is not possible left out)."""
    for row, columns, cells in feed.rows("transfers.txt", ("from_stop_id", "to_stop_id")):
        ends = []
        for field in ("from_stop_id", "to_stop_id"):
            stop = cells[columns[field]].strip()
            if stop and stop not in stop_index:
                raise InvalidFeed(
                    f"{feed.source}: transfers.txt: row {row}, field {field!r}: {stop!r} is not in stops.txt"
                )
            ends.append(int(root[stop_index[stop]]) if stop else -1)
        kind = cells[columns["transfer_type"]].strip() if "transfer_type" in columns else ""
        if ends[0] != ends[1] and min(ends) >= 0 and kind in _TRANSFER_TYPES:
            yield ends[0], ends[1]


def _line_name(route: Route) -> str:
    """The route's short name (or long name), a capitalised name of several words in title case."""
    name = " ".join((route.short_name or route.long_name).split())
    return rider_name(name) if " " in name else name


def _assemble(feed, options, date, stops, stop_ids, kept, trips, trip_ids, patterns, group) -> CompiledCity:
    from graphkit.gtfs.writing import network_texts

    lines: dict[str, list[Route]] = {}
    for route in kept.values():
        lines.setdefault(_line_name(route), []).append(route)
    line_of_route = {route.route_id: name for name, members in lines.items() for route in members}
    counted: dict[str, Counter] = defaultdict(Counter)
    used: Counter[int] = Counter()
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}
    for trip, pattern in patterns.items():
        stations = [group[s] for s in pattern]
        stations = [s for n, s in enumerate(stations) if n == 0 or s != stations[n - 1]]
        line = line_of_route[trips[trip_ids[trip]][0]]
        for piece in _pieces(stations):
            key = min(tuple(piece), tuple(piece[::-1]))  # the two directions: one pattern
            counted[line][key] += 1
            seen.setdefault(key, tuple(piece))  # as its first trip in trips.txt runs it
        used.update(pattern)
    lines_at: dict[int, set[str]] = defaultdict(set)
    for line, found in counted.items():
        for pattern in found:
            lines_at.update({s: lines_at[s] | {line} for s in pattern})
    names = _names(stops, stop_ids, group, used)
    shapes: dict[str, LineShape] = {}
    for line in lines:
        if line not in counted:
            continue
        ordered = [
            (seen[key], trips_run)
            for key, trips_run in sorted(counted[line].items(), key=lambda i: (-i[1], -len(i[0]), i[0]))
        ]
        shapes[line] = shape_line(ordered, lambda s, line=line: bool(lines_at[s] - {line}))
    city = options.city or feed.stem
    metro_json, overlay_json, stations = network_texts(shapes, names, lines, stops, stop_ids, group)
    _check_network(feed, city, metro_json, overlay_json)
    return CompiledCity(city, date, metro_json, overlay_json, len(shapes), stations)


def _check_network(feed: Feed, city: str, metro_json: str, overlay_json: str) -> None:
    """The texts load as Metro Data and overlay and compile into a graph (names the feed gives that Metro
    Data refuses, a control character say, are reported as the feed's)."""
    from graphkit.errors import TransitError
    from graphkit.graph import compile_graph
    from graphkit.metro import load_metro
    from graphkit.overlays import check_overlay, load_overlay

    try:
        overlay = load_overlay(json.loads(overlay_json))
        metro = load_metro(metro_json, city=city, allowed_repeats=overlay.allowed_repeats)
        check_overlay(overlay, metro)
        compile_graph(metro, overlay)
    except TransitError as error:
        raise InvalidFeed(f"{feed.source}: stops.txt: the compiled network is not valid Metro Data: {error}") from None


def _names(stops: Stops, stop_ids, group: dict[int, int], used: Counter) -> dict[int, str]:
    """Each station's rider name: that of its busiest member."""
    members: dict[int, list[int]] = defaultdict(list)
    for station, rep in group.items():
        members[rep].append(station)
    names = {}
    for rep, found in members.items():
        name = rider_name(stops[stop_ids[min(found, key=lambda s: (-used[s], s))]].name) or stop_ids[rep]
        if len({stops[stop_ids[s]].name for s in found}) > 1:  # one station each line names its own way
            name = " ".join(_LINE_WORD.sub("", name).split()) or name
        names[rep] = name
    return names


@dataclass(frozen=True, slots=True)
class CompileJob:
    """One feed to compile (what a worker needs).

    Attributes
    ----------
    feed : str
        The feed's path.
    options : CompileOptions
        What to compile.
    """

    feed: str
    options: CompileOptions


def compile_job(job: CompileJob) -> CompiledCity | str:
    """The compiled city, or the one-line reason the feed cannot be compiled (run by a worker).

    Parameters
    ----------
    job : CompileJob
        The feed and the options.

    Returns
    -------
    CompiledCity or str
        The compiled city, or why not (an error never crosses back from a worker).
    """
    from graphkit.errors import TransitError

    try:
        return compile_feed(job.feed, job.options)
    except (TransitError, ValueError, OSError) as error:
        return " ".join(str(error).split())
