"""The shape of one line: its stations and which of them are adjacent.

A line is compiled from its listed order and the city's overlay into a small
undirected graph: a path (the usual case), a cycle (a loop), a tree (a line
with branches), or anything else the data implies (two stations sharing a
name join the list at that name). Rides along the line follow shortest paths
in that graph.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from graphkit.errors import InvalidOverlay, shorten
from graphkit.metro import Line
from graphkit.overlays import Overlay

__all__ = ["LineTopology", "compile_line"]

Shape = Literal["path", "loop", "tree", "irregular"]
# Lines with cycles may tie between directions; a handful of alternatives is plenty.
_MAX_RIDE_ALTERNATIVES = 4


@dataclass(frozen=True, slots=True)
class LineTopology:
    """One line as a graph over its stations.

    Attributes
    ----------
    name : str
    stations : tuple of str
        Distinct stations in listed order.
    adjacency : dict
        Station to its neighbours on this line, in listed order.
    shape : {"path", "loop", "tree", "irregular"}
    """

    name: str
    stations: tuple[str, ...]
    adjacency: dict[str, tuple[str, ...]]
    shape: Shape
    _rides: dict[str, dict] = field(default_factory=dict, init=False, repr=False, compare=False)
    _position: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _listed_cycle: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._position.update((name, index) for index, name in enumerate(self.stations))
        # a loop whose list runs round it: rides are arcs of the list, no search (nor its cache) needed
        stations, adjacency = self.stations, self.adjacency
        cycle = self.shape == "loop" and all(
            stations[index - 1] in adjacency[name] for index, name in enumerate(stations)
        )
        object.__setattr__(self, "_listed_cycle", cycle)

    def ride(self, source: str, target: str) -> tuple[int, tuple[tuple[str, ...], ...]] | None:
        """Fewest stops and via-stop alternatives from ``source`` to ``target``, or ``None`` (cached)."""
        if self.shape == "path":  # the listed order is the path: slice it
            position = self._position
            if source not in position or target not in position or source == target:
                return None
            i, j = position[source], position[target]
            return (j - i, (self.stations[i + 1 : j],)) if i < j else (i - j, (self.stations[j + 1 : i][::-1],))
        if self._listed_cycle:
            return self._arc_ride(source, target)
        found = self._rides.get(source)
        if found is None:
            if source not in self.adjacency:
                return None
            found = self._rides[source] = self.rides_from(source)
        return found.get(target)

    def _arc_ride(self, source: str, target: str) -> tuple[int, tuple[tuple[str, ...], ...]] | None:
        """:meth:`ride` on a loop listed in its order: the shorter arc, or both when they tie (sorted)."""
        position = self._position
        if source not in position or target not in position or source == target:
            return None
        i, j = position[source], position[target]
        forward = self._arc(i, j)
        backward = self._arc(j, i)[::-1]
        if len(forward) != len(backward):
            return min((len(forward) + 1, (forward,)), (len(backward) + 1, (backward,)), key=lambda ride: ride[0])
        return len(forward) + 1, tuple(sorted((forward, backward)))

    def _arc(self, i: int, j: int) -> tuple[str, ...]:
        """Stations strictly between positions ``i`` and ``j`` going forward round the loop."""
        stations = self.stations
        return stations[i + 1 : j] if i < j else stations[i + 1 :] + stations[:j]

    def stops_from(self, source: str) -> dict[str, int]:
        """Fewest stops from ``source`` to every other station of the line (cheap: no via stops)."""
        if self.shape == "path":
            i = self._position[source]
            return {t: abs(j - i) for j, t in enumerate(self.stations) if j != i}
        return {target: ride[0] for target, ride in self.rides_from(source).items()}

    def rides_from(self, source: str) -> dict[str, tuple[int, tuple[tuple[str, ...], ...]]]:
        """Shortest rides from ``source`` to every station of the line.

        Returns ``{target: (stops, (via_stops, ...))}``, where ``stops`` counts
        the hops and each ``via_stops`` lists the stations strictly between,
        one tuple per equally short way (two on a loop's opposite stations).
        """
        if self.shape == "path":  # the listed order is the path: slice it
            stations = self.stations
            i = self._position[source]
            rides = {t: (i - j, (stations[j + 1 : i][::-1],)) for j, t in enumerate(stations[:i])}
            rides.update((t, (j - i, (stations[i + 1 : j],))) for j, t in enumerate(stations[i + 1 :], start=i + 1))
            return rides
        paths: dict[str, list[tuple[str, ...]]] = {source: [()]}
        distance = {source: 0}
        queue = deque([source])
        while queue:
            here = queue.popleft()
            for there in self.adjacency[here]:
                if there not in distance:
                    distance[there] = distance[here] + 1
                    paths[there] = []
                    queue.append(there)
                if distance[there] == distance[here] + 1 and len(paths[there]) < _MAX_RIDE_ALTERNATIVES:
                    step = () if here == source else (here,)
                    paths[there].extend(p + step for p in paths[here][: _MAX_RIDE_ALTERNATIVES - len(paths[there])])
        return {target: (distance[target], tuple(sorted(vias))) for target, vias in paths.items() if target != source}

    def simple_rides(self, source: str, target: str, *, max_stops: int) -> list[tuple[str, ...]]:
        """Every ride from ``source`` to ``target`` that visits no station twice, within ``max_stops``.

        Returns the via-stop tuples, shortest first. Used for routes within a stop slack.
        """
        found: list[tuple[str, ...]] = []
        stack: list[tuple[str, tuple[str, ...]]] = [(source, ())]
        while stack:
            here, via = stack.pop()
            for there in self.adjacency[here]:
                if there == target:
                    found.append(via)
                elif there != source and there not in via and len(via) + 2 <= max_stops:
                    stack.append((there, via + (there,)))
        return sorted(set(found), key=lambda via: (len(via), via))


def compile_line(line: Line, overlay: Overlay, *, source: str = "") -> LineTopology:
    """Build the topology of ``line`` from its list and the overlay's entries.

    Parameters
    ----------
    line : Line
        The line as listed.
    overlay : Overlay
        The city's overlay (its loops, branches and repeated stations of this line apply).
    source : str, optional
        Where the data came from, for messages when the overlay has no source.

    Returns
    -------
    LineTopology
        The line's distinct stations, each one's neighbours on it, and its shape (path, loop, tree, irregular).

    Raises
    ------
    InvalidOverlay
        An overlay entry names a station the line lacks, or a branch run that
        is not contiguous.
    """
    listed = list(line.stations)
    where = f"{overlay.source or source}, line {shorten(line.name)!r}"
    edges: list[tuple[str, str]] = [(a, b) for a, b in zip(listed, listed[1:]) if a != b]
    is_loop = line.closes_on_itself
    for loop in overlay.loops:
        if loop.line == line.name:
            is_loop = True
            if not line.closes_on_itself and len(listed) > 2:
                edges.append((listed[-1], listed[0]))
    has_branch = False
    for branch in overlay.branches:
        if branch.line != line.name:
            continue
        has_branch = True
        edges = _hang_branch(edges, listed, branch.leaves_at, branch.first, branch.last, where=where)
    for unlisted in overlay.unlisted_branches:
        if unlisted.line == line.name and unlisted.at not in listed:
            raise InvalidOverlay(f"{where}: unlisted branch at {shorten(unlisted.at)!r}, which is not on the line")
    stations = tuple(dict.fromkeys(listed))
    neighbours: dict[str, list[str]] = {name: [] for name in stations}
    for a, b in dict.fromkeys(tuple(sorted(edge)) for edge in edges):
        neighbours[a].append(b)
        neighbours[b].append(a)
    order = {name: index for index, name in enumerate(stations)}
    adjacency = {name: tuple(sorted(near, key=order.__getitem__)) for name, near in neighbours.items()}
    return LineTopology(
        name=line.name, stations=stations, adjacency=adjacency, shape=_shape(adjacency, is_loop, has_branch)
    )


def _hang_branch(
    edges: list[tuple[str, str]], listed: list[str], leaves_at: str, first: str, last: str | None, *, where: str
) -> list[tuple[str, str]]:
    for name in (leaves_at, first) + ((last,) if last else ()):
        if name not in listed:
            raise InvalidOverlay(f"{where}: branch station {shorten(name)!r} is not on the line")
    start = listed.index(first)
    end = listed.index(last) if last else len(listed) - 1
    if end < start:
        raise InvalidOverlay(
            f"{where}: branch runs from {shorten(first)!r} to {shorten(last)!r}, which comes before it"
        )
    if leaves_at in listed[start : end + 1]:
        raise InvalidOverlay(f"{where}: the branch leaves at {shorten(leaves_at)!r}, which is inside the branch")
    before = listed[start - 1] if start > 0 else None
    after = listed[end + 1] if end + 1 < len(listed) else None
    cut = {frozenset((before, first)), frozenset((last or listed[end], after))}
    kept = [edge for edge in edges if frozenset(edge) not in cut]
    kept.append((leaves_at, first))
    if before is not None and after is not None:
        kept.append((before, after))  # the list resumes the main line after the branch
    return kept


def _shape(adjacency: dict[str, tuple[str, ...]], is_loop: bool, has_branch: bool) -> Shape:
    degrees = [len(near) for near in adjacency.values()]
    edges = sum(degrees) // 2
    if is_loop and edges == len(adjacency) and max(degrees) == 2:
        return "loop"
    if edges == len(adjacency) - 1:
        return "tree" if has_branch or max(degrees) > 2 else "path"
    return "irregular"
