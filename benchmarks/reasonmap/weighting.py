"""Difficulty weights of questions, by named scheme, and the weighted accuracy.

The paper weights each question by its difficulty and the map's (its
weighted accuracy); the public evaluation code fixes every weight to 1. The
schemes here are selectable by name:

``paper``
    The 3×3 question × map matrix: ``1 + 0.5·(q + m)`` with easy = 0,
    middle = 1, hard = 2, so easy/easy 1.0 … hard/hard 3.0.
``city``
    1 / 1.5 / 2 by map difficulty only (as other harnesses weight).
``none``
    Every question weighs 1 (plain accuracy).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from benchmarks.metrics import weighted_mean
from benchmarks.reasonmap.records import DIFFICULTIES, Question, Verdict
from graphkit.choices import check_choice

__all__ = ["WeightingScheme", "WEIGHTINGS", "get_weighting", "weight_of", "weighted_accuracy"]


@dataclass(frozen=True, slots=True)
class WeightingScheme:
    """Weights by (question difficulty, map difficulty).

    Attributes
    ----------
    name : str
    description : str
        One line.
    table : tuple of tuple of float
        ``table[q][m]``: the weight of a question of difficulty level ``q`` on
        a map of level ``m`` (levels in :data:`~benchmarks.reasonmap.records.DIFFICULTIES` order).
    """

    name: str
    description: str
    table: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]

    def weight(self, question_difficulty: str, map_difficulty: str) -> float:
        """The weight of one (question, map) difficulty pair.

        Raises
        ------
        ValueError
            A level is not one of ``easy``, ``middle``, ``hard``.
        """
        for label, level in (("question", question_difficulty), ("map", map_difficulty)):
            if level not in _LEVEL:
                raise ValueError(f"{label} difficulty must be one of {list(DIFFICULTIES)}, got {level!r}")
        return self.table[_LEVEL[question_difficulty]][_LEVEL[map_difficulty]]


_LEVEL = {level: index for index, level in enumerate(DIFFICULTIES)}


def _table(weight) -> tuple:
    return tuple(tuple(float(weight(q, m)) for m in range(3)) for q in range(3))


#: Weighting schemes by name.
WEIGHTINGS: dict[str, WeightingScheme] = {
    "paper": WeightingScheme(
        "paper",
        "the paper's question x map difficulty matrix, 1 + 0.5 (q + m): 1.0 to 3.0",
        _table(lambda q, m: 1 + 0.5 * (q + m)),
    ),
    "city": WeightingScheme("city", "by map difficulty only: 1 / 1.5 / 2", _table(lambda q, m: 1 + 0.5 * m)),
    "none": WeightingScheme("none", "every question weighs 1 (plain accuracy)", _table(lambda q, m: 1)),
}


def get_weighting(name: str) -> WeightingScheme:
    """The weighting scheme called ``name``.

    Raises
    ------
    ValueError
        No scheme has that name; the message lists the valid ones.

    Examples
    --------
    >>> get_weighting("city").weight("easy", "hard")
    2.0
    >>> get_weighting("uniform")
    Traceback (most recent call last):
    ...
    graphkit.choices.UnknownChoice: weighting must be one of ['paper', 'city', 'none'], got 'uniform'
    """
    return WEIGHTINGS[check_choice(name, WEIGHTINGS, what="weighting")]


def weight_of(question: Question, scheme: str = "paper") -> float:
    """The weight of ``question`` under the named scheme.

    Raises
    ------
    ValueError
        ``scheme`` is not one of :data:`WEIGHTINGS`.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> question = generate_questions(city_graph("beijing"), seed=0, per_city=1)[0]
    >>> question.difficulty_question, question.difficulty_city
    ('middle', 'hard')
    >>> weight_of(question), weight_of(question, "city"), weight_of(question, "none")
    (2.5, 2.0, 1.0)
    """
    return get_weighting(scheme).weight(question.difficulty_question, question.difficulty_city)


def weighted_accuracy(verdicts: Iterable[Verdict]) -> float:
    """``sum(weight · correct) / sum(weight)`` over the verdicts.

    Raises
    ------
    ValueError
        There is no verdict (or the weights add up to 0).

    Examples
    --------
    >>> from benchmarks.reasonmap.records import Verdict
    >>> weighted_accuracy([Verdict("1", "m", "short", None, 1, 20.0, weight=3.0),
    ...                    Verdict("2", "m", "short", None, 0, 0.0, weight=1.0)])
    0.75
    """
    value = weighted_mean((verdict.correct, verdict.weight) for verdict in verdicts)
    if value is None:
        raise ValueError("weighted accuracy of no verdicts (or of weights that add up to 0)")
    return value
