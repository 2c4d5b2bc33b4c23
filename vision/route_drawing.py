"""The answer's route and the reference route, drawn on the map the question was asked about.

For a wrong answer a researcher wants to see what the model did. :func:`answer_route` places each station
an answer names where the map evidence shows it (a rendered map's truth, or the OCR grounding of a real
map: :class:`~vision.evidence.MapEvidence`), section by section, each coloured by the line the answer
names; :func:`reference_route` does the same for a reference. :func:`draw_routes` draws both on a crop of
the map around them (both routes' stations and labels, a margin, scaled down to at most
:data:`MAX_SIDE` pixels): the map faded, the reference as a grey band with hollow rings, the answer's
rides in their lines' colours (dashed where the named line does not run between the two stations), its
stops as dots and its transfer stations as larger black-ringed dots; stations the map does not show are
listed under it ("not found on the map: X, Y"). Without an image the crop is drawn from the evidence
alone (its stations as grey dots). :func:`vision.diagnosis_drawings.draw_diagnoses` draws one PNG per
wrong answer of a diagnosis run (``reasonmap diagnose --draw DIR``).

A short answer names only each ride's ends: its stops in between are the ones the named line serves
(the ride the answer implies); a long answer's via stops are drawn as written.

The PNG is laid out in whole pixels at 100 dpi (no tight bounding box), so a map point ``(x, y)`` lands
at ``RouteDrawing.pixel(x, y)``; bytes carry no date or version (:func:`benchmarks.plotting.save_figure`).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.plotting import COLOURS, figure_style, save_png
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import ParsedAnswer, ParsedSection, Question
from benchmarks.reasonmap.resolution import Unresolved, graph_names
from graphkit.graph import TransitGraph
from graphkit.segments import Segment
from vision.evidence import MapEvidence

__all__ = [
    "MAX_SIDE",
    "UNKNOWN_LINE_COLOUR",
    "RouteStop",
    "RouteSection",
    "DrawnRoute",
    "RouteDrawing",
    "answer_route",
    "reference_route",
    "route_window",
    "draw_routes",
]

MAX_SIDE = 1200  # the crop's longest side in the PNG, in pixels: a larger window is scaled down
MARGIN = 60  # map pixels around the routes' stations and labels
UNKNOWN_LINE_COLOUR = "#7f7f7f"  # a route name that is no line of the city
_DPI = 100
_PAD = 10  # pixels around the crop
_MIN_WIDTH = 640  # the PNG is at least this wide, so that title and legend fit
_TITLE_PX, _NOTE_PX, _LEGEND_ROW_PX = 15, 14, 17
_STOP_PX, _TRANSFER_PX, _RING_PX, _BAND_PX = 8, 15, 18, 16
_REFERENCE = "#000000"
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class RouteStop:
    """A station of a drawn route: as written (``text``), the ``station`` it names, where the map shows it.

    Attributes
    ----------
    text : str
        The station as the answer writes it.
    station : str or None
        The station it names (``None``: none).
    point : (float, float) or None
        Where the map shows it (``None``: not found).
    """

    text: str
    station: str | None
    point: Point | None


@dataclass(frozen=True, slots=True)
class RouteSection:
    """One ride: the route name as written, the ``line`` it names, its drawn ``colour`` and its stops in order.

    ``rides`` is whether the line runs between the section's two ends (else it is drawn as a dashed chord).

    Attributes
    ----------
    route_name : str
        The route name as written.
    line : str or None
        The line it names.
    colour : str
        Its drawn ``#rrggbb``.
    stops : tuple of RouteStop
        Its stops in order.
    rides : bool
        The line runs between the section's two ends.
    """

    route_name: str
    line: str | None
    colour: str
    stops: tuple[RouteStop, ...]
    rides: bool


@dataclass(frozen=True, slots=True)
class DrawnRoute:
    """A route's sections, placed on one map.

    Attributes
    ----------
    sections : tuple of RouteSection
        Its rides in order.
    """

    sections: tuple[RouteSection, ...]

    @property
    def transfers(self) -> tuple[RouteStop, ...]:
        """Where the route changes line: each section's arrival but the last."""
        return tuple(section.stops[-1] for section in self.sections[:-1])

    @property
    def points(self) -> tuple[Point, ...]:
        return tuple(stop.point for section in self.sections for stop in section.stops if stop.point is not None)

    @property
    def unplaced(self) -> tuple[str, ...]:
        """The stations the map does not show, as written, each once, in route order."""
        missing = (stop.station or stop.text for section in self.sections for stop in section.stops if not stop.point)
        return tuple(dict.fromkeys(missing))


