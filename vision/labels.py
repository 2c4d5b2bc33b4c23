"""Where a rendered map puts each station's label: beside its own marker, never nearer another's.

:class:`LabelPlacer` places labels one at a time on occupancy masks: labels and
markers are hard obstacles, line strokes a soft cost. A label goes in the
first ring around its marker that has room, in one of eight directions (each
also slid along its free side), and only where its box is clearly nearer its
own marker than any other station's: a label nearer a neighbour's marker would
make the map itself say the wrong station. Where no spot nearby qualifies, the
label goes to the nearest free spot and a leader line joins it to its marker
(:attr:`Placement.leader`). The placer never shrinks a label.

No line stroke runs through a label's text, no leader crosses another label or
a stroke of a line its station is not on, and no label is put over a leader:
these are hard rules. A leader that crosses from the marker to the nearest point
of the label is tried again to other points of the label's facing edges (other
angles), then let through a label's halo (not its text). Where no spot keeps the
rules, ``place(..., crossing=False)`` places nothing, so that the caller can try
the label smaller beside its marker (``leader=False``), and
:meth:`LabelPlacer.place_fallback` then takes the least crossing leader. :meth:`LabelPlacer.place_box` puts other boxes
(line badges) beside a point under the same rules, and :meth:`LabelPlacer.block`
keeps a region (the legend) free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Placement", "LabelPlacer"]

# label directions around a marker, most readable first: east, west, the diagonals, north, south
_DIRECTIONS = ((1, 0), (-1, 0), (1, -1), (1, 1), (-1, -1), (-1, 1), (0, -1), (0, 1))
_RINGS = 6
# free spots (the cheapest first) whose leaders are checked per search window: a bound on the time a crowded
# station costs (they are checked in one batch)
_TRIES = 1500
# spots (the cheapest first) whose leader is tried at other angles when every nearest-point leader crosses
_OTHER_ENDS = 60


@dataclass(frozen=True, slots=True)
class Placement:
    """A label's top-left ``corner``, and the ``leader`` polyline from marker to label (empty when beside it)."""

    corner: tuple[int, int]
    leader: tuple[tuple[float, float], ...] = ()


def _table(mask):
    """The summed-area table of a boolean mask: ``table[y, x]`` counts the set pixels above and left of (y, x)."""
    import numpy

    sums = numpy.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=numpy.int32)
    sums[1:, 1:] = mask.cumsum(0, dtype=numpy.int32).cumsum(1, dtype=numpy.int32)
    return sums


def _box_distances(xs, ys, box: tuple[int, int, int, int]):
    import numpy

    x0, y0, x1, y1 = box
    return numpy.hypot(
        numpy.maximum(numpy.maximum(x0 - xs, 0), xs - x1), numpy.maximum(numpy.maximum(y0 - ys, 0), ys - y1)
    )


