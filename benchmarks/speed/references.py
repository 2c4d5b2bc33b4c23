"""Speed of the reference routes: every ordered station pair of the 30 embedded cities.

Run ``python -m benchmarks.speed.references``. It compiles every city, computes
the references of every ordered pair (full segments and via stops, up to
``DEFAULT_MAX_ROUTES`` routes each) with the igraph implementation, then again
with a networkx implementation of the same semantics in the same process,
and times the bare igraph all-pairs distance computation (the floor:
``floor_seconds``, weighted as the routes are; ``bfs_floor_seconds``, plain
breadth-first distances on the same graph). Then it times the whole command,
``reasonmap references --all --out FILE --quiet --workers 1`` in a fresh
process (interpreter, imports, compiling, the routes and writing the 782 MB
of JSON Lines to a file in a temporary folder), ``--repeat`` times, and
reports the best as ``command_seconds`` (``command_cpu_seconds``: its CPU
time, user + system, steadier on a shared machine), ``command_over_floor``
(the wall ratio to ``floor_seconds``) and ``command_sha256`` (the file's
hash: the same bytes from one version to the next). After each run of the
command it times the write floor: this process writing as many bytes, in
blocks of the command's mean write (one departure's text), to a new file in
the same temporary folder, renamed over the previous one as the command's
file is (``write_floor_seconds``, CPU, best of ``--repeat``: what writing the
bytes costs the kernel here, whatever makes them). The ratios to the floor's
CPU seconds (``floor_cpu_seconds``) are ``command_cpu_over_floor`` (the whole
command) and ``command_less_write_over_floor`` (the command less the write
floor, ``command_less_write_seconds``). ``--skip-command`` leaves it out.
``speedup_vs_networkx`` compares the route computations: both runs compile
the Metro Data with the same code, and that time is left out of the ratio
(``speedup_vs_networkx_end_to_end`` keeps it in). Each
implementation runs ``--repeat`` times, alternating, and the best run counts
(this machine's timings vary by a third from run to run). The last line
printed is one JSON object; ``peak_rss_mb`` is the process's peak before the
networkx runs finish (both are in one process).

``--long-line N`` times one line of N stations instead (a second line of
three crosses it in the middle), as ``reasonmap route`` does: it compiles the
network and finds the route from the long line's end to the crossing line's
end, then (``--departures K``, default 1) the references of K departures from
the other end. Run it in a fresh process: ``peak_rss_mb`` is the process's
peak after the route, ``departures_peak_rss_mb`` after the references (one
departure's references hold every pair's via stops: their size grows with the
square of the line, as the output does).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from graphkit import city_names, compile_graph, load_city, reference_routes
from graphkit.routes import DEFAULT_MAX_ROUTES
from graphkit.segments import Route


def _graphs(cities):
    return [compile_graph(*load_city(city)) for city in cities]


def _digest(found_sets):
    """A cheap summary of the output (the timed runs consume everything but keep little)."""
    pairs = transfers = routes = 0
    for found in found_sets:
        pairs += 1
        transfers += found.transfers
        routes += len(found.routes)
    return pairs, transfers, routes


def _identical(cities) -> bool:
    """Whether both implementations give exactly the same routes, pair by pair (untimed)."""
    for city in cities:
        ours = ((f.source, f.target, f.routes) for f in reference_routes(compile_graph(*load_city(city))))
        theirs = ((f.source, f.target, f.routes) for f in networkx_references(compile_graph(*load_city(city))))
        if any(a != b for a, b in itertools.zip_longest(ours, theirs)):
            return False
    return True


def networkx_hop_graph(graph):
    """The graph's hops as a weighted networkx graph (the same weights as the igraph one)."""
    import networkx as nx

    hop_graph = nx.Graph()
    hop_graph.add_nodes_from(graph.stations)
    for here in graph.stations:
        for there in graph.neighbours(here):
            hop_graph.add_edge(here, there, weight=1_000_000 + graph.hop_segments(here, there)[0].stops)
    return hop_graph


def networkx_references(graph, max_routes=DEFAULT_MAX_ROUTES):
    """The same references, found with networkx's Dijkstra and predecessor lists."""
    import networkx as nx

    hop_graph = networkx_hop_graph(graph)
    order = {name: index for index, name in enumerate(graph.stations)}
    for source in graph.stations:
        predecessors, distance = nx.dijkstra_predecessor_and_distance(hop_graph, source, weight="weight")
        paths = {source: [(source,)]}
        for target in sorted(distance, key=distance.__getitem__):
            if target != source:
                paths[target] = [path + (target,) for before in predecessors[target] for path in paths[before]]
        for target in sorted(paths, key=order.__getitem__):
            if target == source:
                continue
            routes = [
                Route(combo)
                for path in paths[target]
                for combo in itertools.product(*(graph.hop_segments(u, v) for u, v in zip(path, path[1:])))
            ]
            routes.sort(key=graph.route_sort_key)
            yield _Found(source, target, len(routes[0].segments) - 1, tuple(routes[:max_routes]))


