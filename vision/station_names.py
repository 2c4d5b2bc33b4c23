"""Station names an answer nearly gets right: each station's match keys, and the near misses of a name.

Used by :mod:`vision.diagnose` to tell a misread station (a near miss of a real name) from a hallucinated one.
"""

from __future__ import annotations

from graphkit.graph import TransitGraph
from graphkit.names import fold, has_cjk, station_keys

__all__ = ["name_forms", "near_miss", "near_miss_distance"]

_KEYS: dict[int, tuple[TransitGraph, dict[str, str]]] = {}
_KEPT = 64


def _station_keys_of(graph: TransitGraph) -> dict[str, str]:
    """Every match key of every station of ``graph`` -> the station (the first in data order)."""
    entry = _KEYS.get(id(graph))
    if entry is None or entry[0] is not graph:
        if len(_KEYS) >= _KEPT:
            del _KEYS[next(iter(_KEYS))]
        keys: dict[str, str] = {}
        for name in graph.stations:
            for key in name_forms(name):
                keys.setdefault(key, name)
        entry = _KEYS[id(graph)] = (graph, keys)
    return entry[1]


def name_forms(name: str) -> tuple[str, ...]:
    """What a station name is compared by: its match keys and its folded self.

    Parameters
    ----------
    name
        A station name, as written.

    Returns
    -------
    tuple of str
        The forms, without repeats, in order.
    """
    return tuple(dict.fromkeys((*station_keys(name), fold(name))))


def near_miss_distance(a: str, b: str, *, real: bool = False) -> int | None:
    """The edit distance of two names when it makes a near miss, or ``None``.

    A near miss is at most 2 edits and at most half the longer name. When ``a`` is itself a real station
    (the answer names a station of the map, not a typo), Chinese names are held to less: each character
    carries a syllable and most of a name's meaning, so two of them changed make another station, a
    wrong-station guess, not a misreading (安定门站 and 建国门站 are two real stations): at most 1 edit, in a
    name of 3 characters or more besides 站.

    Parameters
    ----------
    a, b
        The two names (match keys or folded names).
    real
        ``a`` is itself a real station.

    Returns
    -------
    int or None
        The edit distance, or ``None`` when it makes no near miss.

    Examples
    --------
    >>> near_miss_distance("marcomi", "marconi"), near_miss_distance("安定门站", "建国门站")
    (1, 2)
    >>> near_miss_distance("安定门站", "建国门站", real=True)
    >>> near_miss_distance("安走门站", "安定门站", real=True), near_miss_distance("西丹", "西单", real=True)
    (1, None)
    """
    from rapidfuzz.distance import Levenshtein

    distance = Levenshtein.distance(a, b, score_cutoff=2)
    if distance > 2 or distance > max(1, max(len(a), len(b)) // 2):
        return None
    if real and (has_cjk(a) or has_cjk(b)):
        longest = max(len(a.removesuffix("站")), len(b.removesuffix("站")))
        return distance if distance <= 1 and longest >= 3 else None
    return distance


def near_miss(text: str, graph: TransitGraph) -> tuple[str, int] | None:
    """The station ``text`` nearly names, with the edit distance of their match keys, or ``None``.

    Parameters
    ----------
    text : str
        A station name as an answer writes it.
    graph : TransitGraph
        The city.

    Returns
    -------
    (str, int) or None
        The station and the distance (at most 2 edits and at most half the name).

    Examples
    --------
    >>> from graphkit import city_graph
    >>> near_miss("Marcomi", city_graph("rome"))
    ('Marconi Station', 1)
    >>> near_miss("Gloriana Towers", city_graph("rome")) is None
    True
    """
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    keys = _station_keys_of(graph)
    choices = list(keys)  # the station keys and folded names
    best: tuple[int, str] | None = None
    for key in name_forms(text) if isinstance(text, str) else ():
        found = process.extractOne(key, choices, scorer=Levenshtein.distance, score_cutoff=2)
        if found is None:
            continue
        distance = near_miss_distance(key, found[0])
        if distance is not None and (best is None or (distance, keys[found[0]]) < best):
            best = (distance, keys[found[0]])
    return None if best is None else (best[1], best[0])
