"""Writing what graphkit computes: reference routes as JSON Lines, synthetic networks.

Files are written atomically (:func:`graphkit.files.atomic_writer`), so an
interrupted run never leaves a torn file behind.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graphkit.files import atomic_writer
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay, overlay_path_for
from graphkit.routes import DEFAULT_MAX_ROUTES, _check_options

if TYPE_CHECKING:
    from graphkit.executors import Executor
    from graphkit.synth import SyntheticNetwork

__all__ = [
    "write_references",
    "reference_lines",
    "reference_chunks",
    "reference_block",
    "reference_texts",
    "sources_per_job",
    "ReferenceJob",
    "write_network",
]

# pairs per job handed to an executor: big enough to hide the hand-over, small enough to spread
_PAIRS_PER_JOB = 100_000
# via stops a job's text may hold (about 20 bytes each): a long line's pairs carry thousands each, a city's a few
_STOPS_PER_JOB = 5_000_000


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def reference_lines(
    graph: TransitGraph, *, max_routes: int = DEFAULT_MAX_ROUTES, sources: Iterable[str] | None = None
) -> Iterator[str]:
    """One JSON text per ordered station pair (the ``references`` record), without newline.

    ``sources`` limits the departures (see :func:`graphkit.routes.reference_routes`).
    """
    for _, text in reference_chunks(graph, max_routes=max_routes, sources=sources):
        yield from text.decode("utf-8").split("\n")[:-1]


def reference_chunks(
    graph: TransitGraph, *, max_routes: int = DEFAULT_MAX_ROUTES, sources: Iterable[str] | None = None
) -> Iterator[tuple[int, bytes]]:
    """The references of each departure (or of ``sources``, in order) as ``(pairs, JSON Lines in UTF-8)``.

    The text is :meth:`RouteSet.to_record <graphkit.segments.RouteSet.to_record>` of each pair as
    ``json.dumps`` writes it (``ensure_ascii=False``), byte for byte, without building the records: each
    station's name, each segment and each (arrival, transfer count) opening is serialized once, a route's
    text grows from its predecessor's (:meth:`graphkit.graph.TransitGraph.all_route_texts`), and a
    departure's lines are one join of those pieces.
    """
    import numpy

    _check_options(0, max_routes)
    names = [_dump(station).encode() for station in graph.stations]
    lines = {name: _dump(name).encode() for name in graph.lines}
    stops = dict(zip(graph.stations, names))

    segment_format = (
        b'{"route_name": %b, "departure_stop": %b, "arrival_stop": %b, "via_stops": [%b], "num_via_stops": %d}'
    )

    def segment_text(line: str, departure: bytes, arrival: bytes, via: bytes, count: int) -> bytes:
        return segment_format % (lines[line], departure, arrival, via, count)

    # a line's opening after the departure's: the arrival's name and its transfer count (a row per count)
    openings = numpy.empty((0, len(names)), dtype=object)
    city = _dump(graph.city).encode()
    departures = graph.all_route_texts(stops, segment_text, _numbered, max_routes=max_routes, sources=sources)
    while True:
        # the collector, which would scan the departure's containers again and again meanwhile, waits
        # until its text is handed over
        with _collector_paused():
            found = next(departures, None)
            if found is None:
                return
            s, reached, transfers, first, second = found
            pairs = len(reached)
            if not pairs:
                text = b""
            else:
                if int(transfers.max()) >= len(openings):
                    openings = _openings(names, int(transfers.max()) + 1)
                head = b'{"city": %b, "station_1": %b, "station_2": ' % (city, names[s])
                # pair by pair: its opening, its routes in two parts, and the next line's head (the last: an end)
                parts = numpy.empty(4 * pairs + 1, dtype=object)
                parts[0] = head
                parts[1::4] = openings[transfers, reached]
                parts[2::4] = first[reached]
                parts[3::4] = second[reached]
                parts[4::4] = b"]}}\n" + head
                parts[-1] = b"]}}\n"
                text = b"".join(parts.tolist())
        yield pairs, text


def _openings(names: list[bytes], counts: int):
    """By transfer count (``counts`` of them) and station: what opens a line after ``"station_2": ``."""
    import numpy

    table = numpy.empty((counts, len(names)), dtype=object)
    for transfers in range(counts):
        middle = b', "question_transfer_count": %d, "routes": {"route_1": [' % transfers
        table[transfers] = [name + middle for name in names]
    return table


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _numbered(routes: list[bytes]) -> bytes:
    """Several routes as one text: the first route's, then each further one's after its number."""
    parts = [routes[0]]
    for number, route in enumerate(routes[1:], start=2):
        parts.append(b'], "route_%d": [' % number)
        parts.append(route)
    return b"".join(parts)


def write_references(
    path: str | Path,
    graphs: Iterable[TransitGraph],
    *,
    max_routes: int = DEFAULT_MAX_ROUTES,
    progress: bool = True,
    executor: Executor | None = None,
) -> int:
    """Write the references of every ordered station pair of ``graphs`` to a JSON Lines file.

    Returns the number of records. With ``progress``, a bar on stderr counts
    pairs. With an ``executor`` (see :mod:`graphkit.executors`), blocks of
    departures are computed by its workers; the file is the same byte for byte.
    """
    graphs = list(graphs)
    # The graphs outlive the sweep: exempt them from the collector, which would
    # otherwise re-scan them again and again while millions of routes come and go.
    gc.freeze()
    try:
        if executor is None:
            texts = (
                (graph.city, pairs, text)
                for graph in graphs
                for pairs, text in reference_chunks(graph, max_routes=max_routes)
            )
        else:
            texts = reference_texts(graphs, executor, max_routes=max_routes)
        return _write(path, graphs, texts, progress=progress)
    finally:
        gc.unfreeze()


def reference_texts(
    graphs: Iterable[TransitGraph], executor: Executor, *, max_routes: int = DEFAULT_MAX_ROUTES
) -> Iterator[tuple[str, int, bytes]]:
    """``(city, pairs, JSON Lines in UTF-8)`` of blocks of departures computed on ``executor``, in order."""
    jobs = (
        ReferenceJob(graph.given_metro, graph.overlay, graph.stations[first : first + step], max_routes)
        for graph in graphs
        for step in [sources_per_job(graph)]
        for first in range(0, len(graph.stations), step)
    )
    return executor.map(reference_block, jobs)


def sources_per_job(graph: TransitGraph) -> int:
    """Departures per job: their pairs' references hold about :data:`_STOPS_PER_JOB` via stops at most
    (and :data:`_PAIRS_PER_JOB` pairs): a job's memory follows the length of its routes, not its pair count.

    A pair's route is guessed as long as the mean distance between two stations of one line (a third of
    its length), over the lines, weighted by their pairs.
    """
    stations = max(1, len(graph.stations))
    lengths = [len(topology.stations) for topology in graph.lines.values()]
    pairs = sum(length * length for length in lengths)
    stops = max(1.0, sum(length**3 for length in lengths) / (3 * pairs)) if pairs else 1.0
    return max(1, min(_PAIRS_PER_JOB // stations, int(_STOPS_PER_JOB / (stations * stops))))


@dataclass(frozen=True, slots=True)
class ReferenceJob:
    """A block of departures of one network: what a worker needs to write their references."""

    metro: MetroData
    overlay: Overlay
    sources: tuple[str, ...]
    max_routes: int


# the network a worker compiled last: the blocks of one network come to a worker one after another
_compiled: dict[tuple[MetroData, Overlay], TransitGraph] = {}


def reference_block(job: ReferenceJob) -> tuple[str, int, bytes]:
    """The city, the number of pairs and the JSON Lines (UTF-8) of a block of departures (run by a worker)."""
    key = (job.metro, job.overlay)
    graph = _compiled.get(key)
    if graph is None:
        _compiled.clear()
        graph = _compiled[key] = compile_graph(job.metro, job.overlay)
    chunks = list(reference_chunks(graph, max_routes=job.max_routes, sources=job.sources))
    return job.metro.city, sum(pairs for pairs, _ in chunks), b"".join(text for _, text in chunks)


def write_network(network: SyntheticNetwork, path: str | Path) -> tuple[Path, ...]:
    """Write a synthetic network's Metro Data to ``path`` and its overlay (if any) beside it, atomically.

    Returns the files written.
    """
    target = Path(path)
    with atomic_writer(target) as stream:
        stream.write(network.metro_json)
    if network.overlay_json is None:
        return (target,)
    overlay = overlay_path_for(target)
    with atomic_writer(overlay) as stream:
        stream.write(network.overlay_json)
    return (target, overlay)


def _write(
    path: str | Path, graphs: list[TransitGraph], texts: Iterable[tuple[str, int, bytes]], *, progress: bool
) -> int:
    total = sum(len(graph.stations) * (len(graph.stations) - 1) for graph in graphs)
    count = shown = 0
    bar = _progress(total, enabled=progress)
    with atomic_writer(path, binary=True) as stream:
        for city, pairs, text in texts:
            stream.write(text)
            count += pairs
            if count - shown >= 2048:
                bar.set_description(city or "pairs", refresh=False)
                bar.update(count - shown)
                shown = count
        bar.update(count - shown)
    bar.close()
    return count


def _progress(total: int, *, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="pair", disable=not enabled, unit_scale=True, dynamic_ncols=True)
