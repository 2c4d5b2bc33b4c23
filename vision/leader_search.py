"""The leader search of :class:`vision.labels.LabelPlacer`: many spots and leaders weighed at once.

A label that finds no spot beside its marker goes to the nearest free spot of a lattice around it, joined by a
leader. A crowded marker's search weighs thousands of spots: whether each is free (no marker, leader or stroke
under it, no other label in its clear space) and, for those that are, what a leader to it would cross. Asked
one spot at a time, that is a numpy call per spot and rectangle. Here the lattice is taken in widening rounds
(nearest first), a summed-area table of each mask over a round's region answers every rectangle with four
lookups, and the leaders of a batch of free spots are sampled, measured against the markers and tested
against the lines' shapes in one pass each. Every answer is exactly the one-at-a-time answer: the same
rectangles (numpy's slice clipping included), the same sample points (the same floating-point operations per
point), the same distances, the spots in the same order; so the placements are the same.
"""

from __future__ import annotations

import math

__all__ = ["LeaderSearch", "rect_counts", "sample_points", "markers_near"]

# free spots whose leader is checked per search window: a bound on the time a crowded station costs
_TRIES = 300
# spots (the cheapest first) whose leader is tried at other angles when every nearest-point leader crosses
_OTHER_ENDS = 20
# clean spots compared per window before the cheapest is taken
_LOOKED = 40
# spots weighed per batch: the first batches small (the search often stops early), later ones larger
_BATCHES = (16, 32, 64, 128)


def rect_counts(masks, rects) -> list:
    """Set pixels of the union of ``masks`` (2-D bool arrays of one shape) in each of many rectangles.

    ``rects`` is a list of ``(y0, y1, x0, x1)`` int arrays, one rectangle ``mask[y0:y1, x0:x1]`` per element,
    clipped as a numpy slice of the canvas clips it: a bound past the canvas stops at its edge, and an upper
    bound below the lower one is an empty rectangle (bounds are never negative here: callers clip lower ones
    at 0, as their slices do). Returns one int array of counts per rectangle array.

    The counts come from a summed-area table (OpenCV's integral image, exact integers) of the region the
    rectangles cover: four lookups per rectangle.

    Examples
    --------
    >>> import numpy
    >>> mask = numpy.zeros((4, 5), dtype=bool)
    >>> mask[1, 1] = mask[3, 4] = True
    >>> rects = [(numpy.array([0, 0, 2]), numpy.array([9, 2, 1]), numpy.array([0, 2, 0]), numpy.array([9, 5, 5]))]
    >>> [counts.tolist() for counts in rect_counts([mask], rects)]
    [[2, 0, 0]]
    """
    import cv2
    import numpy

    height, width = masks[0].shape
    clipped = []
    for y0, y1, x0, x1 in rects:
        y0, x0 = numpy.minimum(y0, height), numpy.minimum(x0, width)
        clipped.append(
            (y0, numpy.maximum(numpy.minimum(y1, height), y0), x0, numpy.maximum(numpy.minimum(x1, width), x0))
        )
    top = min(int(y0.min(initial=height)) for y0, _, _, _ in clipped)
    bottom = max(int(y1.max(initial=0)) for _, y1, _, _ in clipped)
    left = min(int(x0.min(initial=width)) for _, _, x0, _ in clipped)
    right = max(int(x1.max(initial=0)) for _, _, _, x1 in clipped)
    if bottom <= top or right <= left:  # every rectangle is empty
        return [numpy.zeros(len(y0), dtype=numpy.int64) for y0, _, _, _ in clipped]
    region = masks[0][top:bottom, left:right]
    for other in masks[1:]:
        region = region | other[top:bottom, left:right]
    # table[r, c]: the set pixels of region[:r, :c]
    table = cv2.integral(region.view(numpy.uint8), sdepth=cv2.CV_32S)
    counts = []
    for y0, y1, x0, x1 in clipped:
        r0, r1, c0, c1 = y0 - top, y1 - top, x0 - left, x1 - left
        counts.append((table[r1, c1] - table[r0, c1] - table[r1, c0] + table[r0, c0]).astype(numpy.int64))
    return counts


