"""Lint's checks of station names: near duplicates and suspicious spellings (:mod:`graphkit.lint`).

:func:`near_duplicates` finds two distinct names that look like one station spelt two ways (the same
match key once a repeated station word is dropped, a similarity of at least :data:`NEAR_DUPLICATE_RATIO`,
one name abbreviating words of the other, or keys alike to the eye); :func:`suspicious_spellings` finds a
misspelt station word at a name's end and a lowercase ``l`` standing for an ``I``. :mod:`graphkit.lint`
runs both with its other checks and explains every kind of finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import combinations
from typing import Any

from graphkit.graph import TransitGraph
from graphkit.names import fold, lookalike_key, station_keys

__all__ = ["NEAR_DUPLICATE_RATIO", "NEAR_DUPLICATE_MIN_LENGTH", "near_duplicates", "suspicious_spellings"]

#: What a check yields: kind, message, stations, lines.
_Raw = tuple[str, str, tuple[str, ...], tuple[str, ...]]

NEAR_DUPLICATE_RATIO = 0.92
NEAR_DUPLICATE_MIN_LENGTH = 6
# rows of keys compared at once against their window (bounds the score matrix held)
_BLOCK = 256
_STATION_WORD = "station"
_MISSPELT_STATION_RATIO = 0.8
# a word-initial "l" before a capital or a consonant no word starts with: an "I" misread ("lbn Battuta")
_LOWERCASE_L = re.compile(r"(?:^|(?<=[\s(/\-]))l(?=[A-Zbcdfghjkmnpqrstvwxz])")
_TRAILING_CJK_STATION = re.compile(r"站+$")
_DIGITS = re.compile(r"\d+")
_MAX_ABBREVIATION = 4
_COMPASS = {"north", "south", "east", "west", "n", "s", "e", "w"}


def _similarity(a: str, b: str) -> float:
    """How alike two texts are, 0 to 1: twice their longest common subsequence over their total length.

    rapidfuzz's Indel ratio, computed from the integer subsequence length so that a ratio on the
    threshold is exactly on it (``23 / 25`` is 0.92, never 0.91999...).
    """
    from rapidfuzz.distance import LCSseq

    total = len(a) + len(b)
    return 2.0 * LCSseq.similarity(a, b) / total if total else 1.0


def _station_word(word: str) -> bool:
    """Whether ``word`` is the word "station", rightly spelt or not (``Staton``, ``Stations``)."""
    word = word.casefold()
    return word == _STATION_WORD or (
        word[:1] == _STATION_WORD[0] and _similarity(word, _STATION_WORD) >= _MISSPELT_STATION_RATIO
    )


def _duplicate_key(name: str) -> str:
    """A station's match key, ignoring any trailing station words (``Union Station Station``, ``135 St Stations``)."""
    words = fold(name, keep_spaces=True).split()
    while len(words) > 1 and (_station_word(words[-1]) or words[-1] == "stn"):
        words.pop()
    return _TRAILING_CJK_STATION.sub("", "".join(words)) or station_keys(name)[0]


def _abbreviates(words: list[str], others: list[str]) -> bool:
    """Whether two names differ only by later words abbreviating each other (``Arts Dist`` / ``Arts District``).

    The first word stays out: it carries the name (``Bay`` and ``Bayview`` are two stations).
    """
    if len(words) != len(others) or words == others or words[0] != others[0]:
        return False
    return all(
        word == another or _abbreviation(*sorted((word, another), key=len))
        for word, another in zip(words, others, strict=True)
    )


def _abbreviation(short: str, long: str) -> bool:
    """``short`` is a 2-4 letter contraction of ``long`` (``Ctr`` of ``Center``, ``Dist`` of ``District``)."""
    if not (short.isalpha() and 2 <= len(short) <= _MAX_ABBREVIATION < len(long) and short[0] == long[0]):
        return False
    rest = iter(long[1:])
    return all(letter in rest for letter in short[1:])


def _compass_twins(words: list[str], others: list[str]) -> bool:
    """Whether two names differ only by a compass word (``East Falls Church`` / ``West Falls Church``)."""
    if len(words) != len(others):
        return False
    differ = [(word, another) for word, another in zip(words, others, strict=True) if word != another]
    return len(differ) == 1 and set(differ[0]) <= _COMPASS


