"""What a map shows, as values: where each station is, each line's colour and path.

A :class:`MapEvidence` comes either from the vision pipeline (OCR, grounding,
colour estimation) or from a rendered map's ground truth
(``MAP.truth.json``); the diagnosis reads both the same way.

Truth format (written by :mod:`vision.render`)::

    {"stations": {name: {"x": float, "y": float, "label_box": [x0, y0, x1, y1],
                         "leader": [[x, y], ...]}},   # leader: only where one joins label and marker
     "lines": {name: {"color": "#rrggbb", "path": [[x, y], ...],
                      "name": str,                               # the line's name as drawn
                      "badges": [{"station": str, "box": [x0, y0, x1, y1]}],   # one per terminus
                      "legend": [x0, y0, x1, y1]}}}              # the legend entry's text

The map's texts that name no station (``unmatched_texts``: what the OCR read
beside the stations, or the drawn line names of a truth) tell which lines the
picture names: :func:`named_lines`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphkit.names import fold
from vision.errors import InvalidTruth

__all__ = [
    "StationEvidence",
    "LineEvidence",
    "MapEvidence",
    "hex_to_rgb",
    "rgb_to_hex",
    "ciede2000",
    "read_truth",
    "named_lines",
]

Box = tuple[float, float, float, float]
Point = tuple[float, float]
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as an (r, g, b) tuple of 0–255 ints.

    Parameters
    ----------
    colour : str
        ``#rrggbb``.

    Returns
    -------
    (int, int, int)

    Examples
    --------
    >>> hex_to_rgb("#ff8000")
    (255, 128, 0)
    """
    if not isinstance(colour, str) or not _HEX.match(colour):
        raise ValueError(f"a colour must be written #rrggbb, got {colour!r}")
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def rgb_to_hex(rgb: tuple[float, float, float]) -> str:
    """An (r, g, b) triple (0–255, rounded and clipped) as ``"#rrggbb"``.

    Parameters
    ----------
    rgb : (float, float, float)

    Returns
    -------
    str

    Examples
    --------
    >>> rgb_to_hex((255, 127.6, -3))
    '#ff8000'
    """
    return "#" + "".join(f"{min(255, max(0, round(value))):02x}" for value in rgb)


@lru_cache(maxsize=65536)
def ciede2000(a: str, b: str) -> float:
    """The CIEDE2000 colour difference of two ``#rrggbb`` colours (sRGB, D65).

    About 2 is a just-noticeable difference; two lines drawn within 10 of each
    other are easily confused on a map.

    Examples
    --------
    >>> ciede2000("#ff0000", "#ff0000")
    0.0
    >>> round(ciede2000("#000000", "#ffffff"), 1)
    100.0
    """
    import numpy
    from skimage.color import deltaE_ciede2000, rgb2lab

    pair = numpy.array([[hex_to_rgb(a), hex_to_rgb(b)]], dtype=numpy.float64) / 255.0
    lab = rgb2lab(pair)
    return round(float(deltaE_ciede2000(lab[0, 0], lab[0, 1])), 6)


@dataclass(frozen=True, slots=True)
class StationEvidence:
    """Where one station of the Metro Data is on the map.

    Attributes
    ----------
    name : str
        The station.
    found : bool
        Whether the map shows it where it can be read.
    point : (float, float) or None
        The station's marker (the label's centre when only the label was read).
    box : (float, float, float, float) or None
        Its label ``(x0, y0, x1, y1)``.
    score : float
        The match confidence (1.0 for ground truth).
    text : str or None
        What the OCR read there.
    """

    name: str
    found: bool
    point: Point | None = None
    box: Box | None = None
    score: float = 0.0
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "found": self.found,
            "point": None if self.point is None else [round(v, 2) for v in self.point],
            "box": None if self.box is None else [round(v, 2) for v in self.box],
            "score": round(self.score, 4),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class LineEvidence:
    """One line's colour (``"#rrggbb"`` or ``None`` when unknown) and path (pixel points in order).

    Attributes
    ----------
    name : str
        The line.
    colour : str or None
        Its colour.
    path : tuple of (float, float)
        Its drawn path.
    support : float
        The share of the line's found stations showing that colour (within CIEDE2000 6).
    """

    name: str
    colour: str | None
    path: tuple[Point, ...] = ()
    support: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "colour": self.colour,
            "path": [[round(x, 2), round(y, 2)] for x, y in self.path],
            "support": round(self.support, 4),
        }


