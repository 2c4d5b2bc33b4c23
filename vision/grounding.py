"""Grounding: which OCR readings are which Metro Data stations.

Readings are compared with graphkit's station keys (case, spacing,
punctuation, a trailing ``Station`` / ``站`` ignored; pinyin for Chinese
names). A label broken over two lines is also tried joined, and a reading
that carries extra marks (``Giardinetti P``, an interchange icon read as
``O``) still matches the name inside it. Near misses are scored with
rapidfuzz; a station takes its best reading above the threshold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphkit.names import fold, has_cjk, station_keys
from vision.evidence import StationEvidence
from vision.ocr import TextBox

__all__ = ["Candidate", "label_candidates", "ground_stations", "Grounding"]

MIN_SCORE = 0.84
_SUFFIX = re.compile(r"(?:\s+(?:station|stn)|站)$")


def _key(text: str) -> str:
    """A reading's letters as station keys have them: folded, without a trailing Station / 站."""
    return fold(_SUFFIX.sub("", fold(text, keep_spaces=True)))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A string that may be a station label: one reading, or two stacked readings joined.

    Attributes
    ----------
    text : str
        The reading(s), joined.
    key : str
        Its match key.
    box : (float, float, float, float)
        Its box ``(x0, y0, x1, y1)``.
    parts : tuple of int
        The readings it joins, by index.
    score : float
        The OCR's confidence.
    """

    text: str
    key: str
    box: tuple[float, float, float, float]
    parts: tuple[int, ...]
    score: float


@dataclass(frozen=True, slots=True)
class Grounding:
    """Each station's evidence, the readings no station claimed, and the share of stations found.

    Attributes
    ----------
    stations : dict of str to StationEvidence
        Every station of the city.
    unmatched_texts : tuple of str
        The readings no station claimed.
    """

    stations: dict[str, StationEvidence]
    unmatched_texts: tuple[str, ...]

    @property
    def recall(self) -> float:
        if not self.stations:
            return 0.0
        return sum(found.found for found in self.stations.values()) / len(self.stations)


def _stacked(upper: TextBox, lower: TextBox) -> bool:
    """Whether ``lower`` continues ``upper`` on the next line of one label."""
    ax0, ay0, ax1, ay1 = upper.box
    bx0, by0, bx1, by1 = lower.box
    high, low = max(upper.height, 1.0), max(lower.height, 1.0)
    if not 0.6 <= high / low <= 1.6 or abs(upper.angle) > 15 or abs(lower.angle) > 15:
        return False
    gap = by0 - ay1
    if not -0.35 * high <= gap <= 0.9 * high:
        return False
    overlap = min(ax1, bx1) - max(ax0, bx0)
    narrower = min(ax1 - ax0, bx1 - bx0)
    centred = abs((ax0 + ax1) - (bx0 + bx1)) / 2 <= 0.6 * max(ax1 - ax0, bx1 - bx0)
    left_aligned = abs(ax0 - bx0) <= high or abs(ax1 - bx1) <= high
    return overlap >= 0.3 * narrower and (centred or left_aligned)


def _follows(first: TextBox, second: TextBox) -> bool:
    """Whether ``second`` continues ``first`` on the same slanted or level line (a label read in pieces)."""
    if abs(first.angle - second.angle) > 10 or min(first.height, second.height) < 0.6 * max(
        first.height, second.height
    ):
        return False
    angle = math.radians(first.angle)
    ux, uy = math.cos(angle), math.sin(angle)
    (ax, ay), (bx, by) = _centre(first), _centre(second)
    along = (bx - ax) * ux + (by - ay) * uy
    across = abs(-(bx - ax) * uy + (by - ay) * ux)
    half = (_length(first) + _length(second)) / 2
    return along > 0 and across <= 0.5 * first.height and along - half <= 1.2 * first.height


def _centre(text: TextBox) -> tuple[float, float]:
    return sum(x for x, _ in text.quad) / len(text.quad), sum(y for _, y in text.quad) / len(text.quad)


def _length(text: TextBox) -> float:
    (x0, y0), (x1, y1), (x2, y2) = text.quad[:3]
    return max(math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1))


def label_candidates(texts: Sequence[TextBox]) -> list[Candidate]:
    """Every reading, and readings joined where one label was read in pieces (up to three).

    Pieces join when stacked as a label's lines, or when they continue each
    other along one (possibly slanted) line.

    Parameters
    ----------
    texts : sequence of TextBox
        The OCR's readings.

    Returns
    -------
    list of Candidate
        Each reading, then the joins.

    Examples
    --------
    >>> top = TextBox("Baldo degli", 0.99, ((0, 0), (90, 0), (90, 20), (0, 20)))
    >>> bottom = TextBox("Ubaldi", 0.98, ((20, 24), (70, 24), (70, 44), (20, 44)))
    >>> [c.text for c in label_candidates([top, bottom])]
    ['Baldo degli', 'Ubaldi', 'Baldo degli Ubaldi']
    """
    from shapely import STRtree
    from shapely import box as rectangle

    candidates = [Candidate(t.text, _key(t.text), t.box, (i,), t.score) for i, t in enumerate(texts)]
    if len(texts) < 2:
        return candidates
    tree = STRtree([rectangle(*t.box) for t in texts])
    following: dict[int, list[int]] = {}
    for i, first in enumerate(texts):
        x0, y0, x1, y1 = first.box
        reach = 1.5 * first.height
        near = rectangle(x0 - reach, y0 - reach, x1 + reach, y1 + reach)
        following[i] = [
            j
            for j in sorted(int(k) for k in tree.query(near))
            if j != i and (_stacked(first, texts[j]) or _follows(first, texts[j]))
        ]
    for i in range(len(texts)):
        for j in following[i]:
            candidates.append(_joined(texts, (i, j)))
            candidates.extend(_joined(texts, (i, j, k)) for k in following[j] if k != i)
    return candidates


def _joined(texts: Sequence[TextBox], parts: tuple[int, ...]) -> Candidate:
    pieces = [texts[index].text for index in parts]
    text = "".join(pieces) if has_cjk("".join(pieces)) else " ".join(pieces)
    boxes = [texts[index].box for index in parts]
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    return Candidate(text, _key(text), box, parts, min(texts[index].score for index in parts))


def _words(text: str) -> tuple[str, ...]:
    return tuple(_SUFFIX.sub("", fold(text, keep_spaces=True)).split())


def _contains_words(words: tuple[str, ...], within: tuple[str, ...]) -> bool:
    size = len(words)
    return 0 < size < len(within) and any(within[i : i + size] == words for i in range(len(within) - size + 1))


def _match_score(key: str, words: tuple[str, ...], candidate: Candidate, ratio: float) -> float:
    """How well a candidate's text stands for a station (0 to 1), from its letters alone."""
    if key == candidate.key:
        return 1.0
    score = ratio / 100.0
    if len(key) >= 4 and key in candidate.key and len(key) >= 0.45 * len(candidate.key):
        score = max(score, 0.86 + 0.1 * len(key) / len(candidate.key))  # the name plus icons or a note
    if len(key) >= 3 and _contains_words(words, _words(candidate.text)):
        score = max(score, 0.9)  # two labels read as one line, or a name with a note
    return score


