"""The lines of a rendered map at one scale: each hop's stroke and each station's marker size.

Lines sharing a hop are drawn side by side (each offset by a line width, in the order the lines list it), a bent
hop is drawn the same way for every line along it (:func:`vision.layout.hop_shapes`), and a line's drawn path
walks its hops in order (:func:`vision.layout.line_walk`). A station's marker covers every line through it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from graphkit.graph import TransitGraph
from vision.layout import GridLayout, hop_route, hop_shapes, line_hops, line_walk, offset_polyline

__all__ = ["Hops", "map_hops", "hop_strokes", "marker_radii"]

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Hops:
    """Each line's hops, the lines drawn along each hop (keyed by its ends in graph order, side by side in this
    order) and whether a bent hop is drawn 45° leg first (:func:`vision.layout.hop_shapes`)."""

    of_line: dict[str, list[tuple[str, str]]]
    lines: dict[tuple[str, str], list[str]]
    diagonal_first: dict[tuple[str, str], bool]
    rank: dict[str, int]

    def key(self, a: str, b: str) -> tuple[str, str]:
        return (a, b) if self.rank[a] < self.rank[b] else (b, a)


def map_hops(graph: TransitGraph, layout: GridLayout) -> Hops:
    """The hops of ``graph`` laid out as ``layout``: the same at every scale of the map."""
    of_line = {line: line_hops(graph, line) for line in graph.lines}
    rank = {name: index for index, name in enumerate(graph.stations)}

    def key(a: str, b: str) -> tuple[str, str]:
        return (a, b) if rank[a] < rank[b] else (b, a)

    lines: dict[tuple[str, str], list[str]] = {}
    for line, pairs in of_line.items():
        for a, b in pairs:
            lines.setdefault(key(a, b), []).append(line)
    diagonal_first: dict[tuple[str, str], bool] = {}
    for pairs in of_line.values():  # one shape per hop, whichever line asks first
        for (a, b), first in hop_shapes(layout.cells, pairs).items():
            diagonal_first.setdefault(key(a, b), first if key(a, b) == (a, b) else not first)
    return Hops(of_line, lines, diagonal_first, rank)


def hop_strokes(
    hops: Hops, points: dict[str, tuple[int, int]], lw: int
) -> tuple[list[tuple[str, list[Point]]], dict[str, list[Point]]]:
    """Each hop's drawn polyline with its line, in drawing order, for stations at ``points`` (pixels) and lines
    ``lw`` pixels wide; and each line's drawn path (one walk)."""
    strokes: list[tuple[str, list[Point]]] = []
    paths: dict[str, list[Point]] = {}
    for line, pairs in hops.of_line.items():
        routes: dict[tuple[str, str], list[Point]] = {}
        for a, b in pairs:
            key = hops.key(a, b)
            sharing = hops.lines[key]
            offset = (sharing.index(line) - (len(sharing) - 1) / 2) * lw
            corner = hops.diagonal_first.get(key, False)
            route = offset_polyline(hop_route(points[key[0]], points[key[1]], diagonal_first=corner), offset)
            routes[key], routes[(key[1], key[0])] = route, route[::-1]
            strokes.append((line, route))
        paths[line] = line_walk(pairs, routes)
    return strokes, paths


def marker_radii(graph: TransitGraph, hop_lines: dict[tuple[str, str], list[str]], line_width: int) -> dict[str, int]:
    """Each station's marker radius (pixels): wide enough for every line drawn side by side through it, and
    larger at a transfer station."""
    outline = max(1, round(line_width / 4))
    single = round(line_width * 0.8) + outline
    widest = dict.fromkeys(graph.stations, 1)
    for (a, b), lines in hop_lines.items():
        widest[a], widest[b] = max(widest[a], len(lines)), max(widest[b], len(lines))
    radii = {}
    for station in graph.stations:
        spread = (widest[station] - 1) * line_width / 2 + line_width / 2 + outline + 1
        transfer = len(graph.lines_at(station)) > 1
        radii[station] = max(round(single * 1.4) if transfer else single, math.ceil(spread))
    return radii
