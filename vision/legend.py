"""How a rendered map names its lines: a badge in the line's colour at each terminus, and a legend.

:func:`line_label` is the name a map shows for a line, in the map's script
(``Line 1`` is ``1号线`` on a map whose stations are named in Chinese, which
the scorer takes for the same line). :func:`legend_layout` packs one entry per
line (a swatch of the line's colour, then its name) into rows under the map,
in grid cells, so the canvas can be sized before it is drawn;
:func:`badge_patch` draws one badge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from graphkit.graph import TransitGraph
from vision.evidence import hex_to_rgb
from vision.fonts import load_font, script_of

__all__ = ["Legend", "line_label", "line_termini", "legend_layout", "badge_patch", "LEGEND_ROW", "LEGEND_SWATCH"]

# legend geometry in grid cells (a label is 0.3 cell high): row pitch, swatch length, gaps
LEGEND_ROW, LEGEND_SWATCH, _GAP, _SEPARATION, _INSET = 0.62, 0.9, 0.2, 0.9, 0.6
_LINE_NUMBER = re.compile(r"^Line ([0-9A-Za-z]+)$")


def _chinese_map(graph: TransitGraph) -> bool:
    names = [graph.display_name(station) for station in graph.stations]
    return sum(script_of(name) == "cjk" for name in names) * 2 > len(names)


def line_label(graph: TransitGraph, line: str) -> str:
    """The name the map shows for ``line``: its own, or on a Chinese map ``Line N`` as ``N号线``.

    Parameters
    ----------
    graph : TransitGraph
        The city.
    line : str
        One of its lines.

    Returns
    -------
    str
        The name shown.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> line_label(city_graph("beijing"), "Line 1"), line_label(city_graph("beijing"), "房山线")
    ('1号线', '房山线')
    >>> line_label(city_graph("rome"), "Line A")
    'Line A'
    """
    found = _LINE_NUMBER.match(line)
    return f"{found.group(1)}号线" if found and _chinese_map(graph) else line


def line_termini(graph: TransitGraph, line: str) -> tuple[str, ...]:
    """The stations where ``line`` ends (each end of a branch too); a loop's first station.

    Parameters
    ----------
    graph : TransitGraph
        The city.
    line : str
        One of its lines.

    Returns
    -------
    tuple of str
        Its termini, in the line's order.
    """
    topology = graph.line(line)
    ends = tuple(station for station in topology.stations if len(topology.adjacency.get(station, ())) <= 1)
    return ends or (topology.stations[0],)


def _text_cells(name: str) -> float:
    """The width of ``name`` in grid cells when drawn 0.3 cell high."""
    return load_font(script_of(name), 100).getlength(name) / 100 * 0.3


@dataclass(frozen=True, slots=True)
class Legend:
    """Where each line's legend entry starts (``(line, name, column, row)``, columns in cells), and the size.

    Attributes
    ----------
    entries : tuple of (str, str, float, int)
        Per line: the line, the name shown, its column and its row.
    width, height : float
        The legend's size, in cells.
    """

    entries: tuple[tuple[str, str, float, int], ...]
    width: float
    height: float


def legend_layout(graph: TransitGraph, width: float) -> Legend:
    """The legend's entries packed into rows at most ``width`` cells wide (wider when one entry needs it).

    Parameters
    ----------
    graph : TransitGraph
        The city.
    width : float
        The widest row, in cells.

    Returns
    -------
    Legend
        The entries' places and the legend's size.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> legend = legend_layout(city_graph("rome"), 20.0)
    >>> [(line, row) for line, _, _, row in legend.entries]
    [('Line A', 0), ('Line B', 0), ('Line C', 0)]
    """
    sizes = [(line, line_label(graph, line)) for line in graph.lines]
    spans = [LEGEND_SWATCH + _GAP + _text_cells(name) for _, name in sizes]
    width = max([width, *(span + 2 * _INSET for span in spans)])
    entries: list[tuple[str, str, float, int]] = []
    column, row = _INSET, 0
    for (line, name), span in zip(sizes, spans):
        if column > _INSET and column + span > width - _INSET:
            column, row = _INSET, row + 1
        entries.append((line, name, column, row))
        column += span + _SEPARATION
    rows = row + 1 if entries else 0
    return Legend(tuple(entries), width, 0.4 + rows * LEGEND_ROW if rows else 0.0)


def _text_colour(colour: str) -> tuple[int, int, int]:
    """White or near-black, whichever contrasts more with ``colour`` (WCAG relative luminance)."""

    def channel(value: int) -> float:
        value = value / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(v) for v in hex_to_rgb(colour))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return (255, 255, 255) if (1.05 / (luminance + 0.05)) >= ((luminance + 0.05) / 0.0603) else (20, 20, 20)


def badge_patch(name: str, colour: str, font_px: int) -> Any:
    """A line's badge: ``name`` in white or black on a rounded box of the line's ``colour`` (Pillow RGB).

    Parameters
    ----------
    name : str
        The name shown.
    colour : str
        The line's ``#rrggbb``.
    font_px : int
        The text's size.

    Returns
    -------
    PIL image
        The badge (the text in whichever of white and black reads better on the colour).
    """
    from PIL import Image, ImageDraw

    font = load_font(script_of(name), font_px)
    x0, y0, x1, y1 = font.getbbox(name)
    pad_x, pad_y = max(2, round(0.4 * font_px)), max(2, round(0.3 * font_px))
    size = (x1 - x0 + 2 * pad_x, y1 - y0 + 2 * pad_y)
    patch = Image.new("RGB", size, (255, 255, 255))
    draw = ImageDraw.Draw(patch)
    draw.rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius=max(1, pad_y), fill=colour)
    draw.text((pad_x - x0, pad_y - y0), name, font=font, fill=_text_colour(colour))
    return patch