def ground_stations(
    texts: Sequence[TextBox],
    stations: Iterable[str],
    *,
    min_score: float = MIN_SCORE,
    shown: Mapping[str, str] | None = None,
) -> Grounding:
    """Match OCR readings to station names.

    Parameters
    ----------
    texts : sequence of TextBox
        What the OCR read, in image coordinates.
    stations : iterable of str
        The city's station names as cleaned in the Metro Data.
    min_score : float
        The lowest match score (0 to 1) taken as a sighting.
    shown : mapping, optional
        Station to the name its label shows, where they differ (a station
        split from a shared name, ``125 St Station@1``, is labelled ``125 St``;
        see ``TransitGraph.display_name``).

    Returns
    -------
    Grounding
        Every station, found or not (``point`` is the label's centre), and the readings left over.

    Examples
    --------
    >>> texts = [TextBox("Colosseo", 1.0, ((10, 10), (80, 10), (80, 30), (10, 30))),
    ...          TextBox("Circo Masimo", 0.9, ((10, 50), (110, 50), (110, 70), (10, 70))),
    ...          TextBox("2024", 1.0, ((0, 100), (40, 100), (40, 120), (0, 120)))]
    >>> found = ground_stations(texts, ["Colosseo Station", "Circo Massimo Station", "Termini Station"])
    >>> [(s.found, s.text) for s in found.stations.values()]
    [(True, 'Colosseo'), (True, 'Circo Masimo'), (False, None)]
    >>> found.unmatched_texts, round(found.recall, 2)
    (('2024',), 0.67)
    """
    names = list(dict.fromkeys(stations))
    candidates = label_candidates(list(texts))
    label = {name: (shown or {}).get(name, name) for name in names}
    flat = [(name, key) for name in names for key in station_keys(label[name]) if key]
    words_of = {name: _words(label[name]) for name in names}
    best = _best_readings(flat, words_of, candidates, min_score)
    return _grounding(names, best, candidates, texts)


