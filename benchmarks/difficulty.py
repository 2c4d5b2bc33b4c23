"""Difficulty levels and the weighting schemes every task shares.

A question and its map each have a level (:data:`DIFFICULTIES`). The paper
weights each question by its difficulty and the map's (its weighted
accuracy); the public evaluation code fixes every weight to 1. The schemes
here are selectable by name:

``paper``
    The 3×3 question × map matrix: ``1 + 0.5·(q + m)`` with easy = 0,
    middle = 1, hard = 2, so easy/easy 1.0 … hard/hard 3.0.
``city``
    1 / 1.5 / 2 by map difficulty only (as other harnesses weight).
``none``
    Every question weighs 1 (plain accuracy).

A task weights its own records with :meth:`WeightingScheme.weight`
(ReasonMap-Plus questions have a map level only and pass ``"easy"`` for the
question's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graphkit.choices import check_choice

__all__ = ["Difficulty", "DIFFICULTIES", "WeightingScheme", "WEIGHTINGS", "get_weighting"]

Difficulty = Literal["easy", "middle", "hard"]
#: The levels, easiest first (a question's and a map's).
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "middle", "hard")


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
        a map of level ``m`` (levels in :data:`DIFFICULTIES` order).
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

    Parameters
    ----------
    name : str
        One of :data:`WEIGHTINGS`.

    Returns
    -------
    WeightingScheme
        The scheme.

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
