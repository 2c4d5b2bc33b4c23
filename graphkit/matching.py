"""Resolve what people write to the station and line names of the data.

Resolution goes by tiers: the exact name, then the normalized key, then the
romanized keys (see :mod:`graphkit.names`). The first tier that fits decides;
if it fits several distinct names the answer is an ambiguity, never a merge.
A name that fits nothing gets close-match suggestions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from graphkit.choices import check_choice, close_choices
from graphkit.errors import AmbiguousLine, AmbiguousStation, UnknownLine, UnknownStation
from graphkit.names import fold, line_keys, station_keys

__all__ = ["NameIndex", "Resolution"]

# how alike a key must be to be suggested (rapidfuzz's ratio, 0-100): difflib's 0.6, which this replaced
_SUGGEST_RATIO = 60

Kind = Literal["station", "line"]
_KINDS: dict[str, tuple[Callable[[str], tuple[str, ...]], type[LookupError], type[LookupError]]] = {
    "station": (station_keys, UnknownStation, AmbiguousStation),
    "line": (line_keys, UnknownLine, AmbiguousLine),
}


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome of matching one query.

    ``status`` is ``"exact"`` or ``"matched"`` (one name, in ``names``),
    ``"ambiguous"`` (several) or ``"unknown"`` (``names`` are suggestions).

    Attributes
    ----------
    query : str
        The text matched.
    status : {"exact", "matched", "ambiguous", "unknown"}
        How it matched.
    names : tuple of str
        The name matched, the candidates, or the suggestions.
    """

    query: str
    status: Literal["exact", "matched", "ambiguous", "unknown"]
    names: tuple[str, ...]

    @property
    def name(self) -> str | None:
        """The single name resolved to, or ``None``."""
        return self.names[0] if self.status in ("exact", "matched") else None


class NameIndex:
    """An index of the station (or line) names of one city.

    Parameters
    ----------
    names : iterable of str
        The names as cleaned in the data; each is a distinct entity.
    kind : {"station", "line"}
    city : str, optional
        Used in error messages.
    spellings : mapping, optional
        Name to the texts it answers to, in place of the name itself (a
        station of several sharing a name answers to that name; an alias's
        station to each of its spellings). The name itself always matches exactly.

    Examples
    --------
    >>> index = NameIndex(["西直门站", "车公庄站"], kind="station")
    >>> index.resolve("Xizhimen Station")
    '西直门站'
    >>> NameIndex(["Line 1", "Line 2"], kind="line").resolve("1号线")
    'Line 1'
    """

    __slots__ = ("names", "kind", "city", "_tiers", "_memo")

    def __init__(
        self,
        names: Iterable[str],
        *,
        kind: Kind = "station",
        city: str = "",
        spellings: Mapping[str, Iterable[str]] | None = None,
    ):
        check_choice(kind, sorted(_KINDS), what="kind")
        self.names = tuple(dict.fromkeys(names))
        self.kind = kind
        self.city = city
        keys_of = _KINDS[kind][0]
        texts = {name: tuple((spellings or {}).get(name, (name,))) for name in self.names}
        depth = max((len(keys_of(text)) for found in texts.values() for text in found), default=1)
        tiers: list[dict[str, list[str]]] = [{} for _ in range(depth + 1)]
        for name in self.names:
            tiers[0].setdefault(name, []).append(name)
            for text in texts[name]:
                tiers[0].setdefault(text, []).append(name)
                for level, key in enumerate(keys_of(text), start=1):
                    tiers[level].setdefault(key, []).append(name)
        self._tiers: list[dict[str, tuple[str, ...]]] = [
            {key: tuple(dict.fromkeys(found)) for key, found in tier.items()} for tier in tiers
        ]
        self._memo: dict[str, Resolution] = {}

    def __repr__(self) -> str:
        return f"NameIndex({len(self.names)} {self.kind} names{f' of {self.city}' if self.city else ''})"

    def keys(self) -> frozenset[str]:
        """Every key of every indexed name and spelling: a query that shares none of them is unknown.

        Examples
        --------
        >>> sorted(NameIndex(["西直门站"], kind="station").keys())
        ['xizhimen', '西直门']
        """
        return frozenset(key for tier in self._tiers[1:] for key in tier)

    def lookup(self, query: str) -> Resolution:
        """Match ``query`` without raising; see :class:`Resolution`."""
        found = self._memo.get(query)
        if found is None:
            found = self._memo[query] = self._lookup(query)
        return found

    def _lookup(self, query: str) -> Resolution:
        text = query.strip()
        exact = self._tiers[0].get(text)
        if exact is not None:
            return Resolution(query, "exact", exact) if len(exact) == 1 else Resolution(query, "ambiguous", exact)
        keys_of = _KINDS[self.kind][0]
        query_keys = keys_of(text) if text else ()
        # a query key may sit at any level (a pinyin query meets the pinyin tier)
        for tier in self._tiers[1:]:
            hits = tuple(dict.fromkeys(name for key in query_keys for name in tier.get(key, ())))
            if len(hits) == 1:
                return Resolution(query, "matched", hits)
            if hits:
                return Resolution(query, "ambiguous", tuple(sorted(hits)))
        return Resolution(query, "unknown", self.suggest(text))

    def resolve(self, query: str) -> str:
        """The one name ``query`` stands for.

        Raises
        ------
        UnknownStation, UnknownLine
            Nothing fits; the error lists close matches.
        AmbiguousStation, AmbiguousLine
            Several distinct names fit.
        """
        found = self.lookup(query)
        if found.name is not None:
            return found.name
        _, unknown, ambiguous = _KINDS[self.kind]
        error = ambiguous if found.status == "ambiguous" else unknown
        raise error(query, found.names, city=self.city)

    def suggest(self, query: str, *, limit: int = 3) -> tuple[str, ...]:
        """Names whose keys are close to the query's."""
        keys_of = _KINDS[self.kind][0]
        by_key: dict[str, str] = {fold(name): name for name in self.names}
        for tier in self._tiers[1:]:
            for key, names in tier.items():
                by_key.setdefault(key, names[0])
        probes = tuple(dict.fromkeys((*keys_of(query), fold(query))))
        found: list[str] = []
        for probe in probes:
            for key in close_choices(probe, by_key, limit=limit, cutoff=_SUGGEST_RATIO):
                found.append(by_key[key])
        return tuple(dict.fromkeys(found))[:limit]