@dataclass(frozen=True, slots=True)
class RouteDrawing:
    """A written drawing: its ``path``, the map ``window`` it shows and where that lies in the PNG.

    ``box`` is the crop's pixel box ``(left, top, right, bottom)`` in the PNG and ``size`` the PNG's
    ``(width, height)``; ``unplaced`` the stations listed as not found on the map.

    Attributes
    ----------
    path : Path
        The PNG.
    window : (int, int, int, int)
        The map window shown.
    box : (int, int, int, int)
        Where the crop lies in the PNG.
    size : (int, int)
        The PNG's width and height.
    unplaced : tuple of str
        The stations not found on the map.
    """

    path: Path
    window: tuple[int, int, int, int]
    box: tuple[int, int, int, int]
    size: tuple[int, int]
    unplaced: tuple[str, ...]

    def pixel(self, x: float, y: float) -> tuple[float, float]:
        """Where the map point ``(x, y)`` is drawn in the PNG.

        Examples
        --------
        >>> RouteDrawing(Path("d.png"), (100, 50, 300, 150), (10, 40, 110, 90), (640, 200), ()).pixel(200, 100)
        (60.0, 65.0)
        """
        (x0, y0, x1, y1), (left, top, right, bottom) = self.window, self.box
        return left + (x - x0) * (right - left) / (x1 - x0), top + (y - y0) * (bottom - top) / (y1 - y0)


def _line_colour(line: str | None, graph: TransitGraph, evidence: MapEvidence) -> str:
    """The colour the map shows the line in; a line the evidence has no colour for gets a palette colour."""
    if line is None or line not in graph.lines:
        return UNKNOWN_LINE_COLOUR
    found = evidence.lines.get(line)
    if found is not None and found.colour is not None:
        return found.colour
    return COLOURS[list(graph.lines).index(line) % len(COLOURS)]


def _stop(text: str, station: str | Unresolved | None, evidence: MapEvidence) -> RouteStop:
    name = station if isinstance(station, str) else None
    found = evidence.station(name) if name is not None else None
    point = found.point if found is not None and found.found and found.point is not None else None
    return RouteStop(text.strip(), name, point)


def _sections(
    sections: Sequence[ParsedSection | Segment], graph: TransitGraph, evidence: MapEvidence, ends: tuple[str, str]
) -> DrawnRoute:
    names = graph_names(graph)
    drawn = []
    last = len(sections) - 1
    for index, section in enumerate(sections):
        line = section.route_name if section.route_name in graph.lines else names.line(section.route_name)
        departure = names.station(section.departure_stop, line, ends[0] if index == 0 else None)
        arrival = names.station(section.arrival_stop, line, ends[1] if index == last else None)
        ride = None
        if line is not None and isinstance(departure, str) and isinstance(arrival, str):
            ride = graph.ride(line, departure, arrival)
        if section.via_stops is not None:
            via = [_stop(text, names.station(text, line), evidence) for text in section.via_stops]
        elif ride is not None:  # the stops the named line serves between the two ends: the ride implied
            via = [_stop(station, station, evidence) for station in ride[1][0]]
        else:
            via = []
        stops = (
            _stop(section.departure_stop, departure, evidence),
            *via,
            _stop(section.arrival_stop, arrival, evidence),
        )
        colour = _line_colour(line, graph, evidence)
        drawn.append(RouteSection(section.route_name, line, colour, stops, ride is not None))
    return DrawnRoute(tuple(drawn))


