"""The route task's map-score rules: the caps and bonuses of Algorithm 2, and how per-reference points are
aggregated (the paper's Table A4), with the highest map score a question allows.

Each rule is also a scoring variant of the route task under the same name (:mod:`benchmarks.reasonmap.scoring`
judges with them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from benchmarks.reasonmap.records import KINDS, Question
from graphkit.choices import check_choice

__all__ = [
    "SHORT_CAP",
    "SHORT_BONUS",
    "LONG_CAP",
    "LONG_BONUS",
    "VIA_CAP",
    "MapScoreRule",
    "MAP_SCORE_RULES",
    "get_map_score_rule",
    "is_long",
    "max_map_score",
]

Kind = Literal["short", "long"]

# floats throughout, so that every score and component is written the same way
SHORT_CAP, SHORT_BONUS = 10.0, 10.0
LONG_CAP, LONG_BONUS = 20.0, 20.0
VIA_CAP = 10.0


@dataclass(frozen=True, slots=True)
class MapScoreRule:
    """A map-score aggregation rule: how per-reference points become one map score (the paper's Table A4).

    Each rule is also a scoring variant of the route task under the same name; the task adds ``official``,
    which is no aggregation rule (see :func:`benchmarks.get_task`).

    Attributes
    ----------
    name, description : str
    aggregate : {"best", "mean"}
        The best reference's score, or the mean over references.
    endpoint_point : bool
        Whether right endpoints earn the ``dep_arr`` point.
    gated : bool
        Whether every point needs right endpoints (Algorithm 2 as printed).
    """

    name: str
    description: str
    aggregate: Literal["best", "mean"]
    endpoint_point: bool
    gated: bool = True


#: Map-score aggregation rules by name (each a route scoring variant of the same name).
MAP_SCORE_RULES: dict[str, MapScoreRule] = {
    "paper": MapScoreRule("paper", "Algorithm 2 as printed: the best over the reference routes", "best", True),
    "C1": MapScoreRule("C1", "Table A4 C1: the mean over the reference routes instead of the best", "mean", True),
    "C2": MapScoreRule("C2", "Table A4 C2: no point for right endpoints", "best", False),
    # partial credit for answers that miss an endpoint: a denser signal for RL rewards, not the paper's number
    "ungated": MapScoreRule(
        "ungated", "the paper's points, each earned on its own, also when an endpoint is wrong", "best", True, False
    ),
}


def get_map_score_rule(name: str) -> MapScoreRule:
    """The map-score aggregation rule called ``name``.

    Parameters
    ----------
    name : str
        A :data:`MAP_SCORE_RULES` name (the route variant it serves).

    Returns
    -------
    MapScoreRule

    Raises
    ------
    ValueError
        No variant has that name; the message lists the valid ones.

    Examples
    --------
    >>> get_map_score_rule("C1").aggregate
    'mean'
    """
    return MAP_SCORE_RULES[check_choice(name, MAP_SCORE_RULES, what="variant")]


def is_long(kind: str) -> bool:
    """Whether ``kind`` is ``"long"``; checks it is a kind.

    Parameters
    ----------
    kind : str
        ``"short"`` or ``"long"``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        ``kind`` is neither.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    return kind == "long"


def max_map_score(question: Question, kind: Kind, *, variant: str = "paper") -> float:
    """The highest map score an answer can get on ``question``.

    A reference route written out as the answer gets it. It is 20 (short) or
    40 (long) only when the references are long enough to reach the caps: a
    one-section reference route earns at most 1 + 4 segment points (+ the via
    part), so its short maximum is 15. For a ``mean`` variant this is the mean
    of the per-reference maxima: an upper bound that only one-reference
    questions reach.

    Parameters
    ----------
    question : Question
        The question.
    kind : {"short", "long"}
        The answer's kind.
    variant : str, optional
        The scoring variant (its map-score rule: :func:`get_map_score_rule`).

    Returns
    -------
    float
        The maximum, with the bonus of a correct answer.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> question = generate_questions(city_graph("rome"), seed=1, per_city=1)[0]
    >>> len(question.routes[0]), max_map_score(question, "short")
    (1, 15.0)
    """
    long = is_long(kind)
    chosen = get_map_score_rule(variant)
    endpoint = 1 if chosen.endpoint_point else 0
    maxima = []
    for route in question.routes:
        points = endpoint + 4 * len(route)
        if long and question.long_template == "via_count":
            points += min(VIA_CAP, 4 * len(route))
        elif long:
            points += (10 + min(VIA_CAP, sum(len(segment.via_stops) for segment in route))) / 2
        maxima.append(min(LONG_CAP if long else SHORT_CAP, points))
    best = max(maxima) if chosen.aggregate == "best" else sum(maxima) / len(maxima)
    return float(best + (LONG_BONUS if long else SHORT_BONUS))