@dataclass(frozen=True, slots=True)
class MapEvidence:
    """Everything the diagnosis needs to know about one map.

    Attributes
    ----------
    city : str
        The city the map shows.
    stations : mapping of str to StationEvidence
        Where each station of the Metro Data is on the map (found or not).
    lines : mapping of str to LineEvidence
        Each line's colour and path, where known.
    unmatched_texts : tuple of str
        Texts read on the map that name no station.
    source : str
        Where it came from (a file), for messages.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 0, "label_box": [2, -5, 30, 5]},
    ...                       "B": {"x": 100, "y": 0, "label_box": [102, -5, 130, 5]}},
    ...          "lines": {"Red": {"color": "#e00000", "path": [[0, 0], [100, 0]]},
    ...                    "Pink": {"color": "#f01010", "path": [[0, 40], [100, 40]]}}}
    >>> evidence = MapEvidence.from_truth(truth, city="toy")
    >>> evidence.colour_difference("Red", "Pink") < 10
    True
    >>> evidence.distance_to_line("B", "Pink")
    40.0
    """

    city: str
    stations: Mapping[str, StationEvidence]
    lines: Mapping[str, LineEvidence]
    unmatched_texts: tuple[str, ...] = ()
    source: str = ""
    _geometry: dict = field(default_factory=dict, compare=False, repr=False)

    def station(self, name: str) -> StationEvidence | None:
        return self.stations.get(name)

    def colour_difference(self, line_a: str, line_b: str) -> float | None:
        """CIEDE2000 between two lines' colours, or ``None`` when either is unknown."""
        a, b = self.lines.get(line_a), self.lines.get(line_b)
        if a is None or b is None or a.colour is None or b.colour is None:
            return None
        return ciede2000(a.colour, b.colour)

    def _path(self, line: str):
        shape = self._geometry.get(line)
        if shape is None and line in self.lines:
            from shapely.geometry import LineString, Point

            path = self.lines[line].path
            shape = LineString(path) if len(path) >= 2 else Point(path[0]) if path else None
            self._geometry[line] = shape
        return shape

    def distance_to_line(self, station: str, line: str) -> float | None:
        """Pixels from a station's point to a line's drawn path, or ``None`` when either is unknown."""
        found = self.stations.get(station)
        shape = self._path(line)
        if found is None or found.point is None or shape is None:
            return None
        from shapely.geometry import Point

        return round(float(shape.distance(Point(found.point))), 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "city": self.city,
            "source": self.source,
            "stations": {name: found.to_dict() for name, found in self.stations.items()},
            "lines": {name: line.to_dict() for name, line in self.lines.items()},
            "unmatched_texts": list(self.unmatched_texts),
        }

    @classmethod
    def from_truth(cls, truth: Mapping[str, Any], *, city: str = "", source: str = "") -> MapEvidence:
        """Evidence from a renderer's ground truth (see the module docstring).

        Raises
        ------
        InvalidTruth
            A missing or malformed field, named with its station or line.
        """
        where = source or "truth"
        if not isinstance(truth, Mapping):
            raise InvalidTruth(f"{where}: expected a JSON object, got {type(truth).__name__}")
        drawn_city = truth.get("city")
        if city and isinstance(drawn_city, str) and drawn_city and fold(drawn_city) != fold(city):
            # another city's map would turn every station it lacks into a misreading and every line into a confusion
            raise InvalidTruth(f"{where}: the truth of a map of {drawn_city!r}, not of {city!r}")
        stations_in, lines_in = truth.get("stations"), truth.get("lines")
        if not isinstance(stations_in, Mapping) or not isinstance(lines_in, Mapping):
            raise InvalidTruth(f"{where}: needs 'stations' and 'lines' objects")
        stations: dict[str, StationEvidence] = {}
        for name, record in stations_in.items():
            try:
                point = (float(record["x"]), float(record["y"]))
                box = tuple(float(v) for v in record["label_box"]) if record.get("label_box") else None
            except (KeyError, TypeError, ValueError) as error:
                raise InvalidTruth(f"{where}: station {name!r}: needs numbers x, y and label_box ({error})") from None
            if (box is not None and len(box) != 4) or not all(map(math.isfinite, point)):
                raise InvalidTruth(f"{where}: station {name!r}: label_box must be [x0, y0, x1, y1]")
            stations[name] = StationEvidence(name, True, point, box, 1.0, name)
        lines: dict[str, LineEvidence] = {}
        for name, record in lines_in.items():
            try:
                colour = record["color"]
                hex_to_rgb(colour)
                path = tuple((float(x), float(y)) for x, y in record.get("path", ()))
            except (KeyError, TypeError, ValueError) as error:
                raise InvalidTruth(f"{where}: line {name!r}: needs color #rrggbb and a [x, y] path ({error})") from None
            lines[name] = LineEvidence(name, colour.lower(), path, 1.0)
        drawn = tuple(str(record["name"]) for record in lines_in.values() if isinstance(record.get("name"), str))
        return cls(city, stations, lines, drawn, source)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> MapEvidence:
        """The inverse of :meth:`to_dict`."""
        stations = {
            name: StationEvidence(
                name,
                bool(value["found"]),
                None if value.get("point") is None else tuple(value["point"]),
                None if value.get("box") is None else tuple(value["box"]),
                float(value.get("score", 0.0)),
                value.get("text"),
            )
            for name, value in record["stations"].items()
        }
        lines = {
            name: LineEvidence(
                name, value.get("colour"), tuple(tuple(p) for p in value.get("path", ())), value.get("support", 0.0)
            )
            for name, value in record["lines"].items()
        }
        return cls(
            record.get("city", ""), stations, lines, tuple(record.get("unmatched_texts", ())), record.get("source", "")
        )


