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