def answer_route(
    response: str, kind: str, question: Question, graph: TransitGraph, evidence: MapEvidence
) -> DrawnRoute | None:
    """The route an answer states, placed on the map; ``None`` when the answer states no route.

    Parameters
    ----------
    response : str
        The model's answer text.
    kind : {"short", "long"}
        Which of the question's kinds it answers.
    question : Question
        The route question.
    graph : TransitGraph
        Its city's graph (names in the answer are resolved against it).
    evidence : MapEvidence
        Where the map shows its stations.

    Returns
    -------
    DrawnRoute or None
        The answer's sections, each stop placed where the map shows it (``None`` where it is not found, listed
        in ``unplaced``); ``None`` when the answer states no route.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> from vision.render import render_map
    >>> graph = city_graph("rome")
    >>> question = generate_questions(graph, seed=1, per_city=1)[0]
    >>> evidence = MapEvidence.from_truth(render_map(graph, seed=0).truth, city="rome")
    >>> route = answer_route("Route Name: Line B\\nDeparture Stop: Colosseo\\nArrival Stop: Nowhere Plaza",
    ...                      "short", question, graph, evidence)
    >>> [stop.station for stop in route.sections[0].stops], route.unplaced, route.sections[0].rides
    (['Colosseo Station', None], ('Nowhere Plaza',), False)
    """
    template = question.long_template if kind == "long" else None
    parsed = parse_answer(response, kind=kind, template=template)
    if not isinstance(parsed, ParsedAnswer) or not parsed.sections:
        return None
    return _sections(parsed.sections, graph, evidence, (question.station_1, question.station_2))


def reference_route(question: Question, graph: TransitGraph, evidence: MapEvidence, *, index: int = 0) -> DrawnRoute:
    """A reference route of the question (the first by default), placed on the map.

    Parameters
    ----------
    question : Question
        The route question.
    graph : TransitGraph
        Its city's graph.
    evidence : MapEvidence
        Where the map shows its stations.
    index : int, optional
        Which of the question's reference routes.

    Returns
    -------
    DrawnRoute
        The route's sections, each stop placed where the map shows it.
    """
    return _sections(question.routes[index], graph, evidence, (question.station_1, question.station_2))


def route_window(
    routes: Iterable[DrawnRoute | None],
    evidence: MapEvidence,
    size: tuple[int, int],
    *,
    margin: float = MARGIN,
) -> tuple[int, int, int, int]:
    """The map window ``(x0, y0, x1, y1)`` that shows the routes: their stations and labels, and ``margin``.

    Clipped to the map (``size``); the whole map when no station is placed.

    Parameters
    ----------
    routes : iterable of DrawnRoute or None
        The routes (``None``: an answer that stated none).
    evidence : MapEvidence
        The map's labels.
    size : (int, int)
        The map's width and height.
    margin : float, optional
        Pixels around the routes.

    Returns
    -------
    (int, int, int, int)
        The window.

    Examples
    --------
    >>> stops = (RouteStop("A", "A", (100.0, 100.0)), RouteStop("B", "B", (300.0, 180.0)))
    >>> route = DrawnRoute((RouteSection("Line 1", "Line 1", "#ff0000", stops, True),))
    >>> route_window([route, None], MapEvidence("toy", {}, {}), (1000, 1000), margin=50)
    (50, 50, 350, 230)
    """
    points, boxes = [], []
    for route in routes:
        if route is None:
            continue
        for section in route.sections:
            for stop in section.stops:
                if stop.point is None:
                    continue
                points.append(stop.point)
                found = evidence.station(stop.station) if stop.station else None
                if found is not None and found.box is not None:
                    boxes.append(found.box)
    width, height = size
    if not points:
        return 0, 0, width, height
    xs = [x for x, _ in points] + [v for box in boxes for v in (box[0], box[2])]
    ys = [y for _, y in points] + [v for box in boxes for v in (box[1], box[3])]
    x0, y0 = max(0, math.floor(min(xs) - margin)), max(0, math.floor(min(ys) - margin))
    x1, y1 = min(width, math.ceil(max(xs) + margin)), min(height, math.ceil(max(ys) + margin))
    return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)