class _Found:
    __slots__ = ("source", "target", "transfers", "routes")

    def __init__(self, source, target, transfers, routes):
        self.source, self.target, self.transfers, self.routes = source, target, transfers, routes


# cities compared route by route after the timed runs (small, but with loops, branches and ties)
_CHECKED = {"rome", "dubai", "singapore", "miami", "beijing"}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _graphs_frozen(cities):
    """Compile, then exempt the compiled graphs from garbage collection for the sweep.

    The graphs live for the whole run; without this, every full collection
    re-scans them while the sweep churns through millions of short-lived
    routes (a quarter of the run). ``write_references`` does the same; both
    implementations get it.
    """
    graphs = _graphs(cities)
    gc.freeze()
    return graphs


def _time_igraph(cities):
    started = time.perf_counter()
    graphs = _graphs_frozen(cities)
    compiled = time.perf_counter()
    digest = _digest(found for graph in graphs for found in reference_routes(graph))
    seconds = time.perf_counter() - started
    gc.unfreeze()
    return seconds, compiled - started, digest, graphs


def _time_networkx(cities):
    started = time.perf_counter()
    graphs = _graphs_frozen(cities)
    compiled = time.perf_counter()
    digest = _digest(found for graph in graphs for found in networkx_references(graph))
    seconds = time.perf_counter() - started
    gc.unfreeze()
    return seconds, compiled - started, digest


def long_line(stations: int, departures: int = 1) -> dict:
    """Time ``route`` (and the references of ``departures`` departures) on one line of ``stations`` stations."""
    from graphkit.metro import load_metro
    from graphkit.routes import shortest_routes

    data = {"L": [f"S{i}" for i in range(stations)], "X": ["X0", f"S{stations // 2}", "X2"]}
    started = time.perf_counter()
    graph = compile_graph(load_metro(data, city="long"))
    compiled = time.perf_counter()
    found = shortest_routes(graph, "S0", "X2")
    routed = time.perf_counter()
    peak = _peak_rss_mb()
    last = graph.stations[stations - departures : stations]
    pairs = sum(1 for _ in reference_routes(graph, sources=last[::-1]))
    finished = time.perf_counter()
    return {
        "long_line": stations,
        "route_seconds": round(routed - started, 3),
        "compile_seconds": round(compiled - started, 3),
        "route_stops": found.routes[0].stops,
        "peak_rss_mb": round(peak, 1),
        "departures": departures,
        "departure_pairs": pairs,
        "departures_seconds": round(finished - routed, 3),
        "departures_peak_rss_mb": round(_peak_rss_mb(), 1),
    }


