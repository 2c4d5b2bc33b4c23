"""A synthetic transit map drawn from Metro Data, with its ground truth.

:func:`render_map` lays the stations out on a grid (:mod:`vision.layout`),
moves them where that straightens their lines, draws every line octilinearly
(at most one bend per hop) in its colour, a white marker at each station and
the station's name beside it, nearer its own marker than any other
(:mod:`vision.labels`; a leader line where no spot beside it is free), each
line's name in a badge of its colour at each terminus and in a legend under
the map (:mod:`vision.legend`), and records what it drew: each marker centre,
label box and leader, each line's colour, drawn path, shown name and the boxes
of its badges and legend entry. :func:`write_rendered` writes ``MAP.png`` (or a JPEG)
and ``MAP.truth.json`` beside it (format in :mod:`vision.evidence`). The
same graph, seed and options give byte-identical files.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from graphkit.choices import check_choice
from graphkit.files import atomic_writer
from graphkit.graph import TransitGraph
from vision.fonts import check_drawable, load_font, script_of
from vision.knobs import DEFAULT_KNOBS, Knobs, crossing_layout, knob_colours, realised_knobs
from vision.label_drawing import OWN_LABEL_SHARE, TEXT, WHITE, paint_labels, place_labels
from vision.labels import LabelPlacer
from vision.layout import GridLayout, grid_layout, straighten
from vision.legend import LEGEND_ROW, LEGEND_SWATCH, Legend, badge_patch, legend_layout, line_label, line_termini
from vision.palettes import PALETTES, Palette, line_colours
from vision.strokes import Hops, hop_strokes, map_hops, marker_radii

__all__ = [
    "PALETTES",
    "MIN_SIZE",
    "MAX_SIZE",
    "png_bytes",
    "RenderedMap",
    "default_size",
    "line_colours",
    "render_map",
    "truth_json",
    "truth_path",
    "write_rendered",
]

MIN_SIZE, MAX_SIZE = 256, 8000
# at the default size a grid cell is this many pixels: a label is about 3/10 of it, a line about 1/8
_CELL_PX = 66
# a label's height as a share of a grid cell: the map's own first; at the default size a map whose labels cannot
# all keep clear of other labels and lines is drawn again on a sparser grid (the same label size, more room)
_LABEL_SHARES = (OWN_LABEL_SHARE, 0.25, 0.2, 0.15)
_MARGIN_CELLS = 1.2
_TEXT, _OUTLINE, _WHITE = TEXT, (34, 34, 34), WHITE


@dataclass(frozen=True, slots=True)
class RenderedMap:
    """A drawn map: ``image`` (Pillow, RGB) and ``truth`` (what was drawn where; see :mod:`vision.evidence`)."""

    image: Any
    truth: dict[str, Any]


def _check_options(palette: str, size: int | None, seed: int) -> None:
    check_choice(palette, sorted(PALETTES), what="palette")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int)):
        raise TypeError(f"size must be an int number of pixels, got {size!r}")
    if size is not None and not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be between {MIN_SIZE} and {MAX_SIZE} pixels (the longest side), got {size}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {seed!r}")


# -- geometry ------------------------------------------------------------------------------------------------------
def _label_cells(graph: TransitGraph) -> float:
    """Mean label width in grid cells at the default size (CJK characters are square, Latin ones about half)."""
    widths = [
        sum(1.0 if script_of(char) == "cjk" else 0.56 for char in name)
        for name in map(graph.display_name, graph.stations)
    ]
    return 0.3 * sum(widths) / max(1, len(widths))


def _layout(graph: TransitGraph, seed: int, crossings: int | None = None) -> GridLayout:
    from vision.geography import geographic_coords  # a real city's stations start where they are

    density = 4.0 + 2.2 * _label_cells(graph)
    tidy = straighten(graph, grid_layout(graph, seed=seed, density=density, coords=geographic_coords(graph)))
    if crossings is None:
        return tidy
    return crossing_layout(  # the knob: a layout tangled until its lines cross about that often
        graph,
        crossings,
        tidy,
        lambda coords: straighten(graph, grid_layout(graph, seed=seed, density=density, coords=coords)),
        seed=seed,
    )


def _map_cells(layout: GridLayout) -> tuple[float, float]:
    """The map's width and height in cells, margins included, legend not."""
    return layout.columns - 1 + 2 * _MARGIN_CELLS, layout.rows - 1 + 2 * _MARGIN_CELLS


