"""Station labels drawn for :mod:`vision.render`: each name as a patch, placed by :class:`vision.labels.LabelPlacer`.

A label is drawn on its own (text and halo masks), placed beside its marker or with a leader, smaller where
its own size finds no clean spot, and pasted onto the map. The patches drawn for one map are kept for its
next try on a sparser grid, which draws its labels at the same sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphkit.graph import TransitGraph
from vision.errors import VisionError
from vision.fonts import load_font, script_of
from vision.labels import LabelPlacer

__all__ = ["OWN_LABEL_SHARE", "TEXT", "WHITE", "Crowded", "draw_labels"]

# a label's height as a share of a grid cell on the map's own grid
OWN_LABEL_SHARE = 0.3
TEXT, WHITE = (26, 26, 26), (255, 255, 255)


@dataclass(frozen=True, slots=True)
class _Patch:
    """A label drawn on its own: text and halo masks of the same size, and the text ink box inside them."""

    text: Any
    halo: Any
    ink: tuple[int, int, int, int]


def _patch(name: str, font_px: int, angle: int, patches: dict | None = None) -> _Patch:
    """The label ``name`` drawn at ``font_px``, turned by ``angle``; kept in ``patches`` (when given) for the
    next ask: a map drawn again on a sparser grid draws its labels at the same sizes."""
    key = (name, font_px, angle)
    if patches is not None and key in patches:
        return patches[key]
    drawn = _draw_patch(name, font_px, angle)
    if patches is not None:
        patches[key] = drawn
    return drawn


def _draw_patch(name: str, font_px: int, angle: int) -> _Patch:
    from PIL import Image, ImageDraw

    font = load_font(script_of(name), font_px)
    halo = max(1, round(font_px * 0.18))
    x0, y0, x1, y1 = font.getbbox(name, stroke_width=halo)
    pad = 2
    size = (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad)
    text, around = Image.new("L", size, 0), Image.new("L", size, 0)
    origin = (pad - x0, pad - y0)
    ImageDraw.Draw(text).text(origin, name, font=font, fill=255)
    ImageDraw.Draw(around).text(origin, name, font=font, fill=255, stroke_width=halo, stroke_fill=255)
    if angle:
        text = text.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
        around = around.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    box = around.getbbox() or (0, 0, 1, 1)
    text, around = text.crop(box), around.crop(box)
    return _Patch(text, around, text.getbbox() or (0, 0, 1, 1))


def _place_label(
    placer: LabelPlacer,
    name: str,
    index: int,
    radius: int,
    scale,
    angle: int,
    *,
    strict: bool = False,
    patches: dict | None = None,
):
    """A label's placement and patch (the name a map shows): at the map's font beside its marker or with a
    leader that crosses no other label and no other line; else smaller beside its marker; else smaller with
    such a clean leader; else at the map's font with the leader that crosses least (``strict``: raises
    :class:`Crowded` instead). ``(None, patch)`` when the canvas has no room at all."""
    patch = _patch(name, scale.font_px, angle, patches)
    # rings widen by 0.4 of a cell of the map's own grid: on a sparser grid, in the same pixels (not farther)
    step = min(scale.cell, scale.font_px / OWN_LABEL_SHARE) * 0.4
    placed = placer.place(index, radius + 1, patch.halo.size, patch.ink, step, crossing=False)
    if placed is not None:
        return placed, patch
    fallback = placer.pending()
    smaller = [_patch(name, font_px, angle, patches) for font_px in _smaller_fonts(scale.font_px)]
    for leader in (False, True):
        for small in smaller:
            placed = placer.place(index, radius + 1, small.halo.size, small.ink, step, crossing=False, leader=leader)
            if placed is not None:
                return placed, small
    if strict and fallback is not None:
        raise Crowded(name)
    return (placer.place_fallback(fallback) if fallback is not None else None), patch


def _smaller_fonts(font_px: int) -> list[int]:
    """The smaller label sizes tried, largest first: 85% and 70% of the map's, never under 8 px.

    Examples
    --------
    >>> _smaller_fonts(20), _smaller_fonts(10)
    ([17, 14], [8])
    """
    return sorted({size for share in (0.85, 0.7) if (size := max(8, round(font_px * share))) < font_px}, reverse=True)


class Crowded(VisionError):
    """A label that only a leader crossing another label or line could place."""


def draw_labels(
    graph: TransitGraph,
    image,
    placer: LabelPlacer,
    scale,
    radii: dict[str, int],
    rotate_labels: bool,
    *,
    strict: bool,
    patches: dict | None,
    progress: Callable[[int, int, int], None] | None,
    default_size: Callable[[], int],
) -> tuple[dict[str, list[int]], dict[str, tuple[tuple[float, float], ...]]]:
    """Each station's label placed (stations on most lines first) and drawn on ``image``: its ink box and its
    leader. ``strict``: :class:`Crowded` is raised at the first label only a crossing leader could place;
    ``progress`` is told the labels placed; ``default_size()`` names the size to use when one does not fit."""
    rank = {name: index for index, name in enumerate(graph.stations)}
    order = sorted(graph.stations, key=lambda s: (-len(graph.lines_at(s)), rank[s]))
    boxes: dict[str, list[int]] = {}
    leaders: dict[str, tuple[tuple[float, float], ...]] = {}
    longest = max(scale.width, scale.height)
    for done, station in enumerate(order):
        if progress is not None:
            progress(done, len(order), longest)
        angle = 45 if rotate_labels and rank[station] % 3 == 1 else 0
        name = graph.display_name(station)
        placed, patch = _place_label(
            placer, name, rank[station], radii[station], scale, angle, strict=strict, patches=patches
        )
        if placed is None:
            raise ValueError(
                f"{graph.city}: size {longest} px is too small to place the label of {station!r}; use a larger "
                f"size (default {default_size()})"
            )
        x, y = placed.corner
        image.paste(WHITE, (x, y, x + patch.halo.width, y + patch.halo.height), patch.halo)
        image.paste(TEXT, (x, y, x + patch.text.width, y + patch.text.height), patch.text)
        x0, y0, x1, y1 = patch.ink
        boxes[station] = [x + x0, y + y0, x + x1, y + y1]
        if placed.leader:
            leaders[station] = placed.leader
    if progress is not None:
        progress(len(order), len(order), longest)
    return boxes, leaders
