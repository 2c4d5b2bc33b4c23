"""The label placer: a label only a crossing leader can reach is offered, not taken (the caller may shrink it first)."""

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


def test_a_label_only_a_crossing_leader_reaches_is_offered_as_crossing_and_nothing_is_taken():
    placer = _walled()
    taken = placer.labels.copy()
    candidate = placer.find(0, 4, _SIZE, _INK, 4)
    assert candidate is not None and candidate.crossing and candidate.leader  # the least crossing leader
    assert (placer.labels == taken).all() and not placer.leaders.any()  # nothing placed yet
    assert placer.find(0, 4, _SIZE, _INK, 4, leader=False) is None  # nor beside the marker
    assert placer.find(0, 4, _SIZE, _INK, 4) == candidate  # a find takes nothing: asked again, the same answer
    placed = placer.take(candidate)
    assert placed.leader == candidate.leader and (placer.labels != taken).any() and placer.leaders.any()
    # the same placement as placing with crossing leaders allowed from the start
    assert _walled().place(0, 4, _SIZE, _INK, 4) == placed


def test_a_label_with_room_beside_its_marker_needs_no_leader():
    placer = LabelPlacer(300, 200, numpy.zeros((200, 300), dtype=bool), [(150, 100, 3)], 10)
    placed = placer.place(0, 4, _SIZE, _INK, 4)
    assert placed is not None and placed.leader == ()
    x, y = placed.corner
    assert x > 150 and y <= 100 <= y + 10  # east of the marker, the most readable side, level with it


def _beside_a_band(band_end: int):
    """A 10 px high label of the marker at (150, 100) (radius 3), when every pixel left of ``band_end`` is
    drawn: no text may lie on a stroke, so the label goes east, its text starting past ``band_end``."""
    strokes = numpy.zeros((200, 300), dtype=bool)
    strokes[:, :band_end] = True
    placer = LabelPlacer(300, 200, strokes, [(150, 100, 3)], 10)
    return placer.place(0, 4, _SIZE, _INK, 14)


def test_a_label_that_can_only_sit_far_from_its_marker_is_joined_to_it_by_a_leader():
    # rings at 4 + 3 (the marker's clear space) + 14 k px from the centre: east, the text starts there
    near = _beside_a_band(170)  # ring 1: 21 px from the centre, 18 beyond the rim, under 3 heights (30 px)
    assert near is not None and near.leader == () and near.corner[0] == 150 + 21
    far = _beside_a_band(216)  # ring 5: 77 px, 74 beyond the rim; a leader over strokes crosses no label
    assert far is not None and far.leader and far.corner[0] == 150 + 77
    (x0, y0), (x1, y1) = far.leader
    assert x0 < 160 and x1 == 150 + 77 and y0 == y1 == 100  # from the marker's rim to the text's near edge
