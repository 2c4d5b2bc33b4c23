"""The label placer: a label only a crossing leader can reach waits for the caller (who may shrink it first)."""

from __future__ import annotations

import numpy

from vision.labels import LabelPlacer

# a marker at (150, 100) inside a walled box (walls are other labels' boxes) whose inside holds no 40 x 10
# label with its clear space (3 px above and below): only a leader over a wall reaches a free spot outside
_WALLS = ((60, 70, 240, 94), (60, 106, 240, 130), (60, 70, 70, 130), (230, 70, 240, 130))
_SIZE, _INK = (40, 10), (0, 0, 40, 10)


def _walled() -> LabelPlacer:
    placer = LabelPlacer(300, 200, numpy.zeros((200, 300), dtype=bool), [(150, 100, 3)], 10)
    for wall in _WALLS:
        placer.block(wall)
    return placer


def test_a_label_only_a_crossing_leader_reaches_is_left_to_the_fallback():
    placer = _walled()
    taken = placer.labels.copy()
    assert placer.place(0, 4, _SIZE, _INK, 4, crossing=False) is None
    assert (placer.labels == taken).all()  # nothing placed yet
    assert placer.place(0, 4, _SIZE, _INK, 4, leader=False) is None  # nor beside the marker
    fallback = placer.place_fallback()
    assert fallback is not None and fallback.leader  # the least crossing leader, kept from the first try
    assert placer.place_fallback() is None  # used once
    # the same placement as placing with crossing leaders allowed from the start
    assert _walled().place(0, 4, _SIZE, _INK, 4) == fallback


def test_a_label_with_room_beside_its_marker_needs_no_leader():
    placer = LabelPlacer(300, 200, numpy.zeros((200, 300), dtype=bool), [(150, 100, 3)], 10)
    placed = placer.place(0, 4, _SIZE, _INK, 4, crossing=False)
    assert placed is not None and placed.leader == ()
    x, y = placed.corner
    assert x > 150 and y <= 100 <= y + 10  # east of the marker, the most readable side, level with it


def _gap_in_the_walls() -> LabelPlacer:
    """A marker at (200, 100) (its station on line L) boxed in by walls (other labels' boxes), a stroke of
    line M (not the station's) at x = 215 under the east wall. The box's inside has no room for a
    40 x 10 label with its clear space (20 px to the sides): the only clean leader runs west along y = 100
    through the 4 px gap (rows 98 to 101) in the west wall, to a label beyond it (x + 40 + 20 <= 150)."""
    strokes = numpy.zeros((200, 400), dtype=bool)
    strokes[:, 214:217] = True
    placer = LabelPlacer(
        400, 200, strokes, [(200, 100, 3)], 10, lines={"M": [(215, 0), (215, 200)]}, station_lines=[("L",)]
    )
    walls = ((150, 50, 260, 92), (150, 108, 260, 150), (207, 50, 260, 150), (150, 85, 160, 98), (150, 102, 160, 115))
    for wall in walls:
        placer.block(wall)
    return placer


def test_a_clean_leader_through_a_gap_is_found_where_nearer_ones_cross():
    placer = _gap_in_the_walls()
    placed = placer.place(0, 4, _SIZE, _INK, 4, crossing=False)
    assert placed is not None and placed.leader
    (x0, y0), (x1, y1) = placed.leader
    assert x1 <= 150 - 20 and 98 <= min(y0, y1) and max(y0, y1) <= 101  # west, through the gap
    assert placer.crossings(0) == ([], 0)


def test_a_leader_that_must_cross_reports_what_it_crosses():
    placer = _walled()
    placed = placer.place(0, 4, _SIZE, _INK, 4)
    assert placed is not None and placed.leader
    met, others = placer.crossings(0)
    assert met == [] and others >= 1  # no station's label, but at least one wall


def test_labels_taken_off_and_put_back_leave_the_canvas_as_it_was():
    placer = LabelPlacer(300, 200, numpy.zeros((200, 300), dtype=bool), [(100, 100, 3), (200, 100, 3)], 10)
    placer.block((0, 180, 300, 200))
    for index in (0, 1):
        assert placer.place(index, 4, _SIZE, _INK, 4) is not None
    kept = dict(placer.placed)
    masks = placer.labels.copy(), placer.inks.copy(), placer.leaders.copy()
    placer.remove([1])
    assert sorted(placer.placed) == [0] and placer.labels.sum() < masks[0].sum()
    placer.restore(kept)
    assert placer.placed == kept
    assert all((now == then).all() for now, then in zip((placer.labels, placer.inks, placer.leaders), masks))