def near_duplicates(graph: TransitGraph) -> Iterator[_Raw]:
    """Lint's ``near_duplicate`` check: pairs of distinct names that look like one station spelt two ways.

    Parameters
    ----------
    graph : TransitGraph
        The city, compiled with its overlay (its ``distinct`` entries are not reported).

    Yields
    ------
    tuple of (str, str, tuple of str, tuple of str)
        The kind, the message, the two stations and their lines (a :class:`graphkit.lint.Finding` less its city).
    """
    stations = graph.stations
    names = [graph.display_name(station) for station in stations]
    told_apart = {frozenset(pair) for entry in graph.overlay.distinct for pair in combinations(entry.stations, 2)}
    keys = [_duplicate_key(name) for name in names]
    numbers = [tuple(_DIGITS.findall(name)) for name in names]
    words = [fold(name, keep_spaces=True).split() for name in names]
    found: dict[tuple[int, int], str] = {}
    for i, j in _same_key_pairs([lookalike_key(key) for key in keys]):  # equal keys, or a Cyrillic о for an o
        found[i, j] = f"have the same match key {keys[i]!r}" if keys[i] == keys[j] else "look alike (another script)"
    for i, j in _abbreviation_pairs(keys, words):
        found.setdefault((i, j), "differ only by abbreviated words")
    for i, j in _alike_candidates(keys, numbers):
        a, b = sorted((keys[i], keys[j]), key=len)
        if (i, j) in found or _compass_twins(words[i], words[j]):
            continue
        ratio = _similarity(a, b)
        if ratio >= NEAR_DUPLICATE_RATIO:
            found[i, j] = f"are {ratio:.0%} alike"
    for (first, second), reason in sorted(found.items()):
        if names[first] == names[second] or frozenset((names[first], names[second])) in told_apart:
            continue  # one name split by the overlay, or a pair it says is two stations
        pair = (stations[first], stations[second])
        lines = tuple(dict.fromkeys(graph.lines_at(pair[0]) + graph.lines_at(pair[1])))
        yield (
            "near_duplicate",
            f"{pair[0]!r} ({', '.join(graph.lines_at(pair[0]))}) and {pair[1]!r} "
            f"({', '.join(graph.lines_at(pair[1]))}) {reason}: one station spelt two ways, or two to tell apart",
            pair,
            lines,
        )


def _grouped(labels: Iterable[Any]) -> Iterator[list[int]]:
    """The indices of each label shared by two or more items."""
    groups: dict[Any, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(label, []).append(index)
    return (members for members in groups.values() if len(members) > 1)


def _same_key_pairs(keys: list[str]) -> Iterator[tuple[int, int]]:
    for members in _grouped(keys):
        yield from combinations(members, 2)


def _lengths_too_far(a: str, b: str) -> bool:
    """Whether the lengths alone rule out a similarity of :data:`NEAR_DUPLICATE_RATIO`."""
    short, long = sorted((len(a), len(b)))
    return 2 * short / (short + long) < NEAR_DUPLICATE_RATIO


def _abbreviation_pairs(keys: list[str], words: list[list[str]]) -> Iterator[tuple[int, int]]:
    """Pairs whose later words abbreviate each other: only names of as many words, the same first one."""
    for members in _grouped((tuple(found[:1]), len(found)) for found in words):
        for i, j in combinations(members, 2):
            if keys[i] != keys[j] and _lengths_too_far(keys[i], keys[j]) and _abbreviates(words[i], words[j]):
                yield i, j


def _alike_candidates(keys: list[str], numbers: list[tuple[str, ...]]) -> Iterator[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of distinct keys of at least :data:`NEAR_DUPLICATE_MIN_LENGTH`
    characters with the same numbers and near lengths whose Indel similarity reaches the ratio.

    The scores are rapidfuzz's, in floats: a margin below the ratio keeps every pair that
    :func:`_similarity` then decides exactly. Keys are compared in
    blocks of rows against the window of keys whose lengths can reach the ratio: memory stays
    bounded, and pairs the lengths rule out are never compared.
    """
    import numpy
    from rapidfuzz import fuzz, process

    long_enough = [index for index, key in enumerate(keys) if len(key) >= NEAR_DUPLICATE_MIN_LENGTH]
    for members in _grouped(numbers[index] for index in long_enough):
        order = sorted((long_enough[member] for member in members), key=lambda index: (len(keys[index]), index))
        texts = [keys[index] for index in order]
        lengths = numpy.array([len(text) for text in texts])
        reach = (2 - NEAR_DUPLICATE_RATIO) / NEAR_DUPLICATE_RATIO  # the longest key a key of length 1 can match
        for start in range(0, len(order), _BLOCK):
            stop = min(start + _BLOCK, len(order))
            end = int(numpy.searchsorted(lengths, lengths[stop - 1] * reach, side="right"))
            scores = process.cdist(
                texts[start:stop],
                texts[start:end],
                scorer=fuzz.ratio,
                score_cutoff=100 * NEAR_DUPLICATE_RATIO - 1,  # a margin for rounding; _similarity decides
                dtype=numpy.float32,
            )
            for row, column in zip(*numpy.nonzero(scores), strict=True):
                one, other = order[start + row], order[start + column]
                if start + column > start + row and texts[row + start] != texts[column + start]:
                    if not _lengths_too_far(keys[one], keys[other]):
                        yield min(one, other), max(one, other)


def suspicious_spellings(graph: TransitGraph) -> Iterator[_Raw]:
    """Lint's ``suspicious_spelling`` check: names ending in a misspelt station word, or with an ``l`` for an ``I``.

    Parameters
    ----------
    graph : TransitGraph
        The city.

    Yields
    ------
    tuple of (str, str, tuple of str, tuple of str)
        The kind, the message, the station and its lines (a :class:`graphkit.lint.Finding` less its city).
    """
    for station in graph.stations:
        name = graph.display_name(station)
        last = name.split()[-1]
        if last != name and last.casefold() != _STATION_WORD and _station_word(last):
            yield (
                "suspicious_spelling",
                f"{station!r} ends in {last!r}, a misspelt station word",
                (station,),
                graph.lines_at(station),
            )
        if _LOWERCASE_L.search(name):
            yield (
                "suspicious_spelling",
                f"{station!r} has a word starting with a lowercase 'l' that reads as an 'I'",
                (station,),
                graph.lines_at(station),
            )
