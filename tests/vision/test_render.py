"""The synthetic map renderer: deterministic output and ground truth that matches the pixels."""

from __future__ import annotations

import itertools
import json
import math

import numpy
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CHINESE,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_STATION,
    graph_of,
    random_lines,
)
from tests.vision.fonts import needs_cjk_font
from tests.vision.maps import rendered_city
from vision.errors import EngineUnavailable
from vision.evidence import ciede2000, hex_to_rgb, read_truth
from vision.fonts import find_font, font_index, script_of
from vision.map_quality import ambiguous_labels, box_distance, leader_labels, line_bends
from vision.render import (
    MAX_SIZE,
    MIN_SIZE,
    default_size,
    line_colours,
    render_map,
    truth_json,
    truth_path,
    write_rendered,
)


@pytest.fixture(scope="module")
def rome_map():
    return rendered_city("rome", seed=0)


def _check_truth(graph, rendered) -> None:
    """Every station and line present; markers and label boxes inside the image; label boxes pairwise disjoint."""
    truth = rendered.truth
    width, height = rendered.image.size
    assert (truth["width"], truth["height"]) == (width, height)
    assert list(truth["stations"]) == list(graph.stations)
    assert list(truth["lines"]) == list(graph.lines)
    boxes = []
    for record in truth["stations"].values():
        assert 0 <= record["x"] < width and 0 <= record["y"] < height
        x0, y0, x1, y1 = record["label_box"]
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
        boxes.append((x0, y0, x1, y1))
    boxes.sort()
    for index, (x0, y0, x1, y1) in enumerate(boxes):
        for u0, v0, u1, v1 in boxes[index + 1 :]:
            if u0 >= x1:
                break
            assert v0 >= y1 or v1 <= y0, f"label boxes overlap: {(x0, y0, x1, y1)} and {(u0, v0, u1, v1)}"
    for line in truth["lines"].values():
        hex_to_rgb(line["color"])


