"""Line colours read off a map image: colour clusters near each station, voted per line.

Around every found station a small window of the image is converted to
CIELAB (OpenCV); pixels of low chroma (background, text, markers, halos) are
dropped and the rest are clustered by mode finding on a quantised Lab
histogram. Each station thus shows a few candidate colours. A line's colour is
the candidate seen at most of its stations and least at the stations of other
lines (a transfer station shows several colours; the one its line's other
stations share wins). Colours are compared with CIEDE2000.

Only the windows are read, so a 278-megapixel scan costs no more than a small
render with the same stations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy

from vision.errors import InvalidImage
from vision.evidence import LineEvidence, StationEvidence, ciede2000, hex_to_rgb, rgb_to_hex
from vision.geometry import line_paths, line_stations

if TYPE_CHECKING:
    from graphkit.graph import TransitGraph

__all__ = ["ColourPair", "StationColour", "station_colours", "estimate_line_colours", "colour_pairs", "with_lines"]

_MIN_CHROMA = 15.0  # below this C* a pixel is background, text, marker or anti-aliasing towards them
# ... except a muted mid-tone (a brown or slate line) down to this C*; paper and tints are lighter, ink darker
_MUTED_CHROMA, _MUTED_L = 8.0, (15.0, 85.0)
_BIN = 3.0  # Lab units per histogram bin
_ABSORB = 8.0  # Lab distance within which bins join a peak's count
_CORE = 4.0  # Lab distance within which bins make a peak's colour
_BLEND_RESIDUAL = 12.0  # RGB units off the line from a colour to paper or ink that still counts as a blend of them
_WHITE = (255.0, 255.0, 255.0)
_MIN_SHARE = 0.08  # a peak smaller than this share of the window's largest is noise
_MIN_PIXELS = 6
_MAX_PEAKS = 16
_MAX_PIXELS = 40_000  # larger windows are subsampled on a regular grid
_KERNEL = 3.5  # CIEDE2000 scale of the soft match between a colour and a station's candidates
_SAME = 6.0  # CIEDE2000 within which two candidates count as the same colour
_DEFAULT_HALF = 12  # half-width of a station's window when its label box is unknown


@dataclass(frozen=True, slots=True)
class StationColour:
    """One colour cluster seen near a station.

    Attributes
    ----------
    station : str
        The station.
    colour : str
        The cluster's colour, ``#rrggbb``.
    lab : (float, float, float)
        Its CIELAB colour (L 0–100).
    pixels : int
        How many window pixels it gathered.
    weight : float
        Its presence (1.0 when it is among the window's main colours).
    """

    station: str
    colour: str
    lab: tuple[float, float, float]
    pixels: int
    weight: float


@dataclass(frozen=True, slots=True)
class ColourPair:
    """Two lines and the CIEDE2000 difference of their colours.

    Attributes
    ----------
    line_a, line_b : str
        The lines.
    difference : float
        CIEDE2000 between their colours (about 2 is just noticeable).
    """

    line_a: str
    line_b: str
    difference: float


def _as_rgb(image: Any) -> numpy.ndarray:
    array = numpy.asarray(image)
    if array.dtype != numpy.uint8 or array.ndim != 3 or array.shape[2] not in (3, 4):
        raise InvalidImage(
            f"expected an H×W×3 (RGB) or H×W×4 (RGBA) uint8 image, got {array.dtype} of shape {array.shape}"
        )
    return array


def _window(found: StationEvidence, window: float | None, height: int, width: int) -> tuple[int, int, int, int]:
    """Pixel bounds ``(x0, y0, x1, y1)`` read for one station, clipped to the image."""
    x, y = found.point
    if found.box is None:
        half = _DEFAULT_HALF if window is None else window
        x0, y0, x1, y1 = x - half, y - half, x + half, y + half
    else:
        bx0, by0, bx1, by1 = found.box
        text = max(4.0, min(abs(bx1 - bx0), abs(by1 - by0)))  # a rotated label's box is tall: its text is not
        if min(bx0, bx1) <= x <= max(bx0, bx1) and min(by0, by1) <= y <= max(by0, by1):
            # the point is the label's centre: the marker and its strokes lie somewhere around the label
            margin = 2.0 * text if window is None else window
            x0, x1 = min(bx0, bx1) - margin, max(bx0, bx1) + margin
            y0, y1 = min(by0, by1) - margin, max(by0, by1) + margin
        else:  # the point is the marker itself
            half = 1.5 * text if window is None else window
            x0, y0, x1, y1 = x - half, y - half, x + half, y + half
    return (
        max(0, math.floor(x0)),
        max(0, math.floor(y0)),
        min(width, math.ceil(x1) + 1),
        min(height, math.ceil(y1) + 1),
    )


def _clusters(pixels: numpy.ndarray) -> list[tuple[numpy.ndarray, numpy.ndarray, int]]:
    """Colour clusters of an (n, 3) uint8 RGB array: ``(lab, rgb, pixels)``, largest first."""
    import cv2

    lab = cv2.cvtColor(pixels.reshape(1, -1, 3).astype(numpy.float32) / 255.0, cv2.COLOR_RGB2Lab).reshape(-1, 3)
    chroma = numpy.hypot(lab[:, 1], lab[:, 2])
    muted = (chroma >= _MUTED_CHROMA) & (lab[:, 0] >= _MUTED_L[0]) & (lab[:, 0] <= _MUTED_L[1])
    coloured = (chroma >= _MIN_CHROMA) | muted
    if int(coloured.sum()) < _MIN_PIXELS:
        return []
    paper = pixels[~coloured & (lab[:, 0] >= 60)]
    neutrals = [_WHITE] + ([numpy.median(paper, axis=0)] if len(paper) else [])
    lab, rgb = lab[coloured].astype(numpy.float64), pixels[coloured].astype(numpy.float64)
    quantised = numpy.floor(lab / _BIN).astype(numpy.int64) + 64
    codes = (quantised[:, 0] * 128 + quantised[:, 1]) * 128 + quantised[:, 2]
    _, inverse, counts = numpy.unique(codes, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    centres = numpy.stack([numpy.bincount(inverse, lab[:, i]) for i in range(3)], axis=1) / counts[:, None]
    rgb_sums = numpy.stack([numpy.bincount(inverse, rgb[:, i]) for i in range(3)], axis=1)
    free = numpy.ones(len(counts), dtype=bool)
    peaks: list[list] = []  # [lab, rgb, pixels]
    # mode finding: the fullest free bin is a peak; its neighbourhood joins it
    for peak in numpy.lexsort((numpy.arange(len(counts)), -counts)):
        if not free[peak]:
            continue
        distance = numpy.linalg.norm(centres - centres[peak], axis=1)
        members = free & (distance <= _ABSORB)
        core = members & (distance <= _CORE)
        free &= ~members
        weight = counts[core].sum()
        colour_lab = (centres[core] * counts[core, None]).sum(axis=0) / weight
        peaks.append([colour_lab, rgb_sums[core].sum(axis=0) / weight, int(counts[members].sum())])
    # tiny peaks are noise; the largest few are enough to explain the blends between them
    peaks = _absorb_blends([peak for peak in peaks if peak[2] >= _MIN_PIXELS][:_MAX_PEAKS], neutrals)
    if not peaks:
        return []
    largest = max(size for _, _, size in peaks)
    kept = [(lab, rgb, size) for lab, rgb, size in peaks if size >= max(_MIN_PIXELS, _MIN_SHARE * largest)]
    return sorted(kept, key=lambda cluster: -cluster[2])


def _absorb_blends(peaks: list[list], neutrals: list) -> list[list]:
    """Peaks that are a larger, more saturated peak mixed with paper (anti-aliasing, blur, JPEG) join that peak.

    Blends with ink are left alone: a brown line is not a dark orange one.
    """
    order = sorted(range(len(peaks)), key=lambda i: float(numpy.hypot(*peaks[i][0][1:])))
    absorbed: set[int] = set()
    for position, weak in enumerate(order):
        pale = peaks[weak][1]
        best, best_residual = None, _BLEND_RESIDUAL
        for strong in order[position + 1 :]:
            if strong in absorbed or peaks[strong][2] <= peaks[weak][2]:
                continue  # a blend is rarer than the colour it comes from
            colour = peaks[strong][1]
            for neutral in neutrals:
                towards = numpy.asarray(neutral, dtype=numpy.float64) - colour
                span = float(towards @ towards)
                if span < 1.0:
                    continue
                share = float((pale - colour) @ towards) / span
                residual = float(numpy.linalg.norm(pale - colour - share * towards))
                if 0.0 < share < 1.0 and residual < best_residual:
                    best, best_residual = strong, residual
        if best is not None:
            peaks[best][2] += peaks[weak][2]
            absorbed.add(weak)
    return [peak for i, peak in enumerate(peaks) if i not in absorbed]


def station_colours(
    image: Any, stations: Mapping[str, StationEvidence], *, window: float | None = None
) -> dict[str, tuple[StationColour, ...]]:
    """The colour clusters seen near each found station, main colours first.

    Parameters
    ----------
    image : numpy.ndarray
        ``H×W×3`` uint8 in **RGB** order (RGBA is accepted, alpha ignored).
        Only windows around the stations are read.
    stations : mapping of str to StationEvidence
        Stations not found, or without a point, are left out.
    window : float, optional
        Pixels: the margin around a label box, or the half-width of the square
        around a point. By default 2 text heights around a label whose centre
        is the point, 1.5 text heights around a marker point, 12 pixels
        without a box.

    Raises
    ------
    InvalidImage
        ``image`` is not an 8-bit RGB(A) array.
    ValueError
        ``window`` is not a positive number.

    Returns
    -------
    dict of str to tuple of StationColour
        Each found station's colour clusters, main colours first.

    Examples
    --------
    >>> image = numpy.full((40, 40, 3), 255, numpy.uint8)
    >>> image[18:22, :] = (0, 120, 200)
    >>> seen = station_colours(image, {"A": StationEvidence("A", True, (20, 20))})
    >>> [(c.colour, c.weight) for c in seen["A"]]
    [('#0078c8', 1.0)]
    """
    array = _as_rgb(image)
    if window is not None and not (math.isfinite(window) and window > 0):
        raise ValueError(f"window must be a positive number of pixels, got {window!r}")
    height, width = array.shape[:2]
    seen: dict[str, tuple[StationColour, ...]] = {}
    for name in sorted(stations):
        found = stations[name]
        if not found.found or found.point is None:
            continue
        x0, y0, x1, y1 = _window(found, window, height, width)
        if x1 <= x0 or y1 <= y0:
            seen[name] = ()
            continue
        step = max(1, math.ceil(math.sqrt((x1 - x0) * (y1 - y0) / _MAX_PIXELS)))
        pixels = numpy.ascontiguousarray(array[y0:y1:step, x0:x1:step, :3]).reshape(-1, 3)
        clusters = _clusters(pixels)
        largest = max((size for _, _, size in clusters), default=1)
        seen[name] = tuple(
            StationColour(
                name,
                rgb_to_hex(tuple(rgb)),
                tuple(round(float(v), 3) for v in lab),
                size,
                round(min(1.0, 3.0 * size / largest), 4),
            )
            for lab, rgb, size in clusters
        )
    return seen


def _differences(lab_a: numpy.ndarray, lab_b: numpy.ndarray) -> numpy.ndarray:
    from skimage.color import deltaE_ciede2000

    if not len(lab_a) or not len(lab_b):
        return numpy.zeros((len(lab_a), len(lab_b)))
    return deltaE_ciede2000(lab_a[:, None, :], lab_b[None, :, :])


def estimate_line_colours(
    image: Any,
    stations: Mapping[str, StationEvidence],
    lines: Mapping[str, Sequence[str]],
    *,
    window: float | None = None,
) -> dict[str, LineEvidence]:
    """Each line's colour, voted over the colour clusters near its found stations.

    For every candidate colour seen at one of a line's stations, its score is
    the share of the line's found stations that show it (soft CIEDE2000
    match) less the share of all other found stations that show it; the best
    candidate wins, refined by averaging the matching clusters.

    Parameters
    ----------
    image : numpy.ndarray
        ``H×W×3`` uint8 in **RGB** order; see :func:`station_colours`.
    stations : mapping of str to StationEvidence
    lines : mapping of str to sequence of str
        Line name to its stations (e.g. :func:`vision.geometry.line_stations`).
    window : float, optional
        See :func:`station_colours`.

    Returns
    -------
    dict of str to LineEvidence
        One per line, in ``lines``' order, without paths. ``colour`` is
        ``None`` and ``support`` 0 when none of the line's stations was found
        (or none showed any colour); ``support`` is the share of its found
        stations showing the colour (within CIEDE2000 6).

    Examples
    --------
    >>> image = numpy.full((60, 100, 3), 255, numpy.uint8)
    >>> image[18:22, :] = (220, 30, 30)     # Red runs along y = 20
    >>> image[:, 78:82] = (30, 90, 220)     # Blue runs along x = 80, crossing Red at (80, 20)
    >>> found = {name: StationEvidence(name, True, point) for name, point in
    ...          {"West": (20, 20), "Cross": (80, 20), "South": (80, 50)}.items()}
    >>> lines = {"Red": ["West", "Cross"], "Blue": ["Cross", "South"], "Grey": ["Nowhere"]}
    >>> {name: line.colour for name, line in estimate_line_colours(image, found, lines).items()}
    {'Red': '#dc1e1e', 'Blue': '#1e5adc', 'Grey': None}
    """
    votes = _votes(image, stations, window)
    ranked = _ranked(votes, lines)
    return {line: _line_colour(votes, line, ranked.get(line)) for line in lines}


@dataclass(frozen=True, slots=True)
class _Votes:
    """The colour clusters found near the stations (``candidates``, in station order) and how they compare:
    the station of each (``owner``, an index into ``names``), their pixel counts, their CIEDE2000
    ``difference`` to each other, and ``presence[c, s]``, how clearly station ``s`` shows candidate ``c``'s
    colour."""

    names: list[str]
    index: dict[str, int]
    candidates: list[StationColour]
    owner: numpy.ndarray
    pixels: numpy.ndarray
    difference: numpy.ndarray
    presence: numpy.ndarray


def _votes(image: Any, stations: Mapping[str, StationEvidence], window: float | None) -> _Votes:
    """The candidate colours at ``stations`` and how clearly each station shows each of them."""
    seen = station_colours(image, stations, window=window)
    names = list(seen)
    index = {name: i for i, name in enumerate(names)}
    candidates = [colour for name in names for colour in seen[name]]
    owner = numpy.array([index[colour.station] for colour in candidates], dtype=numpy.int64)
    lab = numpy.array([colour.lab for colour in candidates], dtype=numpy.float64).reshape(-1, 3)
    weight = numpy.array([colour.weight for colour in candidates], dtype=numpy.float64)
    pixels = numpy.array([colour.pixels for colour in candidates], dtype=numpy.float64)
    # rendered maps repeat exact colours: compare each distinct colour once
    distinct, inverse = numpy.unique(lab.round(2), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    difference = _differences(distinct, distinct)[numpy.ix_(inverse, inverse)]
    # presence[c, s]: how clearly station s shows candidate c's colour
    presence = numpy.zeros((len(candidates), len(names)))
    if candidates:
        match = weight[None, :] * numpy.exp(-0.5 * (difference / _KERNEL) ** 2)
        starts = numpy.flatnonzero(numpy.r_[True, owner[1:] != owner[:-1]])
        presence[:, owner[starts]] = numpy.maximum.reduceat(match, starts, axis=1)
    return _Votes(names, index, candidates, owner, pixels, difference, presence)


def _ranked(votes: _Votes, lines: Mapping[str, Sequence[str]]) -> dict[str, tuple[numpy.ndarray, numpy.ndarray]]:
    """Per line with a candidate at one of its stations: the stations it serves, and its own candidates best
    first (by score, then support, then place)."""
    names, index, owner, presence = votes.names, votes.index, votes.owner, votes.presence
    ranked: dict[str, tuple[numpy.ndarray, numpy.ndarray]] = {}  # served stations, own candidates best first
    for line, walk in lines.items():
        served = numpy.zeros(len(names), dtype=bool)
        served[[index[name] for name in set(walk) if name in index]] = True
        own = numpy.flatnonzero(served[owner]) if votes.candidates else numpy.zeros(0, dtype=numpy.int64)
        if not own.size:
            continue
        support = presence[numpy.ix_(own, numpy.flatnonzero(served))].mean(axis=1)
        others = numpy.flatnonzero(~served)
        elsewhere = presence[numpy.ix_(own, others)].mean(axis=1) if others.size else numpy.zeros(own.size)
        # best score, then best support, then the first candidate (station names sorted): deterministic
        order = numpy.lexsort((numpy.arange(own.size), -support, -(support - elsewhere)))
        ranked[line] = (served, own[order])
    return ranked


def _line_colour(votes: _Votes, line: str, ranked: tuple[numpy.ndarray, numpy.ndarray] | None) -> LineEvidence:
    """The line's colour: its best candidate, refined by averaging the clusters alike to it (none without one)."""
    if ranked is None:
        return LineEvidence(line, None, (), 0.0)
    served, own = ranked
    candidates, difference, pixels = votes.candidates, votes.difference, votes.pixels
    best = own[0]
    alike = own[difference[best, own] <= _SAME / 2]
    rgb = (
        sum((numpy.array(hex_to_rgb(candidates[c].colour)) * pixels[c] for c in alike), start=numpy.zeros(3))
        / pixels[alike].sum()
    )
    showing = numpy.unique(votes.owner[own[difference[best, own] <= _SAME]]).size
    return LineEvidence(line, rgb_to_hex(tuple(rgb)), (), round(showing / int(served.sum()), 4))