def _best_readings(
    flat: list[tuple[str, str]], words_of: dict[str, tuple[str, ...]], candidates: list[Candidate], min_score: float
) -> dict[str, tuple[float, int]]:
    """Each station's best reading: its confidence and its place in ``candidates``; ``flat`` holds every
    (station, match key) pair, ``words_of`` the words of each station's label."""
    from rapidfuzz import fuzz, process

    best: dict[str, tuple[float, int]] = {}
    if flat and candidates:
        keys = [key for _, key in flat]
        candidate_keys = [c.key for c in candidates]
        ratios = process.cdist(keys, candidate_keys, scorer=fuzz.ratio, workers=1)
        inside = process.cdist(keys, candidate_keys, scorer=fuzz.partial_ratio, workers=1)
        # only pairs that are close, or where the name sits inside the reading, are looked at in Python
        rows, columns = ((ratios >= 100 * min_score) | (inside >= 100)).nonzero()
    else:
        rows = columns = ()
    matches = []
    exact: dict[int, str] = {}  # a reading that spells one station's name exactly is that station's
    for row, column in zip(rows, columns):
        name, key = flat[int(row)]
        column = int(column)
        score = _match_score(key, words_of[name], candidates[column], float(ratios[row, column]))
        if score >= min_score:
            matches.append((name, column, score))
            if float(ratios[row, column]) >= 100:
                exact.setdefault(column, name)
    for name, column, score in matches:
        if exact.get(column, name) != name and score < 1.0:
            continue  # 职教城站 must not take the reading 职教城东站, which names another station
        # confidence: how well the text fits, tempered by how sure the OCR was of it
        value = score * (0.5 + 0.5 * candidates[column].score)
        if value > best.get(name, (0.0, -1))[0]:
            best[name] = (value, column)
    return best


def _grounding(
    names: list[str], best: dict[str, tuple[float, int]], candidates: list[Candidate], texts: Sequence[TextBox]
) -> Grounding:
    """Every station, found at its best reading's centre or not found, and the readings no station used."""
    evidence: dict[str, StationEvidence] = {}
    used: set[int] = set()
    for name in names:
        if name not in best:
            evidence[name] = StationEvidence(name, False)
            continue
        value, column = best[name]
        candidate = candidates[column]
        used.update(candidate.parts)
        x0, y0, x1, y1 = candidate.box
        evidence[name] = StationEvidence(
            name, True, ((x0 + x1) / 2, (y0 + y1) / 2), candidate.box, round(value, 4), candidate.text
        )
    unmatched = tuple(text.text for index, text in enumerate(texts) if index not in used)
    return Grounding(evidence, unmatched)
