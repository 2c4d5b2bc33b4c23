"""Question generation: random station pairs per map, references from the graph.

As in the paper: pairs are drawn at random per map, each question's
difficulty comes from its reference's transfers (0 easy, 1 middle, 2+ hard),
a per-map quota (20:15:5 by default) stops taking a level once it is full,
and the long question's template is drawn at random. A map that cannot fill a
level (one line: no transfers) gives fewer questions; the overall difficulty
mix follows from that, as it did for the paper's 57.7% / 34.4% / 7.8%.
Everything random comes from ``seed``; the same seed gives the same file.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from benchmarks.difficulty import DIFFICULTIES, Difficulty
from benchmarks.reasonmap.records import LONG_TEMPLATES, Question
from benchmarks.reasonmap.templates import long_question, short_question
from benchmarks.splits import questions_of_maps, seeded_prefix
from graphkit.graph import RIDE_WEIGHT, TransitGraph
from graphkit.routes import DEFAULT_MAX_ROUTES, shortest_routes
from graphkit.stats import city_stats

__all__ = [
    "PAPER_DISTRIBUTION",
    "Quota",
    "parse_quota",
    "question_difficulty",
    "generate_questions",
    "difficulty_distribution",
    "generate_set",
    "format_distribution",
]

# Up to this many stations a map's pairs are listed and shuffled (the embedded cities: the same questions as
# ever); a larger map's departures are visited lazily, one search each (see _sampled_pairs).
_LISTED_STATIONS = 2_000
# Share of easy / middle / hard questions in the paper's data set.
PAPER_DISTRIBUTION: dict[Difficulty, float] = {"easy": 0.577, "middle": 0.344, "hard": 0.078}


@dataclass(frozen=True, slots=True)
class Quota:
    """Questions per map and difficulty level."""

    easy: int = 20
    middle: int = 15
    hard: int = 5

    def of(self, level: Difficulty) -> int:
        return getattr(self, level)

    @property
    def total(self) -> int:
        return self.easy + self.middle + self.hard


def parse_quota(text: str) -> Quota:
    """``"20:15:5"`` to a :class:`Quota`.

    Examples
    --------
    >>> parse_quota("20:15:5")
    Quota(easy=20, middle=15, hard=5)
    """
    parts = text.split(":")
    if len(parts) != 3 or not all(part.strip().isdigit() for part in parts):
        raise ValueError(f"quota must be EASY:MIDDLE:HARD with non-negative integers, got {text!r}")
    return Quota(*(int(part) for part in parts))


def question_difficulty(transfers: int) -> Difficulty:
    """0 transfers easy, 1 middle, 2 or more hard."""
    return DIFFICULTIES[min(transfers, 2)]


def _endpoints(graph: TransitGraph) -> tuple[str, ...]:
    """The stations a question may name: one that shares its name with another (an overlay's homonym)
    never is, since a question naming it would not say which one it means."""
    return tuple(station for station in graph.stations if len(graph.namesakes(station)) == 1)


def _listed_pairs(graph: TransitGraph, rng: random.Random) -> Iterator[tuple[str, str, tuple[int, int]]]:
    """Connected pairs ``(a, b, (transfers, stops))`` of a listed map: every unordered pair, shuffled,
    each in a random direction, costs from the graph's all-pairs table."""
    stations = _endpoints(graph)
    pairs = [(a, b) for i, a in enumerate(stations) for b in stations[i + 1 :]]
    rng.shuffle(pairs)
    for a, b in pairs:
        a, b = (a, b) if rng.random() < 0.5 else (b, a)
        cost = graph.least_cost(a, b)
        if cost is not None:
            yield a, b, cost


def _sampled_pairs(
    graph: TransitGraph, rng: random.Random, wanted: Callable[[Difficulty], bool]
) -> Iterator[tuple[str, str, tuple[int, int]]]:
    """Connected pairs of a large map: departures in a seeded random order, and for each one search
    (its costs to every station) and one arrival drawn among those of a level still ``wanted``.

    A network of 100,000 stations never holds its five billion pairs or an all-pairs table, and a rare
    level (a pair on one line) costs one search per question, not one per pair tried.
    """
    stations = _endpoints(graph)
    for index in _permuted(len(stations), rng):
        open_levels = {level for level in DIFFICULTIES if wanted(level)}
        if not open_levels:  # every level is full: no more searches
            return
        source = stations[index]
        weights = graph.cost_bounds(source)
        costs = []
        for target in stations:
            weight = weights[target]
            if target == source or not math.isfinite(weight):
                continue
            rides, stops = divmod(int(weight), RIDE_WEIGHT)
            if question_difficulty(rides - 1) in open_levels:
                costs.append((target, (rides - 1, stops)))
        if costs:
            target, cost = rng.choice(costs)  # a route costs the same both ways
            yield (source, target, cost) if rng.random() < 0.5 else (target, source, cost)


def _permuted(count: int, rng: random.Random) -> Iterator[int]:
    """Every integer below ``count`` once, in an order drawn from ``rng`` (a Feistel permutation, cycle-walked)."""
    half = max(1, ((count - 1).bit_length() + 1) // 2)
    mask = (1 << half) - 1
    keys = [rng.getrandbits(61) | 1 for _ in range(4)]

    def scramble(value: int) -> int:
        left, right = value >> half, value & mask
        for key in keys:
            left, right = right, left ^ (((right * key) >> 17 ^ right * 0x9E3779B1) & mask)
        return left << half | right

    for start in range(count):
        value = scramble(start)
        while value >= count:  # walk the cycle back into range: still a permutation of range(count)
            value = scramble(value)
        yield value


def generate_questions(
    graph: TransitGraph,
    *,
    seed: int = 0,
    per_city: int = 40,
    quota: Quota = Quota(),
    max_routes: int = DEFAULT_MAX_ROUTES,
    first_id: int = 0,
) -> list[Question]:
    """Questions for one map.

    Parameters
    ----------
    graph : TransitGraph
    seed : int
        Seeds the pair order and the long templates (mixed with the city's name).
    per_city : int
        At most this many questions.
    quota : Quota
        At most this many questions per difficulty level.
    max_routes : int
        References kept per question.
    first_id : int
        Ids are ``f"{city}-{n:04d}"`` counting from here; with a seed other than 0,
        ``f"{city}-s{seed}-{n:04d}"``, so that the files of two seeds never share an id.
    """
    city = graph.city or "custom"
    rng = random.Random(f"reasonmap:{seed}:{city}")
    prefix = seeded_prefix(city, seed)
    stats = city_stats(graph.metro)
    taken: Counter[str] = Counter()
    found: list[Question] = []
    if len(graph.stations) <= _LISTED_STATIONS:
        pairs = _listed_pairs(graph, rng)
    else:
        pairs = _sampled_pairs(graph, rng, lambda level: taken[level] < quota.of(level))
    for a, b, cost in pairs:
        if len(found) >= per_city or all(taken[level] >= quota.of(level) for level in DIFFICULTIES):
            break
        level = question_difficulty(cost[0])
        if taken[level] >= quota.of(level):
            continue
        references = shortest_routes(graph, a, b, max_routes=max_routes)
        taken[level] += 1
        template = rng.choice(LONG_TEMPLATES)
        a, b = graph.display_name(a), graph.display_name(b)
        found.append(
            Question(
                id=f"{prefix}-{first_id + len(found):04d}",
                country=graph.metro.country,
                city=city,
                station_1=a,
                station_2=b,
                question_short=short_question(a, b),
                question_long=long_question(a, b, template),
                long_template=template,
                # stations as the map names them; a section's line tells namesakes apart
                routes=tuple(graph.display_route(route).segments for route in references.routes),
                difficulty_question=level,
                difficulty_city=stats.difficulty,
                city_line_count=stats.lines,
                city_transfer_count=stats.transfer_stations,
                question_transfer_count=references.transfers,
            )
        )
    return found


def difficulty_distribution(questions: Iterable[Question]) -> dict[Difficulty, float]:
    """Share of each question difficulty level."""
    counts = Counter(question.difficulty_question for question in questions)
    total = sum(counts.values())
    return {level: (counts[level] / total if total else 0.0) for level in DIFFICULTIES}


def generate_set(
    graphs: Iterable[TransitGraph],
    *,
    seed: int = 0,
    per_city: int = 40,
    quota: Quota = Quota(),
    max_routes: int = DEFAULT_MAX_ROUTES,
    progress: bool = False,
) -> list[Question]:
    """Questions for several maps, one after another (see :func:`generate_questions`)."""
    one_map = partial(generate_questions, seed=seed, per_city=per_city, quota=quota, max_routes=max_routes)
    return questions_of_maps(graphs, one_map, progress=progress)


def format_distribution(questions: Sequence[Question]) -> str:
    """The difficulty mix of a question set beside the paper's, as a small table."""
    shares = difficulty_distribution(questions)
    counts = Counter(question.difficulty_question for question in questions)
    rows = [f"{'difficulty':<10} {'questions':>9} {'share':>7} {'paper':>7}"]
    for level in DIFFICULTIES:
        rows.append(f"{level:<10} {counts[level]:>9} {shares[level]:>7.1%} {PAPER_DISTRIBUTION[level]:>7.1%}")
    rows.append(f"{'total':<10} {len(questions):>9} {'':>7} {'':>7}")
    return "\n".join(rows)
