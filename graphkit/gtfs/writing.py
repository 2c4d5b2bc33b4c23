"""The compiled network as text: Metro Data (``{line: [stations]}``, interchanges and branch junctions
marked as the embedded files mark them) and its overlay (loops, branches, homonyms, colours, places)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from graphkit.files import atomic_writer
from graphkit.gtfs.lines import LineShape
from graphkit.gtfs.names import hex_color
from graphkit.gtfs.tables import Route, Stops
from graphkit.identities import QUALIFIER

__all__ = ["network_texts", "json_text", "write_city"]

_TRANSFER = " (Transfer Station)"
_BRANCH = " (Branch-starting Station)"


def json_text(value: dict) -> str:
    """One line per key: diffable, the same bytes every time.

    Parameters
    ----------
    value : dict
        A JSON object (its keys in the order written).

    Returns
    -------
    str
        The JSON text, one key and its value a line.

    Examples
    --------
    >>> print(json_text({"Line 1": ["A", "B"], "Line 2": ["B", "C"]}), end="")
    {
      "Line 1": ["A", "B"],
      "Line 2": ["B", "C"]
    }
    """
    rows = [
        f"  {json.dumps(key, ensure_ascii=False)}: {json.dumps(items, ensure_ascii=False)}"
        for key, items in value.items()
    ]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def _overlay_text(overlay: dict[str, list[dict]]) -> str:
    """One line per entry."""
    sections = []
    for section, entries in overlay.items():
        body = ",\n".join(f"    {json.dumps(entry, ensure_ascii=False)}" for entry in entries)
        sections.append(f"  {json.dumps(section)}: [\n{body}\n  ]")
    return "{\n" + ",\n".join(sections) + "\n}\n"


def network_texts(
    shapes: dict[str, LineShape], names: dict[int, str], lines: dict[str, list[Route]], stops: Stops, stop_ids, group
) -> tuple[str, str, int]:
    """``(Metro Data text, overlay text, stations)`` of the compiled lines.

    Parameters
    ----------
    shapes : dict of str to LineShape
        Each line's stations.
    names : dict of int to str
        Each station's rider name.
    lines : dict of str to list of Route
        Each line's routes (for its colours and names).
    stops : dict of str to Stop
        The feed's stops.
    stop_ids : sequence of str
        Each stop number's id.
    group : dict of int to int
        Each stop number's station (the number of the stop that stands for it).

    Returns
    -------
    metro_json, overlay_json : str
        The two files' texts.
    stations : int
        The stations they hold.
    """
    listed = {line: shape.listed() for line, shape in shapes.items()}
    on_lines: dict[int, set[str]] = defaultdict(set)
    for line, stations in listed.items():
        for station in stations:
            on_lines[station].add(line)
    junctions = {(line, segment[0]) for line, shape in shapes.items() for segment in shape.segments[1:]}
    metro = {
        line: [
            names[s] + (_TRANSFER if len(on_lines[s]) > 1 else "") + (_BRANCH if (line, s) in junctions else "")
            for s in stations
        ]
        for line, stations in listed.items()
    }
    overlay: dict[str, list[dict]] = {}
    identity = _homonyms(listed, names, overlay)
    for line, shape in shapes.items():
        if shape.loop:
            first, last = names[shape.segments[0][0]], names[shape.segments[0][-1]]
            note = f"{line} runs in a circle: its trips end where they start; {last} and {first} are neighbours."
            overlay.setdefault("loops", []).append({"line": line, "note": note})
        for segment in shape.segments[1:]:
            leaves, first, last = (names[s] for s in (segment[0], segment[1], segment[-1]))
            overlay.setdefault("branches", []).append(
                {
                    "line": line,
                    "leaves_at": leaves,
                    "first": first,
                    "last": last,
                    "note": f"{line} forks at {leaves}: a branch runs {first} … {last}.",
                }
            )
    overlay["line_styles"] = [_style(line, lines[line], shapes[line], names) for line in shapes]
    overlay["places"] = _places(on_lines, names, identity, stops, stop_ids, group)
    return json_text(metro), _overlay_text(overlay), len(on_lines)


def _style(line: str, routes: list[Route], shape: LineShape, names: dict[int, str]) -> dict:
    route = routes[0]
    ids = ", ".join(r.route_id for r in routes)
    note = f"route{'s' if len(routes) > 1 else ''} {ids}"
    if shape.left_out:
        stops = ", ".join(
            f"{names[s]} ({trips})" for s, trips in sorted(shape.left_out.items(), key=lambda i: names[i[0]])
        )
        note += f"; stops of some trips left to the lines that serve them (trips): {stops}"
    return {
        "line": line,
        "color": hex_color(route.color, "FFFFFF"),
        "text_color": hex_color(route.text_color, "000000"),
        "short_name": route.short_name or None,
        "long_name": route.long_name or None,
        "note": note,
    }


def _homonyms(listed: dict[str, list[int]], names: dict[int, str], overlay: dict) -> dict[int, str]:
    """Distinct stations sharing a name: a homonym entry each (lines listing the name twice: ``line#n``);
    returns each such station's identity."""
    stations_named: dict[str, list[int]] = defaultdict(list)
    for stations in listed.values():
        for s in stations:
            if s not in stations_named[names[s]]:
                stations_named[names[s]].append(s)
    identity: dict[int, str] = {}
    for name, stations in stations_named.items():
        if len(stations) < 2:
            continue
        groups: dict[int, list[str]] = {s: [] for s in stations}
        for line, members in listed.items():
            same = [s for s in members if names[s] == name]
            for count, s in enumerate(same, start=1):
                groups[s].append(f"{line}#{count}" if len(same) > 1 else line)
            if len(same) > 1:
                overlay.setdefault("repeated_stations", []).append(
                    {"line": line, "station": name, "note": f"{line} serves {len(same)} stations named {name}."}
                )
        for s in stations:
            identity[s] = f"{name}{QUALIFIER}{groups[s][0]}"
        overlay.setdefault("homonyms", []).append(
            {
                "station": name,
                "groups": [groups[s] for s in stations],
                "note": f"{len(stations)} stations named {name}, farther apart than a walk.",
            }
        )
    return identity


def _places(on_lines, names, identity, stops: Stops, stop_ids, group) -> list[dict]:
    members: dict[int, list[int]] = defaultdict(list)
    for station, rep in group.items():
        members[rep].append(station)
    places = []
    for rep in on_lines:
        found = [stops[stop_ids[s]] for s in sorted(members[rep])]
        located = [stop for stop in found if stop.lat is not None and stop.lon is not None]
        if not located:
            continue
        spellings = list(dict.fromkeys(stop.name for stop in found if stop.name))
        places.append(
            {
                "station": identity.get(rep, names[rep]),
                "lat": round(sum(stop.lat for stop in located) / len(located), 6),
                "lon": round(sum(stop.lon for stop in located) / len(located), 6),
                "names": spellings or [names[rep]],
                "note": "stop " + ", ".join(stop.stop_id for stop in found),
            }
        )
    return places


def write_city(out: str | Path, city: str, metro_json: str, overlay_json: str) -> tuple[Path, Path]:
    """Write ``<city>.json`` and ``<city>.overlay.json`` in ``out``, each atomically.

    Parameters
    ----------
    out : str or Path
        The folder.
    city : str
        The city's name (the files' stem).
    metro_json, overlay_json : str
        The texts, as :class:`~graphkit.gtfs.compiler.CompiledCity` holds them.

    Returns
    -------
    metro, overlay : Path
        The two files written.
    """
    from graphkit.files import file_in

    metro_path = file_in(out, f"{city}.json")
    overlay_path = file_in(out, f"{city}.overlay.json")
    with atomic_writer(overlay_path) as stream:
        stream.write(overlay_json)
    with atomic_writer(metro_path) as stream:
        stream.write(metro_json)
    return metro_path, overlay_path
