"""Line colours estimated from synthetic maps drawn here, and from the renderer's maps when it is present."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy
import pytest

from tests.networks import graph_of
from tests.vision.fonts import needs_cjk_font
from vision.colours import colour_pairs, estimate_line_colours, station_colours, with_lines
from vision.errors import InvalidImage
from vision.evidence import LineEvidence, MapEvidence, StationEvidence, ciede2000, hex_to_rgb

# Orange and Amber are confusable (CIEDE2000 about 5); three lines meet at Hub.
COLOURS = {"Red": "#d62728", "Blue": "#1f77b4", "Orange": "#ff7f0e", "Amber": "#f5902a", "Green": "#2ca02c"}
POINTS = {
    "Red": [(80, 150), (220, 150), (400, 150), (580, 150), (720, 150)],
    "Blue": [(400, 40), (400, 150), (400, 270), (400, 400), (400, 520)],
    "Orange": [(80, 400), (230, 400), (400, 400), (570, 400), (720, 400)],
    "Amber": [(120, 560), (260, 480), (400, 400), (540, 480), (680, 560)],
    "Green": [(720, 150), (720, 280), (720, 400)],
}
NAMES = {point: f"S{point[0]}_{point[1]}" for points in POINTS.values() for point in points}
LINES = {line: [NAMES[point] for point in points] for line, points in POINTS.items()}
FONT, SCALE, THICK = cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1


def draw(
    size: tuple[int, int] = (600, 800),
) -> tuple[numpy.ndarray, dict[str, StationEvidence], dict[str, StationEvidence]]:
    """A white map: 6-px lines, white markers with black outlines, black labels up and right of the markers.

    Returns the RGB image, the stations at their markers (with label boxes),
    and the stations as OCR would give them (label centre and box only).
    """
    image = numpy.full((*size, 3), 255, numpy.uint8)
    for line, points in POINTS.items():
        cv2.polylines(image, [numpy.array(points, numpy.int32)], False, hex_to_rgb(COLOURS[line]), 6, cv2.LINE_AA)
    markers, labels = {}, {}
    for (x, y), name in NAMES.items():
        cv2.circle(image, (x, y), 7, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.circle(image, (x, y), 7, (0, 0, 0), 2, cv2.LINE_AA)
        (width, height), base = cv2.getTextSize(name, FONT, SCALE, THICK)
        x0, y1 = x + 10, y - 10
        cv2.putText(image, name, (x0, y1), FONT, SCALE, (0, 0, 0), THICK, cv2.LINE_AA)
        box = (x0, y1 - height, x0 + width, y1 + base)
        markers[name] = StationEvidence(name, True, (float(x), float(y)), box, 1.0, name)
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        labels[name] = StationEvidence(name, True, centre, box, 0.9, name)
    return image, markers, labels


@pytest.fixture(scope="module")
def drawn():
    return draw()


def test_the_confusable_pair_is_confusable():
    assert 4 < ciede2000(COLOURS["Orange"], COLOURS["Amber"]) < 8


@pytest.mark.parametrize("where", ["markers", "labels", "points"])
def test_colours_match_the_drawing(drawn, where):
    image, markers, labels = drawn
    stations = {
        "markers": markers,
        "labels": labels,
        "points": {name: StationEvidence(name, True, found.point) for name, found in markers.items()},
    }[where]
    estimated = estimate_line_colours(image, stations, LINES)
    assert list(estimated) == list(LINES)
    for line, evidence in estimated.items():
        assert evidence.colour is not None, line
        assert ciede2000(evidence.colour, COLOURS[line]) < 10, (line, evidence.colour)
        assert 0.5 <= evidence.support <= 1.0
    # the confusable pair is told apart, not merged
    for line, other in (("Orange", "Amber"), ("Amber", "Orange")):
        colour = estimated[line].colour
        assert ciede2000(colour, COLOURS[line]) < ciede2000(colour, COLOURS[other])


def test_the_same_input_gives_the_same_colours(drawn):
    image, _, labels = drawn
    first = estimate_line_colours(image, labels, LINES)
    assert estimate_line_colours(image.copy(), dict(reversed(labels.items())), LINES) == first


def test_a_station_not_found_leaves_the_colour_to_the_others(drawn):
    image, markers, _ = drawn
    hub = NAMES[(400, 400)]
    stations = dict(markers, **{hub: StationEvidence(hub, False)})
    estimated = estimate_line_colours(image, stations, LINES)
    for line in ("Blue", "Orange", "Amber"):
        assert ciede2000(estimated[line].colour, COLOURS[line]) < 10


def test_a_line_with_no_station_found_has_no_colour(drawn):
    image, markers, _ = drawn
    stations = {name: found for name, found in markers.items() if name not in LINES["Green"]}
    stations[LINES["Green"][1]] = StationEvidence(LINES["Green"][1], False)
    estimated = estimate_line_colours(image, stations, {**LINES, "Ghost": ["Nowhere"]})
    assert estimated["Ghost"] == LineEvidence("Ghost", None, (), 0.0)
    # Green's only stations are transfers or lost: its colour may be unknown or found at a transfer, never wrong
    assert estimated["Green"].colour is None or ciede2000(estimated["Green"].colour, COLOURS["Green"]) < 10


def test_a_line_seen_only_at_a_transfer_takes_the_colour_other_lines_lack(drawn):
    image, markers, _ = drawn
    transfer = NAMES[(400, 150)]
    lines = dict(LINES, Blue=[transfer])  # Blue is found only where it crosses Red
    estimated = estimate_line_colours(image, markers, lines)
    assert ciede2000(estimated["Blue"].colour, COLOURS["Blue"]) < 10
    assert ciede2000(estimated["Red"].colour, COLOURS["Red"]) < 10


def test_station_colours_drop_white_grey_and_black():
    image = numpy.full((50, 50, 3), 255, numpy.uint8)
    image[10:40, 10:40] = (128, 128, 128)
    image[20:30, 20:30] = (0, 0, 0)
    seen = station_colours(image, {"A": StationEvidence("A", True, (25.0, 25.0))}, window=20)
    assert seen == {"A": ()}


def test_stations_not_found_or_off_the_image_show_nothing():
    image = numpy.full((50, 50, 3), 200, numpy.uint8)
    stations = {
        "Lost": StationEvidence("Lost", False),
        "Far": StationEvidence("Far", True, (500.0, 500.0)),
    }
    assert station_colours(image, stations) == {"Far": ()}
    assert estimate_line_colours(image, stations, {"1": ["Lost", "Far"]})["1"].colour is None


@pytest.mark.parametrize(
    "image",
    [
        numpy.zeros((10, 10), numpy.uint8),
        numpy.zeros((10, 10, 3), numpy.float32),
        numpy.zeros((10, 10, 2), numpy.uint8),
    ],
)
def test_a_non_rgb_image_is_refused(image):
    with pytest.raises(InvalidImage):
        station_colours(image, {})


@pytest.mark.parametrize("window", [0, -3, float("nan")])
def test_a_window_must_be_positive(window):
    with pytest.raises(ValueError, match="window"):
        station_colours(numpy.zeros((5, 5, 3), numpy.uint8), {}, window=window)


def test_rgba_is_read_as_rgb(drawn):
    image, markers, _ = drawn
    rgba = numpy.dstack([image, numpy.full(image.shape[:2], 255, numpy.uint8)])
    assert estimate_line_colours(rgba, markers, LINES) == estimate_line_colours(image, markers, LINES)


def _resident_bytes() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc to read the resident memory")
def test_a_huge_image_is_read_only_around_the_stations():
    # numpy.zeros maps pages lazily: only what is written or read becomes resident
    image = numpy.zeros((14032, 19843, 3), numpy.uint8)
    stations, lines = {}, {"Red": [], "Blue": []}
    for i, x in enumerate(range(1000, 19000, 1500)):
        for line, y, colour in (("Red", 3000, (214, 39, 40)), ("Blue", 9000, (31, 119, 180))):
            image[y - 40 : y + 40, x - 200 : x + 200] = 255
            image[y - 6 : y + 6, x - 200 : x + 200] = colour
            name = f"{line}{i}"
            stations[name] = StationEvidence(name, True, (float(x), float(y)), (x + 20, y - 60, x + 180, y - 20))
            lines[line].append(name)
    before = _resident_bytes()
    estimated = estimate_line_colours(image, stations, lines)
    assert _resident_bytes() - before < 64 * 2**20
    assert ciede2000(estimated["Red"].colour, "#d62728") < 10
    assert ciede2000(estimated["Blue"].colour, "#1f77b4") < 10


def test_colour_pairs_are_sorted_and_leave_out_unknown_colours():
    lines = {name: LineEvidence(name, COLOURS.get(name)) for name in [*COLOURS, "Lost"]}
    pairs = colour_pairs(lines)
    assert len(pairs) == len(COLOURS) * (len(COLOURS) - 1) // 2
    assert [pair.difference for pair in pairs] == sorted(pair.difference for pair in pairs)
    assert (pairs[0].line_a, pairs[0].line_b) == ("Amber", "Orange")
    assert all(pair.line_a < pair.line_b and "Lost" not in (pair.line_a, pair.line_b) for pair in pairs)
    evidence = MapEvidence("toy", {}, lines)
    assert all(pair.difference == evidence.colour_difference(pair.line_a, pair.line_b) for pair in pairs)


def test_with_lines_gives_colours_and_paths(drawn):
    image, _, labels = drawn
    graph = graph_of(LINES)
    lines = with_lines(labels, image, graph)
    assert set(lines) == set(graph.lines)
    for name, line in lines.items():
        assert ciede2000(line.colour, COLOURS[name]) < 10
        assert line.path == tuple(labels[station].point for station in LINES[name])
    MapEvidence("toy", labels, lines)  # what the lead builds from it


# --- the renderer's maps ---------------------------------------------------------------------------------------

RENDER_CITIES = ("rome", "geneva", "miami", "hefei", "beijing")


def _rendered(city: str, palette: str):
    from graphkit.cities import city_graph
    from vision.render import render_map

    graph = city_graph(city)
    rendered = render_map(graph, seed=0, palette=palette)
    return graph, numpy.asarray(rendered.image.convert("RGB")), rendered.truth


@pytest.mark.slow
@needs_cjk_font  # Hefei and Beijing have Chinese labels
@pytest.mark.parametrize("palette", ["normal", "confusable"])
def test_rendered_maps_colours_from_label_boxes(palette):
    hits, total, misses = 0, 0, []
    for city in RENDER_CITIES:
        graph, image, truth = _rendered(city, palette)
        stations = {}
        for name, record in truth["stations"].items():
            box = tuple(float(v) for v in record["label_box"])
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            stations[name] = StationEvidence(name, True, centre, box, 1.0, name)
        lines = with_lines(stations, image, graph)
        for name, record in truth["lines"].items():
            total += 1
            colour = lines[name].colour
            if colour is not None and ciede2000(colour, record["color"]) < 10:
                hits += 1
            else:
                misses.append((city, name, colour, record["color"]))
    assert hits >= 0.95 * total, (hits, total, misses)
