"""How readable a rendered map is, measured from its ground truth (``MAP.truth.json``).

Two figures a person (or a model) reading a synthetic map depends on:

- :func:`ambiguous_labels`: labels whose box lies nearer another station's
  marker than their own (or as near), so that the map itself suggests the
  wrong station. A label tied to its marker by a drawn leader line (the
  truth's ``"leader"``) is not ambiguous; :func:`leader_labels` lists those.
- :func:`far_labels`: labels with no leader set so far from their marker
  (beyond three label heights) that a reader must guess which marker is theirs.
- :func:`line_bends`: the turns each line's drawn path makes, after the short
  steps between side-by-side offsets under a marker are smoothed away.

- :func:`label_crossings`: leaders that cross another label (a station's,
  a line badge or a legend entry) or the stroke of a line their station is
  not on, and line strokes that run through a station label's text.
- :func:`marker_crossings`: leaders that touch another station's marker, and
  line strokes drawn over the marker of a station their line does not serve:
  either makes the map say a station is joined to what it is not.

All read only the truth dictionary, so they measure any renderer's output.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "box_distance",
    "ambiguous_labels",
    "leader_labels",
    "far_labels",
    "line_bends",
    "label_crossings",
    "marker_crossings",
    "map_quality",
]

# a turn sharper than this counts as a bend; one near 180° is the path retracing a branch, not a bend
_MIN_TURN, _MAX_TURN = 10.0, 170.0


def box_distance(point: tuple[float, float], box: tuple[float, float, float, float] | list[float]) -> float:
    """Pixels from ``point`` to the nearest point of ``box`` ``(x0, y0, x1, y1)`` (0 inside it).

    Parameters
    ----------
    point : (float, float)
    box : (float, float, float, float)

    Returns
    -------
    float

    Examples
    --------
    >>> box_distance((0, 0), (3, 4, 10, 10))
    5.0
    >>> box_distance((5, 5), (3, 4, 10, 10))
    0.0
    """
    x, y = point
    x0, y0, x1, y1 = box
    return math.hypot(max(x0 - x, 0.0, x - x1), max(y0 - y, 0.0, y - y1))


def ambiguous_labels(truth: Mapping[str, Any]) -> list[str]:
    """Stations whose label, with no leader line, is at least as near another station's marker as its own.

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    list of str
        The stations, in the truth's order.

    Examples
    --------
    >>> truth = {"stations": {
    ...     "A": {"x": 0, "y": 0, "label_box": [5, -5, 40, 5]},
    ...     "B": {"x": 50, "y": 0, "label_box": [-40, 20, -5, 30]}}}
    >>> ambiguous_labels(truth)
    ['B']
    """
    import numpy

    stations = truth["stations"]
    names = list(stations)
    if len(names) < 2:
        return []
    xs = numpy.array([float(stations[n]["x"]) for n in names])
    ys = numpy.array([float(stations[n]["y"]) for n in names])
    found = []
    for index, name in enumerate(names):
        record = stations[name]
        if record.get("leader"):
            continue
        x0, y0, x1, y1 = (float(v) for v in record["label_box"])
        distances = numpy.hypot(
            numpy.maximum(numpy.maximum(x0 - xs, 0.0), xs - x1), numpy.maximum(numpy.maximum(y0 - ys, 0.0), ys - y1)
        )
        own = distances[index]
        distances[index] = numpy.inf
        if distances.min() <= own:
            found.append(name)
    return found


def leader_labels(truth: Mapping[str, Any]) -> list[str]:
    """Stations whose label is joined to its marker by a leader line.

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    list of str
        The stations, in the truth's order.
    """
    return [name for name, record in truth["stations"].items() if record.get("leader")]


def _median_height(truth: Mapping[str, Any]) -> float | None:
    heights = sorted(float(r["label_box"][3]) - float(r["label_box"][1]) for r in truth["stations"].values())
    return heights[len(heights) // 2] if heights else None


def far_labels(truth: Mapping[str, Any], heights: float = 3.0) -> list[str]:
    """Stations whose label, with no leader line, lies more than ``heights`` median label heights beyond the
    edge of its marker (a disc of the truth's ``radius``, 0 when absent).

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).
    heights : float, optional
        How many median label heights count as far.

    Returns
    -------
    list of str
        The stations, in the truth's order.

    Examples
    --------
    >>> truth = {"stations": {
    ...     "A": {"x": 0, "y": 0, "radius": 5, "label_box": [8, -5, 40, 5]},
    ...     "B": {"x": 0, "y": 100, "radius": 5, "label_box": [36, 95, 70, 105]}}}
    >>> far_labels(truth)  # A's text is 3 px beyond its marker, B's 31 px: over 3 heights of 10 px
    ['B']
    """
    height = _median_height(truth)
    return [
        name
        for name, record in truth["stations"].items()
        if not record.get("leader")
        and box_distance((float(record["x"]), float(record["y"])), record["label_box"]) - float(record.get("radius", 0))
        > heights * height
    ]


def _tolerance(truth: Mapping[str, Any]) -> float:
    """Half the median label height: above the step between two offset strokes, well below a real turn."""
    height = _median_height(truth)
    return max(2.0, 0.5 * height) if height is not None else 4.0


def line_bends(truth: Mapping[str, Any]) -> dict[str, int]:
    """The number of bends in each line's drawn path.

    The path is simplified (Douglas–Peucker, half a label's height) so that the
    short steps where a line changes its offset beside another line vanish;
    every remaining turn between 10° and 170° is a bend (a path that doubles
    back to draw a branch turns by 180° and is not counted).

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    dict of str to int
        Each line's bends.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 0, "label_box": [0, 0, 40, 16]}},
    ...          "lines": {"Z": {"path": [[0, 0], [100, 0], [200, 100], [300, 100]]},
    ...                    "I": {"path": [[0, 0], [100, 3], [200, 0]]}}}
    >>> line_bends(truth)
    {'Z': 2, 'I': 0}
    """
    from shapely.geometry import LineString

    tolerance = _tolerance(truth)
    bends: dict[str, int] = {}
    for name, record in truth["lines"].items():
        path = _points(record.get("path", ()))
        if len(path) < 3:
            bends[name] = 0
            continue
        points = list(LineString(path).simplify(tolerance, preserve_topology=False).coords)
        count = 0
        for (ax, ay), (bx, by), (cx, cy) in zip(points, points[1:], points[2:]):
            first, second = math.atan2(by - ay, bx - ax), math.atan2(cy - by, cx - bx)
            turn = abs(math.degrees((second - first + math.pi) % (2 * math.pi) - math.pi))
            count += _MIN_TURN < turn < _MAX_TURN
        bends[name] = count
    return bends


def _text_box(box) -> Any:
    """A pixel box ``[x0, y0, x1, y1]`` (``x1``/``y1`` exclusive) as the span of its pixel centres."""
    from shapely.geometry import box as shape

    x0, y0, x1, y1 = (float(v) for v in box)
    return shape(x0 + 0.5, y0 + 0.5, max(x0 + 0.5, x1 - 0.5), max(y0 + 0.5, y1 - 0.5))


def _points(coordinates: Any) -> list[tuple[float, float]]:
    """``[[x, y], ...]`` of a truth as float pairs."""
    return [(float(x), float(y)) for x, y in coordinates]


def _stroke(path: list[tuple[float, float]], half: float) -> Any:
    """A line's drawn stroke: its path (a point when it has one) widened by ``half`` the line width."""
    from shapely.geometry import LineString, Point

    return (LineString(path) if len(path) > 1 else Point(path[0])).buffer(half)


