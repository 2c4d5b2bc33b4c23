"""Small GTFS feeds the tests write: each rule of the compiler on a network one can check by eye."""

from __future__ import annotations

import csv
from pathlib import Path

__all__ = ["write_feed", "trip"]


def _table(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        writer.writerows(rows)


def trip(trip_id: str, route: str, stops: list[str], service: str = "WD") -> tuple[str, str, list[str], str]:
    return trip_id, route, stops, service


def write_feed(
    folder: Path,
    *,
    stops: list[tuple],
    routes: list[tuple],
    trips: list[tuple[str, str, list[str], str]],
    transfers: list[tuple[str, str]] = (),
    calendar: list[tuple] = (("WD", "1111100", "20240101", "20241231"), ("WE", "0000011", "20240101", "20241231")),
) -> Path:
    """Write a feed folder: ``stops`` rows ``(id, name, lat, lon[, location type, parent])``, ``routes`` rows
    ``(id, short name, long name, type[, colour, text colour])``, ``trips`` from :func:`trip` (a stop id
    ending in ``!`` is one the train passes: pickup and drop-off type 1)."""
    folder.mkdir(parents=True, exist_ok=True)
    _table(folder / "agency.txt", ["agency_name", "agency_url", "agency_timezone"], [["Test", "http://x", "UTC"]])
    _table(
        folder / "stops.txt",
        ["stop_id", "stop_name", "stop_lat", "stop_lon", "location_type", "parent_station"],
        [[*row, *[""] * (6 - len(row))] for row in stops],
    )
    _table(
        folder / "routes.txt",
        ["route_id", "route_short_name", "route_long_name", "route_type", "route_color", "route_text_color"],
        [[*row, *[""] * (6 - len(row))] for row in routes],
    )
    _table(folder / "trips.txt", ["route_id", "service_id", "trip_id"], [[r, s, t] for t, r, _, s in trips])
    rows = []
    for trip_id, _, stop_ids, _ in trips:
        for number, stop in enumerate(stop_ids, start=1):
            passes = stop.endswith("!")
            time = f"08:{number:02d}:00"
            rows.append([trip_id, time, time, stop.rstrip("!"), number, *(("1", "1") if passes else ("0", "0"))])
    _table(
        folder / "stop_times.txt",
        ["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence", "pickup_type", "drop_off_type"],
        rows,
    )
    days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    _table(
        folder / "calendar.txt",
        ["service_id", *days, "start_date", "end_date"],
        [[service, *list(week), start, end] for service, week, start, end in calendar],
    )
    if transfers:
        _table(
            folder / "transfers.txt",
            ["from_stop_id", "to_stop_id", "transfer_type"],
            [[a, b, "2"] for a, b in transfers],
        )
    return folder