def _extent(layout: GridLayout, legend: Legend) -> float:
    """The longest side of the canvas in cells: the map, margins, and the legend under it."""
    width, height = _map_cells(layout)
    return max(width, legend.width, height + legend.height)


def default_size(graph: TransitGraph, *, seed: int = 0) -> int:
    """The longest side (pixels) at which labels are drawn about 20 px high on the map's own grid, within the
    size limits: :func:`render_map`'s size unless its labels need a sparser grid.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> 1000 < default_size(city_graph("rome")) < 2500
    True
    """
    layout = _layout(graph, seed)
    return _default_size(layout, legend_layout(graph, _map_cells(layout)[0]))


def _default_size(layout: GridLayout, legend: Legend, label_share: float = _LABEL_SHARES[0]) -> int:
    """The longest side at which labels are about 20 px high when they are ``label_share`` of a cell."""
    cell_px = _CELL_PX * _LABEL_SHARES[0] / label_share
    return min(MAX_SIZE, max(MIN_SIZE, round(cell_px * _extent(layout, legend))))


@dataclass(frozen=True, slots=True)
class _Scale:
    cell: float
    width: int
    height: int
    line_width: int
    font_px: int
    name_px: int  # line names (badges, legend): today's label size, whatever the label-scale knob

    def point(self, cell: tuple[int, int]) -> tuple[int, int]:
        margin = _MARGIN_CELLS * self.cell
        return round(margin + cell[0] * self.cell), round(margin + cell[1] * self.cell)


def _scale(
    layout: GridLayout, legend: Legend, size: int, label_share: float = _LABEL_SHARES[0], label_scale: float = 1.0
) -> _Scale:
    cell = size / _extent(layout, legend)
    map_width, map_height = _map_cells(layout)
    width = round(cell * max(map_width, legend.width))
    height = round(cell * (map_height + legend.height))
    font_px = max(5, round(cell * label_share))
    return _Scale(cell, width, height, max(2, round(cell * 0.125)), max(5, round(font_px * label_scale)), font_px)


# -- drawing -------------------------------------------------------------------------------------------------------
def render_map(
    graph: TransitGraph,
    *,
    seed: int = 0,
    size: int | None = None,
    palette: Palette = "normal",
    rotate_labels: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
    knobs: Knobs = DEFAULT_KNOBS,
) -> RenderedMap:
    """Draw ``graph`` as a transit map and record what was drawn where.

    Parameters
    ----------
    graph : TransitGraph
    seed : int
        Chooses the layout and the colour order; the same seed gives the same map, pixel for pixel.
    size : int, optional
        The longest side in pixels, 256 to 8000; by default about 20 px high labels (:func:`default_size`),
        and where some label's leader could not keep clear of other labels and lines, the map is drawn again
        on a sparser grid (labels 0.25, 0.2, then 0.15 of a cell instead of 0.3: the same labels, a larger
        map, up to 8000 px), the first map with no crossing kept, else the last.
    palette : {"normal", "confusable"}
        Well-separated line colours, or lines that share stations drawn in near-identical colours.
    rotate_labels : bool
        Draw every third station's label at 45°.
    progress : callable, optional
        Called as labels are placed with ``(labels placed, labels in all, longest side of the map being
        drawn)``: at the start of each try (``0``) and after each label.
    knobs : Knobs
        Visual factors turned (:mod:`vision.knobs`): the label size relative to today's, on today's grid
        and canvas (never redrawn sparser: a label with no room takes a leader); line colours whose closest
        two lie a chosen CIEDE2000 apart (the palette is then ignored); how often lines cross away from
        stations (a layout tangled until they cross about that often). When any is turned, the truth records
        ``knobs``: those asked and those realised.

    Returns
    -------
    RenderedMap
        ``truth`` has ``stations`` (``x``, ``y`` marker centre, ``radius`` its radius; ``label_box``
        ``[x0, y0, x1, y1]`` of the text ink, pixel edges, ``x1``/``y1`` exclusive; ``leader``
        ``[[x, y], ...]``, only for a label drawn away from its marker, the drawn line from the marker's rim
        to the label), ``lines`` (``color``, drawn
        ``path``), and ``city``, ``width``, ``height``, ``seed``, ``palette``.

    Raises
    ------
    ValueError
        An unknown palette, a size outside the limits, or a size too small to place every label.
    MissingGlyphs
        A station or line name holds a character its label font has no glyph for (checked first, before
        anything is drawn: the map would show a box where the truth records the character).

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> rendered = render_map(city_graph("miami"), seed=3, size=1200)
    >>> max(rendered.image.size), sorted(rendered.truth["lines"])
    (1200, ['Metrorail Green Line', 'Metrorail Orange Line'])
    """
    _check_options(palette, size, seed)
    # before anything is drawn: a box on the map can never be read back as the name the truth records
    names = [("station", graph.display_name(station)) for station in graph.stations]
    check_drawable([*names, *(("line", line_label(graph, line)) for line in graph.lines)], where=graph.city or "map")
    layout = _layout(graph, seed, knobs.crossings)
    legend = legend_layout(graph, _map_cells(layout)[0])
    plan = _Plan(graph, layout, legend, map_hops(graph, layout), _colours(graph, palette, seed, knobs), seed, palette)
    draw = functools.partial(_render, plan, rotate_labels=rotate_labels, progress=progress)
    if size is not None:
        return draw(_scale(layout, legend, size, _LABEL_SHARES[0], knobs.label_scale), knobs=knobs)
    if knobs.label_scale != 1:  # today's canvas (the grid today's labels fit on), the labels scaled on it
        share = _fit(draw, layout, legend, replace(knobs, label_scale=1.0))[1]
        scale = _scale(layout, legend, _default_size(layout, legend, share), share, knobs.label_scale)
        return draw(scale, knobs=knobs)
    return _fit(draw, layout, legend, knobs)[0]


