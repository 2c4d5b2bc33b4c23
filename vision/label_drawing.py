"""Station labels drawn for :mod:`vision.render`: each name as a patch, placed by :class:`vision.labels.LabelPlacer`.

A label is drawn on its own (text and halo masks), placed beside its marker or with a leader, smaller where
its own size finds no clean spot (the tries declared in :data:`_LADDER`), and pasted onto the map once every
label is placed. The patches drawn for one map are kept for its next try on a sparser grid, which draws its
labels at the same sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from graphkit.graph import TransitGraph
from vision.fonts import load_font, script_of
from vision.labels import Candidate, LabelPlacer, Placement

__all__ = ["OWN_LABEL_SHARE", "TEXT", "WHITE", "PlacedLabel", "ladder", "paint_labels", "place_labels"]

LeaderPolicy = Literal["clean", "beside", "crossing"]

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


# the tries for one label, in order: (font size as a share of the map's, leader policy). "clean": beside its marker,
# or joined to it by a leader that crosses nothing; "beside": beside its marker only; "crossing": the least crossing
# leader the first "clean" try at that size found (a strict try gives up there instead: the map is drawn again on a
# sparser grid). Smaller sizes are never under 8 px, and a size the map's own rounds to is tried once.
_LADDER: tuple[tuple[float, LeaderPolicy], ...] = (
    (1.0, "clean"),
    (0.85, "beside"),
    (0.7, "beside"),
    (0.85, "clean"),
    (0.7, "clean"),
    (1.0, "crossing"),
)


def ladder(font_px: int) -> list[tuple[int, LeaderPolicy]]:
    """The tries of :data:`_LADDER` for a map whose labels are ``font_px`` high, in order.

    Parameters
    ----------
    font_px : int
        The map's label size.

    Returns
    -------
    list of (int, str)
        (font size in pixels, leader policy): smaller sizes never under 8 px and under ``font_px``, each
        (size, policy) once.

    Examples
    --------
    >>> ladder(20)
    [(20, 'clean'), (17, 'beside'), (14, 'beside'), (17, 'clean'), (14, 'clean'), (20, 'crossing')]
    >>> ladder(10)
    [(10, 'clean'), (8, 'beside'), (8, 'clean'), (10, 'crossing')]
    """
    tries: list[tuple[int, LeaderPolicy]] = []
    for share, policy in _LADDER:
        size = font_px if share == 1.0 else max(8, round(font_px * share))
        if (size < font_px or share == 1.0) and (size, policy) not in tries:
            tries.append((size, policy))
    return tries


def _choose_label(placer: LabelPlacer, name: str, index: int, radius: int, scale, angle: int, patches: dict | None):
    """The first candidate of the label's :func:`ladder` its policy accepts, and the patch drawn at that try's
    size: ``(None, patch)`` when the canvas has no room at all."""
    # rings widen by 0.4 of a cell of the map's own grid: on a sparser grid, in the same pixels (not farther)
    step = min(scale.cell, scale.font_px / OWN_LABEL_SHARE) * 0.4
    found: dict[tuple[int, bool], Candidate | None] = {}  # a failed find takes nothing: its answer stays good
    for font_px, policy in ladder(scale.font_px):
        patch = _patch(name, font_px, angle, patches)
        leader = policy != "beside"
        if (font_px, leader) not in found:
            found[font_px, leader] = placer.find(index, radius + 1, patch.halo.size, patch.ink, step, leader=leader)
        candidate = found[font_px, leader]
        if candidate is not None and (policy == "crossing" or not candidate.crossing):
            return candidate, patch
    return None, _patch(name, scale.font_px, angle, patches)


@dataclass(frozen=True, slots=True)
class PlacedLabel:
    """A station's label as placed: the patch drawn (at the size it was placed at) and where it went."""

    station: str
    patch: _Patch
    placement: Placement

    @property
    def box(self) -> list[int]:
        """The text's ink box on the map ``[x0, y0, x1, y1]``."""
        x, y = self.placement.corner
        x0, y0, x1, y1 = self.patch.ink
        return [x + x0, y + y0, x + x1, y + y1]


def place_labels(
    graph: TransitGraph,
    placer: LabelPlacer,
    scale,
    radii: dict[str, int],
    rotate_labels: bool,
    *,
    strict: bool,
    patches: dict | None,
    progress: Callable[[int, int, int], None] | None,
    default_size: Callable[[], int],
) -> list[PlacedLabel] | None:
    """Each station's label placed (stations on most lines first), each at the first try of its :func:`ladder`
    that keeps the rules, as :func:`paint_labels` will draw them.

    Parameters
    ----------
    graph, placer, scale, radii, rotate_labels
        The map, its label placer (lines, markers and the legend on it), its scale, each station's marker
        radius, and whether every third label is drawn at 45°.
    strict : bool
        Give up at the first label only a crossing leader could place (the map is then drawn on a sparser
        grid).
    patches : dict or None
        The label patches drawn so far for this map, reused and added to.
    progress : callable or None
        Told ``(labels placed, labels in all, longest side)`` before each label and at the end.
    default_size : callable
        Names the size to suggest when a label has no room at all.

    Returns
    -------
    list of PlacedLabel or None
        ``None`` when ``strict`` gave up.

    Raises
    ------
    ValueError
        A label finds no room at all on the canvas.
    """
    rank = {name: index for index, name in enumerate(graph.stations)}
    order = sorted(graph.stations, key=lambda s: (-len(graph.lines_at(s)), rank[s]))
    placed: list[PlacedLabel] = []
    longest = max(scale.width, scale.height)
    for done, station in enumerate(order):
        if progress is not None:
            progress(done, len(order), longest)
        angle = 45 if rotate_labels and rank[station] % 3 == 1 else 0
        name = graph.display_name(station)
        candidate, patch = _choose_label(placer, name, rank[station], radii[station], scale, angle, patches)
        if candidate is None:
            raise ValueError(
                f"{graph.city}: size {longest} px is too small to place the label of {station!r}; use a larger "
                f"size (default {default_size()})"
            )
        if strict and candidate.crossing:
            return None
        placed.append(PlacedLabel(station, patch, placer.take(candidate)))
    if progress is not None:
        progress(len(order), len(order), longest)
    return placed


def paint_labels(image, placed: list[PlacedLabel]) -> None:
    """Paste each label onto ``image`` (Pillow, RGB) in placing order: its white halo, then its text."""
    for label in placed:
        x, y = label.placement.corner
        halo, text = label.patch.halo, label.patch.text
        image.paste(WHITE, (x, y, x + halo.width, y + halo.height), halo)
        image.paste(TEXT, (x, y, x + text.width, y + text.height), text)
