"""The answer's route drawn on the map: stations where the truth (or the OCR) places them, the unplaced listed."""

from __future__ import annotations

import dataclasses

import numpy
import pytest
from PIL import Image

from benchmarks.reasonmap.generate import generate_questions
from graphkit.cities import city_graph
from tests.vision.maps import real_map
from vision.diagnose import Diagnosis
from vision.diagnosis_drawings import draw_diagnoses, drawing_name
from vision.evidence import MapEvidence, StationEvidence, hex_to_rgb
from vision.render import render_map
from vision.route_drawing import answer_route, draw_routes, reference_route

pytestmark = pytest.mark.figures  # the drawings are written for real, and their pixels read back

MADE_UP = "Quillfeather Junction"


@pytest.fixture(scope="module")
def rome():
    graph = city_graph("rome")
    rendered = render_map(graph, seed=0, size=1000)
    questions = generate_questions(graph, seed=1, per_city=12)
    question = next(q for q in questions if len(q.routes[0]) == 2)  # one transfer
    return graph, rendered, MapEvidence.from_truth(rendered.truth, city="rome"), question


def _wrong_answer(question, other_line):
    """The first reference section as it is (ends only), then the second on ``other_line``, then a made-up stop."""
    first, second = question.routes[0]
    return (
        f"Route Name: {first.route_name}\nDeparture Stop: {first.departure_stop}\nArrival Stop: {first.arrival_stop}\n"
        f"Route Name: {other_line}\nDeparture Stop: {second.departure_stop}\nArrival Stop: {second.arrival_stop}\n"
        f"Route Name: {other_line}\nDeparture Stop: {second.arrival_stop}\nArrival Stop: {MADE_UP}"
    )


def _pixels(path):
    with Image.open(path) as image:
        return numpy.asarray(image.convert("RGB")).astype(int)


def _at(pixels, drawing, x, y):
    px, py = drawing.pixel(x, y)
    return pixels[int(py), int(px)]


def _close(colour, hex_colour, tolerance=4):
    return bool(numpy.abs(colour - numpy.array(hex_to_rgb(hex_colour))).max() <= tolerance)


def _drawn(rome, tmp_path, *, image=True, evidence=None, name="d.png"):
    graph, rendered, truth_evidence, question = rome
    evidence = evidence or truth_evidence
    first, second = question.routes[0]
    other = next(line for line in graph.lines if line not in (first.route_name, second.route_name))
    answer = answer_route(_wrong_answer(question, other), "short", question, graph, evidence)
    reference = reference_route(question, graph, evidence)
    return draw_routes(rendered.image if image else None, evidence, answer, reference, tmp_path / name), other


@pytest.fixture(scope="module")
def drawn(rome, tmp_path_factory):
    """The wrong answer drawn once: the tests read its pixels."""
    return _drawn(rome, tmp_path_factory.mktemp("drawn"))[0]


def test_the_answers_stations_are_drawn_where_the_truth_places_them(rome, drawn):
    graph, rendered, _, question = rome
    drawing = drawn
    pixels = _pixels(drawing.path)
    assert pixels.shape[:2] == (drawing.size[1], drawing.size[0])
    stations, lines = rendered.truth["stations"], rendered.truth["lines"]
    first = question.routes[0][0]
    colour = lines[first.route_name]["color"]
    # the first section names only its ends: its stops are the reference's (one line, so the same ride)
    for name in (first.departure_stop, *first.via_stops, first.arrival_stop):
        assert _close(_at(pixels, drawing, stations[name]["x"], stations[name]["y"]), colour), name
    # the transfer: the arriving ride's colour inside a black ring (a 15 px dot, its 2.5 px edge at radius 7.5)
    transfer = stations[first.arrival_stop]
    px, py = drawing.pixel(transfer["x"], transfer["y"])
    ring = [pixels[round(py + dy), round(px + dx)] for dx, dy in ((7.5, 0), (-7.5, 0), (0, 7.5), (0, -7.5))]
    assert all(value.sum() < 3 * 80 for value in ring), ring


def test_the_map_under_the_routes_is_faded_and_the_unplaced_are_listed(rome, drawn):
    graph, rendered, _, question = rome
    drawing = drawn
    pixels = _pixels(drawing.path)
    from shapely.geometry import LineString, Point

    stations = rendered.truth["stations"]
    first, second = question.routes[0]
    drawn = [first.departure_stop, *first.via_stops, first.arrival_stop, second.arrival_stop]  # the answer's path
    path = LineString([(stations[name]["x"], stations[name]["y"]) for name in drawn])
    on_routes = {stop for route in question.routes for s in route for stop in (s.departure_stop, *s.via_stops)}
    x0, y0, x1, y1 = drawing.window
    checked = 0
    for name, station in stations.items():
        if name in on_routes or not (x0 + 10 < station["x"] < x1 - 10 and y0 + 10 < station["y"] < y1 - 10):
            continue
        if path.distance(Point(station["x"], station["y"])) < 12:  # the answer's chord may pass over it
            continue
        # another station's marker: the map's own white-and-black dot, faded to light grey, not a line colour
        seen = _at(pixels, drawing, station["x"], station["y"])
        assert not any(_close(seen, line["color"], 10) for line in rendered.truth["lines"].values()), name
        checked += 1
    assert checked >= 3
    assert drawing.unplaced == (MADE_UP,)


