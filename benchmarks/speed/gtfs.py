"""Speed of compiling a GTFS feed against a plain CSV read of its ``stop_times.txt``.

Run ``python -m benchmarks.speed.gtfs [FEED] [--repeats 3]``. FEED defaults to the largest shared feed,
Metro-North (``../shared/data/gtfs/mta_metro_north.zip``, 307k stop times; ``$REASONMAP_SHARED_DATA``
moves it). Back to back, best of ``--repeats`` each: the read (``csv.reader`` over the archive's
``stop_times.txt`` as UTF-8, every row taken, nothing kept) and :func:`graphkit.gtfs.compile_feed` of the
whole feed (every table read and checked, the network built, checked as Metro Data and compiled into a
graph). The goal: the compile takes at most 5 times the read. The peak of memory Python allocated during
one compile is measured apart (``tracemalloc``, which slows the run: not timed). The last line printed is
one JSON object with ``feed``, ``stop_times``, ``read_seconds``, ``compile_seconds``, ``ratio`` and
``compile_peak_mib``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

from graphkit.gtfs import compile_feed

SHARED_DATA = Path(os.environ.get("REASONMAP_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
DEFAULT_FEED = SHARED_DATA / "gtfs" / "mta_metro_north.zip"


def read_stop_times(feed: Path) -> int:
    """Rows of the feed's ``stop_times.txt``, read with the csv module and dropped."""
    rows = 0
    with zipfile.ZipFile(feed) as archive, archive.open("stop_times.txt") as raw:
        for _ in csv.reader(io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")):
            rows += 1
    return rows - 1


def _best(function, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.gtfs", description=__doc__)
    parser.add_argument("feed", nargs="?", default=str(DEFAULT_FEED), help="a zipped GTFS feed")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, the best kept (default 3)")
    args = parser.parse_args(argv)
    feed = Path(args.feed)
    if not feed.is_file():
        parser.error(f"{feed}: no such feed (set REASONMAP_SHARED_DATA or give FEED)")
    compile_feed(feed)  # warm: the modules and the graph library loaded
    read_seconds, rows = _best(lambda: read_stop_times(feed), args.repeats)
    compile_seconds, compiled = _best(lambda: compile_feed(feed), args.repeats)
    tracemalloc.start()
    compile_feed(feed)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    ratio = compile_seconds / read_seconds
    print(
        f"{feed.name}: {rows} stop times read in {read_seconds:.3f} s; compiled ({compiled.lines} lines,"
        f" {compiled.stations} stations) in {compile_seconds:.3f} s: {ratio:.1f}x the read (goal: at most 5x)",
        file=sys.stderr,
    )
    figures = {
        "feed": feed.name,
        "stop_times": rows,
        "read_seconds": round(read_seconds, 4),
        "compile_seconds": round(compile_seconds, 4),
        "ratio": round(ratio, 2),
        "compile_peak_mib": round(peak / 2**20, 1),
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