def _colours(graph: TransitGraph, palette: Palette, seed: int, knobs: Knobs) -> dict[str, str]:
    """Each line's colour: the knob's, else a real city's own (normal palette), else the palette's."""
    from vision.geography import feed_colours  # a real city's lines in their own colours

    if knobs.colour_distance is not None:
        return knob_colours(graph, knobs.colour_distance, seed=seed)
    return (palette == "normal" and feed_colours(graph)) or line_colours(graph, palette, seed=seed)


def _fit(
    draw: Callable[..., RenderedMap | None], layout: GridLayout, legend: Legend, knobs: Knobs
) -> tuple[RenderedMap, float]:
    """The map on the first grid whose labels all keep clear of other labels and lines (else the sparsest
    grid's), and the label share (of a cell) it was drawn with."""
    patches: dict = {}  # the labels drawn by one try, for the next
    for share in _LABEL_SHARES[:-1]:
        scale = _scale(layout, legend, _default_size(layout, legend, share), share)
        # given up (None) at the first label only a crossing leader could place
        rendered = draw(scale, strict=True, patches=patches, knobs=knobs)
        if rendered is not None:
            return rendered, share
    last = _LABEL_SHARES[-1]
    scale = _scale(layout, legend, _default_size(layout, legend, last), last)
    return cast(RenderedMap, draw(scale, patches=patches, knobs=knobs)), last  # only a strict try gives up


@dataclass(frozen=True, slots=True)
class _Plan:
    """What every scale of one map shares: the graph, its layout and legend, the hops, the line colours."""

    graph: TransitGraph
    layout: GridLayout
    legend: Legend
    hops: Hops
    colours: dict[str, str]
    seed: int
    palette: Palette


