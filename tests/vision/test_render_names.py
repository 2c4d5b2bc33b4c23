"""Rendered maps name their lines (badges at the termini, a legend) and keep leaders and strokes off labels."""

from __future__ import annotations

import numpy
import pytest

from graphkit.cities import city_graph
from tests.networks import BRANCH, BRANCH_OVERLAY, CHINESE, LOOP, LOOP_OVERLAY, graph_of
from tests.vision.fonts import needs_cjk_font
from tests.vision.maps import rendered_city
from vision.evidence import MapEvidence, hex_to_rgb, named_lines, read_truth
from vision.legend import line_label, line_termini
from vision.map_quality import label_crossings, map_quality
from vision.render import render_map, write_rendered


@pytest.fixture(scope="module")
def rome_map():
    return rendered_city("rome", seed=0)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_every_line_has_a_badge_at_each_terminus_and_a_legend_entry(rome, rome_map):
    width, height = rome_map.image.size
    for line, record in rome_map.truth["lines"].items():
        assert record["name"] == line
        assert [badge["station"] for badge in record["badges"]] == list(line_termini(rome, line))
        for box in [badge["box"] for badge in record["badges"]] + [record["legend"]]:
            x0, y0, x1, y1 = box
            assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height


def test_rome_termini_by_hand(rome):
    # Line B forks at Bologna: Rebibbia, Jonio and Laurentina end it; Line A runs Battistini to Anagnina
    assert sorted(line_termini(rome, "Line B")) == ["Jonio Station", "Laurentina Station", "Rebibbia Station"]
    assert sorted(line_termini(rome, "Line A")) == ["Anagnina Station", "Battistini Station"]


def test_badges_are_drawn_in_their_line_colour(rome_map):
    pixels = numpy.asarray(rome_map.image)
    for record in rome_map.truth["lines"].values():
        colour = numpy.array(hex_to_rgb(record["color"]))
        for badge in record["badges"]:
            x0, y0, x1, y1 = badge["box"]
            inside = pixels[y0:y1, x0:x1].reshape(-1, 3)
            share = numpy.mean(numpy.all(inside == colour, axis=1))
            assert share > 0.5  # the badge's fill; its text and rounded corners are the rest


def test_badges_and_legend_keep_off_labels_markers_and_each_other(rome_map):
    truth = rome_map.truth
    labels = [record["label_box"] for record in truth["stations"].values()]
    named = [badge["box"] for record in truth["lines"].values() for badge in record["badges"]]
    named += [record["legend"] for record in truth["lines"].values()]
    for index, box in enumerate(named):
        assert not any(_overlap(box, label) for label in labels)
        assert not any(_overlap(box, other) for other in named[index + 1 :])
        for record in truth["stations"].values():
            x, y = record["x"], record["y"]
            assert not (box[0] <= x < box[2] and box[1] <= y < box[3])


def test_the_legend_lies_under_the_map(rome_map):
    lowest = max(record["y"] for record in rome_map.truth["stations"].values())
    assert all(record["legend"][1] > lowest for record in rome_map.truth["lines"].values())


@pytest.mark.parametrize(("data", "overlay"), [(BRANCH, BRANCH_OVERLAY), (LOOP, LOOP_OVERLAY)])
def test_branches_and_loops_are_named(data, overlay):
    graph = graph_of(data, overlay)
    truth = render_map(graph, seed=1).truth
    for line, record in truth["lines"].items():
        assert len(record["badges"]) == len(line_termini(graph, line)) >= 1


def test_chinese_line_names_by_hand():
    graph = graph_of(CHINESE)
    assert [line_label(graph, line) for line in graph.lines] == ["1号线", "2号线", "昌平线"]
    assert [graph.resolve_line(line_label(graph, line)) for line in graph.lines] == list(graph.lines)


@needs_cjk_font
def test_chinese_maps_draw_chinese_line_names():
    truth = render_map(graph_of(CHINESE), seed=0).truth
    assert [record["name"] for record in truth["lines"].values()] == ["1号线", "2号线", "昌平线"]


def test_truth_evidence_names_every_line(rome, rome_map, tmp_path):
    image, _ = write_rendered(rome_map, tmp_path / "rome.png")
    evidence = read_truth(image.with_name("rome.truth.json"), city="rome")
    assert named_lines(evidence, rome) == tuple(rome.lines)


def test_named_lines_ignores_station_names_and_noise(rome):
    evidence = MapEvidence("rome", {}, {}, ("Termini Station", "2024", "line c", "Line A"))
    assert named_lines(evidence, rome) == ("Line A", "Line C")


def test_crossing_counts_by_hand():
    # leader of A runs from (0, 50) to (100, 50): over B's label (40..60 x 45..55) and across line M (x = 80);
    # line L (A's own) runs under it and does not count; line M also cuts through C's label text
    truth = {
        "line_width": 4,
        "stations": {
            "A": {"x": 0, "y": 50, "label_box": [100, 44, 140, 56], "leader": [[0, 50], [100, 50]], "lines": ["L"]},
            "B": {"x": 50, "y": 0, "label_box": [40, 45, 60, 55], "lines": ["L"]},
            "C": {"x": 200, "y": 0, "label_box": [70, 100, 90, 110], "lines": ["M"]},
        },
        "lines": {"L": {"path": [[0, 50], [30, 50]]}, "M": {"path": [[80, 0], [80, 200]]}},
    }
    assert label_crossings(truth) == {"leader_label": 1, "leader_line": 1, "line_label": 1}
    truth["stations"]["A"]["lines"] = ["L", "M"]  # now M is A's line too
    truth["lines"]["M"]["path"] = [[80, 0], [80, 60]]  # and stops above C's label
    assert label_crossings(truth) == {"leader_label": 1, "leader_line": 0, "line_label": 0}


def test_crossing_counts_see_badges_and_legend():
    truth = {
        "stations": {"A": {"x": 0, "y": 0, "label_box": [100, -6, 140, 6], "leader": [[0, 0], [100, 0]]}},
        "lines": {"L": {"path": [[0, 300], [10, 300]], "badges": [{"station": "A", "box": [40, -5, 60, 5]}]}},
    }
    assert label_crossings(truth)["leader_label"] == 1
    truth["lines"]["L"]["badges"] = []
    truth["lines"]["L"]["legend"] = [50, -2, 70, 2]
    assert label_crossings(truth)["leader_label"] == 1


@pytest.mark.parametrize("city", ["rome", "miami", "sydney", "auckland", "budapest"])
def test_no_leader_or_stroke_crosses_a_label_on_fast_cities(city):
    quality = map_quality(rendered_city(city, seed=0).truth)
    assert (quality["leader_label"], quality["leader_line"], quality["line_label"]) == (0, 0, 0)
    assert quality["ambiguous"] == []


@pytest.mark.slow
def test_an_independent_ocr_reads_every_line_name(tmp_path):
    from vision.grounding import ground_stations
    from vision.ocr import OcrSettings, ocr_array

    graph = city_graph("miami")
    rendered = render_map(graph, seed=0)
    result = ocr_array(numpy.asarray(rendered.image), OcrSettings(device="cpu"))
    shown = {station: graph.display_name(station) for station in graph.stations}
    grounding = ground_stations(result.texts, graph.stations, shown=shown)
    evidence = MapEvidence(graph.city, grounding.stations, {}, grounding.unmatched_texts)
    assert named_lines(evidence, graph) == tuple(graph.lines)
