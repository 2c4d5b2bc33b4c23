"""City statistics and map-difficulty tiers.

A map's difficulty comes from its line count and its transfer-station count,
ranked against the 30 embedded ReasonMap cities: each city gets the mean of
its two percentile ranks, and the cities split into thirds by that score
(easy, middle, hard; ties broken by name). A city outside the 30 is placed
by comparing its score with the boundaries of those thirds. Stations are
counted as the overlays identify them: Beijing's 西单 / 西单站 is one transfer
station, New York's four 125 St stations are four.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from functools import cache, lru_cache
from typing import Literal

from graphkit.metro import MetroData

__all__ = ["CityStats", "Difficulty", "city_stats", "all_city_stats", "difficulty_of", "TIERS"]

Difficulty = Literal["easy", "middle", "hard"]
TIERS: tuple[Difficulty, ...] = ("easy", "middle", "hard")


@dataclass(frozen=True, slots=True)
class CityStats:
    """What a map holds, and how hard it is among the benchmark's maps.

    Parameters
    ----------
    city, country : str
        The city's name and country, as its Metro Data gives them.
    lines : int
        Its lines.
    stations : int
        Its distinct stations (a station served by several lines counted once).
    transfer_stations : int
        Its stations served by more than one line.
    difficulty : {"easy", "middle", "hard"}
        Its map difficulty among the 30 embedded cities (:func:`difficulty_of`).
    """

    city: str
    country: str
    lines: int
    stations: int
    transfer_stations: int
    difficulty: Difficulty

    def to_dict(self) -> dict:
        return asdict(self)


def _counts(metro: MetroData) -> tuple[int, int, int]:
    served = Counter(name for line in metro.lines for name in dict.fromkeys(line.stations))
    return len(metro.lines), len(served), sum(1 for count in served.values() if count > 1)


def _percentile(value: int, population: list[int]) -> float:
    below = sum(1 for other in population if other < value)
    equal = sum(1 for other in population if other == value)
    return (below + 0.5 * equal) / len(population)


@lru_cache(maxsize=1)
def _reference() -> tuple[list[int], list[int], tuple[float, float], dict[str, Difficulty]]:
    """Line and transfer counts of the embedded cities, the tier boundaries, and their tiers."""
    from graphkit.cities import city_names

    counts = {name: _counts(_identified(name)) for name in city_names()}
    lines = [c[0] for c in counts.values()]
    transfers = [c[2] for c in counts.values()]
    scores = {name: (_percentile(c[0], lines) + _percentile(c[2], transfers)) / 2 for name, c in counts.items()}
    ranked = sorted(scores, key=lambda name: (scores[name], name))
    third = len(ranked) / 3
    tiers = {name: TIERS[min(2, int(index // third))] for index, name in enumerate(ranked)}
    easy_top = max(scores[name] for name in ranked if tiers[name] == "easy")
    middle_top = max(scores[name] for name in ranked if tiers[name] == "middle")
    return lines, transfers, (easy_top, middle_top), tiers


def difficulty_of(metro: MetroData) -> Difficulty:
    """Map difficulty of a city, ranked against the 30 embedded cities.

    Parameters
    ----------
    metro : MetroData
        The city's data (an embedded city's own file gets its tier as ranked).

    Returns
    -------
    {"easy", "middle", "hard"}
        The tier whose range its line and transfer counts fall in.

    Examples
    --------
    >>> from graphkit.cities import load_city
    >>> difficulty_of(load_city("beijing")[0]), difficulty_of(load_city("sydney")[0])
    ('hard', 'easy')
    """
    lines, transfers, (easy_top, middle_top), tiers = _reference()
    from graphkit.cities import city_names

    if metro.city in city_names() and metro.source.endswith(f"{metro.city}.json"):
        return tiers[metro.city]
    n_lines, _, n_transfers = _counts(metro)
    score = (_percentile(n_lines, lines) + _percentile(n_transfers, transfers)) / 2
    return "easy" if score <= easy_top else "middle" if score <= middle_top else "hard"


def city_stats(metro: MetroData) -> CityStats:
    """Lines, stations, transfer stations and map difficulty of a city.

    Parameters
    ----------
    metro : MetroData
        The city's Metro Data.

    Returns
    -------
    CityStats
        Its counts and difficulty tier.

    Examples
    --------
    >>> from graphkit.cities import load_city
    >>> stats = city_stats(load_city("rome")[0])
    >>> stats.lines, stats.difficulty
    (3, 'easy')
    """
    n_lines, n_stations, n_transfers = _counts(metro)
    return CityStats(metro.city, metro.country, n_lines, n_stations, n_transfers, difficulty_of(metro))


def all_city_stats() -> tuple[CityStats, ...]:
    """Statistics of the 30 embedded cities, by name.

    Returns
    -------
    tuple of CityStats
        One per embedded city, in :func:`graphkit.cities.city_names` order, stations as the city's overlay
        identifies them (aliases joined, homonyms split).
    """
    from graphkit.cities import city_names

    return tuple(city_stats(_identified(name)) for name in city_names())


@cache  # the 30 cities: read once for the tiers and once more for their own counts otherwise
def _identified(name: str) -> MetroData:
    """An embedded city's data with stations as its overlay identifies them (aliases joined, homonyms split)."""
    from graphkit.cities import load_city
    from graphkit.identities import station_identities

    return station_identities(*load_city(name)).metro