def _render(
    plan: _Plan,
    scale: _Scale,
    *,
    rotate_labels: bool,
    strict: bool = False,
    patches: dict | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    knobs: Knobs = DEFAULT_KNOBS,
) -> RenderedMap | None:
    """The map drawn at one scale (:func:`render_map`): everything placed first, then painted; ``strict``:
    ``None`` at the first label only a crossing leader could place (nothing painted)."""
    graph, layout, lw = plan.graph, plan.layout, scale.line_width
    points = {station: scale.point(cell) for station, cell in layout.cells.items()}
    strokes, paths = hop_strokes(plan.hops, points, lw)
    radii = marker_radii(graph, plan.hops.lines, lw)
    placer = _placer(plan, scale, strokes, paths, points, radii)
    labels = place_labels(
        graph,
        placer,
        scale,
        radii,
        rotate_labels,
        strict=strict,
        patches=patches,
        progress=progress,
        default_size=lambda: default_size(graph, seed=plan.seed),
    )
    if labels is None:
        return None
    badges, badge_patches = _place_badges(plan, placer, scale, points, radii)
    image = _paint(plan, scale, strokes, points, radii, labels, badges, badge_patches)
    legend_boxes = _draw_legend(image, plan.legend, _legend_top(plan, scale), scale, plan.colours)
    leaders = {label.station: label.placement.leader for label in labels if label.placement.leader}
    _draw_leaders(image, leaders.values(), lw)  # drawn last, so no label's halo cuts one
    boxes = {label.station: label.box for label in labels}
    truth = _truth(plan, scale, points, radii, boxes, leaders, paths, badges, legend_boxes)
    if not knobs.default:  # a map drawn as always keeps the truth it always had
        truth["knobs"] = realised_knobs(truth) | knobs.asked()
    return RenderedMap(image, truth)


def _legend_top(plan: _Plan, scale: _Scale) -> int:
    return round(scale.cell * _map_cells(plan.layout)[1])


def _placer(plan: _Plan, scale: _Scale, strokes, paths, points, radii) -> LabelPlacer:
    """The label placer over the drawn strokes (their own mask) and markers, the legend kept free."""
    import numpy
    from PIL import Image, ImageDraw

    drawn = Image.new("L", (scale.width, scale.height), 0)
    pen = ImageDraw.Draw(drawn)
    for _, route in strokes:
        pen.line(route, fill=1, width=scale.line_width, joint="curve")
    graph = plan.graph
    placer = LabelPlacer(
        scale.width,
        scale.height,
        numpy.asarray(drawn).view(bool),  # drawn 0 or 1: the bytes of a bool mask
        [(*points[s], radii[s]) for s in graph.stations],
        scale.font_px,
        lines=paths,
        station_lines=[graph.lines_at(s) for s in graph.stations],
        line_width=scale.line_width,
    )
    placer.block((0, _legend_top(plan, scale), scale.width, scale.height))
    return placer


def _paint(plan: _Plan, scale: _Scale, strokes, points, radii, labels, badges, badge_patches):
    """The lines, the station markers, the labels and the badges, painted in that order."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scale.width, scale.height), _WHITE)
    draw = ImageDraw.Draw(image)
    for line, route in strokes:
        draw.line(route, fill=plan.colours[line], width=scale.line_width, joint="curve")
    outline = max(1, round(scale.line_width / 4))
    for station in plan.graph.stations:
        (x, y), r = points[station], radii[station]
        draw.ellipse((x - r, y - r, x + r, y + r), fill=_WHITE, outline=_OUTLINE, width=outline)
    paint_labels(image, labels)
    for line, placed in badges.items():
        for badge in placed:
            image.paste(badge_patches[line], tuple(badge["box"][:2]))
    return image


def _draw_leaders(image, leaders, lw: int) -> None:
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    for leader in leaders:
        draw.line(leader, fill=_OUTLINE, width=max(1, round(lw / 3)))


def _truth(plan: _Plan, scale: _Scale, points, radii, boxes, leaders, paths, badges, legend_boxes) -> dict[str, Any]:
    """What was drawn where (the format of :mod:`vision.evidence`)."""
    graph = plan.graph
    return {
        "city": graph.city,
        "width": scale.width,
        "height": scale.height,
        "seed": plan.seed,
        "palette": plan.palette,
        "line_width": scale.line_width,
        "stations": {
            station: {
                "x": float(points[station][0]),
                "y": float(points[station][1]),
                "radius": radii[station],
                "label_box": boxes[station],
                "lines": list(graph.lines_at(station)),
                **({"leader": [list(point) for point in leaders[station]]} if station in leaders else {}),
            }
            for station in graph.stations
        },
        "lines": {
            line: {
                "color": plan.colours[line],
                "path": [[round(x, 2), round(y, 2)] for x, y in paths[line]],
                "name": line_label(graph, line),
                "badges": badges[line],
                "legend": legend_boxes[line],
            }
            for line in graph.lines
        },
    }


def _place_badges(plan: _Plan, placer: LabelPlacer, scale: _Scale, points, radii):
    """Each line's badge beside each of its termini (off strokes, labels and leaders): their boxes, and each
    line's badge drawn."""
    graph = plan.graph
    badges: dict[str, list[dict[str, Any]]] = {}
    patches = {}
    for line in graph.lines:
        patch = patches[line] = badge_patch(line_label(graph, line), plan.colours[line], scale.name_px)
        badges[line] = []
        for station in line_termini(graph, line):
            corner = placer.place_box(points[station], radii[station] + 1, patch.size, scale.cell * 0.4)
            if corner is None:
                raise ValueError(
                    f"{graph.city}: size {max(scale.width, scale.height)} px is too small to place the badge of "
                    f"{line!r}; use a larger size"
                )
            x, y = corner
            badges[line].append({"station": station, "box": [x, y, x + patch.width, y + patch.height]})
    return badges, patches


