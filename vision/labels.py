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
rules, :meth:`LabelPlacer.find` offers the least crossing leader, marked ``crossing``, and
takes nothing: the caller may try the label smaller first (:mod:`vision.label_drawing` declares the
ladder of tries) and :meth:`LabelPlacer.take` the candidate it settles on. :meth:`LabelPlacer.place_box`
puts other boxes (line badges) beside a point under the same rules, and :meth:`LabelPlacer.block`
keeps a region (the legend) free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision.leader_search import LeaderSearch

__all__ = ["Candidate", "Placement", "LabelPlacer"]

# label directions around a marker, most readable first: east, west, the diagonals, north, south
_DIRECTIONS = ((1, 0), (-1, 0), (1, -1), (1, 1), (-1, -1), (-1, 1), (0, -1), (0, 1))
_RINGS = 6
# a label this many of its text heights beyond its marker's rim is joined to it by a leader (where a clean one
# can be drawn): that far off, a reader cannot tell which marker it names
_FAR_HEIGHTS = 3.0


@dataclass(frozen=True, slots=True)
class Placement:
    """A label's top-left ``corner``, and the ``leader`` polyline from marker to label (empty when beside it)."""

    corner: tuple[int, int]
    leader: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Candidate:
    """Where :meth:`LabelPlacer.find` would put a ``size`` label (its text box ``ink`` inside it): its top-left
    ``corner``, the ``leader`` from its marker (empty beside it), and whether that leader ``crossing`` runs over
    another label, another station's marker or another line. Nothing is taken until :meth:`LabelPlacer.take`."""

    corner: tuple[int, int]
    size: tuple[int, int]
    ink: tuple[int, int, int, int]
    leader: tuple[tuple[float, float], ...] = ()
    crossing: bool = False


def _box_distances(xs, ys, box: tuple[int, int, int, int]):
    import numpy

    x0, y0, x1, y1 = box
    return numpy.hypot(
        numpy.maximum(numpy.maximum(x0 - xs, 0), xs - x1), numpy.maximum(numpy.maximum(y0 - ys, 0), ys - y1)
    )


