"""One line from its stop patterns: the trunk, its branches, and the patterns that are only services.

A pattern is the ordered stations of a trip; a pattern and its reverse are one (the two directions).
The trunk is the pattern with the most trips (ties: the longer, then the first). Every other pattern,
most trips first, is laid on the line so far:

- all its stations already on the line: a service of the line (skip-stop, short turn);
- new stations beyond a terminal of the line: the line is extended (a trunk of short turns grows to the
  line's ends) when the pattern is frequent (:data:`BRANCH_SHARE` of the trunk's trips) or no other line
  of the feed serves them; else they are left to the lines that serve them (Metro-North's New Canaan
  trains that run through to Grand Central);
- new stations beyond a station that is no terminal: a fork. It is a branch of the line when the pattern
  is frequent (Baltimore's light rail to BWI or Glen Burnie) or no other line serves them, else a service
  the map leaves out (New York's 2 running to New Lots Av);
- new stations between two neighbours of the line: stops only this pattern makes. They join the line when
  the pattern is frequent (:data:`BRANCH_SHARE`) or no other line of the feed serves them (Metro-North's
  locals); else they are left to the lines that serve them (the 2's late-night local stops);
- new stations between two stations that are not neighbours: the pattern takes another way. When that
  way ends at a terminal (LA's A Line runs a one-way loop in Long Beach, its two directions differ) its
  stations are listed beyond the terminal, as the Metro Data of the benchmark lists them; else left out.

A pattern whose first and last stations are one station is a loop: its line is that circle. (A trip that
calls at a station twice otherwise is cut in two patterns there by the compiler.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["BRANCH_SHARE", "LineShape", "shape_line"]

#: A fork or an extra stop is part of the line when its pattern runs this share of the trunk's trips.
BRANCH_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class LineShape:
    """A line's stations: the trunk (``segments[0]``) and its branches (``[junction, first, ..., last]``).

    Attributes
    ----------
    segments : list of list of int
        The trunk, then each branch from its junction, station numbers.
    loop : bool
        The trunk is a loop (its last station leads back to its first).
    left_out : dict of int to int
        Stations some trips stop at that the line leaves to other lines, and those trips.
    """

    segments: list[list[int]]
    loop: bool = False
    #: stations some of the line's trips stop at that the line leaves to other lines, and those trips
    left_out: dict[int, int] = field(default_factory=dict)

    @property
    def stations(self) -> set[int]:
        """Every station of the line."""
        return {station for segment in self.segments for station in segment}

    def listed(self) -> list[int]:
        """Metro Data's order: the trunk with each branch from its first station outwards.

        An overlay's branch is a run of the list cut out and hung on its junction, the list's stations on
        either side of the run joined again (:func:`graphkit.topology.compile_line`). So one branch is
        listed after the trunk; with several, each but the last is listed right after a trunk station that
        has a trunk station after it (its junction where it can), so that no two runs touch.
        """
        trunk = list(self.segments[0])
        if len(self.segments) <= 2:
            return trunk + [s for segment in self.segments[1:] for s in segment[1:]]
        slots = trunk[:-1]  # trunk stations with a trunk station after them
        after: dict[int, list[int]] = {}
        rest: list[int] = []
        for segment in self.segments[1:-1]:
            free = [station for station in slots if station not in after]
            if not free:
                rest.extend(segment[1:])  # more branches than trunk stations: listed at the end
                continue
            anchor = segment[0] if segment[0] in free else free[0]
            after[anchor] = segment[1:]
        listed = [s for station in trunk for s in (station, *after.get(station, ()))]
        return listed + rest + self.segments[-1][1:]


def _where(shape: LineShape, station: int) -> tuple[int, int] | None:
    for number, segment in enumerate(shape.segments):
        if station in segment:
            index = segment.index(station)
            if number and index == 0:
                continue  # a branch's junction belongs to the segment it leaves
            return number, index
    return None


def _oriented(shape: LineShape, pattern: Sequence[int]) -> list[int]:
    """The pattern in the direction the line lists it (by the order of its known stations)."""
    forward = backward = 0
    places = [_where(shape, s) for s in pattern]
    known = [p for p in places if p is not None]
    for a, b in zip(known, known[1:]):
        if a[0] == b[0]:
            forward += a[1] < b[1]
            backward += a[1] > b[1]
    return list(pattern[::-1]) if backward > forward else list(pattern)


def _runs(pattern: list[int], known: set[int]) -> list[tuple[int | None, list[int], int | None]]:
    """Maximal runs of new stations: ``(station before, run, station after)``."""
    found, run, before = [], [], None
    for station in pattern:
        if station in known:
            if run:
                found.append((before, run, station))
                run = []
            before = station
        else:
            run.append(station)
    if run:
        found.append((before, run, None))
    return found


def shape_line(patterns: Sequence[tuple[tuple[int, ...], int]], served_elsewhere: Callable[[int], bool]) -> LineShape:
    """Lay ``(pattern, trips)`` (most trips first) into one line; ``served_elsewhere(station)``: another line
    of the feed serves it.

    Parameters
    ----------
    patterns : sequence of (tuple of int, int)
        The stop patterns of the line's trips, each with its trip count, most trips first.
    served_elsewhere : callable
        Whether another line of the feed serves a station.

    Returns
    -------
    LineShape
        The trunk (the busiest pattern) and the branches the other patterns add.
    """
    trunk, trunk_trips = patterns[0]
    if len(trunk) > 2 and trunk[0] == trunk[-1]:
        return LineShape(segments=[list(trunk[:-1])], loop=True)
    shape = LineShape(segments=[list(trunk)])
    for pattern, trips in patterns[1:]:
        if len(pattern) > 2 and pattern[0] == pattern[-1]:
            pattern = pattern[:-1]
        frequent = trips >= BRANCH_SHARE * trunk_trips
        oriented = _oriented(shape, pattern)
        for before, run, after in _runs(oriented, shape.stations):
            _lay(shape, before, run, after, frequent=frequent, served_elsewhere=served_elsewhere)
        for station in set(pattern) - shape.stations:
            shape.left_out[station] = shape.left_out.get(station, 0) + trips
    return shape


def _lay(
    shape: LineShape,
    before: int | None,
    run: list[int],
    after: int | None,
    *,
    frequent: bool,
    served_elsewhere: Callable[[int], bool],
) -> None:
    if before is None and after is None:
        return  # shares no station with the line
    if before is None:  # the run leads to the pattern's first known station: lay it outwards from there
        before, run, after = after, run[::-1], None
    at = _where(shape, before)
    if at is None:
        return
    number, index = at
    segment = shape.segments[number]
    needed = frequent or not all(served_elsewhere(s) for s in run)
    if after is None:
        if not needed:
            return
        if index == len(segment) - 1:
            segment.extend(run)  # beyond a terminal: the line goes on
        elif number == 0 and index == 0:
            segment[:0] = run[::-1]
        elif frequent or number:
            shape.segments.append([before, *run])
        return
    end = _where(shape, after)
    if end is None:
        return
    if end[0] == number and abs(end[1] - index) == 1:  # between neighbours: stops of this pattern
        if needed:
            where = max(index, end[1])
            segment[where:where] = run if index < end[1] else run[::-1]
        return
    if end[0] != number:
        return
    low, high = sorted((index, end[1]))
    ordered = run if index < end[1] else run[::-1]  # from the lower position to the higher
    if high == len(segment) - 1:
        segment.extend(ordered[::-1])  # another way to the terminal: listed beyond it
    elif low == 0 and number == 0:
        segment[:0] = ordered[::-1]
