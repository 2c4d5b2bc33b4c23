"""The segment table: texts of hops made without segments equal those made from the hop's segments."""

from __future__ import annotations

import json

import numpy
import pytest

from graphkit.graph import compile_graph
from graphkit.hop_texts import SegmentTable
from graphkit.metro import load_metro


def _segment_text(line: str, departure: bytes, arrival: bytes, via: bytes, count: int) -> bytes:
    return b"%s|%s|%s|[%s]|%d" % (line.encode(), departure, arrival, via, count)


def _table(graph, ride_limit: int = 0) -> SegmentTable:
    texts = {station: json.dumps(station, ensure_ascii=False).encode() for station in graph.stations}
    return SegmentTable(
        graph,
        graph._line_rank,
        graph._segment_keys,
        station_text=texts,
        segment_text=_segment_text,
        separator=b", ",
        ride_limit=ride_limit,
    )


def _segments(table: SegmentTable, graph, here: str, there: str, line: str = "L1") -> list[tuple[bytes, int]]:
    # stops are numbered line after line, each line's in its stations' order
    stops = [(name, station) for name, topology in graph.lines.items() for station in topology.stations]
    u, v = graph.stations.index(here), graph.stations.index(there)
    board, alight = stops.index((line, here)), stops.index((line, there))
    first, count = table.of_hops(*(numpy.array([value]) for value in (u, v, board, alight)))
    numbers = range(int(first[0]), int(first[0] + count[0]))
    return [(table.texts[k], int(table.keys[k])) for k in numbers]


@pytest.mark.parametrize("ride_limit", [0, 1000])  # hops looked up one by one, or read by ride from a table
def test_a_path_lines_hops_both_ways_slice_the_joined_names(ride_limit):
    # one line of names of different lengths (and a non-ASCII one): every hop, both ways, by hand
    names = ["A", "Bee", "Çé", "Dddd", "E"]
    graph = compile_graph(load_metro({"L1": names}))
    table = _table(graph, ride_limit)
    for u, here in enumerate(names):
        for v, there in enumerate(names):
            if u == v:
                continue
            between = names[u + 1 : v] if u < v else names[v + 1 : u][::-1]
            via = ", ".join(json.dumps(name, ensure_ascii=False) for name in between).encode()
            expected = b"L1|%s|%s|[%s]|%d" % (
                json.dumps(here, ensure_ascii=False).encode(),
                json.dumps(there, ensure_ascii=False).encode(),
                via,
                len(between),
            )
            ((text, key),) = _segments(table, graph, here, there)
            assert text == expected
            # the key (line rank 0, departure, arrival, way 0) as one integer: ((0 * 5 + u) * 5 + v) * 64
            assert key == (u * 5 + v) * 64


@pytest.mark.parametrize("ride_limit", [0, 1000])
def test_hops_of_several_lines_come_from_their_segments_in_key_order(ride_limit):
    # B-C is ridden on both lines, as long on each: two segments, in line order
    graph = compile_graph(load_metro({"L1": ["A", "B", "C", "D"], "L2": ["B", "C"]}))
    table = _table(graph, ride_limit)
    found = _segments(table, graph, "B", "C")
    assert [text for text, _ in found] == [b'L1|"B"|"C"|[]|0', b'L2|"B"|"C"|[]|0']
    assert found[0][1] < found[1][1]
    assert table.held == 2
    # met again: the same numbers, nothing added
    assert _segments(table, graph, "B", "C") == found and len(table.texts) == 2
