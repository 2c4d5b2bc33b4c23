"""Visual knobs of the renderer: the values a map realises, read back from its pixels, and default knobs that
leave every map as it was, byte for byte."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import numpy
import pytest
from skimage.color import deltaE_ciede2000, rgb2lab

from graphkit.cities import city_graph
from vision.knobs import Knobs, line_crossings
from vision.palettes import palette_at_distance
from vision.render import png_bytes, render_map

# sha256 of the PNG bytes render_map gave on main at commit 9e43eea, before knobs existed
# (`png_bytes(render_map(city_graph(CITY), **OPTIONS))` run on a checkout of that commit)
BEFORE = {
    ("rome", ()): "de70a06f86cb2020ee87bea34ffde9624f8d39ac0ff45cca0178237cf888f76d",
    ("miami", (("seed", 3), ("size", 1200))): "8d9d6bb5f6d7e50c78651e5e6616cd143ade0e5146514aa4c999cee856a8ccde",
}


def min_distance(rgbs) -> float:
    """The smallest CIEDE2000 between two (r, g, b) colours, straight from skimage's Lab and ΔE00."""
    lab = rgb2lab(numpy.array([list(rgbs)], dtype=numpy.float64) / 255.0)[0]
    return min(float(deltaE_ciede2000(a, b)) for a, b in itertools.combinations(lab, 2))


@pytest.mark.parametrize(("city", "options"), sorted(BEFORE))
def test_default_knobs_keep_the_map_byte_identical(city, options):
    rendered = render_map(city_graph(city), knobs=Knobs(), **dict(options))
    assert hashlib.sha256(png_bytes(rendered)).hexdigest() == BEFORE[(city, options)]
    assert "knobs" not in rendered.truth


def stroke_colours(rendered) -> dict[str, tuple[int, int, int]]:
    """Each line's colour as drawn: the commonest coloured pixel (not white, grey or black: markers, labels and
    leaders) at ten points along each segment of its path."""
    pixels = numpy.asarray(rendered.image).astype(int)
    drawn = {}
    for line, record in rendered.truth["lines"].items():
        samples = Counter()
        for (x0, y0), (x1, y1) in itertools.pairwise(record["path"]):
            for t in numpy.linspace(0.05, 0.95, 10):
                pixel = pixels[round(y0 + t * (y1 - y0)), round(x0 + t * (x1 - x0))]
                if pixel.max() - pixel.min() > 40:
                    samples[tuple(int(v) for v in pixel)] += 1
        drawn[line] = samples.most_common(1)[0][0]
    return drawn


@pytest.mark.parametrize("distance", [3.0, 12.0, 40.0])
def test_colour_distance_is_realised_on_the_drawn_strokes(rome, distance):
    rendered = render_map(rome, size=1000, knobs=Knobs(colour_distance=distance))
    measured = min_distance(stroke_colours(rendered).values())
    knobs = rendered.truth["knobs"]
    assert knobs["asked_colour_distance"] == distance
    assert abs(knobs["colour_distance"] - measured) <= 0.01
    assert distance - 0.01 <= measured <= distance + 0.5  # as near as the 8-bit colours allow


@pytest.mark.parametrize(("count", "distance"), [(3, 2.0), (6, 5.0), (8, 10.0), (5, 25.0)])
def test_a_palette_keeps_its_closest_pair_at_the_distance(count, distance):
    colours = palette_at_distance(count, distance, seed=7)
    rgbs = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in colours]
    assert len(set(colours)) == count
    assert distance - 0.01 <= min_distance(rgbs) <= distance + 0.5


def ink_height(pixels, box) -> int:
    """Rows of a label box holding the dark label text (every channel below 100)."""
    x0, y0, x1, y1 = box
    rows = numpy.nonzero((pixels[y0:y1, x0:x1] < 100).all(axis=2).any(axis=1))[0]
    return int(rows[-1] - rows[0] + 1) if len(rows) else 0


