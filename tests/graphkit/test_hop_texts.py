"""The texts of hops made without segments equal those made from the hop's segments."""

from __future__ import annotations

import json

from graphkit.graph import compile_graph
from graphkit.hop_texts import HopSteps
from graphkit.metro import load_metro


def _segment_text(line: str, departure: bytes, arrival: bytes, via: bytes, count: int) -> bytes:
    return b"%s|%s|%s|[%s]|%d" % (line.encode(), departure, arrival, via, count)


def _steps(graph) -> HopSteps:
    texts = {station: json.dumps(station, ensure_ascii=False).encode() for station in graph.stations}
    return HopSteps(
        graph, graph._line_rank, graph._segment_keys, station_text=texts, segment_text=_segment_text, separator=b", "
    )


def test_a_path_lines_hops_both_ways_slice_the_joined_names():
    # one line of names of different lengths (and a non-ASCII one): every hop, both ways, by hand
    names = ["A", "Bee", "Çé", "Dddd", "E"]
    graph = compile_graph(load_metro({"L1": names}))
    steps = _steps(graph)
    n = len(graph.stations)
    for u, here in enumerate(names):
        for v, there in enumerate(names):
            if u == v:
                continue
            between = names[u + 1 : v] if u < v else names[v + 1 : u][::-1]
            via = ", ".join(json.dumps(name, ensure_ascii=False) for name in between).encode()
            expected = b"%s|%s|%s|[%s]|%d" % (
                b"L1",
                json.dumps(here, ensure_ascii=False).encode(),
                json.dumps(there, ensure_ascii=False).encode(),
                via,
                len(between),
            )
            ((key, text),) = steps[graph.stations.index(here) * n + graph.stations.index(there)]
            assert text == b", " + expected
            assert key == (0, graph.stations.index(here), graph.stations.index(there), 0)


def test_hops_of_several_lines_come_from_their_segments():
    # B-C is ridden on both lines, as long on each: two segments, in line order
    graph = compile_graph(load_metro({"L1": ["A", "B", "C", "D"], "L2": ["B", "C"]}))
    steps = _steps(graph)
    n = len(graph.stations)
    b, c = graph.stations.index("B"), graph.stations.index("C")
    found = steps[b * n + c]
    assert [text for _, text in found] == [b', L1|"B"|"C"|[]|0', b', L2|"B"|"C"|[]|0']
    assert steps.held == 2
