"""Visual factors of a drawn map as knobs, set one at a time, and the values a drawing realised.

A :class:`Knobs` asks :func:`vision.render.render_map` for a label size relative to today's
(``label_scale``) and line colours whose closest two lie a chosen CIEDE2000 apart (``colour_distance``,
:func:`vision.palettes.palette_at_distance`). Default knobs leave the map as it always was, byte for byte.
:func:`realised_knobs` measures what a drawing realised from its truth (the truth's ``knobs``): the
smallest CIEDE2000 between two drawn line colours, the median label height in pixels and the number of
places where two lines cross away from stations (:func:`line_crossings`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphkit.graph import TransitGraph
from vision.evidence import ciede2000
from vision.palettes import palette_at_distance

__all__ = [
    "DEFAULT_KNOBS",
    "KNOBS",
    "Knobs",
    "crossing_layout",
    "knob_colours",
    "layout_crossings",
    "line_crossings",
    "realised_knobs",
]

# the knobs a sweep may turn, with what each value must be
KNOBS: dict[str, str] = {
    "label_scale": "a label size relative to today's, above 0 and at most 4",
    "colour_distance": "the smallest CIEDE2000 between two line colours, above 0 and at most 100",
    "crossings": "how often lines cross away from stations, a whole number from 0 to 1000",
}


@dataclass(frozen=True, slots=True)
class Knobs:
    """What a map is asked to look like.

    Parameters
    ----------
    label_scale : float
        Label height relative to today's (1: as always; 0.5: half as high).
    colour_distance : float or None
        The smallest CIEDE2000 between any two line colours (small: confusable); None keeps the palette.
    crossings : int or None
        How often lines should cross away from stations (:func:`crossing_layout`: as near as a tangled
        layout gets); None keeps the tidy layout.
    """

    label_scale: float = 1.0
    colour_distance: float | None = None
    crossings: int | None = None

    def __post_init__(self) -> None:
        scale = self.label_scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 4:
            raise ValueError(f"label scale must be above 0 and at most 4, got {scale!r}")
        distance = self.colour_distance
        if distance is not None and (
            isinstance(distance, bool) or not isinstance(distance, (int, float)) or not 0 < distance <= 100
        ):
            raise ValueError(f"colour distance must be a CIEDE2000 above 0 and at most 100, got {distance!r}")
        crossings = self.crossings
        if crossings is not None and (
            isinstance(crossings, bool) or not isinstance(crossings, int) or not 0 <= crossings <= 1000
        ):
            raise ValueError(f"crossings must be a whole number from 0 to 1000, got {crossings!r}")

    @property
    def default(self) -> bool:
        """Whether no knob is turned (the map is drawn as it always was)."""
        return self.label_scale == 1 and self.colour_distance is None and self.crossings is None

    def asked(self) -> dict[str, float]:
        """The knobs turned, as the truth records them (``asked_<knob>``)."""
        return {
            f"asked_{name}": value
            for name, value in (
                ("label_scale", self.label_scale),
                ("colour_distance", self.colour_distance),
                ("crossings", self.crossings),
            )
            if value is not None and not (name == "label_scale" and value == 1)
        }


DEFAULT_KNOBS = Knobs()


def knob_colours(graph: TransitGraph, distance: float, *, seed: int = 0) -> dict[str, str]:
    """Each line's colour, the closest two lines ``distance`` CIEDE2000 apart (as near as the colours allow).

    Parameters
    ----------
    graph : TransitGraph
        The network.
    distance : float
        The CIEDE2000 wanted between the closest two colours.
    seed : int, optional
        Seeds the draw.

    Returns
    -------
    dict of str to str
        Each line's ``#rrggbb`` colour.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> colours = knob_colours(city_graph("rome"), 4.0)
    >>> a, b, c = colours.values()
    >>> round(min(ciede2000(a, b), ciede2000(a, c), ciede2000(b, c)))
    4
    """
    return dict(zip(graph.lines, palette_at_distance(len(graph.lines), distance, seed=seed)))


def _intersection(p, q, r, s) -> tuple[float, float] | None:
    """Where segments ``p``–``q`` and ``r``–``s`` cross at one point (None: apart, touching ends, or parallel)."""
    d1 = (q[0] - p[0], q[1] - p[1])
    d2 = (s[0] - r[0], s[1] - r[1])
    denominator = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denominator) < 1e-9:
        return None
    t = ((r[0] - p[0]) * d2[1] - (r[1] - p[1]) * d2[0]) / denominator
    u = ((r[0] - p[0]) * d1[1] - (r[1] - p[1]) * d1[0]) / denominator
    if not (0 < t < 1 and 0 < u < 1):
        return None
    return p[0] + t * d1[0], p[1] + t * d1[1]


def line_crossings(truth: Mapping[str, Any]) -> int:
    """The places where two lines' drawn paths cross away from every station marker.

    A crossing within a marker's radius plus a line width of a station centre is where lines meet at a
    station, not a crossing; crossings closer than a line width to one already counted are the same place
    (a path walked back over to reach a branch).

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (its line width, its stations' markers, its lines' paths).

    Returns
    -------
    int
        The crossings.

    Examples
    --------
    >>> truth = {"line_width": 4, "stations": {"S": {"x": 0, "y": 0, "radius": 5}},
    ...          "lines": {"A": {"path": [[-50, 20], [50, 20]]}, "B": {"path": [[0, -50], [0, 50]]},
    ...                    "C": {"path": [[-50, 0], [50, 0]]}}}
    >>> line_crossings(truth)  # A crosses B at (0, 20); B meets C at the station S
    1
    """
    width = float(truth.get("line_width", 1))
    markers = [
        (float(record["x"]), float(record["y"]), float(record.get("radius", 0)) + width)
        for record in truth["stations"].values()
    ]
    return _crossings({name: [line["path"]] for name, line in truth["lines"].items()}, markers, width)


def _crossings(lines: Mapping[str, list], markers: list[tuple[float, float, float]], width: float) -> int:
    """Places where polylines of two lines cross, none within a marker's reach, none within ``width`` of another."""
    segments = {
        name: [(tuple(map(float, p)), tuple(map(float, q))) for path in paths for p, q in itertools.pairwise(path)]
        for name, paths in lines.items()
    }
    found: list[tuple[float, float]] = []
    for first, second in itertools.combinations(sorted(segments), 2):
        for p, q in segments[first]:
            for r, s in segments[second]:
                point = _intersection(p, q, r, s)
                if point is None or any(math.dist(point, (x, y)) <= radius for x, y, radius in markers):
                    continue
                if all(math.dist(point, other) > width for other in found):
                    found.append(point)
    return len(found)