def test_label_scale_is_realised_in_the_label_ink(rome):
    today = render_map(rome, size=1600)
    half = render_map(rome, size=1600, knobs=Knobs(label_scale=0.5))
    heights = {}
    for name, rendered in (("today", today), ("half", half)):
        pixels = numpy.asarray(rendered.image)
        inks = sorted(ink_height(pixels, s["label_box"]) for s in rendered.truth["stations"].values())
        heights[name] = inks[len(inks) // 2]
    assert abs(half.truth["knobs"]["label_height_px"] - heights["half"]) <= 1
    assert abs(heights["half"] - heights["today"] / 2) <= 1.5
    assert half.image.size == today.image.size


def test_label_scale_keeps_todays_canvas_at_the_default_size(rome):
    today = render_map(rome)
    larger = render_map(rome, knobs=Knobs(label_scale=1.5))
    assert larger.image.size == today.image.size  # not redrawn on a sparser grid: only the labels grow
    boxes = sorted(s["label_box"][3] - s["label_box"][1] for s in today.truth["stations"].values())
    assert abs(larger.truth["knobs"]["label_height_px"] - 1.5 * boxes[len(boxes) // 2]) <= 1.5


def test_crossings_are_counted_away_from_stations_once_each():
    # by hand: A (horizontal at y=20) crosses B (vertical at x=0) at (0, 20), far from the station S at (0, 0);
    # B walks back over itself (a branch's retrace), so it meets A there twice, but it is one place;
    # C crosses B at S itself: a shared station, not a crossing; D (vertical at x=30) crosses A at (30, 20)
    truth = {
        "line_width": 4,
        "stations": {"S": {"x": 0, "y": 0, "radius": 5}},
        "lines": {
            "A": {"path": [[-50, 20], [50, 20]]},
            "B": {"path": [[0, -50], [0, 50], [0, -50]]},
            "C": {"path": [[-50, 0], [50, 0]]},
            "D": {"path": [[30, 10], [30, 60]]},
        },
    }
    assert line_crossings(truth) == 2


@pytest.mark.parametrize("bad", [0, -1, 5, True])
def test_a_label_scale_out_of_range_is_refused(bad):
    with pytest.raises((ValueError, TypeError), match="label scale"):
        Knobs(label_scale=bad)


@pytest.fixture(scope="module")
def tidy_network():
    from graphkit.graph import compile_graph
    from graphkit.synth import synthesize_network

    network = synthesize_network(stations=60, lines=6, seed=0, city="tidy", country="synthetic")
    return compile_graph(network.metro, network.overlay)


@pytest.fixture(scope="module")
def tidy_map(tidy_network):
    """The tidy network drawn without a crossings knob: drawn once for every target below."""
    return render_map(tidy_network, knobs=Knobs(label_scale=1.0, crossings=None))


# 20 crossings searches the same tangled layouts as 5, for longer (3 s of a 2-core machine's CPU): it runs with
# the slow suite, 5 in the fast one
@pytest.mark.parametrize("target", [5, pytest.param(20, marks=pytest.mark.slow)])
def test_crossings_are_realised_as_near_as_a_tangled_layout_gets(tidy_network, tidy_map, target):
    tidy = tidy_map
    tangled = render_map(tidy_network, knobs=Knobs(crossings=target))
    assert line_crossings(tidy.truth) < target  # the tidy map crosses less: the knob had work to do
    assert tangled.truth["knobs"]["asked_crossings"] == target
    assert tangled.truth["knobs"]["crossings"] == line_crossings(tangled.truth)
    # the layout is chosen on its hops' count; drawn, lines sharing hops run side by side and may cross
    # a few more times (on this network: 0 asked, 1 drawn; 5 asked, 6; 20 asked, 23)
    assert abs(tangled.truth["knobs"]["crossings"] - target) <= max(1, 0.2 * target)