def _path_agreement(rendered, margin: float = 30.0) -> float:
    """Share of points along the lines' truth paths, away from markers and labels, drawn in the line's colour."""
    pixels = numpy.asarray(rendered.image)
    truth = rendered.truth
    centres = numpy.array([[s["x"], s["y"]] for s in truth["stations"].values()])
    boxes = numpy.array([s["label_box"] for s in truth["stations"].values()], dtype=float)
    hits = total = 0
    for line in truth["lines"].values():
        colour = hex_to_rgb(line["color"])
        for (x0, y0), (x1, y1) in itertools.pairwise(line["path"]):
            steps = int(math.hypot(x1 - x0, y1 - y0) // 4)
            for t in numpy.linspace(0, 1, steps + 1)[1:-1]:
                x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
                if numpy.hypot(centres[:, 0] - x, centres[:, 1] - y).min() < margin:
                    continue
                near_label = (
                    (boxes[:, 0] - 8 <= x) & (x <= boxes[:, 2] + 8) & (boxes[:, 1] - 8 <= y) & (y <= boxes[:, 3] + 8)
                )
                if near_label.any():
                    continue
                total += 1
                hits += tuple(pixels[round(y), round(x)]) == colour
    assert total > 0
    return hits / total


def _png_bytes(rendered, tmp_path, name: str) -> tuple[bytes, bytes]:
    png, truth = write_rendered(rendered, tmp_path / f"{name}.png")
    return png.read_bytes(), truth.read_bytes()


def test_same_seed_gives_identical_files_and_another_seed_differs(rome, rome_map, tmp_path):
    first = _png_bytes(rome_map, tmp_path, "a")
    assert _png_bytes(render_map(rome, seed=0), tmp_path, "b") == first
    other = _png_bytes(render_map(rome, seed=1), tmp_path, "c")
    assert other[0] != first[0] and other[1] != first[1]


def test_truth_covers_the_graph_and_labels_never_overlap(rome, rome_map):
    _check_truth(rome, rome_map)
    assert rome_map.truth["city"] == "rome" and rome_map.truth["palette"] == "normal"


def test_default_size_keeps_labels_legible(rome, rome_map):
    assert max(rome_map.image.size) == default_size(rome)
    heights = [box[3] - box[1] for box in (s["label_box"] for s in rome_map.truth["stations"].values())]
    assert sorted(heights)[len(heights) // 2] >= 14  # ink of "Station" (cap height and descender) at a 20 px font


def test_lines_are_drawn_in_their_truth_colour_along_their_truth_path(rome_map):
    assert _path_agreement(rome_map) >= 0.9


def test_drawn_colours_are_the_truth_colours(rome, rome_map):
    assert {line["color"] for line in rome_map.truth["lines"].values()} == set(line_colours(rome).values())
    pixels = numpy.asarray(rome_map.image).reshape(-1, 3).astype(numpy.int64)
    drawn = set(numpy.unique(pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]).tolist())
    for line in rome_map.truth["lines"].values():
        assert int(line["color"][1:], 16) in drawn


@pytest.mark.parametrize("city", ["rome", "geneva", "hefei", "beijing", "new_york"])
def test_normal_palette_is_well_separated(city):
    colours = list(line_colours(city_graph(city), "normal").values())
    assert len(set(colours)) == len(colours)
    least = min(ciede2000(a, b) for a, b in itertools.combinations(colours, 2))
    assert least > (20 if len(colours) <= 12 else 12)
    for colour in colours:
        assert ciede2000(colour, "#ffffff") > 15 and ciede2000(colour, "#1a1a1a") > 15


@pytest.mark.parametrize("city", ["rome", "geneva", "beijing"])
def test_confusable_palette_pairs_lines_that_meet(city):
    graph = city_graph(city)
    colours = line_colours(graph, "confusable", seed=2)
    close = [
        (a, b)
        for a, b in itertools.combinations(colours, 2)
        if ciede2000(colours[a], colours[b]) <= 10 and set(graph.lines[a].stations) & set(graph.lines[b].stations)
    ]
    assert close
    assert all(ciede2000(colours[a], colours[b]) >= 3.5 for a, b in close)


def test_confusable_render_draws_its_colours(rome):
    rendered = render_map(rome, seed=0, palette="confusable", size=1000)
    assert rendered.truth["palette"] == "confusable"
    assert {v["color"] for v in rendered.truth["lines"].values()} == set(line_colours(rome, "confusable").values())
    assert _path_agreement(rendered, margin=20) >= 0.85


def test_rotated_labels_change_some_boxes(rome, rome_map):
    rotated = render_map(rome, seed=0, rotate_labels=True)
    _check_truth(rome, rotated)

    def aspect(rendered):
        return {
            name: (b[2] - b[0]) / (b[3] - b[1])
            for name, b in ((n, s["label_box"]) for n, s in rendered.truth["stations"].items())
        }

    flat, turned = aspect(rome_map), aspect(rotated)
    squarer = [name for name in flat if turned[name] < flat[name] / 2]
    assert len(rome.stations) // 5 <= len(squarer) < len(rome.stations)


@pytest.mark.parametrize(
    ("data", "overlay"), [(ONE_STATION, None), (LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (HOMONYMS, None)]
)
def test_small_networks(data, overlay):
    graph = graph_of(data, overlay)
    rendered = render_map(graph, seed=5)
    _check_truth(graph, rendered)


def test_a_loop_path_closes_and_a_branch_path_stays_on_its_strokes():
    loop = render_map(graph_of(LOOP, LOOP_OVERLAY), seed=0).truth["lines"]["Line 2"]["path"]
    assert math.dist(loop[0], loop[-1]) < 30  # back at L0, up to the offset of the crossing line
    assert _path_agreement(render_map(graph_of(BRANCH, BRANCH_OVERLAY), seed=0), margin=25) >= 0.9


@needs_cjk_font
def test_cjk_names_are_drawn_with_glyphs():
    graph = graph_of(CHINESE)
    rendered = render_map(graph, seed=0)
    _check_truth(graph, rendered)
    pixels = numpy.asarray(rendered.image.convert("L"))
    for name, record in rendered.truth["stations"].items():
        assert script_of(name) == "cjk"
        x0, y0, x1, y1 = record["label_box"]
        ink = pixels[y0:y1, x0:x1] < 100
        # about one glyph per character, each with many dark strokes (not an empty box or a single tofu)
        assert x1 - x0 >= 0.8 * len(name) * (y1 - y0) * 0.8
        assert ink.mean() > 0.12, name


@needs_cjk_font
def test_cjk_font_face_is_simplified_chinese():
    from PIL import ImageFont

    path = find_font("cjk")
    name = ImageFont.truetype(str(path), 20, index=font_index(path, "cjk") or 0).getname()[0]
    if path.suffix.lower() == ".ttc" and "CJK" in name:
        assert name.endswith("SC")


@needs_cjk_font
def test_choosing_a_face_reads_the_character_map_of_that_face_alone():
    from vision import fonts

    path = str(find_font("cjk"))
    fonts._face_probes.cache_clear()
    index = font_index(path, "cjk")
    # a collection's faces are read one at a time, preferred first: the chosen face's map is the only one read
    assert fonts._face_probes.cache_info().currsize == 1 and index is not None
    assert {ord(char) for char in "站门路西"} <= fonts._face_probes(path, index)
    latin = str(find_font("latin"))
    if font_index(latin, "latin") is not None and not fonts._face_probes(latin, 0) >= {ord("站")}:
        assert font_index(latin, "cjk") is None  # a Latin-only font is never taken for Chinese


@pytest.mark.parametrize("size", [MIN_SIZE - 1, 100, MAX_SIZE + 1, 20000])
def test_size_outside_the_limits_is_refused(rome, size):
    with pytest.raises(ValueError, match=f"{MIN_SIZE} and {MAX_SIZE}"):
        render_map(rome, size=size)


def test_unknown_palette_lists_the_choices(rome):
    with pytest.raises(ValueError, match=r"\['confusable', 'normal'\]"):
        render_map(rome, palette="pastel")


def test_size_sets_the_longest_side(rome):
    image = render_map(graph_of(BRANCH, BRANCH_OVERLAY), size=MIN_SIZE).image
    assert max(image.size) == MIN_SIZE
    assert max(render_map(rome, size=1234).image.size) == 1234


def test_write_rendered_writes_a_map_and_a_readable_truth(rome_map, tmp_path):
    png, truth = write_rendered(rome_map, tmp_path / "maps" / "rome.png")
    assert truth == truth_path(png) == tmp_path / "maps" / "rome.truth.json"
    assert png.read_bytes().startswith(b"\x89PNG")
    evidence = read_truth(truth, city="rome")
    assert set(evidence.stations) == set(rome_map.truth["stations"])
    assert evidence.lines["Line A"].colour == rome_map.truth["lines"]["Line A"]["color"]
    assert json.loads(truth.read_text(encoding="utf-8")) == json.loads(truth_json(rome_map.truth))
    assert not list((tmp_path / "maps").glob(".*.part"))


def test_find_font_refuses_a_missing_file(monkeypatch):
    find_font.cache_clear()
    monkeypatch.setenv("REASONMAP_CJK_FONT", "/nowhere/font.ttc")
    try:
        with pytest.raises(EngineUnavailable, match="fonts-noto-cjk"):
            find_font("cjk")
    finally:
        find_font.cache_clear()
    with pytest.raises(ValueError, match="latin"):
        find_font("greek")


_NAMES = [f"{word} Station" for word in ("Oak", "Elm", "Pine", "Bay", "Hill", "Port", "Mill", "Lake", "Glen", "Ash")]


def _networks():
    return random_lines(_NAMES, min_stations=1, max_stations=7)


@settings(max_examples=12)
@given(data=_networks(), seed=st.integers(0, 2**16), rotate=st.booleans(), size=st.sampled_from([None, 600, 1500]))
@example(  # Glen Station, on 4 lines, has a 39 px marker: its leader starts 40 px from the centre (found in CI)
    data={
        "Line 1": ["Elm Station", "Port Station", "Glen Station", "Lake Station"],
        "Line 2": ["Bay Station", "Pine Station", "Lake Station", "Ash Station", "Glen Station", "Port Station"],
        "Line 3": ["Oak Station", "Glen Station", "Port Station"],
        "Line 4": ["Oak Station", "Glen Station", "Port Station", "Bay Station", "Lake Station"],
    },
    seed=0,
    rotate=False,
    size=1500,
)
def test_random_networks_keep_the_truth_invariants(data, seed, rotate, size):
    graph = graph_of(data)
    rendered = render_map(graph, seed=seed, size=size, rotate_labels=rotate)
    _check_truth(graph, rendered)
    _assert_unambiguous(rendered)


def _label_heights_never_shrink(rendered) -> None:
    """Every "... Station" label is drawn at the map's label size: its ink is at least the cap height of 'S'.

    (A label shrinks only where every leader to it would cross another label or line; none does in Rome.)"""
    heights = [b[3] - b[1] for b in (s["label_box"] for s in rendered.truth["stations"].values())]
    assert min(heights) >= 0.9 * sorted(heights)[len(heights) // 2]


def _assert_unambiguous(rendered) -> None:
    """Each label is strictly nearer its own marker than any other, unless a leader joins the two."""
    stations = rendered.truth["stations"]
    for name, record in stations.items():
        if "leader" in record:
            (x0, y0), (x1, y1) = record["leader"][0], record["leader"][-1]
            # starts at its own marker's rim (a 4-line interchange's marker is 39 px: a fixed 40 was too tight)
            assert math.dist((x0, y0), (record["x"], record["y"])) <= record["radius"] + 1.5
            bx0, by0, bx1, by1 = record["label_box"]
            assert bx0 <= x1 <= bx1 and by0 <= y1 <= by1  # and ends on its own label
            continue
        own = box_distance((record["x"], record["y"]), record["label_box"])
        for other, elsewhere in stations.items():
            if other != name:
                assert box_distance((elsewhere["x"], elsewhere["y"]), record["label_box"]) > own, (name, other)


def test_every_label_is_nearest_its_own_marker_or_has_a_leader(rome, rome_map):
    _assert_unambiguous(rome_map)
    assert ambiguous_labels(rome_map.truth) == []
    _label_heights_never_shrink(rome_map)
    # leaders are the exception: most labels sit beside their marker
    assert len(leader_labels(rome_map.truth)) < len(rome.stations) / 2


def test_leaders_are_drawn(rome_map):
    pixels = numpy.asarray(rome_map.image)
    for record in rome_map.truth["stations"].values():
        if "leader" in record:
            (x0, y0), (x1, y1) = record["leader"]
            x, y = round((x0 + x1) / 2), round((y0 + y1) / 2)
            assert pixels[y - 1 : y + 2, x - 1 : x + 2].min() < 128  # dark ink at the leader's middle


def test_rome_lines_bend_less_than_two_per_hop(rome, rome_map):
    """Rome's hops drawn with at most one bend each and straightened: well under one bend per hop."""
    bends = line_bends(rome_map.truth)
    hops = sum(len(rome.lines[line].stations) - 1 for line in rome.lines)
    assert sum(bends.values()) < hops / 2


def test_jpeg_output_is_jpeg_and_byte_stable(rome, tmp_path):
    rendered = render_map(graph_of(BRANCH, BRANCH_OVERLAY), seed=2)
    first, truth = write_rendered(rendered, tmp_path / "a.jpg")
    assert first.read_bytes()[:3] == b"\xff\xd8\xff" and truth == tmp_path / "a.truth.json"
    second, _ = write_rendered(render_map(graph_of(BRANCH, BRANCH_OVERLAY), seed=2), tmp_path / "b.JPEG")
    assert first.read_bytes() == second.read_bytes()
    with pytest.raises(ValueError, match=r"\['.jpeg', '.jpg', '.png'\]"):
        write_rendered(rendered, tmp_path / "c.gif")


@pytest.mark.parametrize(("data", "overlay"), [(LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (HOMONYMS, None)])
def test_small_networks_have_unambiguous_labels(data, overlay):
    _assert_unambiguous(render_map(graph_of(data, overlay), seed=5))


def test_a_map_whose_labels_need_crossing_leaders_is_drawn_on_a_sparser_grid_at_the_default_size():
    from vision.map_quality import label_crossings, marker_crossings

    city = city_graph("los_angeles")  # crowded: on its own grid a leader crosses another label
    own = render_map(city, seed=0, size=default_size(city))
    roomier = rendered_city("los_angeles", seed=0)
    # a size given is kept, on the map's own grid; the default draws a larger map, with no crossing left
    assert max(own.image.size) == default_size(city)
    assert sum(label_crossings(own.truth).values()) > 0
    assert max(roomier.image.size) > default_size(city)
    assert label_crossings(roomier.truth) == {"leader_label": 0, "leader_line": 0, "line_label": 0}
    assert marker_crossings(roomier.truth) == {"leader_marker": 0, "line_marker": 0}

    # the labels keep their size: the sparser grid gives them room, not a smaller font
    def median_height(rendered):
        heights = sorted(s["label_box"][3] - s["label_box"][1] for s in rendered.truth["stations"].values())
        return heights[len(heights) // 2]

    assert abs(median_height(roomier) - median_height(own)) <= 2


def test_on_a_sparser_grid_labels_sit_as_near_their_markers_as_on_the_own_grid():
    from vision.map_quality import far_labels

    # Geneva is drawn at the default size on a grid 1.5 times as wide (labels 0.2 of a cell, not 0.3): the
    # spots tried beside a marker widen in the own grid's pixels, and a label left more than three label
    # heights off its marker is joined to it by a leader; before, 13 of its labels sat that far without one
    city = city_graph("geneva")
    rendered = render_map(city, seed=0)
    assert max(rendered.image.size) > default_size(city)
    assert far_labels(rendered.truth) == []
    assert far_labels(rendered_city("los_angeles", seed=0).truth) == []


def test_straighten_moves_a_station_off_a_hop_that_would_be_drawn_over_it():
    from graphkit.graph import compile_graph
    from graphkit.metro import load_metro
    from vision.layout import GridLayout, straighten

    # on a 3 × 2 grid L runs A–B straight along row 0 through X's cell, and no move takes out a bend; of the
    # two free cells, (0, 1) and (2, 1), either keeps M (X–Y) straight and one cell long: the first is taken
    graph = compile_graph(load_metro({"L": ["A", "B"], "M": ["X", "Y"]}))
    layout = GridLayout({"A": (0, 0), "X": (1, 0), "B": (2, 0), "Y": (1, 1)}, 3, 2)
    assert straighten(graph, layout).cells == {"A": (0, 0), "B": (2, 0), "X": (0, 1), "Y": (1, 1)}


def test_a_bent_hop_is_drawn_the_way_that_passes_over_no_station():
    from vision.layout import hop_shapes

    # A (0, 0) to B (3, 1): straight first runs over (1, 0) and (2, 0), diagonal first over (1, 1) and (2, 1);
    # the line's continuation at B (to C, due east) favours arriving straight, i.e. diagonal first
    cells = {"A": (0, 0), "B": (3, 1), "C": (5, 1), "S": (2, 1)}
    assert hop_shapes({k: v for k, v in cells.items() if k != "S"}, [("A", "B"), ("B", "C")]) == {("A", "B"): True}
    assert hop_shapes(cells, [("A", "B"), ("B", "C")]) == {("A", "B"): False}  # S sits on the diagonal-first way


def test_no_line_is_drawn_over_a_station_it_does_not_serve_and_no_leader_over_a_marker():
    from vision.map_quality import marker_crossings

    # Washington's layout puts Federal Center SW on a hop of the Red Line, which does not serve it
    truth = rendered_city("washington").truth
    assert "Red Line" not in truth["stations"]["Federal Center SW Station"]["lines"]
    assert marker_crossings(truth) == {"leader_marker": 0, "line_marker": 0}