def sample_points(starts, ends, steps, width: int, height: int):
    """The pixels at ``k / steps`` of the way along each segment, ``k = 0 … steps``, that lie on the canvas.

    ``starts`` and ``ends`` are ``(n, 2)`` float arrays, ``steps`` ``n`` ints. Each point is
    ``x0 + (x1 - x0) * k / steps`` rounded half to even, the arithmetic of one segment at a time, so a
    segment's pixels are those a loop over ``k`` visits. Returns columns, rows and the segment of each.

    Examples
    --------
    >>> import numpy
    >>> xs, ys, which = sample_points(numpy.array([[0.0, 0.0], [9.0, 1.0]]), numpy.array([[4.0, 2.0], [11.0, 1.0]]),
    ...                               numpy.array([2, 2]), 10, 10)
    >>> xs.tolist(), ys.tolist(), which.tolist()
    ([0, 2, 4, 9], [0, 1, 2, 1], [0, 0, 0, 1])
    """
    import numpy

    steps = numpy.asarray(steps, dtype=numpy.int64)
    counts = steps + 1
    which = numpy.repeat(numpy.arange(len(steps)), counts)
    k = numpy.arange(int(counts.sum())) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    per = steps.astype(numpy.float64)[which]  # (exact: steps are small integers)
    # per segment first (the same differences), then per point: x0 + (x1 - x0) * k / steps
    x0, y0 = starts[:, 0], starts[:, 1]
    xs = numpy.rint(x0[which] + (ends[:, 0] - x0)[which] * k / per).astype(numpy.int64)
    ys = numpy.rint(y0[which] + (ends[:, 1] - y0)[which] * k / per).astype(numpy.int64)
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    return xs[inside], ys[inside], which[inside]


def markers_near(starts, ends, xs, ys, reach):
    """For each segment, which markers (centres ``xs``, ``ys``) lie nearer to it than their ``reach``.

    Returns an ``(n segments, n markers)`` bool array: the distance from a marker's centre to the nearest
    point of the segment (projected and clipped to it) is below the marker's reach.

    Examples
    --------
    >>> import numpy
    >>> near = markers_near(numpy.array([[0.0, 0.0]]), numpy.array([[10.0, 0.0]]),
    ...                     numpy.array([5.0, 5.0, 14.0]), numpy.array([1.0, 4.0, 0.0]), numpy.array([2.0, 2.0, 5.0]))
    >>> near.tolist()
    [[True, False, True]]
    """
    import numpy

    x0, y0 = starts[:, :1], starts[:, 1:]
    dx, dy = ends[:, :1] - x0, ends[:, 1:] - y0
    length = dx * dx + dy * dy
    length[length == 0] = 1.0
    along = numpy.clip(((xs - x0) * dx + (ys - y0) * dy) / length, 0.0, 1.0)
    return numpy.hypot(x0 + along * dx - xs, y0 + along * dy - ys) < reach