def label_crossings(truth: Mapping[str, Any]) -> dict[str, int]:
    """How often leaders and strokes run over what they should not, as pair counts.

    ``leader_label``: (leader, other label) pairs that meet, a label being a station's text box, a line
    badge or a legend entry; ``leader_line``: (leader, line) pairs where the leader meets the stroke of a
    line its station is not on (a station without ``lines`` in its truth counts every line);
    ``line_label``: (line, station label) pairs where the stroke (the path widened by half the truth's
    ``line_width``, 2 px when absent) meets the label's text box.

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    dict of str to int
        ``leader_label``, ``leader_line`` and ``line_label``.

    Examples
    --------
    >>> truth = {"line_width": 4, "stations": {
    ...     "A": {"x": 0, "y": 0, "label_box": [10, 20, 60, 30], "leader": [[0, 3], [10, 25]], "lines": ["L"]},
    ...     "B": {"x": 100, "y": 0, "label_box": [0, 8, 9, 14], "lines": ["M"]}},
    ...     "lines": {"L": {"path": [[0, 0], [100, 0]]}, "M": {"path": [[5, -50], [5, 50]]}}}
    >>> label_crossings(truth)
    {'leader_label': 1, 'leader_line': 1, 'line_label': 1}
    """
    from shapely.geometry import LineString

    half = float(truth.get("line_width", 4)) / 2
    strokes = {
        name: _stroke(path, half)
        for name, record in truth["lines"].items()
        if (path := _points(record.get("path", ())))
    }
    texts = {name: _text_box(record["label_box"]) for name, record in truth["stations"].items()}
    others = [_text_box(badge["box"]) for record in truth["lines"].values() for badge in record.get("badges", ())] + [
        _text_box(record["legend"]) for record in truth["lines"].values() if record.get("legend")
    ]
    counts = {"leader_label": 0, "leader_line": 0, "line_label": 0}
    for name, record in truth["stations"].items():
        if record.get("leader"):
            leader = LineString(_points(record["leader"]))
            counts["leader_label"] += sum(box.intersects(leader) for other, box in texts.items() if other != name)
            counts["leader_label"] += sum(box.intersects(leader) for box in others)
            own = set(record.get("lines", ()))
            counts["leader_line"] += sum(shape.intersects(leader) for line, shape in strokes.items() if line not in own)
        counts["line_label"] += sum(shape.intersects(texts[name]) for shape in strokes.values())
    return counts