def command(repeat: int, departures: int) -> dict:
    """Time ``reasonmap references --all`` as a fresh process, best of ``repeat`` (wall and CPU seconds), and
    after each run the write floor (:func:`write_floor`) of its file's size in blocks of its mean write (the
    text of one of its ``departures``)."""
    runs, cpu, floors, digest = [], [], [], None
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "references.jsonl")
        args = [sys.executable, "-m", "reasonmap", "references", "--all", "--out", out, "--quiet", "--workers", "1"]
        for _ in range(max(1, repeat)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(args, check=True)
            runs.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            size = os.path.getsize(out)
            floors.append(write_floor(os.path.join(folder, "floor.jsonl"), size, max(1, size // max(1, departures))))
        sha = hashlib.sha256()
        with open(out, "rb") as stream:
            while block := stream.read(1 << 24):
                sha.update(block)
        digest = sha.hexdigest()
    return {
        "command_seconds": round(min(runs), 3),
        "command_cpu_seconds": round(min(cpu), 3),
        "write_floor_seconds": round(min(floors), 3),
        "command_less_write_seconds": round(min(cpu) - min(floors), 3),
        "command_runs_seconds": [round(run, 3) for run in runs],
        "command_cpu_runs_seconds": [round(run, 3) for run in cpu],
        "write_floor_runs_seconds": [round(run, 3) for run in floors],
        "command_bytes": size,
        "command_sha256": digest,
    }


def write_floor(path: str, size: int, block: int) -> float:
    """CPU seconds (user + system) of this process writing ``size`` bytes in blocks of ``block`` to a new file
    beside ``path`` and renaming it to ``path``, as the command writes its file (replacing the last one).

    Parameters
    ----------
    path : str
        The file (in the command's folder).
    size : int
        Bytes to write.
    block : int
        Bytes per write.

    Returns
    -------
    float
        The CPU seconds the writes, the close and the rename took.
    """
    data = b"x" * min(block, size)
    part = path + ".part"
    before = os.times()
    with open(part, "wb") as stream:
        for _ in range(size // len(data)):
            stream.write(data)
        stream.write(data[: size % len(data)])
    os.replace(part, path)
    after = os.times()
    return after.user - before.user + after.system - before.system


def _floors(graphs) -> tuple[float, float, float]:
    """Seconds of the bare igraph all-pairs distances, weighted and breadth-first, and the weighted ones' CPU
    seconds."""
    started, cpu_started = time.perf_counter(), time.process_time()
    for graph in graphs:
        graph.floor_distances()
    weighted, weighted_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    started = time.perf_counter()
    for graph in graphs:
        graph.floor_distances(weighted=False)
    return weighted, time.perf_counter() - started, weighted_cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cities", default="all", help="comma-separated cities (default: all 30)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each implementation, alternating; best kept")
    parser.add_argument("--skip-networkx", action="store_true", help="time only the igraph implementation")
    parser.add_argument("--skip-command", action="store_true", help="do not time the whole references command")
    parser.add_argument("--long-line", type=int, metavar="N", help="time one line of N stations instead")
    parser.add_argument("--departures", type=int, default=1, help="with --long-line: departures whose references count")
    args = parser.parse_args(argv)
    if args.long_line is not None:
        if args.long_line < 4 or not 0 <= args.departures <= args.long_line:
            parser.error("--long-line needs N >= 4 and 0 <= --departures <= N")
        print(json.dumps(long_line(args.long_line, args.departures)))
        return 0
    cities = city_names() if args.cities == "all" else tuple(args.cities.split(","))
    sizes = [len(graph.stations) for graph in _graphs(cities)]
    all_pairs = sum(size * (size - 1) for size in sizes)

    ours, theirs, peak = [], [], 0.0
    for _ in range(max(1, args.repeat)):
        ours.append(_time_igraph(cities))
        peak = peak or _peak_rss_mb()  # before any networkx run
        print(f"igraph: {ours[-1][2][0]} pairs in {ours[-1][0]:.2f} s (compile {ours[-1][1]:.2f} s)", file=sys.stderr)
        if not args.skip_networkx:
            theirs.append(_time_networkx(cities))
            print(f"networkx: {theirs[-1][2][0]} pairs in {theirs[-1][0]:.2f} s", file=sys.stderr)
    seconds, compile_seconds, digest, graphs = min(ours, key=lambda run: run[0])

    floor_seconds, bfs_floor_seconds, floor_cpu_seconds = _floors(graphs)

    result = {
        "pairs": digest[0],
        "ordered_pairs": all_pairs,
        "seconds": round(seconds, 3),
        "compile_seconds": round(compile_seconds, 3),
        "floor_seconds": round(floor_seconds, 3),
        "floor_cpu_seconds": round(floor_cpu_seconds, 3),
        "bfs_floor_seconds": round(bfs_floor_seconds, 3),
        "over_floor": round(seconds / floor_seconds, 1) if floor_seconds else None,
        "peak_rss_mb": round(peak, 1),
        "runs_seconds": [round(run[0], 3) for run in ours],
    }
    if theirs:
        import networkx as nx

        hop_graphs = [networkx_hop_graph(graph) for graph in graphs]
        floor_started = time.perf_counter()
        for hop_graph in hop_graphs:
            for _ in nx.all_pairs_dijkstra_path_length(hop_graph):
                pass
        result["networkx_floor_seconds"] = round(time.perf_counter() - floor_started, 3)
        networkx_seconds, networkx_compile, nx_digest = min(theirs, key=lambda run: run[0])
        result.update(
            networkx_seconds=round(networkx_seconds, 3),
            # the route computations compared; compiling the Metro Data is the same code for both
            speedup_vs_networkx=round((networkx_seconds - networkx_compile) / (seconds - compile_seconds), 2),
            speedup_vs_networkx_end_to_end=round(networkx_seconds / seconds, 2),
            networkx_runs_seconds=[round(run[0], 3) for run in theirs],
            same_output=nx_digest == digest and _identical(_CHECKED & set(cities) or cities[:1]),
        )
    if not args.skip_command and args.cities == "all":
        result.update(command(args.repeat, sum(sizes)))
        result["command_over_floor"] = round(result["command_seconds"] / floor_seconds, 1)
        if floor_cpu_seconds:
            result["command_cpu_over_floor"] = round(result["command_cpu_seconds"] / floor_cpu_seconds, 1)
            result["command_less_write_over_floor"] = round(result["command_less_write_seconds"] / floor_cpu_seconds, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
