"""Speed and readability of rendered maps: ambiguous labels, label crossings and bends per line.

Run ``python -m benchmarks.speed.render [--only rome,miami] [--synthetic N] [--seed S]``.
It renders every embedded city (or those named) and ``N`` random synthetic
networks (default 20, drawn from ``--seed``) with :func:`vision.render.render_map`
at the default size, and measures each map's truth with :mod:`vision.map_quality`:
a label is *ambiguous* when its box is at least as near another station's
marker as its own and no leader line joins it to its marker; a *bend* is a
turn of a line's drawn path; the crossings are
:func:`vision.map_quality.label_crossings`. One line per map goes to stderr;
the last line printed is one JSON object: ``ambiguous_share`` (ambiguous
labels over all labels), ``ambiguous``, ``labels``, ``far`` (labels with no leader more than
three label heights beyond their marker, :func:`vision.map_quality.far_labels`), ``leaders``,
``leader_label`` (leaders over another label), ``leader_line`` (leaders over
another line's stroke), ``line_label`` (strokes through a station label's
text), ``leader_marker`` (leaders over another station's marker),
``line_marker`` (strokes over the marker of a station their line does not
serve, :func:`vision.map_quality.marker_crossings`), ``bends_per_line``
(all bends over all lines), ``seconds`` (rendering only, all maps together),
``seconds_median`` and ``seconds_max`` (over the maps), ``seconds_per_map``, the same in CPU seconds
of this process (``cpu_seconds``, ``cpu_seconds_median``, ``cpu_seconds_max``, each map's under
``maps``: a shared machine's wall seconds run far above them),
per-map figures under ``maps``, and under ``skipped`` each map that could not
be drawn here (a Chinese city without a CJK font) with the reason.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from graphkit.cities import city_graph, city_names
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import load_metro
from vision.map_quality import map_quality
from vision.render import render_map

_WORDS = (
    "Oak", "Elm", "Pine", "Bay", "Hill", "Port", "Mill", "Lake", "Glen", "Ash", "Brook", "Cross", "Dale", "Ferry",
    "Gate", "Haven", "Isle", "Kings", "Lea", "Moor", "North", "Old", "Park", "Quay", "Ridge", "Stone", "Tower",
    "Union", "Vale", "Wood", "Market", "Castle", "Harbour", "Garden", "Bridge", "Church", "Field", "Square",
)  # fmt: skip


def synthetic_network(seed: int) -> TransitGraph:
    """A random network of 2–8 lines of 4–16 stations, later lines sharing stations with earlier ones."""
    rng = random.Random(seed)
    names = [f"{a} {b}" for a in _WORDS for b in ("Street", "Road", "Central", "Park", "Station", "Junction")]
    rng.shuffle(names)
    pool = iter(names)
    data: dict[str, list[str]] = {}
    used: list[str] = []
    for index in range(rng.randint(2, 8)):
        length = rng.randint(4, 16)
        stations: list[str] = []
        while len(stations) < length:
            shared = used and rng.random() < 0.15
            name = rng.choice(used) if shared else next(pool)
            if name not in stations:
                stations.append(name)
        used.extend(name for name in stations if name not in used)
        data[f"Line {index + 1}"] = stations
    return compile_graph(load_metro(data, city=f"synthetic-{seed}"))


_CROSSINGS = ("leader_label", "leader_line", "line_label", "leader_marker", "line_marker")


def measure(name: str, graph: TransitGraph, seed: int) -> dict:
    started, cpu = time.perf_counter(), time.process_time()
    rendered = render_map(graph, seed=seed)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    quality = map_quality(rendered.truth)
    return {**quality, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "size": list(rendered.image.size)}


def run(cities: list[str], synthetic: int, seed: int) -> dict:
    from vision.errors import EngineUnavailable

    maps: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    jobs = [(city, city_graph(city)) for city in cities]
    jobs += [(f"synthetic-{seed + n}", synthetic_network(seed + n)) for n in range(synthetic)]
    for name, graph in jobs:
        try:
            figures = measure(name, graph, 0)
        except EngineUnavailable as error:
            skipped[name] = str(error)
            print(f"{name}: skipped: {error}", file=sys.stderr)
            continue
        maps[name] = figures
        print(
            f"{name}: {len(figures['ambiguous'])}/{figures['labels']} ambiguous, {figures['far']} far, "
            f"{figures['leaders']} leaders, "
            f"{figures['bends']} bends on {figures['lines']} lines, crossings {figures['leader_label']} leader/label "
            f"{figures['leader_line']} leader/line {figures['line_label']} line/label "
            f"{figures['leader_marker']} leader/marker {figures['line_marker']} line/marker, "
            f"{figures['seconds']:.1f} s ({figures['cpu_seconds']:.1f} s CPU)",
            file=sys.stderr,
        )
    labels = sum(m["labels"] for m in maps.values())
    ambiguous = sum(len(m["ambiguous"]) for m in maps.values())
    lines = sum(m["lines"] for m in maps.values())
    cities_only = [m for name, m in maps.items() if not name.startswith("synthetic-")]
    seconds = {name: m["seconds"] for name, m in maps.items()}
    cpu = [m["cpu_seconds"] for m in maps.values()]
    return {
        "maps": maps,
        "skipped": skipped,
        "labels": labels,
        "ambiguous": ambiguous,
        "ambiguous_share": round(ambiguous / labels, 5) if labels else None,
        "far": sum(m["far"] for m in maps.values()),
        "leaders": sum(m["leaders"] for m in maps.values()),
        **{key: sum(m[key] for m in maps.values()) for key in _CROSSINGS},
        "lines": lines,
        "bends_per_line": round(sum(m["bends"] for m in maps.values()) / lines, 3) if lines else None,
        "city_bends_per_line": round(sum(m["bends"] for m in cities_only) / sum(m["lines"] for m in cities_only), 3)
        if cities_only
        else None,
        "seconds": round(sum(m["seconds"] for m in maps.values()), 2),
        "seconds_median": round(statistics.median(seconds.values()), 2) if seconds else None,
        "seconds_max": max(seconds.values()) if seconds else None,
        "seconds_per_map": seconds,
        "cpu_seconds": round(sum(cpu), 2),
        "cpu_seconds_median": round(statistics.median(cpu), 2) if cpu else None,
        "cpu_seconds_max": max(cpu) if cpu else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.render", description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated cities (default: all 30; 'none' for synthetic ones only)")
    parser.add_argument("--synthetic", type=int, default=20, help="random synthetic networks to render (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the first synthetic network's seed")
    args = parser.parse_args(argv)
    if args.only == "none":
        cities: list[str] = []
    elif args.only:
        cities = args.only.split(",")
    else:
        cities = list(city_names())
    print(json.dumps(run(cities, args.synthetic, args.seed), ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
