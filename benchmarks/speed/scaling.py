"""How the cost of references grows with the network: synthetic networks of a few hundred to 5,000 stations.

Run ``python -m benchmarks.speed.scaling [--sizes 300,1000,2000,5000]``. Each
size runs in a fresh process (so its peak memory is its own): it generates a
network (:func:`graphkit.synth.synthesize_network`, about 25 stations a
line, the embedded cities' share of interchanges), compiles it, and streams
the references of every ordered station pair, as ``reasonmap references``
writes them (a departure's text at a time, :func:`graphkit.io.reference_chunks`),
to a null sink. One line per size is printed,
``{stations, lines, pairs, seconds, pairs_per_second, cpu_seconds,
pairs_per_cpu_second, peak_rss_mb}`` (``seconds``: compiling and streaming;
generating is left out; ``cpu_seconds``, the process's CPU time, is the
figure to read on a shared machine), and last one JSON object with ``sizes``
and ``exponent``: the least-squares slope of log seconds on log pairs (1
means the cost grows as the work does; ``cpu_exponent`` the same in CPU time).
``--workers N`` streams through a local pool of N processes instead
(:func:`graphkit.io.reference_texts`); CPU time and peak memory then count the
workers too (``worker_peak_rss_mb``: the largest worker).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import resource
import subprocess
import sys
import time

from graphkit.executors import LocalExecutor
from graphkit.graph import compile_graph
from graphkit.io import reference_chunks, reference_texts
from graphkit.synth import synthesize_network

DEFAULT_SIZES = (300, 1000, 2000, 5000)
STATIONS_PER_LINE = 25


def measure(stations: int, *, seed: int = 0, workers: int = 1) -> dict:
    """Generate, compile and stream one size in this process (and ``workers`` processes); its figures."""
    network = synthesize_network(stations=stations, lines=max(2, stations // STATIONS_PER_LINE), seed=seed)
    gc.collect()
    started, cpu_started = time.perf_counter(), time.process_time()
    graph = compile_graph(network.metro, network.overlay)
    gc.freeze()  # as write_references does: the graph outlives the sweep
    pairs = 0
    with open(os.devnull, "wb") as sink:
        if workers == 1:
            for count, text in reference_chunks(graph):
                sink.write(text)
                pairs += count
        else:
            with LocalExecutor(workers) as executor:
                for _, count, text in reference_texts([graph], executor):
                    sink.write(text)
                    pairs += count
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds += children.ru_utime + children.ru_stime
    return {
        "stations": stations,
        "lines": len(network.metro.lines),
        "pairs": pairs,
        "seconds": round(seconds, 3),
        "pairs_per_second": round(pairs / seconds),
        "cpu_seconds": round(cpu_seconds, 3),
        "pairs_per_cpu_second": round(pairs / cpu_seconds),
        "workers": workers,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "worker_peak_rss_mb": round(children.ru_maxrss / 1024, 1) if workers > 1 else None,
    }


def exponent(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log cost on log size over ``(size, cost)`` points (``None`` with fewer than two):
    1 for linear growth, 2 for quadratic."""
    if len(points) < 2:
        return None
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(cost) for _, cost in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    return round(slope, 3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="station counts, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="a local pool of this many processes (default 1)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in a child process
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, seed=args.seed, workers=args.workers)))
        return 0
    sizes = []
    for stations in (int(size) for size in args.sizes.split(",")):
        child = subprocess.run(
            [sys.executable, "-m", "benchmarks.speed.scaling", "--one", str(stations)]
            + ["--seed", str(args.seed), "--workers", str(args.workers)],
            capture_output=True,
            text=True,
            check=True,
        )
        sizes.append(json.loads(child.stdout.strip().splitlines()[-1]))
        print(json.dumps(sizes[-1]))
        sys.stdout.flush()
    wall = exponent([(size["pairs"], size["seconds"]) for size in sizes])
    cpu = exponent([(size["pairs"], size["cpu_seconds"]) for size in sizes])
    print(json.dumps({"sizes": sizes, "exponent": wall, "cpu_exponent": cpu}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