def test_a_drawing_is_byte_stable(rome, drawn, tmp_path):
    again, _ = _drawn(rome, tmp_path, name="again.png")
    assert again.path.read_bytes() == drawn.path.read_bytes()
    assert again.path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stations_the_evidence_cannot_place_are_listed_and_not_drawn(rome, tmp_path):
    graph, rendered, evidence, question = rome
    first = question.routes[0][0]
    lost = first.via_stops[0]
    stations = dict(evidence.stations)
    stations[lost] = StationEvidence(lost, False)  # the OCR did not read its label
    blind = dataclasses.replace(evidence, stations=stations)
    drawing, _ = _drawn(rome, tmp_path, evidence=blind)
    assert drawing.unplaced == (lost, MADE_UP)
    pixels = _pixels(drawing.path)
    where = rendered.truth["stations"][lost]
    # no dot where it is: at most the ride's 3.5 px line passes over it, outlined in black, so not the dot's fill
    colour = rendered.truth["lines"][first.route_name]["color"]
    px, py = drawing.pixel(where["x"], where["y"])
    patch = pixels[round(py) - 3 : round(py) + 4, round(px) - 3 : round(px) + 4].reshape(-1, 3)
    assert sum(_close(value, colour) for value in patch) < 49 - 10


def test_without_an_image_the_evidence_alone_is_drawn(rome, tmp_path):
    graph, rendered, _, question = rome
    drawing, _ = _drawn(rome, tmp_path, image=False)
    pixels = _pixels(drawing.path)
    first = question.routes[0][0]
    where = rendered.truth["stations"][first.departure_stop]
    assert _close(_at(pixels, drawing, where["x"], where["y"]), rendered.truth["lines"][first.route_name]["color"])


def test_every_wrong_answer_gets_one_drawing_named_by_question_model_and_kind(rome, tmp_path):
    graph, rendered, evidence, question = rome
    rows = [
        Diagnosis(question.id, "m/1", "short", "refusal", "other", {}, "rome"),
        Diagnosis(question.id, "m/1", "long", "correct", "correct", {}, "rome"),
        Diagnosis(question.id, "m_1", "short", "wrong_line", "grounding", {}, "rome"),
        Diagnosis("unknown-id", "m", "short", "refusal", "other", {}, "rome"),
        Diagnosis(question.id, "m_1", "short", "hallucinated_station", "grounding", {}, "rome", repeat=1),
    ]
    first = question.routes[0][0]
    made_up = f"Route Name: {first.route_name}\nDeparture Stop: {first.departure_stop}\nArrival Stop: Vexmoor Quay"
    responses = {("m_1", question.id, "short", 0): _wrong_answer(question, "Line C")}
    responses[("m_1", question.id, "short", 1)] = made_up  # the second answer to the same request
    drawn = draw_diagnoses(
        rows, {question.id: question}, responses, lambda q: graph, lambda q: evidence, lambda city: None, tmp_path
    )
    assert [diagnosis for diagnosis, _ in drawn] == [rows[0], rows[2], rows[4]]  # not the correct one, nor "unknown"
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == sorted({drawing_name(rows[0]), drawing_name(rows[2]), drawing_name(rows[4])}) and len(names) == 3
    refusal, _, repeat = (drawing for _, drawing in drawn)
    assert refusal.unplaced == ()  # the reference alone, every station on the map
    assert repeat.unplaced == ("Vexmoor Quay",) and repeat.path.name.endswith("__short__r1.png")


@pytest.mark.slow
def test_a_real_map_is_drawn_from_the_ocr_grounding(tmp_path):
    from vision.analyse import analyse_map

    graph = city_graph("miami")
    path = real_map("america__miami")
    evidence = analyse_map(path, graph, cache_dir=tmp_path / "cache").evidence
    question = generate_questions(graph, seed=1, per_city=10)[0]
    segment = question.routes[0][0]
    text = (
        f"Route Name: {segment.route_name}\nDeparture Stop: {segment.departure_stop}\n"
        f"Arrival Stop: {segment.arrival_stop}\nRoute Name: {segment.route_name}\n"
        f"Departure Stop: {segment.arrival_stop}\nArrival Stop: {MADE_UP}"
    )
    answer = answer_route(text, "short", question, graph, evidence)
    with Image.open(path) as image:
        drawing = draw_routes(
            image.convert("RGB"), evidence, answer, reference_route(question, graph, evidence), tmp_path / "m.png"
        )
    pixels = _pixels(drawing.path)
    colour = evidence.lines[segment.route_name].colour
    for name in (segment.departure_stop, *segment.via_stops):  # the arrival is a transfer: a larger dot, same fill
        found = evidence.stations[name]
        if found.found:
            assert _close(_at(pixels, drawing, *found.point), colour), name
    unread = tuple(name for name in (segment.departure_stop, *segment.via_stops) if not evidence.stations[name].found)
    assert set(drawing.unplaced) == {*unread, MADE_UP}


def test_a_ride_that_cannot_be_placed_is_said_not_drawn_and_left_out_of_the_legend(rome):
    """The departure misread: the first ride has one stop on the map (its arrival) and no line is drawn for
    it; its line was still listed in the legend (issue 39 §10)."""
    from vision.route_drawing import _legend, _notes

    graph, rendered, evidence, question = rome
    first, second = question.routes[0]
    misread = "Qx" + first.departure_stop  # no station of the map: nothing to place, no stops in between
    other = next(line for line in graph.lines if line not in (first.route_name, second.route_name))
    text = _wrong_answer(question, other).replace(
        f"Departure Stop: {first.departure_stop}", f"Departure Stop: {misread}"
    )
    answer = answer_route(text, "short", question, graph, evidence)
    _, names = _legend(answer)
    assert f"answer: {first.route_name}" not in names and f"answer: {other}" in names
    notes = _notes(answer, reference_route(question, graph, evidence), rendered.image)
    assert f"ride 1 ({first.route_name}) not drawn: {misread} not placed" in notes
    assert f"ride 3 ({other}) not drawn: {MADE_UP} not placed" in notes