def read_truth(path: str | Path, *, city: str = "") -> MapEvidence:
    """Read a renderer's ``MAP.truth.json``.

    Parameters
    ----------
    path : str or Path
        The truth file.
    city : str, optional
        The city it shows.

    Returns
    -------
    MapEvidence
        Where the rendered map put each station, its label and each line.

    Raises
    ------
    InvalidTruth
        The file is not JSON or does not follow the format; the message names the file.
    """
    from graphkit.reading import read_json_file

    truth = read_json_file(path, what="truth", error=InvalidTruth)
    return MapEvidence.from_truth(truth, city=city, source=str(path))


def named_lines(evidence: MapEvidence, graph: Any) -> tuple[str, ...]:
    """The lines of ``graph`` (a :class:`graphkit.graph.TransitGraph`) that the map's texts name, in data order.

    Each text that names no station is read as a line name (``1号线`` = ``Line 1``, as the scorer reads it);
    a text that names no line is passed over. What a model shown only the picture's text can call a line.

    Parameters
    ----------
    evidence : MapEvidence
        The map's evidence (its unmatched texts are read).
    graph : TransitGraph
        The city.

    Returns
    -------
    tuple of str
        The lines named, in the data's order.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> found = MapEvidence("rome", {}, {}, ("Line B", "Termini", "Linea C"))
    >>> named_lines(found, city_graph("rome"))
    ('Line B', 'Line C')
    """
    from graphkit.errors import TransitError

    seen: set[str] = set()
    for text in evidence.unmatched_texts:
        try:
            seen.add(graph.resolve_line(text.strip()))
        except (TransitError, ValueError):
            continue
    return tuple(line for line in graph.lines if line in seen)