def realised_knobs(truth: Mapping[str, Any]) -> dict[str, float | int | None]:
    """What a drawn map realised, from its truth.

    Parameters
    ----------
    truth : mapping
        A rendered map's truth.

    Returns
    -------
    dict
        ``colour_distance``: the smallest CIEDE2000 between two drawn line colours (None with one line),
        rounded to 0.01; ``label_height_px``: the median height of the station labels' ink boxes;
        ``crossings``: :func:`line_crossings`.
    """
    colours = sorted({line["color"] for line in truth["lines"].values()})
    distances = [ciede2000(a, b) for a, b in itertools.combinations(colours, 2)]
    if len(colours) < len(truth["lines"]):
        distances.append(0.0)  # two lines drawn in one colour
    heights = sorted(float(r["label_box"][3]) - float(r["label_box"][1]) for r in truth["stations"].values())
    middle = len(heights) // 2
    median = (heights[middle] if len(heights) % 2 else (heights[middle - 1] + heights[middle]) / 2) if heights else None
    return {
        "colour_distance": round(min(distances), 2) if distances else None,
        "label_height_px": median,
        "crossings": line_crossings(truth),
    }


def layout_crossings(graph: TransitGraph, layout: Any) -> int:
    """:func:`line_crossings` of the lines as ``layout`` would draw them (cell units, before any drawing).

    Each hop takes the shape the renderer gives it (:func:`vision.layout.hop_shapes`); lines that share a
    hop overlap here instead of running side by side, which neither adds nor hides a crossing.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    layout : Layout
        Its layout.

    Returns
    -------
    int
        The crossings.
    """
    from vision.layout import hop_route, hop_shapes, line_hops

    lines = {}
    for line in graph.lines:
        hops = line_hops(graph, line)
        shapes = hop_shapes(layout.cells, hops)
        lines[line] = [
            hop_route(layout.cells[a], layout.cells[b], diagonal_first=shapes.get((a, b), False)) for a, b in hops
        ]
    markers = [(float(x), float(y), 0.3) for x, y in layout.cells.values()]
    return _crossings(lines, markers, 0.125)


def crossing_layout(graph: TransitGraph, target: int, tidy: Any, layout_of: Any, *, seed: int = 0) -> Any:
    """The layout whose lines cross away from stations as near ``target`` times as the tries reach.

    The tries blend the tidy layout's cells with seeded random points (a share of 0, 0.1, ... 1 of the
    random ones, three seeds each) and lay each blend out again (``layout_of(coords)``): the more random,
    the more tangled. The first try nearest ``target`` wins; the tidy layout itself is the first try.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    target : int
        The crossings wanted.
    tidy : Layout
        The tidy layout.
    layout_of : callable
        Lays out the network from starting coordinates.
    seed : int, optional
        Seeds the random points.

    Returns
    -------
    Layout
        The layout chosen.
    """
    import random

    names = list(graph.stations)
    columns, rows = tidy.columns, tidy.rows
    best, best_gap = tidy, abs(layout_crossings(graph, tidy) - target)
    for tenth in range(1, 11):
        for attempt in range(3):
            if best_gap == 0:
                return best
            rng = random.Random(f"vision.knobs.crossings:{seed}:{tenth}:{attempt}")
            share = tenth / 10
            coords = [
                (
                    (1 - share) * tidy.cells[name][0] + share * rng.uniform(0, columns),
                    (1 - share) * tidy.cells[name][1] + share * rng.uniform(0, rows),
                )
                for name in names
            ]
            layout = layout_of(coords)
            gap = abs(layout_crossings(graph, layout) - target)
            if gap < best_gap:
                best, best_gap = layout, gap
    return best
