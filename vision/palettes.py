"""Line colours of a drawn map: well-separated, confusable pairs, or a palette whose closest two colours
lie a chosen CIEDE2000 apart (:func:`palette_at_distance`, the ``--colour-distance`` knob of
:mod:`vision.knobs`).
"""

from __future__ import annotations

import math
import random
from typing import Literal

from graphkit.choices import check_choice
from graphkit.graph import TransitGraph
from vision.evidence import ciede2000, hex_to_rgb, rgb_to_hex

__all__ = ["PALETTES", "Palette", "line_colours", "palette_at_distance"]

Palette = Literal["normal", "confusable"]
PALETTES: frozenset[str] = frozenset({"normal", "confusable"})
# transit-like colours tried first for the normal palette (red, blue, green, orange, purple, ...)
_PRESETS = (
    "#e3001b", "#0065bd", "#009a44", "#f28c00", "#8b3fa6", "#00a7e1", "#e6007e",
    "#a05a2c", "#7ab51d", "#f7c600", "#00857c", "#1d3f91", "#c2185b", "#5d4037",
)  # fmt: skip


def _lab(colours: list[str]):
    import numpy
    from skimage.color import rgb2lab

    return rgb2lab(numpy.array([[hex_to_rgb(c) for c in colours]], dtype=numpy.float64) / 255.0)[0]


def _candidate_pool() -> list[str]:
    """Saturated, mid-light colours: never white, black or grey, and apart from the dark label text."""
    import colorsys

    import numpy

    pool = [
        rgb_to_hex(tuple(255 * c for c in colorsys.hsv_to_rgb(hue / 360, saturation, value)))
        for hue in range(0, 360, 6)
        for saturation in (0.6, 0.8, 1.0)
        for value in (0.55, 0.75, 0.95)
    ]
    lab = _lab(pool)
    chroma = numpy.hypot(lab[:, 1], lab[:, 2])
    return [colour for colour, (light, c) in zip(pool, zip(lab[:, 0], chroma)) if 30 <= light <= 82 and c >= 40]


def _normal_palette(count: int) -> list[str]:
    """``count`` colours chosen far apart: the presets that keep a CIEDE2000 of 20, then farthest-point picks."""
    import numpy
    from skimage.color import deltaE_ciede2000

    chosen: list[str] = []
    for colour in _PRESETS:
        if len(chosen) < count and all(ciede2000(colour, other) > 20 for other in chosen):
            chosen.append(colour)
    pool = _candidate_pool()
    pool_lab = _lab(pool)
    nearest = numpy.full(len(pool), numpy.inf)
    for colour in chosen:
        nearest = numpy.minimum(
            nearest, deltaE_ciede2000(pool_lab, numpy.broadcast_to(_lab([colour])[0], pool_lab.shape))
        )
    while len(chosen) < count:
        pick = int(numpy.argmax(nearest))
        chosen.append(pool[pick])
        nearest = numpy.minimum(nearest, deltaE_ciede2000(pool_lab, numpy.broadcast_to(pool_lab[pick], pool_lab.shape)))
    return chosen


def _twin(colour: str, taken: list[str], rng: random.Random) -> str:
    """A colour 4–9 CIEDE2000 from ``colour`` (near a drawn target) and at least 4 from every other taken colour."""
    import numpy
    from skimage.color import lab2rgb

    base = _lab([colour])[0]
    target = rng.uniform(5.0, 8.0)
    fallback = colour
    for _ in range(400):
        angle, tilt = rng.uniform(0, 2 * math.pi), rng.uniform(-0.5, 0.5)
        direction = numpy.array([math.sin(tilt), math.cos(tilt) * math.cos(angle), math.cos(tilt) * math.sin(angle)])
        lab = base + rng.uniform(4.0, 14.0) * direction
        candidate = rgb_to_hex(tuple(255 * numpy.clip(lab2rgb(lab[None, None, :])[0, 0], 0, 1)))
        distance = ciede2000(colour, candidate)
        if 4.0 <= distance <= 9.0 and abs(distance - target) <= 1.0:
            fallback = candidate
            if all(other == colour or ciede2000(other, candidate) >= 4.0 for other in taken):
                return candidate
    return fallback