def _evidence_size(evidence: MapEvidence) -> tuple[int, int]:
    """The canvas a map without an image is drawn on: every station and line point, and a margin."""
    xs, ys = [0.0], [0.0]
    for found in evidence.stations.values():
        for x, y in [found.point] if found.point is not None else []:
            xs.append(x)
            ys.append(y)
        if found.box is not None:
            xs += [found.box[0], found.box[2]]
            ys += [found.box[1], found.box[3]]
    for line in evidence.lines.values():
        xs += [x for x, _ in line.path]
        ys += [y for _, y in line.path]
    return math.ceil(max(xs) + MARGIN), math.ceil(max(ys) + MARGIN)


def _background(image: Any, evidence: MapEvidence, window: tuple[int, int, int, int], shape: tuple[int, int]) -> Any:
    """The window of the map, scaled to ``shape`` and faded so that the drawn routes stand out."""
    from PIL import Image

    if image is None:
        return Image.new("RGB", shape, "white")
    crop = image.convert("RGB").crop(window)
    if crop.size != shape:
        crop = crop.resize(shape, Image.Resampling.LANCZOS)
    return Image.blend(crop, Image.new("RGB", shape, "white"), 0.6)


def _notes(answer: DrawnRoute | None, reference: DrawnRoute, image: Any) -> list[str]:
    notes = []
    if answer is None:
        notes.append("the answer states no route: the reference alone is drawn")
    missing = list(dict.fromkeys([*(answer.unplaced if answer else ()), *reference.unplaced]))
    if missing:
        notes.append("not found on the map: " + ", ".join(missing))
    for number, section in enumerate(answer.sections if answer else (), start=1):
        if not _drawn(section):  # drawn what can be placed; said what could not
            lost = [stop.station or stop.text for stop in section.stops if stop.point is None]
            notes.append(f"ride {number} ({section.route_name.strip()}) not drawn: {', '.join(lost)} not placed")
    if image is None:
        notes.append("no map image: stations drawn where the evidence places them")
    return notes


def _at_labels(routes: Iterable[DrawnRoute | None], evidence: MapEvidence) -> bool:
    """Whether a placed station sits at its label's centre: where OCR grounding puts a station it read."""
    for route in routes:
        for stop in (stop for section in route.sections for stop in section.stops) if route else ():
            found = evidence.station(stop.station) if stop.point is not None and stop.station else None
            if found is not None and found.box is not None:
                x0, y0, x1, y1 = found.box
                if stop.point == ((x0 + x1) / 2, (y0 + y1) / 2):
                    return True
    return False


def _legend(answer: DrawnRoute | None) -> tuple[list[Any], list[str]]:
    from matplotlib.lines import Line2D

    band = Line2D([], [], color=_REFERENCE, alpha=0.3, linewidth=_BAND_PX * 72 / _DPI * 0.6, solid_capstyle="round")
    handles = [band]
    names = ["reference route"]
    seen: dict[tuple[str, str], None] = {}
    for section in answer.sections if answer else ():
        if _drawn(section):  # the legend names only what the picture shows
            seen.setdefault((section.route_name.strip(), section.colour), None)
    for name, colour in seen:
        handles.append(Line2D([], [], color=colour, linewidth=3.5 * 72 / _DPI, marker="o", markeredgecolor="black"))
        names.append(f"answer: {name}")
    if answer and answer.transfers:
        handles.append(_transfer_handle())
        names.append("answer's transfer station")
    if answer and any(_chord(section) for section in answer.sections):
        handles.append(Line2D([], [], color="black", linestyle=(0, (3, 2)), linewidth=1.5))
        names.append("no ride of that line between these stations")
    return handles, names


def _drawn(section: RouteSection) -> bool:
    """Whether a ride is drawn: two of its stops at least are placed on the map."""
    return sum(stop.point is not None for stop in section.stops) >= 2