class LabelPlacer(LeaderSearch):
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
        drawn = {name: path for name, path in (lines or {}).items() if path}
        self.line_names = list(drawn)
        self.line_shapes = numpy.array(
            [
                (LineString(path) if len(path) > 1 else Point(path[0])).buffer(line_width / 2 + 1.5)
                for path in drawn.values()
            ],
            dtype=object,
        )
        shapely.prepare(self.line_shapes)
        self.pad_x, self.pad_y = max(2, round(2.0 * font_px)), max(1, round(0.3 * font_px))
        self.marker_pad = max(2, round(0.3 * font_px))
        # a label must be this much nearer its own marker than any other (pixels), so the reading is not a tie
        self.margin = max(2.0, 0.25 * font_px)
        self.labels = numpy.zeros((height, width), dtype=bool)
        self.inks = numpy.zeros((height, width), dtype=bool)  # the text itself (a label without its halo)
        self.markers = numpy.zeros((height, width), dtype=bool)
        self.xs = numpy.array([float(x) for x, _, _ in markers])
        self.ys = numpy.array([float(y) for _, y, _ in markers])
        self.radii = numpy.array([float(radius) for _, _, radius in markers])
        self.reach = self.radii + self.leader_px + 1  # a leader nearer a marker's centre than this touches it
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
        self.labels[max(0, y0) : y1, max(0, x0) : x1] = True
        self.inks[max(0, y0) : y1, max(0, x0) : x1] = True

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
        leader: bool = True,
    ) -> Placement | None:
        """:meth:`find` the label's spot, crossing leaders allowed, and :meth:`take` it; ``None`` when the canvas
        has no room."""
        found = self.find(index, gap, size, ink, step, leader=leader)
        return None if found is None else self.take(found)

    def find(
        self,
        index: int,
        gap: float,
        size: tuple[int, int],
        ink: tuple[int, int, int, int],
        step: float,
        *,
        leader: bool = True,
    ) -> Candidate | None:
        """The best spot for the ``size`` label of marker ``index``, taking nothing.

        Ranked: beside its marker; else (``leader``) the nearest free spot joined by a leader that crosses
        nothing (:class:`vision.leader_search.LeaderSearch`); else the least crossing leader. A find takes
        nothing, so asked again before anything is taken, it gives the same answer.

        Parameters
        ----------
        index : int
            The marker, in the order the placer was given them.
        gap : float
            The marker's radius plus a pixel.
        size : (int, int)
            The label's width and height, halo included.
        ink : (int, int, int, int)
            The text's box inside the label: the text, not the halo, must be nearest its own marker.
        step : float
            How far apart the rings of spots around the marker lie.
        leader : bool
            ``False``: only a spot beside the marker will do. ``True``: also a spot away from it with a
            leader; and a spot found beside it but more than three text heights from its rim is joined to
            it by a leader where one crosses nothing.

        Returns
        -------
        Candidate or None
            ``crossing`` set when only a leader over another label, marker or line reaches it; ``None``
            when the canvas has no room.
        """
        centre = (int(self.xs[index]), int(self.ys[index]))
        beside = self._beside(index, centre, gap + self.marker_pad, size, ink, step)
        if beside is not None:
            ix0, iy0, ix1, iy1 = ink
            x, y = beside
            box = (x + ix0, y + iy0, x + ix1, y + iy1)
            if leader and self._far(centre, gap - 1, box):
                joined = self._leader(centre, gap, box)
                if not self._leader_conflicts(index, joined):
                    return Candidate(beside, size, ink, joined)
            return Candidate(beside, size, ink)
        if not leader:
            return None
        found = self._with_leader(index, centre, gap + self.marker_pad, size, ink)
        if found is None:
            return None
        corner, end, crossing = found
        ix0, iy0, ix1, iy1 = ink
        box = (corner[0] + ix0, corner[1] + iy0, corner[0] + ix1, corner[1] + iy1)
        return Candidate(corner, size, ink, self._leader(centre, gap, box, end), crossing)

    def _beside(self, index, centre, gap, size, ink, step) -> tuple[int, int] | None:
        """The cheapest free spot beside the marker whose text lies nearer it than any other marker, looked for
        in rings ``gap + k * step`` from its centre (clear space included) until one is cheap enough for its
        ring; ``None`` when no ring has one."""
        ix0, iy0, ix1, iy1 = ink
        w, h = size
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
        return None if best is None else (best[1], best[2])

    def take(self, candidate: Candidate) -> Placement:
        """Put the label where ``candidate`` (from :meth:`find` on this placer, nothing taken since) says:
        later labels keep off its box and its leader.

        Returns
        -------
        Placement
            The label's top-left corner and its leader (empty beside its marker).
        """
        import numpy

        (x, y), (w, h) = candidate.corner, candidate.size
        self._take(x, y, w, h, candidate.ink)
        if candidate.leader:
            (x0, y0), (x1, y1) = candidate.leader
            steps = max(2, int(math.hypot(x1 - x0, y1 - y0)))
            pad = self.leader_px + 1
            for t in numpy.linspace(0.0, 1.0, steps + 1):
                px, py = round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)
                self.leaders[max(0, py - pad) : py + pad + 1, max(0, px - pad) : px + pad + 1] = True
        return Placement(candidate.corner, candidate.leader)

    @staticmethod
    def _far(centre: tuple[int, int], radius: float, box: tuple[int, int, int, int]) -> bool:
        """The text ``box`` lies more than :data:`_FAR_HEIGHTS` of its height beyond the marker's rim."""
        return float(_box_distances(centre[0], centre[1], box)) - radius > _FAR_HEIGHTS * (box[3] - box[1])

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
                        self._take(x, y, w, h)
                        return x, y
        found = self._nearest_free(centre, size, None)
        if found is not None:
            self._take(*found, w, h)
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

    def _leader_conflicts(self, index: int, leader: tuple[tuple[float, float], ...]) -> int:
        """Labels the leader runs over, other stations' markers it touches and other lines it crosses
        (:meth:`LeaderSearch._conflicts <vision.leader_search.LeaderSearch._conflicts>` of one leader)."""
        return int(self._conflicts(index, [leader])[0])

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