class LabelPlacer:
    """Greedy label placement on one canvas.

    Labels keep a clear space around them (wide to the sides, about a character): a text detector would
    otherwise read two labels on one row as one text, or take a marker for a letter.

    Parameters
    ----------
    width, height : int
        The canvas.
    strokes : numpy.ndarray of bool
        Pixels already drawn (lines): crossing them costs, it is not forbidden.
    markers : list of (x, y, radius)
        Every station marker, in the order :meth:`place` will name them by index.
    font_px : int
        The map's label size, which sets the clear spaces.
    lines : mapping of line name to its drawn path, optional
        With ``station_lines`` (each marker's lines, by index) and ``line_width``: a leader may cross only the
        strokes of its own station's lines.
    """

    def __init__(
        self,
        width: int,
        height: int,
        strokes,
        markers: list[tuple[int, int, int]],
        font_px: int,
        *,
        lines: dict[str, list[tuple[float, float]]] | None = None,
        station_lines: list[tuple[str, ...]] | None = None,
        line_width: int = 2,
    ):
        import numpy
        import shapely
        from shapely.geometry import LineString, Point

        self.width, self.height = width, height
        self.strokes = strokes
        self.leaders = numpy.zeros((height, width), dtype=bool)
        self.leader_px = max(1, round(line_width / 3))
        self.station_lines = station_lines or [()] * len(markers)
        # every drawn segment of every line, widened to its stroke (and a little): one tree answers which
        # lines a batch of leaders crosses
        self.line_names = sorted(name for name, path in (lines or {}).items() if path)
        shapes, owners = [], []
        for number, name in enumerate(self.line_names):
            path = [point for k, point in enumerate(lines[name]) if k == 0 or point != lines[name][k - 1]]
            pieces = [LineString(pair) for pair in zip(path, path[1:])] or [Point(path[0])]
            shapes += pieces
            owners += [number] * len(pieces)
        self.segments = shapely.STRtree(shapely.buffer(shapes, line_width / 2 + 1.5)) if shapes else None
        self.segment_lines = numpy.array(owners, dtype=numpy.int64)
        number_of = {name: number for number, name in enumerate(self.line_names)}
        self.own_lines = [
            numpy.array([number_of[line] for line in lines_at if line in number_of], dtype=numpy.int64)
            for lines_at in self.station_lines
        ]
        self.pad_x, self.pad_y = max(2, round(2.0 * font_px)), max(1, round(0.3 * font_px))
        self.marker_pad = max(2, round(0.3 * font_px))
        # a label must be this much nearer its own marker than any other (pixels), so the reading is not a tie
        self.margin = max(2.0, 0.25 * font_px)
        self.labels = numpy.zeros((height, width), dtype=bool)
        self.inks = numpy.zeros((height, width), dtype=bool)  # the text itself (a label without its halo)
        self._pending: tuple | None = None  # see place_fallback
        # what is on the canvas, so that labels can be taken off again (:meth:`remove`): each station's
        # placement, size and ink; the boxes kept free or taken by badges
        self.placed: dict[int, tuple[Placement, tuple[int, int], tuple[int, int, int, int]]] = {}
        self._boxes: list[tuple[int, int, int, int]] = []
        # the whole canvas's summed-area tables (see _free_spots), kept while _version (bumped by every change
        # to the label and leader masks) stays the same
        self._version = 0
        self._tables: tuple | None = None
        self._stroke_table = None
        self.markers = numpy.zeros((height, width), dtype=bool)
        self.xs = numpy.array([float(x) for x, _, _ in markers])
        self.ys = numpy.array([float(y) for _, y, _ in markers])
        pad = self.marker_pad
        for x, y, radius in markers:
            self.markers[
                max(0, y - radius - pad) : y + radius + pad + 1, max(0, x - radius - pad) : x + radius + pad + 1
            ] = True

    def _free(self, x: int, y: int, w: int, h: int, ink: tuple[int, int, int, int] | None = None) -> bool:
        """In the canvas, off markers, leaders and other labels' clear space, and no stroke through ``ink``
        (the text's box inside the label, one pixel around it; the whole box when ``None``)."""
        if x < 0 or y < 0 or x + w > self.width or y + h > self.height or self.markers[y : y + h, x : x + w].any():
            return False
        if self.leaders[y : y + h, x : x + w].any():
            return False
        ix0, iy0, ix1, iy1 = ink if ink is not None else (0, 0, w, h)
        if self.strokes[max(0, y + iy0 - 1) : y + iy1 + 1, max(0, x + ix0 - 1) : x + ix1 + 1].any():
            return False
        px, py = self.pad_x, self.pad_y
        return not self.labels[max(0, y - py) : y + h + py, max(0, x - px) : x + w + px].any()

    def block(self, box: tuple[int, int, int, int]) -> None:
        """Keep ``box`` ``(x0, y0, x1, y1)`` free of labels and badges."""
        x0, y0, x1, y1 = box
        self._version += 1
        self.labels[max(0, y0) : y1, max(0, x0) : x1] = True
        self.inks[max(0, y0) : y1, max(0, x0) : x1] = True
        self._boxes.append(box)

    def _clear(self, index: int, box: tuple[int, int, int, int]) -> bool:
        """The box is nearer marker ``index`` than every other marker, by the margin."""
        distances = _box_distances(self.xs, self.ys, box)
        own = float(distances[index])
        distances[index] = math.inf
        return len(distances) < 2 or float(distances.min()) > own + self.margin

    def _cost(self, x: int, y: int, w: int, h: int) -> float:
        import numpy

        py = self.pad_y
        crossed = numpy.count_nonzero(self.strokes[max(0, y - py) : y + h + py, x : x + w])
        return (0.3 if crossed else 0.0) + crossed / (w * h)  # any stroke through a label hinders reading it

    def _take(self, x: int, y: int, w: int, h: int, ink: tuple[int, int, int, int] | None = None) -> None:
        self._version += 1
        self.labels[y : y + h, x : x + w] = True
        ix0, iy0, ix1, iy1 = ink if ink is not None else (0, 0, w, h)
        self.inks[y + iy0 : y + iy1, x + ix0 : x + ix1] = True

    @staticmethod
    def _spots(centre: tuple[int, int], distance: float, w: int, h: int, dx: int, dy: int):
        """Top-left corners for a label at ``distance`` in direction (dx, dy), centred and slid along its side."""
        reach = round(distance * (0.75 if dx and dy else 1.0))
        x = centre[0] + (reach if dx > 0 else -reach - w if dx < 0 else -(w // 2))
        y = centre[1] + (reach if dy > 0 else -reach - h if dy < 0 else -(h // 2))
        yield 0, x, y
        if dy == 0:  # beside the marker: also with the marker at the label's top or bottom
            yield 1, x, y - h // 3
            yield 1, x, y + h // 3
        elif dx == 0:  # above or below: also starting or ending at the marker
            yield 1, centre[0] - min(w // 2, round(distance)), y
            yield 1, centre[0] + min(w // 2, round(distance)) - w, y

    def place(
        self,
        index: int,
        gap: float,
        size: tuple[int, int],
        ink: tuple[int, int, int, int],
        step: float,
        *,
        crossing: bool = True,
        leader: bool = True,
    ) -> Placement | None:
        """Where the ``size`` label of marker ``index`` goes, or ``None`` when the canvas has no room.

        ``gap`` is the marker's radius plus a pixel; rings widen by ``step``. ``ink`` is the text's box inside
        the label (its halo around it): the text, not the halo, must be nearest its own marker. With
        ``leader=False`` only a spot beside the marker will do. With ``crossing=False`` a label that only a
        crossing leader could join is not placed (``None``): the caller may try it smaller beside its
        marker first, then take the least crossing leader with :meth:`place_fallback`.
        """
        placed = self._place(index, gap, size, ink, step, crossing=crossing, leader=leader)
        if placed is not None:
            self.placed[index] = (placed, size, ink)
        return placed

    def _place(
        self,
        index: int,
        gap: float,
        size: tuple[int, int],
        ink: tuple[int, int, int, int],
        step: float,
        *,
        crossing: bool = True,
        leader: bool = True,
    ) -> Placement | None:
        ix0, iy0, ix1, iy1 = ink
        centre = (int(self.xs[index]), int(self.ys[index]))
        w, h = size
        gap += self.marker_pad
        best: tuple[float, int, int] | None = None
        for ring in range(_RINGS):
            distance = gap + ring * step
            for rank, (dx, dy) in enumerate(_DIRECTIONS):
                for slid, x, y in self._spots(centre, distance, w, h, dx, dy):
                    if not self._free(x, y, w, h, ink) or not self._clear(index, (x + ix0, y + iy0, x + ix1, y + iy1)):
                        continue
                    cost = self._cost(x, y, w, h) + 0.2 * ring + 0.01 * rank + 0.05 * slid
                    if best is None or cost < best[0]:
                        best = (cost, x, y)
            if best is not None and best[0] <= 0.2 * ring + 0.1:
                break
        if best is not None:
            self._take(best[1], best[2], w, h, ink)
            return Placement((best[1], best[2]))
        if not leader:
            return None
        return self._with_leader(index, centre, gap, size, ink, crossing=crossing)

    def place_fallback(self, pending: tuple | None = None) -> Placement | None:
        """The least crossing leader found by the last ``place(..., crossing=False)`` that placed nothing
        (or the one ``pending`` held, taken from :attr:`pending` before other tries).

        Valid while nothing else was placed since (a failed ``place`` places nothing); ``None`` when there
        is none.
        """
        pending, self._pending = (self._pending if pending is None else pending), None
        if pending is None:
            return None
        index, found = pending
        placed = self._leader_to(*found)
        self.placed[index] = (placed, found[4], found[2])
        return placed

    @property
    def pending(self) -> tuple | None:
        """The least crossing leader the last failed ``place(..., crossing=False)`` found (see
        :meth:`place_fallback`)."""
        return self._pending

    def remove(self, indices) -> None:
        """Take the labels (and leaders) of markers ``indices`` off the canvas."""
        for index in indices:
            self.placed.pop(index, None)
        self._version += 1
        self.labels[:], self.inks[:], self.leaders[:] = False, False, False
        boxes, self._boxes = self._boxes, []
        for box in boxes:
            self.block(box)
        for placement, (w, h), ink in self.placed.values():
            self._take(*placement.corner, w, h, ink)
            if placement.leader:
                self._mark_leader(placement.leader)

    def restore(self, placed: dict) -> None:
        """Put back the labels of an earlier copy of :attr:`placed` (after :meth:`remove` and other tries)."""
        self.placed = {}
        self.remove(())
        for index, record in placed.items():
            self.placed[index] = record
            placement, (w, h), ink = record
            self._take(*placement.corner, w, h, ink)
            if placement.leader:
                self._mark_leader(placement.leader)

    def crossings(self, index: int) -> tuple[list[int], int]:
        """What the drawn leader of marker ``index`` crosses: the other stations' labels (their text) it
        meets, and the number of badges, kept boxes and other lines' strokes it meets; ``([], 0)`` without one."""
        import numpy
        import shapely

        placement = self.placed[index][0]
        if not placement.leader:
            return [], 0
        leader = shapely.LineString(placement.leader)
        met = []
        for other, (placed, _, (ix0, iy0, ix1, iy1)) in self.placed.items():
            x, y = placed.corner
            text = shapely.box(
                x + ix0 + 0.5, y + iy0 + 0.5, max(x + ix0, x + ix1 - 1) + 0.5, max(y + iy0, y + iy1 - 1) + 0.5
            )
            if other != index and text.intersects(leader):
                met.append(other)
        others = sum(shapely.box(x0, y0, x1, y1).intersects(leader) for x0, y0, x1, y1 in self._boxes)
        (sx, sy), (ex, ey) = placement.leader
        lines = self._foreign_lines(index, *(numpy.array([v]) for v in (sx, sy, ex, ey)))
        return sorted(met), int(others + lines[0])

    def neighbours(self, index: int, count: int) -> list[int]:
        """The ``count`` placed labels (other than its own) whose text lies nearest marker ``index``."""
        import numpy

        others = [other for other in self.placed if other != index]
        distances = [
            float(
                _box_distances(
                    self.xs[index : index + 1], self.ys[index : index + 1], (x + ix0, y + iy0, x + ix1, y + iy1)
                )[0]
            )
            for other in others
            for (x, y), (ix0, iy0, ix1, iy1) in [(self.placed[other][0].corner, self.placed[other][2])]
        ]
        return [others[k] for k in numpy.lexsort((others, distances))[:count]]

    def place_box(
        self, centre: tuple[int, int], gap: float, size: tuple[int, int], step: float
    ) -> tuple[int, int] | None:
        """The top-left corner of a ``size`` box (a badge) beside ``centre``, off every stroke, or ``None``."""
        w, h = size
        gap += self.marker_pad
        for ring in range(2 * _RINGS):
            distance = gap + ring * step
            for dx, dy in _DIRECTIONS:
                for _, x, y in self._spots(centre, distance, w, h, dx, dy):
                    if self._free(x, y, w, h):
                        self.block((x, y, x + w, y + h))
                        return x, y
        found = self._nearest_free(centre, size, None)
        if found is not None:
            self.block((found[0], found[1], found[0] + w, found[1] + h))
        return found

    def _nearest_free(self, centre, size, ink):
        """The free spot nearest ``centre`` over the whole canvas, on a grid of half the box height."""
        import numpy

        w, h = size
        stride = max(2, h // 2)
        grid_y, grid_x = numpy.meshgrid(
            numpy.arange(0, self.height - h + 1, stride), numpy.arange(0, self.width - w + 1, stride), indexing="ij"
        )
        grid_x, grid_y = grid_x.ravel(), grid_y.ravel()
        squared = (grid_x + w / 2 - centre[0]) ** 2 + (grid_y + h / 2 - centre[1]) ** 2
        for index in numpy.lexsort((grid_x, grid_y, squared)):
            x, y = int(grid_x[index]), int(grid_y[index])
            if self._free(x, y, w, h, ink):
                return x, y
        return None

    def _free_spots(self, centre: tuple[int, int], reach: int | None, size: tuple[int, int], ink):
        """Every free top-left corner (as :meth:`_free` decides) within ``reach`` of ``centre`` (the whole canvas
        when ``None``), on a grid of half the box height, and each one's :meth:`_cost`: box sums over summed-area
        tables of the window, so a window of any size costs a few array passes."""
        import numpy

        w, h = size
        ix0, iy0, ix1, iy1 = ink
        stride = max(2, h // 2)
        left = 0 if reach is None else max(0, centre[0] - reach)
        top = 0 if reach is None else max(0, centre[1] - reach)
        right = self.width - w if reach is None else min(self.width - w, centre[0] + reach)
        bottom = self.height - h if reach is None else min(self.height - h, centre[1] + reach)
        empty = numpy.zeros(0, dtype=numpy.int64)
        if right < left or bottom < top:
            return empty, empty, numpy.zeros(0)
        grid_y, grid_x = numpy.meshgrid(
            numpy.arange(top, bottom + 1, stride), numpy.arange(left, right + 1, stride), indexing="ij"
        )
        xs, ys = grid_x.ravel(), grid_y.ravel()
        px, py = self.pad_x, self.pad_y
        if reach is None:  # the whole canvas: its tables are kept until the canvas changes
            rx0, ry0, rx1, ry1 = 0, 0, self.width, self.height
        else:
            rx0, ry0 = max(0, left - px), max(0, top - py)
            rx1, ry1 = min(self.width, right + w + px), min(self.height, bottom + h + py)

        def count(sums, x0, y0, x1, y1):  # pixels set in [y0:y1, x0:x1], clipped as slicing clips
            x0, x1 = numpy.clip(x0, rx0, rx1) - rx0, numpy.clip(x1, rx0, rx1) - rx0
            y0, y1 = numpy.clip(y0, ry0, ry1) - ry0, numpy.clip(y1, ry0, ry1) - ry0
            return sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]

        if reach is None:
            if self._tables is None or self._tables[0] != self._version:
                self._tables = (self._version, _table(self.markers | self.leaders), _table(self.labels))
            if self._stroke_table is None:
                self._stroke_table = _table(self.strokes)
            (_, hard, labels), strokes = self._tables, self._stroke_table
        else:
            window = (slice(ry0, ry1), slice(rx0, rx1))
            hard = _table(self.markers[window] | self.leaders[window])
            strokes = _table(self.strokes[window])
            labels = _table(self.labels[window])
        free = count(hard, xs, ys, xs + w, ys + h) == 0
        free &= count(strokes, xs + ix0 - 1, ys + iy0 - 1, xs + ix1 + 1, ys + iy1 + 1) == 0
        free &= count(labels, xs - px, ys - py, xs + w + px, ys + h + py) == 0
        xs, ys = xs[free], ys[free]
        crossed = count(strokes, xs, ys - py, xs + w, ys + h + py)
        return xs, ys, numpy.where(crossed > 0, 0.3, 0.0) + crossed / (w * h)

    @staticmethod
    def _nearest_ends(centre: tuple[int, int], x0, y0, x1, y1):
        """The point of each box ``(x0, y0, x1, y1)`` (arrays) nearest ``centre``, as :meth:`_leader` takes it."""
        import numpy

        return numpy.clip(centre[0], x0, x1).astype(float), numpy.clip(centre[1], y0, y1).astype(float)

    @staticmethod
    def _starts(centre: tuple[int, int], radius: float, ex, ey):
        """Where leaders to ``(ex, ey)`` leave the marker's rim, as :meth:`_leader` computes them."""
        import numpy

        length = numpy.hypot(ex - centre[0], ey - centre[1])
        length = numpy.where(length > 0, length, 1.0)
        sx = centre[0] + (ex - centre[0]) * radius / length
        sy = centre[1] + (ey - centre[1]) * radius / length
        return numpy.round(sx, 2), numpy.round(sy, 2)

    def _sampled(self, mask, sx, sy, ex, ey, per_px: float):
        """For each leader ``(sx, sy)``–``(ex, ey)``: how many of its points, sampled ``per_px`` to a pixel (at
        least 3), fall on ``mask``, and how many were sampled."""
        import numpy

        lengths = numpy.hypot(ex - sx, ey - sy)
        steps = numpy.maximum(2, (per_px * lengths).astype(numpy.int64))
        counts = steps + 1
        which = numpy.repeat(numpy.arange(len(sx)), counts)
        k = numpy.arange(int(counts.sum())) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
        x = numpy.rint(sx[which] + (ex - sx)[which] * k / steps[which]).astype(numpy.int64)
        y = numpy.rint(sy[which] + (ey - sy)[which] * k / steps[which]).astype(numpy.int64)
        inside = (x >= 0) & (x < self.width) & (y >= 0) & (y < self.height)
        hits = numpy.zeros(len(x), dtype=bool)
        hits[inside] = mask[y[inside], x[inside]]
        return numpy.bincount(which[hits], minlength=len(sx)), counts

    def _conflicts(self, index: int, sx, sy, ex, ey, *, mask=None):
        """For each leader of marker ``index``: 1 when it runs over a label (its sampled points on the label
        mask, halos included, or on ``mask``), plus the other lines whose strokes it crosses."""
        import numpy

        hits, _ = self._sampled(self.labels if mask is None else mask, sx, sy, ex, ey, 2.0)
        return (hits > 0).astype(numpy.int64) + self._foreign_lines(index, sx, sy, ex, ey)

    def _foreign_lines(self, index: int, sx, sy, ex, ey):
        """For each leader of marker ``index``, how many lines not serving the station it crosses."""
        import numpy
        import shapely

        if self.segments is None or not len(sx):
            return numpy.zeros(len(sx), dtype=numpy.int64)
        leaders = shapely.linestrings(numpy.stack([numpy.stack([sx, sy], 1), numpy.stack([ex, ey], 1)], 1))
        which, part = self.segments.query(leaders, predicate="intersects")
        line = self.segment_lines[part]
        foreign = ~numpy.isin(line, self.own_lines[index])
        pairs = numpy.unique(which[foreign] * len(self.line_names) + line[foreign])
        return numpy.bincount(pairs // len(self.line_names), minlength=len(sx))

    def _with_leader(
        self,
        station: int,
        centre: tuple[int, int],
        gap: float,
        size: tuple[int, int],
        ink: tuple[int, int, int, int],
        *,
        crossing: bool = True,
    ) -> Placement | None:
        """The cheapest free spot in widening windows (then the whole canvas) joined by a leader that crosses
        no label and no stroke of another station's line; else the cheapest spots again, the leader ending at
        other points of the label's facing edges (other angles); else one only through a label's halo; else
        (``crossing``) the least crossing of those.

        A spot costs its distance (in label heights) and the strokes under it and under its leader. Every
        free spot of a window is costed at once and the cheapest :data:`_TRIES` have their leaders checked at
        once, so a clean leader a little farther off, in any direction, is found where the nearest cross."""
        import numpy

        w, h = size
        ix0, iy0, ix1, iy1 = ink
        rim = gap - self.marker_pad
        xs = ys = numpy.zeros(0, dtype=numpy.int64)
        for reach in (4 * (w + h), None):
            xs, ys, crossed = self._free_spots(centre, reach, size, ink)
            if not len(xs):
                continue
            cost = numpy.hypot(xs + w / 2 - centre[0], ys + h / 2 - centre[1]) / h + 4 * crossed
            nearest = numpy.lexsort((xs, ys, cost))[: 2 * _TRIES]  # the leader's strokes only add to the cost
            xs, ys, cost = xs[nearest], ys[nearest], cost[nearest]
            ex, ey = self._nearest_ends(centre, xs + ix0, ys + iy0, xs + ix1, ys + iy1)
            sx, sy = self._starts(centre, rim, ex, ey)
            on_strokes, counts = self._sampled(self.strokes, sx, sy, ex, ey, 0.5)
            order = numpy.lexsort((xs, ys, cost + 4 * on_strokes / counts))[:_TRIES]
            xs, ys = xs[order], ys[order]
            clean = numpy.flatnonzero(self._conflicts(station, sx[order], sy[order], ex[order], ey[order]) == 0)
            if len(clean):
                return self._leader_to(centre, gap, ink, (int(xs[clean[0]]), int(ys[clean[0]])), size)
        if not len(xs):
            return None
        spots: list[tuple[int, int, tuple[float, float]]] = []
        for x, y in zip(xs[:_OTHER_ENDS].tolist(), ys[:_OTHER_ENDS].tolist()):
            box = (x + ix0, y + iy0, x + ix1, y + iy1)
            near = (float(min(max(centre[0], box[0]), box[2])), float(min(max(centre[1], box[1]), box[3])))
            spots += [(x, y, end) for end in dict.fromkeys((near, *self._ends(centre, box)))]
        ex = numpy.array([end[0] for _, _, end in spots])
        ey = numpy.array([end[1] for _, _, end in spots])
        sx, sy = self._starts(centre, rim, ex, ey)
        conflicts = None
        for mask in (self.labels, self.inks):
            conflicts = self._conflicts(station, sx, sy, ex, ey, mask=mask)
            clean = numpy.flatnonzero(conflicts == 0)
            if len(clean):
                x, y, end = spots[clean[0]]
                return self._leader_to(centre, gap, ink, (x, y), size, end)
        x, y, end = spots[int(numpy.argmin(conflicts))]  # the least crossing (text and lines), the cheapest first
        if crossing:
            return self._leader_to(centre, gap, ink, (x, y), size, end)
        self._pending = (station, (centre, gap, ink, (x, y), size, end))
        return None

    @staticmethod
    def _ends(centre: tuple[int, int], box: tuple[int, int, int, int]) -> list[tuple[float, float]]:
        """Other points a leader may end at: along the label's edges that face the marker, nearest first."""
        x0, y0, x1, y1 = box
        points = []
        for share in (0.25, 0.5, 0.75, 1.0, 0.0):
            if centre[1] >= y1 or centre[1] <= y0:  # below or above: the facing horizontal edge
                points.append((x0 + (x1 - x0) * share, float(y1 if centre[1] >= y1 else y0)))
            if centre[0] >= x1 or centre[0] <= x0:  # beside: the facing vertical edge
                points.append((float(x1 if centre[0] >= x1 else x0), y0 + (y1 - y0) * share))
        return sorted(set(points), key=lambda p: (math.hypot(p[0] - centre[0], p[1] - centre[1]), p))

    def _leader_to(self, centre, gap, ink, corner, size, end=None) -> Placement:
        (x, y), (w, h) = corner, size
        ix0, iy0, ix1, iy1 = ink
        self._take(x, y, w, h, ink)
        leader = self._leader(centre, gap - self.marker_pad, (x + ix0, y + iy0, x + ix1, y + iy1), end)
        self._mark_leader(leader)
        return Placement((x, y), leader)

    def _mark_leader(self, leader: tuple[tuple[float, float], ...]) -> None:
        """Later labels keep off the drawn leader."""
        import numpy

        self._version += 1
        (x0, y0), (x1, y1) = leader
        steps = max(2, int(math.hypot(x1 - x0, y1 - y0)))
        pad = self.leader_px + 1
        for t in numpy.linspace(0.0, 1.0, steps + 1):
            px, py = round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)
            self.leaders[max(0, py - pad) : py + pad + 1, max(0, px - pad) : px + pad + 1] = True

    @staticmethod
    def _leader(
        centre: tuple[int, int],
        radius: float,
        box: tuple[int, int, int, int],
        end: tuple[float, float] | None = None,
    ) -> tuple[tuple[float, float], ...]:
        """From the marker's rim to ``end``, by default the nearest point of the label's box."""
        x0, y0, x1, y1 = box
        if end is None:
            end = (min(max(centre[0], x0), x1), min(max(centre[1], y0), y1))
        length = math.hypot(end[0] - centre[0], end[1] - centre[1]) or 1.0
        start = (centre[0] + (end[0] - centre[0]) * radius / length, centre[1] + (end[1] - centre[1]) * radius / length)
        return (round(start[0], 2), round(start[1], 2)), (float(end[0]), float(end[1]))
