"""The texts of hops (one ride between two stations) for writing references, made without segment objects.

A hop served by one line only, a line whose listed order is its path, rides
the stations listed between its two ends: their texts, joined, are one slice
of the line's station texts joined once forwards and once backwards. Every
other hop (several lines, loops, branches) is built from its segments, as
:meth:`graphkit.graph.TransitGraph.hop_segments` gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from graphkit.segments import Segment
from graphkit.topology import LineTopology

if TYPE_CHECKING:
    import numpy

    from graphkit.graph_names import StationNames

__all__ = ["SegmentTable", "ride_numbers"]

# a hop's segments as (sort key, text), in key order
Steps = tuple[tuple[tuple, bytes], ...]
# more than the ways one line can go between two of its stations (graphkit.topology: at most 4)
_WAYS = 64


class _PathCuts:
    """A path-shaped line's station texts joined both ways, and where each station's text starts and ends."""

    __slots__ = ("position", "forward", "backward", "starts", "ends", "texts", "length")

    def __init__(self, topology: LineTopology, station_text: Mapping[str, bytes], separator: bytes):
        texts = [station_text[station] for station in topology.stations]
        self.position = {station: index for index, station in enumerate(topology.stations)}
        self.texts, self.length = texts, len(texts)
        self.forward, self.backward = separator.join(texts), separator.join(texts[::-1])
        self.starts, self.ends, at = [], [], 0
        for text in texts:
            self.starts.append(at)
            at += len(text)
            self.ends.append(at)
            at += len(separator)

    def via(self, i: int, j: int) -> bytes:
        """The texts of the stations strictly between positions ``i`` and ``j``, in riding order, joined."""
        if abs(i - j) < 2:
            return b""
        if i < j:
            return self.forward[self.starts[i + 1] : self.ends[j - 1]]
        # backwards from i to j: the reversed list's positions length - i to length - j - 2
        last = self.length - 1
        shift = self.ends[last]  # the joined text's length: position k backwards starts where k's end mirrors
        return self.backward[shift - self.ends[i - 1] : shift - self.starts[j + 1]]


class SegmentTable:
    """The segments of the hops met so far, numbered: their texts and sort keys, and each hop's numbers.

    ``segment_text(line, departure, arrival, via, count)`` makes a segment's text from its line's name, the
    texts of its two stations, its via stops' texts joined by ``separator``, and their count. ``texts``
    holds each segment's text, and ``keys`` its sort key as one
    integer (the key ``(line rank, departure, arrival, way)`` of the hop's segments, in that order).
    ``held`` counts the via stops (and segments) held.

    :meth:`of_hops` finds the segments of many hops at once by *ride* (a hop as one line rides it, a
    boarding and an alighting stop; :func:`ride_numbers`): a table by ride is read with numpy, and only
    the rides not met before are looked up hop by hop. Without ``rides`` (lines whose rides would make
    the table too big), each hop is looked up.

    Parameters
    ----------
    graph : StationNames
        The compiled graph (its stations and line topologies).
    line_rank : mapping of str to int
        Each line's place in the routes' sort order.
    segment_keys : mapping of int to tuple
        Each station's sort key (by number).
    station_text : mapping of str to bytes
        Each station's name as the records write it.
    segment_text : callable
        ``(line, departure, arrival, via, count) -> bytes``: a segment's text.
    separator : bytes
        What joins the via stops' texts.
    ride_limit : int
        The most rides a table by ride may hold; past it, each hop is looked up.
    """

    __slots__ = (
        "_stations",
        "_lines",
        "_ride_base",
        "_ride_offset",
        "_stop_line",
        "_stop_place",
        "_line_names",
        "_path_line",
        "_one_line",
        "_line_ranks",
        "_lines_at",
        "_line_rank",
        "_hop_segments",
        "_keys",
        "_segment_text",
        "_separator",
        "_station_text",
        "_cuts",
        "_by_hop",
        "_first_by_ride",
        "_count_by_ride",
        "_text_list",
        "_code_list",
        "_texts",
        "_codes",
        "held",
    )

    def __init__(
        self,
        graph: StationNames,
        line_rank: Mapping[str, int],
        segment_keys: Mapping[int, tuple],
        *,
        station_text: Mapping[str, bytes],
        segment_text: Callable[[str, bytes, bytes, bytes, int], bytes],
        separator: bytes,
        ride_limit: int,
    ):
        import numpy

        self._stations, self._lines = graph.stations, graph.lines
        self._ride_base, self._ride_offset, rides = ride_numbers(graph.lines.values())
        if rides > ride_limit:
            rides = None
        # each stop's line (by rank) and place on it (stops are numbered line after line, as ride_numbers says)
        lengths = [len(topology.stations) for topology in graph.lines.values()]
        self._stop_line = numpy.repeat(numpy.arange(len(lengths)), lengths)
        self._stop_place = numpy.concatenate([numpy.arange(length) for length in lengths] or [numpy.zeros(0, int)])
        self._line_names = list(graph.lines)
        self._path_line = numpy.array([topology.shape == "path" for topology in graph.lines.values()], dtype=bool)
        self._one_line = numpy.array([len(graph.lines_at(station)) == 1 for station in graph.stations], dtype=bool)
        self._line_ranks = numpy.array([line_rank[name] for name in graph.lines], dtype=numpy.int64)
        self._lines_at = {station: graph.lines_at(station) for station in graph.stations}
        self._hop_segments, self._line_rank, self._keys = graph.hop_segments, line_rank, segment_keys
        self._station_text, self._segment_text, self._separator = station_text, segment_text, separator
        self._cuts: dict[str, _PathCuts | None] = {}
        self._by_hop: dict[int, tuple[int, int]] = {}
        self._first_by_ride = None if rides is None else numpy.full(rides, -1, dtype=numpy.int64)  # by ride
        self._count_by_ride = None if rides is None else numpy.zeros(rides, dtype=numpy.int64)
        # segments as met (lists), and as arrays up to where they were last asked for
        self._text_list: list[bytes] = []
        self._code_list: list[int] = []
        self._texts = numpy.empty(0, dtype=object)
        self._codes = numpy.empty(0, dtype=numpy.int64)
        self.held = 0

    @property
    def texts(self) -> numpy.ndarray:
        self._sync()
        return self._texts

    @property
    def keys(self) -> numpy.ndarray:
        self._sync()
        return self._codes

    def of_hops(
        self, tails: numpy.ndarray, heads: numpy.ndarray, boards: numpy.ndarray, alights: numpy.ndarray
    ) -> tuple[numpy.ndarray, numpy.ndarray]:
        """The segments of each hop ``tails[i] -> heads[i]`` (station numbers), ridden from stop ``boards[i]``
        to stop ``alights[i]`` of one line: first numbers and counts."""
        import numpy

        hops = tails * len(self._stations) + heads
        if self._first_by_ride is None:
            found = [self._hop(hop) for hop in hops.tolist()]
            pairs = numpy.array(found, dtype=numpy.int64).reshape(-1, 2)
            return pairs[:, 0], pairs[:, 1]
        rides = self._ride_base[boards] + self._ride_offset[alights]
        first = self._first_by_ride[rides]
        new = numpy.flatnonzero(first < 0)
        if len(new):
            new_rides, at = numpy.unique(rides[new], return_index=True)
            at = new[at]
            line = self._stop_line[boards[at]]
            # one line, whose list is its path, serves both stations (one of them serves no other line): the
            # hop's one segment is made here, its key the one graphkit.graph's _build_hop gives it
            simple = self._path_line[line] & (self._one_line[tails[at]] | self._one_line[heads[at]])
            found = numpy.empty((len(at), 2), dtype=numpy.int64)
            if simple.any():
                found[simple] = self._simple(
                    line[simple], self._stop_place[boards[at[simple]]], self._stop_place[alights[at[simple]]]
                )
                n = len(self._stations)
                codes = (self._line_ranks[line[simple]] * n + tails[at[simple]]) * n + heads[at[simple]]
                self._code_list.extend((codes * _WAYS).tolist())
            if not simple.all():
                found[~simple] = [self._hop(hop) for hop in hops[at[~simple]].tolist()]
            self._first_by_ride[new_rides], self._count_by_ride[new_rides] = found[:, 0], found[:, 1]
            first = self._first_by_ride[rides]
        return first, self._count_by_ride[rides]

    def _simple(self, lines: numpy.ndarray, boards: numpy.ndarray, alights: numpy.ndarray) -> numpy.ndarray:
        """Texts of one-segment rides along path-shaped lines (line ranks, places on them), added in order;
        their numbers and counts (1) as rows. The caller adds their keys."""
        import numpy

        size, names, text = len(self._text_list), self._line_names, self._segment_text
        made = []
        for line, i, j in zip(lines.tolist(), boards.tolist(), alights.tolist()):
            cuts = self._line_cuts(names[line])
            made.append(text(names[line], cuts.texts[i], cuts.texts[j], cuts.via(i, j), abs(i - j) - 1))
        self._text_list.extend(made)
        self.held += int(numpy.abs(boards - alights).sum())
        return numpy.stack((size + numpy.arange(len(made)), numpy.ones(len(made), dtype=numpy.int64)), axis=1)

    def clear(self) -> None:
        """Forget every segment (numbers start again from 0)."""
        import numpy

        self._by_hop.clear()
        if self._first_by_ride is not None:
            self._first_by_ride[:] = -1
        self._text_list.clear()
        self._code_list.clear()
        self._texts = numpy.empty(0, dtype=object)
        self._codes = numpy.empty(0, dtype=numpy.int64)
        self.held = 0

    def _sync(self) -> None:
        import numpy

        done, size = len(self._codes), len(self._code_list)
        if done < size:
            texts = numpy.empty(size - done, dtype=object)
            texts[:] = self._text_list[done:]
            self._texts = numpy.concatenate((self._texts, texts))
            self._codes = numpy.concatenate((self._codes, numpy.array(self._code_list[done:], dtype=numpy.int64)))

    def _hop(self, hop: int) -> tuple[int, int]:
        found = self._by_hop.get(hop)
        if found is None:
            size = len(self._code_list)
            steps = self._build(hop)
            n = len(self._stations)
            for (rank, u, v, way), text in steps:
                self._code_list.append(((rank * n + u) * n + v) * _WAYS + way)
                self._text_list.append(text)
            found = self._by_hop[hop] = (size, len(steps))
        return found

    def _line_cuts(self, line: str) -> _PathCuts | None:
        cuts = self._cuts.get(line, False)
        if cuts is False:
            topology = self._lines[line]
            cuts = _PathCuts(topology, self._station_text, self._separator) if topology.shape == "path" else None
            self._cuts[line] = cuts
        return cuts

    def _build(self, hop: int) -> Steps:
        stations = self._stations
        u, v = divmod(hop, len(stations))
        here, there = stations[u], stations[v]
        serving, lines = self._lines_at[there], self._lines_at[here]
        if len(lines) == 1:  # most stations: one line
            shared = lines if lines[0] in serving else ()
        else:
            shared = [name for name in lines if name in serving]
        if len(shared) == 1 and (cuts := self._line_cuts(shared[0])) is not None:
            # one line, one way: the key is the one a segment of it gets (graphkit.graph, _build_hop)
            i, j = cuts.position[here], cuts.position[there]
            count = abs(i - j) - 1
            self.held += count + 1
            text = self._segment_text(shared[0], cuts.texts[i], cuts.texts[j], cuts.via(i, j), count)
            return (((self._line_rank[shared[0]], u, v, 0), text),)
        return tuple(self._from_segment(segment) for segment in self._hop_segments(here, there))

    def _from_segment(self, segment: Segment) -> tuple[tuple, bytes]:
        station_text, via = self._station_text, segment.via_stops
        self.held += len(via) + 1
        text = self._segment_text(
            segment.route_name,
            station_text[segment.departure_stop],
            station_text[segment.arrival_stop],
            self._separator.join([station_text[station] for station in via]),
            len(via),
        )
        return self._keys[id(segment)], text


def ride_numbers(lines: Iterable[LineTopology]) -> tuple[numpy.ndarray, numpy.ndarray, int]:
    """A number for each ride along a line from one of its stops to another, ``base[board] +
    offset[alight]``: a line's L stops have L² numbers, one after another's (their count, last).

    The stops are numbered line after line, each line's in the order of its stations.

    Parameters
    ----------
    lines : iterable of LineTopology
        The lines, in the order their stops are numbered.

    Returns
    -------
    base, offset : numpy.ndarray
        Per stop: the first number of the rides boarded there, and its place on its line.
    rides : int
        How many numbers there are.

    Examples
    --------
    >>> from types import SimpleNamespace as Line
    >>> base, offset, rides = ride_numbers([Line(stations=("A", "B")), Line(stations=("C", "D", "E"))])
    >>> base.tolist(), offset.tolist(), rides
    ([0, 2, 4, 7, 10], [0, 1, 0, 1, 2], 13)
    """
    import numpy

    base, offset, rides = [], [], 0
    for topology in lines:
        length = len(topology.stations)
        base.extend(range(rides, rides + length * length, length))
        offset.extend(range(length))
        rides += length * length
    return numpy.asarray(base, dtype=numpy.int64), numpy.asarray(offset, dtype=numpy.int64), rides
