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
    import numpy

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

    Parameters
    ----------
    graph : TransitGraph
    max_routes : int, optional
        Keep at most this many routes per pair.
    sources : iterable of str, optional
        Only these departures.

    Yields
    ------
    str
        One record's JSON text.

    Examples
    --------
    >>> from graphkit.metro import load_metro
    >>> from graphkit.graph import compile_graph
    >>> print(next(reference_lines(compile_graph(load_metro({"L1": ["A", "B"]})))))  # doctest: +NORMALIZE_WHITESPACE
    {"city": "", "station_1": "A", "station_2": "B", "question_transfer_count": 0, "routes": {"route_1":
    [{"route_name": "L1", "departure_stop": "A", "arrival_stop": "B", "via_stops": [], "num_via_stops": 0}]}}
    """
    for _, text in reference_chunks(graph, max_routes=max_routes, sources=sources):
        yield from text.decode("utf-8").split("\n")[:-1]


def reference_chunks(
    graph: TransitGraph, *, max_routes: int = DEFAULT_MAX_ROUTES, sources: Iterable[str] | None = None
) -> Iterator[tuple[int, bytes]]:
    """The references of each departure (or of ``sources``, in order) as ``(pairs, JSON Lines in UTF-8)``.

    The text is :meth:`RouteSet.to_record <graphkit.segments.RouteSet.to_record>` of each pair as
    ``json.dumps`` writes it (``ensure_ascii=False``), byte for byte, without building the records: each
    station's name, each segment and each (arrival, transfer count) opening is serialized once, the
    routes of a block of departures come as arrays of segment numbers
    (:meth:`graphkit.graph.TransitGraph.all_route_blocks`), and a departure's lines are one join of the
    pieces those numbers pick.

    Parameters
    ----------
    graph : TransitGraph
    max_routes : int, optional
        Keep at most this many routes per pair.
    sources : iterable of str, optional
        Only these departures, in this order.

    Yields
    ------
    pairs : int
        The pairs of one departure.
    text : bytes
        Their records, one line each.
    """
    _check_options(0, max_routes)
    names = [_dump(station).encode() for station in graph.stations]
    lines = {name: _dump(name).encode() for name in graph.lines}
    segment_format = (
        b'{"route_name": %b, "departure_stop": %b, "arrival_stop": %b, "via_stops": [%b], "num_via_stops": %d}'
    )

    def segment_text(line: str, departure: bytes, arrival: bytes, via: bytes, count: int) -> bytes:
        return segment_format % (lines[line], departure, arrival, via, count)

    city = _dump(graph.city).encode()
    blocks = graph.all_route_blocks(
        dict(zip(graph.stations, names)), segment_text, max_routes=max_routes, sources=sources
    )
    pieces = _Pieces(names, city, b", ")
    while True:
        # the collector, which would scan the block's arrays of pieces again and again meanwhile, waits
        # until its texts are made
        with _collector_paused():
            found = next(blocks, None)
            if found is None:
                return
            counts, bounds, placed = pieces.place(*found)
        # a departure's text is joined only when it is asked for: a block's would take 32 times the memory
        for count, begin, end in zip(counts, bounds[:-1], bounds[1:]):
            yield count, b"".join(placed[begin:end].tolist())


class _Pieces:
    """What a departure's lines are joined from: the openings of each line, each route's segment texts and
    the separators between routes, placed by numpy."""

    __slots__ = ("names", "city", "separator", "openings", "separators")

    def __init__(self, names: list[bytes], city: bytes, separator: bytes):
        import numpy

        self.names, self.city, self.separator = names, city, separator
        # a line's opening after the departure's: the arrival's name and its transfer count (a row per count)
        self.openings = numpy.empty((0, len(names)), dtype=object)
        self.separators = numpy.empty(0, dtype=object)  # before each route after the first, by its index

    def place(self, rows, routes, segments) -> tuple[list[int], list[int], numpy.ndarray]:
        """The pieces of a block's departures (``rows``, ``routes`` and ``segments`` as
        :meth:`graphkit.graph.TransitGraph.all_route_blocks` yields them), an object array, with each
        departure's pair count and where its pieces begin (and, last, where the last one's end)."""
        import numpy

        pairs = numpy.bincount(routes.pair_rows, minlength=len(rows))
        if not len(routes.pair_rows):
            return [0] * len(rows), [0] * (len(rows) + 1), numpy.empty(0, dtype=object)
        width, transfers, targets = routes.pair_routes, routes.pair_transfers, routes.pair_targets
        if int(transfers.max()) >= len(self.openings):
            self.openings = _openings(self.names, int(transfers.max()) + 1)
        if int(width.max()) > len(self.separators):
            self.separators = _separators(int(width.max()))
        # a pair's pieces: its departure's head, its opening, each route's segments with a separator between
        # two, a route separator before every route but the first, and the end of the line
        length = transfers + 1
        size = 2 + width * 2 * length
        start = numpy.cumsum(size) - size
        pieces = numpy.empty(int(size.sum()), dtype=object)
        heads = numpy.empty(len(rows), dtype=object)
        heads[:] = [b'{"city": %b, "station_1": %b, "station_2": ' % (self.city, self.names[s]) for s in rows.tolist()]
        pieces[start] = heads[routes.pair_rows]
        pieces[start + 1] = self.openings[transfers, targets]
        pieces[start + size - 1] = b"]}}\n"
        pair = numpy.repeat(numpy.arange(len(width)), width)  # each route's pair
        index = numpy.arange(len(pair)) - numpy.repeat(numpy.cumsum(width) - width, width)  # its place there
        route_length = length[pair]
        route_start = start[pair] + 2 + index * 2 * route_length
        later = index > 0
        pieces[route_start[later] - 1] = self.separators[index[later]]
        step = numpy.arange(int(route_length.sum())) - numpy.repeat(
            numpy.cumsum(route_length) - route_length, route_length
        )
        where = numpy.repeat(route_start, route_length) + 2 * step
        pieces[where] = segments.texts[routes.segments]
        pieces[where[step > 0] - 1] = self.separator
        ends = numpy.cumsum(numpy.bincount(routes.pair_rows, weights=size, minlength=len(rows)).astype(numpy.int64))
        return pairs.tolist(), [0, *ends.tolist()], pieces


def _separators(routes: int):
    """What comes before the route of each index (of ``routes``) after the first."""
    import numpy

    table = numpy.empty(routes, dtype=object)
    table[:] = [b""] + [b'], "route_%d": [' % (index + 1) for index in range(1, routes)]
    return table


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


def write_references(
    path: str | Path,
    graphs: Iterable[TransitGraph],
    *,
    max_routes: int = DEFAULT_MAX_ROUTES,
    progress: bool = True,
    executor: Executor | None = None,
) -> int:
    """Write the references of every ordered station pair of ``graphs`` to a JSON Lines file.

    Parameters
    ----------
    path : str or Path
        The JSON Lines file (written atomically).
    graphs : iterable of TransitGraph
        The cities, in the order their records are written.
    max_routes : int, optional
        Keep at most this many routes per pair.
    progress : bool, optional
        Show a bar on stderr that counts pairs.
    executor : Executor, optional
        Workers for blocks of departures (:func:`graphkit.executors.open_executor`); the file is the same
        byte for byte with or without one.

    Returns
    -------
    int
        The records written: one per ordered pair of connected stations.
    """
    graphs = list(graphs)
    # The graphs outlive the sweep: exempt them from the collector, which would
    # otherwise re-scan them again and again while millions of routes come and go.
    gc.freeze()
    try:
        if executor is None or _inline(executor):
            # each departure's text written as it is made: a block's, joined, would be copied once more
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


def _inline(executor: Executor) -> bool:
    """Whether ``executor`` runs every job in this process (the local one with one worker)."""
    return getattr(executor, "kind", None) == "local" and getattr(executor, "workers", None) == 1


def reference_texts(
    graphs: Iterable[TransitGraph], executor: Executor, *, max_routes: int = DEFAULT_MAX_ROUTES
) -> Iterator[tuple[str, int, bytes]]:
    """``(city, pairs, JSON Lines in UTF-8)`` of blocks of departures computed on ``executor``, in order.

    Parameters
    ----------
    graphs : iterable of TransitGraph
        The networks, in order.
    executor : Executor
        Where the blocks are computed (:func:`sources_per_job` departures each).
    max_routes : int, optional
        Keep at most this many routes per pair.

    Returns
    -------
    iterator of (str, int, bytes)
        What :func:`reference_block` returns for each block, in order.
    """
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

    Parameters
    ----------
    graph : TransitGraph

    Returns
    -------
    int
        Departures per job, at least 1.
    """
    stations = max(1, len(graph.stations))
    lengths = [len(topology.stations) for topology in graph.lines.values()]
    pairs = sum(length * length for length in lengths)
    stops = max(1.0, sum(length**3 for length in lengths) / (3 * pairs)) if pairs else 1.0
    return max(1, min(_PAIRS_PER_JOB // stations, int(_STOPS_PER_JOB / (stations * stops))))


@dataclass(frozen=True, slots=True)
class ReferenceJob:
    """A block of departures of one network: what a worker needs to write their references.

    Attributes
    ----------
    metro : MetroData
        The network's data as given (the worker compiles it).
    overlay : Overlay
        Its overlay.
    sources : tuple of str
        The departures of the block.
    max_routes : int
        Keep at most this many routes per pair.
    """

    metro: MetroData
    overlay: Overlay
    sources: tuple[str, ...]
    max_routes: int


# the network a worker compiled last: the blocks of one network come to a worker one after another
_compiled: dict[tuple[MetroData, Overlay], TransitGraph] = {}


def reference_block(job: ReferenceJob) -> tuple[str, int, bytes]:
    """The city, the number of pairs and the JSON Lines (UTF-8) of a block of departures (run by a worker).

    Parameters
    ----------
    job : ReferenceJob
        The network and its block of departures.

    Returns
    -------
    city : str
        The network's city.
    pairs : int
        The pairs written.
    text : bytes
        Their records, one line each.
    """
    key = (job.metro, job.overlay)
    graph = _compiled.get(key)
    if graph is None:
        _compiled.clear()
        graph = _compiled[key] = compile_graph(job.metro, job.overlay)
    chunks = list(reference_chunks(graph, max_routes=job.max_routes, sources=job.sources))
    return job.metro.city, sum(pairs for pairs, _ in chunks), b"".join(text for _, text in chunks)


def write_network(network: SyntheticNetwork, path: str | Path) -> tuple[Path, ...]:
    """Write a synthetic network's Metro Data to ``path`` and its overlay (if any) beside it, atomically.

    Parameters
    ----------
    network : SyntheticNetwork
        The network (:func:`graphkit.synth.synthesize_network`).
    path : str or Path
        The Metro Data file; the overlay goes beside it as ``<stem>.overlay.json``.

    Returns
    -------
    tuple of Path
        The files written.
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
    if not enabled:  # tqdm is not even imported (a twentieth of a second, more than the smaller cities take)
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="pair", unit_scale=True, dynamic_ncols=True)


class _NoBar:
    """What :func:`_write` calls on a progress bar, doing nothing."""

    def set_description(self, description: str, refresh: bool = True) -> None:
        pass

    def update(self, count: int) -> None:
        pass

    def close(self) -> None:
        pass