def _draw_legend(image, legend: Legend, top: int, scale: _Scale, colours) -> dict[str, list[int]]:
    """The legend under the map: per line a swatch in its colour and its name; each name's ink box."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    boxes: dict[str, list[int]] = {}
    for line, name, column, row in legend.entries:
        x = round(column * scale.cell)
        middle = round(top + (0.2 + (row + 0.5) * LEGEND_ROW) * scale.cell)
        swatch = round(LEGEND_SWATCH * scale.cell)
        draw.line((x, middle, x + swatch, middle), fill=colours[line], width=round(scale.line_width * 1.5))
        font = load_font(script_of(name), scale.name_px)
        origin = (x + swatch + round(0.2 * scale.cell), middle)
        draw.text(origin, name, font=font, fill=_TEXT, anchor="lm")
        boxes[line] = [int(v) for v in draw.textbbox(origin, name, font=font, anchor="lm")]
    return boxes


# -- files ---------------------------------------------------------------------------------------------------------
def truth_path(map_path: str | Path) -> Path:
    """Where a map's ground truth lives: ``MAP.png`` (or ``MAP.jpg``) → ``MAP.truth.json`` beside it.

    Examples
    --------
    >>> truth_path("out/rome.png").as_posix()
    'out/rome.truth.json'
    """
    path = Path(map_path)
    return path.with_name(path.stem + ".truth.json")


def truth_json(truth: dict[str, Any]) -> str:
    """The truth as JSON text: keys sorted, UTF-8 names as written, one trailing newline (byte-stable)."""
    return json.dumps(truth, ensure_ascii=False, sort_keys=True) + "\n"


def png_bytes(rendered: RenderedMap) -> bytes:
    """The map as PNG bytes: no metadata and a fixed compression, so equal maps give equal bytes."""
    buffer = io.BytesIO()
    rendered.image.save(buffer, format="PNG", compress_level=6, optimize=False)
    return buffer.getvalue()


_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}


def write_rendered(rendered: RenderedMap, out: str | Path) -> tuple[Path, Path]:
    """Write the map as ``out`` (``.png``, or ``.jpg``/``.jpeg`` for JPEG bytes) and its truth beside it.

    The truth goes to ``<stem>.truth.json``; each file is written atomically. Neither image carries
    metadata and both use fixed encoder settings (PNG compression 6; JPEG quality 95, 4:4:4), so equal
    maps give equal bytes.

    Parameters
    ----------
    rendered : RenderedMap
        What :func:`render_map` returns.
    out : str or Path
        The image file to write.

    Returns
    -------
    image, truth : Path
        The two files written.

    Raises
    ------
    ValueError
        ``out`` ends in another suffix; the message lists the valid ones.
    """
    image_path = Path(out)
    kind = _FORMATS.get(image_path.suffix.lower())
    if kind is None:
        raise ValueError(f"{image_path}: the map must be written as one of {sorted(_FORMATS)}")
    if kind == "PNG":
        data = png_bytes(rendered)
    else:
        buffer = io.BytesIO()
        rendered.image.save(buffer, format="JPEG", quality=95, subsampling=0, optimize=False)
        data = buffer.getvalue()
    with atomic_writer(image_path, binary=True) as stream:
        stream.write(data)
    truth = truth_path(image_path)
    with atomic_writer(truth) as stream:
        stream.write(truth_json(rendered.truth))
    return image_path, truth