def _chord(section: RouteSection) -> bool:
    """Whether the section is drawn as a dashed chord: two placed stations the named line does not join."""
    return not section.rides and sum(stop.point is not None for stop in section.stops) >= 2


def _transfer_handle() -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], color="white", marker="o", linestyle="", markersize=_TRANSFER_PX * 72 / _DPI * 0.8,
                  markeredgecolor="black", markeredgewidth=2)  # fmt: skip


def _draw_route(axis: Any, route: DrawnRoute) -> None:
    from matplotlib import patheffects

    outline = [patheffects.Stroke(linewidth=5.5 * 72 / _DPI, foreground="black"), patheffects.Normal()]
    for section in route.sections:
        if _drawn(section):
            xs, ys = zip(*(stop.point for stop in section.stops if stop.point is not None))
            style = "-" if section.rides else (0, (3, 2))
            axis.plot(xs, ys, color=section.colour, linewidth=3.5 * 72 / _DPI, linestyle=style,
                      path_effects=outline, solid_capstyle="round", zorder=3)  # fmt: skip
    for section in route.sections:
        for stop in section.stops:
            if stop.point is not None:
                axis.plot(*stop.point, "o", markersize=_STOP_PX * 72 / _DPI, color=section.colour,
                          markeredgecolor="black", markeredgewidth=1, zorder=4)  # fmt: skip
    for section in route.sections[:-1]:  # a transfer: the arriving ride's colour in a thick black ring
        stop = section.stops[-1]
        if stop.point is not None:
            axis.plot(*stop.point, "o", markersize=_TRANSFER_PX * 72 / _DPI, color=section.colour,
                      markeredgecolor="black", markeredgewidth=2.5 * 72 / _DPI, zorder=5)  # fmt: skip


def _draw_reference(axis: Any, route: DrawnRoute) -> None:
    for section in route.sections:
        placed = [stop.point for stop in section.stops if stop.point is not None]
        if placed:
            xs, ys = zip(*placed)
            axis.plot(xs, ys, color=_REFERENCE, alpha=0.3, linewidth=_BAND_PX * 72 / _DPI, solid_capstyle="round",
                      solid_joinstyle="round", zorder=2)  # fmt: skip
            axis.plot(xs, ys, "o", markersize=_RING_PX * 72 / _DPI, markerfacecolor="none",
                      markeredgecolor=_REFERENCE, markeredgewidth=1.2, alpha=0.6, zorder=2)  # fmt: skip


def _draw_evidence(axis: Any, evidence: MapEvidence, window: tuple[int, int, int, int]) -> None:
    """A map without an image: the evidence's line paths, faint, and its stations as grey dots."""
    for line in evidence.lines.values():
        if len(line.path) >= 2 and line.colour is not None:
            xs, ys = zip(*line.path)
            axis.plot(xs, ys, color=line.colour, alpha=0.35, linewidth=2, zorder=1)
    x0, y0, x1, y1 = window
    for found in evidence.stations.values():
        if found.point is None or not (x0 <= found.point[0] <= x1 and y0 <= found.point[1] <= y1):
            continue
        axis.plot(*found.point, "o", markersize=4, color="#9e9e9e", zorder=1)
        if found.box is not None:  # the name where the map writes it, about as tall
            bx0, by0, bx1, by1 = found.box
            points = min(8.0, max(4.0, (by1 - by0) * 0.6 * 72 / _DPI))
            axis.text((bx0 + bx1) / 2, (by0 + by1) / 2, found.name, ha="center", va="center", fontsize=points,
                      color="#616161", zorder=1)  # fmt: skip
        else:
            axis.annotate(found.name, found.point, xytext=(4, 3), textcoords="offset points", fontsize=6,
                          color="#616161", zorder=1)  # fmt: skip


