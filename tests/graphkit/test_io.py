"""Writing references: atomic files, records equal to the library's, progress."""

from __future__ import annotations

import json

import pytest

from graphkit import city_graph, reference_routes
from graphkit.io import atomic_writer, reference_lines, write_references
from tests.networks import LOOP, LOOP_OVERLAY, graph_of


def test_reference_lines_equal_the_records_of_the_library():
    graph = city_graph("singapore")
    written = [json.loads(line) for line in reference_lines(graph)]
    assert written == [found.to_record() for found in reference_routes(graph)]


def test_write_references_covers_several_graphs(tmp_path):
    graphs = [graph_of(LOOP, LOOP_OVERLAY), city_graph("dubai")]
    count = write_references(tmp_path / "refs.jsonl", graphs, progress=False)
    lines = (tmp_path / "refs.jsonl").read_text(encoding="utf-8").splitlines()
    assert count == len(lines) == 10 * 9 + 52 * 51


def test_an_interrupted_write_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError):
        with atomic_writer(target) as stream:
            stream.write("partial")
            raise RuntimeError("interrupted")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