def colour_pairs(lines: Mapping[str, LineEvidence]) -> list[ColourPair]:
    """Every pair of coloured lines with the CIEDE2000 of their colours, most alike first.

    Lines whose colour is unknown are left out; ties are ordered by name. The
    difference is :func:`vision.evidence.ciede2000`, as ``MapEvidence.colour_difference``.

    Parameters
    ----------
    lines : mapping of str to LineEvidence
        The lines with their colours.

    Returns
    -------
    list of ColourPair
        Every pair once, most alike first.

    Examples
    --------
    >>> lines = {name: LineEvidence(name, colour) for name, colour in
    ...          [("Red", "#e00000"), ("Pink", "#f01010"), ("Blue", "#0000e0"), ("Lost", None)]}
    >>> [(pair.line_a, pair.line_b, round(pair.difference)) for pair in colour_pairs(lines)]
    [('Pink', 'Red', 4), ('Blue', 'Red', 51), ('Blue', 'Pink', 51)]
    """
    names = sorted(name for name, line in lines.items() if line.colour is not None)
    pairs = [
        ColourPair(a, b, ciede2000(lines[a].colour, lines[b].colour))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
    pairs.sort(key=lambda pair: (pair.difference, pair.line_a, pair.line_b))
    return pairs


def with_lines(
    stations: Mapping[str, StationEvidence], image: Any, graph: TransitGraph, *, window: float | None = None
) -> dict[str, LineEvidence]:
    """Every line of ``graph`` with its estimated colour and its path through the found stations.

    ``MapEvidence(city, stations, with_lines(stations, image, graph))`` is the
    vision side's evidence for one map.

    Parameters
    ----------
    stations : mapping of str to StationEvidence
        From grounding: the station names of ``graph``.
    image : numpy.ndarray
        ``H×W×3`` uint8 in **RGB** order.
    graph : TransitGraph
    window : float, optional
        See :func:`station_colours`.

    Returns
    -------
    dict of str to LineEvidence
        Every line of ``graph``: its estimated colour (``None`` where no station shows one) and path.
    """
    walks = line_stations(graph)
    colours = estimate_line_colours(image, stations, walks, window=window)
    paths = line_paths(stations, walks)
    return {name: replace(colours[name], path=paths[name]) for name in walks}