def draw_routes(
    image: Any,
    evidence: MapEvidence,
    answer: DrawnRoute | None,
    reference: DrawnRoute,
    path: str | Path,
    *,
    title: Sequence[str] = (),
    fonts: Sequence[str | Path] = (),
    max_side: int = MAX_SIDE,
) -> RouteDrawing:
    """Draw the answer's route and the reference on a crop of the map; write it as the PNG ``path``.

    Parameters
    ----------
    image : PIL image or None
        The map; ``None`` draws on a blank canvas from the evidence alone.
    evidence : MapEvidence
        Where the map shows its stations (and line paths, for a blank canvas).
    answer, reference : DrawnRoute
        From :func:`answer_route` (``None``: the answer stated no route) and :func:`reference_route`.
    title : sequence of str
        Lines above the crop (each shortened to fit).
    fonts : sequence of font files
        Back-up fonts for the title and notes (a CJK font for Chinese names).
    max_side : int
        The crop's longest side in the PNG; a larger window is scaled down.

    Returns
    -------
    RouteDrawing
        The file written, the map window it shows and where that lies in the PNG.
    """
    size = image.size if image is not None else _evidence_size(evidence)
    window = route_window([answer, reference], evidence, size)
    x0, y0, x1, y1 = window
    scale = min(1.0, max_side / max(x1 - x0, y1 - y0))
    crop_w, crop_h = max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))
    width = max(crop_w, _MIN_WIDTH) + 2 * _PAD
    characters = int((width - 2 * _PAD) / 6.2)  # 8 pt DejaVu Sans averages about 6 px a character at 100 dpi
    heading = [textwrap.shorten(line, characters, placeholder="…") for line in title]
    notes = _notes(answer, reference, image)
    if _at_labels([answer, reference], evidence):
        notes.append("stations drawn at their labels' centres, where the OCR read them")
    notes = [part for note in notes for part in textwrap.wrap(note, characters)]
    handles, names = _legend(answer)
    columns = min(3, len(handles))
    legend_px = _LEGEND_ROW_PX * -(-len(handles) // columns) + 6
    top = _PAD + _TITLE_PX * len(heading) + (6 if heading else 0)
    height = top + crop_h + 6 + legend_px + _NOTE_PX * len(notes) + _PAD
    left = (width - crop_w) // 2
    box = (left, top, left + crop_w, top + crop_h)
    with figure_style(fonts=fonts) as plt:
        figure = plt.figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI)
        axis = figure.add_axes((left / width, 1 - (top + crop_h) / height, crop_w / width, crop_h / height))
        axis.imshow(_background(image, evidence, window, (crop_w, crop_h)), extent=(x0, x1, y1, y0))
        if image is None:
            _draw_evidence(axis, evidence, window)
        _draw_reference(axis, reference)
        if answer is not None:
            _draw_route(axis, answer)
        axis.set_xlim(x0, x1)
        axis.set_ylim(y1, y0)
        axis.set_axis_off()
        for row, line in enumerate(heading):
            figure.text(_PAD / width, 1 - (_PAD + _TITLE_PX * row) / height, line, ha="left", va="top",
                        fontsize=8.5 if row == 0 else 8)  # fmt: skip
        legend_top = 1 - (top + crop_h + 6) / height
        figure.legend(handles, names, loc="upper left", bbox_to_anchor=(_PAD / width, legend_top), ncols=columns,
                      borderaxespad=0, borderpad=0, handlelength=2.2, columnspacing=1.5)  # fmt: skip
        for row, note in enumerate(notes):
            y = 1 - (top + crop_h + 6 + legend_px + _NOTE_PX * row) / height
            figure.text(_PAD / width, y, note, ha="left", va="top", fontsize=7.5, color="#b71c1c")
        # whole pixels: the PNG is the figure as laid out, so that map points land where pixel() says
        plt.rcParams.update({"savefig.bbox": "standard", "savefig.dpi": _DPI})
        png = save_png(figure, path)
    unplaced = tuple(dict.fromkeys([*(answer.unplaced if answer else ()), *reference.unplaced]))
    return RouteDrawing(png, window, box, (width, height), unplaced)