class LeaderSearch:
    """The leader search, mixed into :class:`vision.labels.LabelPlacer` (whose masks, markers, lines and
    clear spaces it reads, and whose ``_leader`` and ``_ends`` it calls)."""

    __slots__ = ()

    def _with_leader(
        self,
        station: int,
        centre: tuple[int, int],
        gap: float,
        size: tuple[int, int],
        ink: tuple[int, int, int, int],
    ) -> tuple[tuple[int, int], tuple[float, float] | None, bool] | None:
        """The free spot nearest the marker (widening windows, then the whole canvas) for a label joined by a
        leader line that crosses no label and no stroke of another station's line, else the least crossing
        one: ``(corner, leader end, crossing)``, the end ``None`` for the nearest point of the label; ``None``
        when no spot is free."""
        relaxed: tuple[int, float, int, int] | None = None
        crossed: list[tuple[float, int, int]] = []  # spots only a crossing leader reached: (cost, x, y)
        for radius in (4 * (size[0] + size[1]), 12 * (size[0] + size[1]), None):
            best: tuple[float, int, int] | None = None
            for cost, crossings, x, y in self._window(station, centre, gap, size, ink, radius):
                if crossings:
                    crossed.append((cost, x, y))
                    if relaxed is None or (crossings, cost) < relaxed[:2]:
                        relaxed = (crossings, cost, x, y)
                elif best is None or cost < best[0]:
                    best = (cost, x, y)
            if best is not None:
                return (best[1], best[2]), None, False
        # the leader to the nearest point of the label crosses: another point of its edge may not (another angle);
        # else one that only grazes a label's halo, crossing no text and no other line
        found = self._other_ends(station, centre, gap, ink, sorted(set(crossed))[:_OTHER_ENDS])
        if found is not None:
            return found[0], found[1], False
        return None if relaxed is None else ((relaxed[2], relaxed[3]), None, True)

    def _window(self, station, centre, gap, size, ink, radius) -> list[tuple[float, int, int, int]]:
        """The spots of one search window whose leader was weighed, nearest first: ``(cost, crossings, x, y)``.

        Free spots are weighed nearest first (ties top-left first) until :data:`_TRIES` were, or
        :data:`_LOOKED` had a clean leader, or the next lies more than three times the best cost (in label
        heights) away.
        """
        w, h = size
        left = 0 if radius is None else max(0, centre[0] - radius)
        top = 0 if radius is None else max(0, centre[1] - radius)
        right = self.width - w if radius is None else min(self.width - w, centre[0] + radius)
        bottom = self.height - h if radius is None else min(self.height - h, centre[1] + radius)
        weighed: list[tuple[float, int, int, int]] = []
        best: float | None = None
        looked = 0

        def wants() -> tuple[float, float | None]:
            """How many more free spots the search may weigh, at most, and how far they may lie."""
            clean = max(looked / len(weighed), 0.05) if weighed else 1.0
            more = min(_TRIES - len(weighed), (_LOOKED - looked) / clean)
            return more, (None if best is None else 3 * best * h)

        batches = iter(_BATCHES)
        batch = next(batches)
        for xs, ys, squared, under in self._free_spots(centre, size, ink, (left, top, right, bottom), wants):
            start = 0
            while start < len(xs):
                if len(weighed) >= _TRIES or (best is not None and looked >= _LOOKED):
                    return weighed
                end = start + min(batch, _TRIES - len(weighed))
                chunk = slice(start, end)
                for distance, cost, crossings, x, y in self._scores(
                    station, centre, gap, size, ink, xs[chunk], ys[chunk], squared[chunk], under[chunk]
                ):
                    if best is not None and (looked >= _LOOKED or math.sqrt(distance) > 3 * best * h):
                        return weighed
                    weighed.append((cost, crossings, x, y))
                    if not crossings:
                        looked += 1  # only spots whose leader is clean count towards the 40 compared
                        if best is None or cost < best:
                            best = cost
                start = end
                batch = next(batches, batch)
        return weighed

    def _free_spots(self, centre, size, ink, window, wants):
        """The free spots of the lattice over ``window`` (corners ``left, top, right, bottom``, a stride of half
        the label's height from its top-left), nearest the marker first: per round of widening reach, arrays
        of columns, rows, squared distances (label centre to marker) and stroke pixels under the label.

        ``wants()`` says, between rounds, how many more free spots the search may still weigh and how far
        from the marker they may lie (``None``: no bound yet): the next round reaches that far, no farther.
        """
        import numpy

        w, h = size
        left, top, right, bottom = window
        stride = max(2, h // 2)
        columns, rows = numpy.arange(left, right + 1, stride), numpy.arange(top, bottom + 1, stride)
        off_x, off_y = numpy.abs(columns + w / 2 - centre[0]), numpy.abs(rows + h / 2 - centre[1])
        reach, done, previous = float(w + h), -1.0, -1.0
        spots = found = 0
        while True:
            # every spot within ``reach`` lies in this square (a pixel to spare for rounding)
            pick_x, pick_y = off_x <= reach + 1, off_y <= reach + 1
            whole = bool(pick_x.all() and pick_y.all())
            grid_y, grid_x = numpy.meshgrid(rows[pick_y], columns[pick_x], indexing="ij")
            grid_x, grid_y = grid_x.ravel(), grid_y.ravel()
            squared = (grid_x + w / 2 - centre[0]) ** 2 + (grid_y + h / 2 - centre[1]) ** 2
            keep = squared > done if whole else (squared > done) & (squared <= reach * reach)
            grid_x, grid_y, squared = grid_x[keep], grid_y[keep], squared[keep]
            free, under = self._free_ring(grid_x, grid_y, size, ink, centre, previous)
            spots, found = spots + len(free), found + int(free.sum())
            grid_x, grid_y, squared, under = grid_x[free], grid_y[free], squared[free], under[free]
            order = numpy.lexsort((grid_x, grid_y, squared))
            yield grid_x[order], grid_y[order], squared[order], under[order]
            if whole:
                return
            more, farthest = wants()
            # wide enough for that many more free spots at the share of free spots seen so far
            wanted = math.sqrt((found + more) / max(found / max(spots, 1), 0.02) / math.pi) * stride
            following = min(2 * reach, max(1.4 * reach, wanted))
            if farthest is not None:  # a spot farther than this is never weighed: a pixel to spare for rounding
                following = min(following, farthest + 1)
            if following <= reach:
                return
            done, previous, reach = reach * reach, reach, following

    def _free_ring(self, xs, ys, size, ink, centre, inner: float):
        """:meth:`_free_many` of a round's spots, which lie beyond the last round's square of half-side
        ``inner`` (``< 0``: the first round): asked in four bands around that square (above, below, left,
        right), so that the masks are summed over the ring, not again over the square inside it."""
        import numpy

        w, h = size
        if inner < 0 or not len(xs):
            return self._free_many(xs, ys, size, ink)
        across, down = xs + w / 2 - centre[0], ys + h / 2 - centre[1]
        band = numpy.where(down < -inner, 0, numpy.where(down > inner, 1, numpy.where(across < 0, 2, 3)))
        free = numpy.zeros(len(xs), dtype=bool)
        under = numpy.zeros(len(xs), dtype=numpy.int64)
        for side in range(4):
            part = band == side
            if part.any():
                free[part], under[part] = self._free_many(xs[part], ys[part], size, ink)
        return free, under

    def _free_many(self, xs, ys, size, ink):
        """Which of the spots (top-left corners) are free as ``_free`` has it, and the stroke pixels in each
        label's box widened by its clear space above and below (``_cost``'s count)."""
        import numpy

        w, h = size
        ix0, iy0, ix1, iy1 = ink
        px, py = self.pad_x, self.pad_y
        if not len(xs):
            return numpy.zeros(0, dtype=bool), numpy.zeros(0, dtype=numpy.int64)
        text = (numpy.maximum(0, ys + iy0 - 1), ys + iy1 + 1, numpy.maximum(0, xs + ix0 - 1), xs + ix1 + 1)
        room = (numpy.maximum(0, ys - py), ys + h + py, numpy.maximum(0, xs - px), xs + w + px)
        free = (xs >= 0) & (ys >= 0) & (xs + w <= self.width) & (ys + h <= self.height)
        (taken,) = rect_counts([self.markers, self.leaders], [(ys, ys + h, xs, xs + w)])
        through, under = rect_counts([self.strokes], [text, (room[0], room[1], xs, xs + w)])
        (crowded,) = rect_counts([self.labels], [room])
        return free & (taken == 0) & (through == 0) & (crowded == 0), under

    def _scores(self, station, centre, gap, size, ink, xs, ys, squared, under):
        """Per spot ``(squared distance, cost, crossings, x, y)``: the cost of its distance (label heights),
        of the strokes under it and under its leader, and what its leader crosses (``_leader_conflicts``)."""
        w, h = size
        ix0, iy0, ix1, iy1 = ink
        near, far = [], []
        spots = list(zip(xs.tolist(), ys.tolist()))
        for x, y in spots:
            box = (x + ix0, y + iy0, x + ix1, y + iy1)
            near.append(self._leader(centre, gap - self.marker_pad, box))
            far.append(self._leader(centre, gap, box))
        crossings = self._conflicts(station, near).tolist()
        shares = self._stroke_shares(far)
        scores = []
        for (x, y), distance, crossed, share, crossing in zip(
            spots, squared.tolist(), under.tolist(), shares, crossings
        ):
            cost = math.sqrt(distance) / h + 4 * ((0.3 if crossed else 0.0) + crossed / (w * h))
            cost += 4 * share
            scores.append((distance, cost, crossing, x, y))
        return scores

    def _stroke_shares(self, leaders) -> list[float]:
        """The share of each leader's length that runs over drawn lines (its points sampled every 2 px)."""
        import numpy

        steps = [max(2, int(math.hypot(x1 - x0, y1 - y0) // 2)) for (x0, y0), (x1, y1) in leaders]
        starts, ends = _ends_of(leaders)
        xs, ys, which = sample_points(starts, ends, steps, self.width, self.height)
        counts = numpy.bincount(which[self.strokes[ys, xs]], minlength=len(leaders)).tolist()
        return [count / (step + 1) for count, step in zip(counts, steps)]

    def _conflicts(self, index: int, leaders, *, mask=None):
        """Per leader of marker ``index``: whether it runs over a label (its sampled points on the label mask,
        halos included, or ``mask``), the other stations' markers it touches (it would seem to be theirs),
        and the other lines it crosses; summed, as an int array."""
        import numpy
        import shapely

        mask = self.labels if mask is None else mask
        steps = [max(2, int(2 * math.hypot(x1 - x0, y1 - y0))) for (x0, y0), (x1, y1) in leaders]
        starts, ends = _ends_of(leaders)
        xs, ys, which = sample_points(starts, ends, steps, self.width, self.height)
        total = (numpy.bincount(which[mask[ys, xs]], minlength=len(leaders)) > 0).astype(numpy.int64)
        # only markers near the leaders' bounding box can be near a leader: the others are left out unasked
        low, high = numpy.minimum(starts, ends).min(axis=0), numpy.maximum(starts, ends).max(axis=0)
        margin = self.reach + 1
        close = (self.xs >= low[0] - margin) & (self.xs <= high[0] + margin)
        close &= (self.ys >= low[1] - margin) & (self.ys <= high[1] + margin)
        close[index] = False
        total += markers_near(starts, ends, self.xs[close], self.ys[close], self.reach[close]).sum(axis=1)
        own = set(self.station_lines[index])
        others = numpy.array([name not in own for name in self.line_names], dtype=bool)
        if others.any():
            segments = shapely.linestrings(numpy.stack([starts, ends], axis=1))
            total += shapely.intersects(self.line_shapes[others][:, None], segments[None, :]).sum(axis=0)
        return total

    def _other_ends(self, station, centre, gap, ink, candidates):
        """The first spot of ``candidates`` (``(cost, x, y)``) and leader end (``None``: the nearest point) whose
        leader crosses nothing, tried to other points of the label's facing edges; then the same letting the
        leader through labels' halos (not their text). ``None`` when none is clean."""
        import numpy

        ix0, iy0, ix1, iy1 = ink
        tries = []
        for _, x, y in candidates:
            box = (x + ix0, y + iy0, x + ix1, y + iy1)
            for end in (None, *self._ends(centre, box)):
                tries.append(((x, y), end, self._leader(centre, gap - self.marker_pad, box, end)))
        if not tries:
            return None
        for mask in (self.labels, self.inks):
            clean = numpy.flatnonzero(self._conflicts(station, [leader for *_, leader in tries], mask=mask) == 0)
            if len(clean):
                return tries[clean[0]][:2]
        return None


def _ends_of(leaders):
    """A list of two-point leaders as ``(n, 2)`` arrays of their starts and their ends."""
    import numpy

    points = numpy.array(leaders, dtype=numpy.float64).reshape(-1, 2, 2)
    return points[:, 0], points[:, 1]
