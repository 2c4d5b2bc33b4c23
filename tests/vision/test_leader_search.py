"""The leader search's batch answers equal the one-at-a-time answers, worked out here pixel by pixel."""

from __future__ import annotations

import math

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.labels import LabelPlacer
from vision.leader_search import markers_near, rect_counts, sample_points

_SHAPE = (37, 53)  # rows, columns: small and odd, so rectangles run past every edge


def _mask(seed: int, share: float):
    return numpy.random.default_rng(seed).random(_SHAPE) < share


_bounds = st.tuples(st.integers(0, 60), st.integers(0, 60), st.integers(0, 70), st.integers(0, 70))


@settings(max_examples=60)
@given(st.integers(0, 10_000), st.floats(0.0, 0.5), st.lists(_bounds, min_size=1, max_size=12))
def test_rectangle_counts_are_the_set_pixels_of_each_slice(seed, share, rects):
    first, second = _mask(seed, share), _mask(seed + 1, share)
    arrays = tuple(numpy.array(column) for column in zip(*rects))
    (counts,) = rect_counts([first, second], [arrays])
    union = first | second
    assert counts.tolist() == [int(union[y0:y1, x0:x1].sum()) for y0, y1, x0, x1 in rects]


_point = st.tuples(st.integers(-20, 80).map(lambda v: v / 4), st.integers(-20, 80).map(lambda v: v / 4))


@settings(max_examples=60)
@given(st.lists(st.tuples(_point, _point, st.integers(2, 40)), min_size=1, max_size=6))
def test_sampled_points_are_those_a_loop_over_each_segment_visits(segments):
    starts = numpy.array([start for start, _, _ in segments], dtype=float)
    ends = numpy.array([end for _, end, _ in segments], dtype=float)
    xs, ys, which = sample_points(starts, ends, [steps for *_, steps in segments], 15, 12)
    expected = []
    for index, ((x0, y0), (x1, y1), steps) in enumerate(segments):
        for k in range(steps + 1):
            x, y = round(x0 + (x1 - x0) * k / steps), round(y0 + (y1 - y0) * k / steps)
            if 0 <= x < 15 and 0 <= y < 12:
                expected.append((x, y, index))
    assert list(zip(xs.tolist(), ys.tolist(), which.tolist())) == expected


@settings(max_examples=60)
@given(st.lists(st.tuples(_point, _point), min_size=1, max_size=5), st.lists(_point, min_size=1, max_size=8))
def test_markers_near_a_segment_are_within_their_reach_of_its_nearest_point(segments, markers):
    starts = numpy.array([start for start, _ in segments], dtype=float)
    ends = numpy.array([end for _, end in segments], dtype=float)
    xs = numpy.array([x for x, _ in markers])
    ys = numpy.array([y for _, y in markers])
    reach = numpy.full(len(markers), 2.5)
    near = markers_near(starts, ends, xs, ys, reach)
    for row, ((x0, y0), (x1, y1)) in enumerate(segments):
        for column, (mx, my) in enumerate(markers):
            dx, dy = x1 - x0, y1 - y0
            along = min(1.0, max(0.0, ((mx - x0) * dx + (my - y0) * dy) / (dx * dx + dy * dy or 1.0)))
            distance = math.hypot(x0 + along * dx - mx, y0 + along * dy - my)
            if abs(distance - 2.5) > 1e-9:  # a tie at the reach is left to rounding
                assert near[row, column] == (distance < 2.5)


def _crowded_placer(seed: int) -> LabelPlacer:
    """A 120 x 90 canvas with strokes, markers, labels and leaders scattered over it."""
    rng = numpy.random.default_rng(seed)
    strokes = numpy.zeros((90, 120), dtype=bool)
    for _ in range(4):
        row = int(rng.integers(0, 90))
        strokes[row : row + 2, :] = True
    markers = [(int(rng.integers(5, 115)), int(rng.integers(5, 85)), 3) for _ in range(6)]
    placer = LabelPlacer(120, 90, strokes, markers, 6)
    for _ in range(3):
        x, y = int(rng.integers(0, 110)), int(rng.integers(0, 85))
        placer.block((x, y, x + 10, y + 5))
    placer.leaders[int(rng.integers(0, 90)), :] = True
    return placer


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.integers(4, 30), st.integers(3, 12))
def test_free_spots_in_a_batch_are_the_spots_free_one_at_a_time(seed, w, h):
    placer = _crowded_placer(seed)
    ink = (1, 1, w - 1, h - 1)
    ys, xs = numpy.meshgrid(numpy.arange(0, 90 - h + 1, 3), numpy.arange(0, 120 - w + 1, 3), indexing="ij")
    xs, ys = xs.ravel(), ys.ravel()
    free, under = placer._free_many(xs, ys, (w, h), ink)
    assert free.tolist() == [placer._free(x, y, w, h, ink) for x, y in zip(xs.tolist(), ys.tolist())]
    pad = placer.pad_y
    expected = [int(placer.strokes[max(0, y - pad) : y + h + pad, x : x + w].sum()) for x, y in zip(xs, ys)]
    assert under.tolist() == expected
