"""The segment table: texts of hops made without segments equal those made from the hop's segments."""

from __future__ import annotations

import json

import numpy

from graphkit.graph import compile_graph
from graphkit.hop_texts import SegmentTable
from graphkit.metro import load_metro


def _segment_text(line: str, departure: bytes, arrival: bytes, via: bytes, count: int) -> bytes:
    return b"%s|%s|%s|[%s]|%d" % (line.encode(), departure, arrival, via, count)


def _table(graph) -> SegmentTable:
    texts = {station: json.dumps(station, ensure_ascii=False).encode() for station in graph.stations}
    return SegmentTable(
        graph,
        graph._line_rank,
        graph._segment_keys,
        station_text=texts,
        segment_text=_segment_text,
        separator=b", ",
        rides=None,
    )


def _segments(table: SegmentTable, graph, here: str, there: str) -> list[tuple[bytes, int]]:
    hop = graph.stations.index(here) * len(graph.stations) + graph.stations.index(there)
    first, count = table.of_hops(numpy.array([hop]), None)
    numbers = range(int(first[0]), int(first[0] + count[0]))
    return [(table.texts[k], int(table.keys[k])) for k in numbers]


def test_a_path_lines_hops_both_ways_slice_the_joined_names():
    # one line of names of different lengths (and a non-ASCII one): every hop, both ways, by hand
    names = ["A", "Bee", "Çé", "Dddd", "E"]
    graph = compile_graph(load_metro({"L1": names}))
    table = _table(graph)
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


def test_hops_of_several_lines_come_from_their_segments_in_key_order():
    # B-C is ridden on both lines, as long on each: two segments, in line order
    graph = compile_graph(load_metro({"L1": ["A", "B", "C", "D"], "L2": ["B", "C"]}))
    table = _table(graph)
    found = _segments(table, graph, "B", "C")
    assert [text for text, _ in found] == [b'L1|"B"|"C"|[]|0', b'L2|"B"|"C"|[]|0']
    assert found[0][1] < found[1][1]
    assert table.held == 2
    # met again: the same numbers, nothing added
    assert _segments(table, graph, "B", "C") == found and len(table.texts) == 2