def line_colours(graph: TransitGraph, palette: Palette = "normal", *, seed: int = 0) -> dict[str, str]:
    """The ``#rrggbb`` colour of each line of ``graph`` under ``palette``.

    ``"normal"`` gives well-separated colours (CIEDE2000 above 20 for up to a
    dozen lines). ``"confusable"`` gives each line that shares a station with
    an earlier, still unpaired line (else the previous unpaired line) a colour
    4–9 CIEDE2000 from that line's: close enough to be confused.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    palette : {"normal", "confusable"}, optional
        The palette.
    seed : int, optional
        Seeds the draw of colours.

    Returns
    -------
    dict of str to str
        Each line's colour, in the graph's order.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> colours = line_colours(city_graph("rome"), "normal")
    >>> sorted(colours) == ["Line A", "Line B", "Line C"]
    True
    >>> a, b, c = colours.values()
    >>> min(ciede2000(a, b), ciede2000(a, c), ciede2000(b, c)) > 20
    True
    """
    check_choice(palette, sorted(PALETTES), what="palette")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {seed!r}")
    lines = list(graph.lines)
    rng = random.Random(seed)
    base = _normal_palette(len(lines))
    rng.shuffle(base)
    if palette == "normal":
        return dict(zip(lines, base))
    colours: dict[str, str] = {}
    unpaired: list[str] = []
    fresh = iter(base)
    for line in lines:
        stations = set(graph.lines[line].stations)
        sharing = [other for other in unpaired if stations & set(graph.lines[other].stations)]
        partner = sharing[0] if sharing else (unpaired[-1] if unpaired else None)
        if partner is None:
            colours[line] = next(fresh)
            unpaired.append(line)
        else:
            colours[line] = _twin(colours[partner], list(colours.values()), rng)
            unpaired.remove(partner)
    return colours


def _dense_pool() -> list[str]:
    """The candidate colours, finely spaced (hue every 2°), for palettes whose closest pair is a chosen distance."""
    import colorsys

    import numpy

    pool = sorted(
        {
            rgb_to_hex(tuple(255 * c for c in colorsys.hsv_to_rgb(hue / 360, saturation / 20, value / 20)))
            for hue in range(0, 360, 2)
            for saturation in range(12, 21)
            for value in range(11, 20)
        }
    )
    lab = _lab(pool)
    chroma = numpy.hypot(lab[:, 1], lab[:, 2])
    return [colour for colour, (light, c) in zip(pool, zip(lab[:, 0], chroma)) if 30 <= light <= 82 and c >= 40]


def palette_at_distance(count: int, distance: float, *, seed: int = 0) -> list[str]:
    """``count`` colours whose smallest pairwise CIEDE2000 is as near ``distance`` as the colours allow.

    The first colour is drawn with ``seed`` from saturated, mid-light colours (never near the black label
    text); each next one is the candidate whose nearest chosen colour is the least distance at or above
    ``distance`` away (where none is that far: the farthest). So a small distance gives a chain of
    near-identical colours, a large one colours as far apart as the candidates allow (the realised minimum
    then falls short; :func:`vision.knobs.realised_knobs` records it).

    Parameters
    ----------
    count : int
        The colours wanted.
    distance : float
        The smallest CIEDE2000 wanted between two of them.
    seed : int, optional
        Seeds the first colour.

    Returns
    -------
    list of str
        ``#rrggbb`` colours, in the order chosen.

    Examples
    --------
    >>> colours = palette_at_distance(4, 5.0)
    >>> import itertools
    >>> 5.0 <= min(ciede2000(a, b) for a, b in itertools.combinations(colours, 2)) < 6.0
    True
    """
    import numpy
    from skimage.color import deltaE_ciede2000

    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive int, got {count!r}")
    if isinstance(distance, bool) or not isinstance(distance, (int, float)) or not 0 < distance <= 100:
        raise ValueError(f"colour distance must be a CIEDE2000 above 0 and at most 100, got {distance!r}")
    pool = _dense_pool()
    pool_lab = _lab(pool)
    first = random.Random(seed).randrange(len(pool))
    chosen = [first]
    nearest = deltaE_ciede2000(pool_lab, numpy.broadcast_to(pool_lab[first], pool_lab.shape))
    while len(chosen) < count:
        far_enough = numpy.where(nearest >= distance, nearest, numpy.inf)
        pick = int(numpy.argmin(far_enough)) if numpy.isfinite(far_enough).any() else int(numpy.argmax(nearest))
        chosen.append(pick)
        nearest = numpy.minimum(nearest, deltaE_ciede2000(pool_lab, numpy.broadcast_to(pool_lab[pick], pool_lab.shape)))
    return [pool[index] for index in chosen]