def marker_crossings(truth: Mapping[str, Any]) -> dict[str, int]:
    """How often leaders and strokes run over markers they do not belong to, as pair counts.

    ``leader_marker``: (leader, other station) pairs where the leader meets that station's marker (a disc of
    the truth's ``radius``, the ``line_width`` when absent); ``line_marker``: (line, station) pairs where the
    line's stroke meets the marker of a station the line does not serve (a station without ``lines`` in
    its truth counts none).

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    dict of str to int
        ``leader_marker`` and ``line_marker``.

    Examples
    --------
    >>> truth = {"line_width": 4, "stations": {
    ...     "A": {"x": 0, "y": 0, "radius": 5, "leader": [[0, 6], [0, 40]], "lines": ["L"]},
    ...     "B": {"x": 2, "y": 20, "radius": 5, "lines": ["L"]},
    ...     "C": {"x": 50, "y": 3, "radius": 5, "lines": ["M"]}},
    ...     "lines": {"L": {"path": [[0, 0], [100, 0]]}, "M": {"path": [[50, 3], [50, 90]]}}}
    >>> marker_crossings(truth)
    {'leader_marker': 1, 'line_marker': 1}
    """
    from shapely.geometry import LineString, Point

    width = float(truth.get("line_width", 4))
    stations = truth["stations"]
    discs = {
        name: Point(float(record["x"]), float(record["y"])).buffer(float(record.get("radius", width)))
        for name, record in stations.items()
    }
    counts = {"leader_marker": 0, "line_marker": 0}
    for name, record in stations.items():
        if record.get("leader"):
            leader = LineString(_points(record["leader"]))
            counts["leader_marker"] += sum(disc.intersects(leader) for other, disc in discs.items() if other != name)
    for line, record in truth["lines"].items():
        path = _points(record.get("path", ()))
        if not path:
            continue
        stroke = _stroke(path, width / 2)
        counts["line_marker"] += sum(
            "lines" in stations[name] and line not in stations[name]["lines"] and disc.intersects(stroke)
            for name, disc in discs.items()
        )
    return counts


def map_quality(truth: Mapping[str, Any]) -> dict[str, Any]:
    """Labels, ambiguous, far and leader labels, lines and bends, :func:`label_crossings` and
    :func:`marker_crossings` of one map, as counts.

    Parameters
    ----------
    truth : mapping
        A rendered map's truth (``MAP.truth.json``).

    Returns
    -------
    dict
        ``labels``, ``ambiguous`` (the stations), ``far``, ``leaders``, ``lines``, ``bends`` and the five
        crossing counts.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 0, "label_box": [4, -5, 30, 5]}},
    ...          "lines": {"L": {"path": [[0, 10], [10, 10]]}}}
    >>> quality = map_quality(truth)
    >>> quality["labels"], quality["ambiguous"], quality["leaders"], quality["lines"], quality["bends"]
    (1, [], 0, 1, 0)
    >>> quality["far"]
    0
    >>> quality["leader_label"], quality["leader_line"], quality["line_label"]
    (0, 0, 0)
    >>> quality["leader_marker"], quality["line_marker"]
    (0, 0)
    """
    bends = line_bends(truth)
    return {
        "labels": len(truth["stations"]),
        "ambiguous": ambiguous_labels(truth),
        "far": len(far_labels(truth)),
        "leaders": len(leader_labels(truth)),
        "lines": len(bends),
        "bends": sum(bends.values()),
        **label_crossings(truth),
        **marker_crossings(truth),
    }
