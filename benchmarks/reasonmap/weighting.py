"""A route question's weight under a named scheme, and the weighted accuracy of verdicts.

The schemes themselves (``paper``, ``city``, ``none``) are shared by every
task: :mod:`benchmarks.difficulty`.
"""

from __future__ import annotations

from collections.abc import Iterable

from benchmarks.difficulty import get_weighting
from benchmarks.metrics import weighted_mean
from benchmarks.reasonmap.records import Question, Verdict

__all__ = ["weight_of", "weighted_accuracy"]


def weight_of(question: Question, scheme: str = "paper") -> float:
    """The weight of ``question`` under the named scheme.

    Parameters
    ----------
    question : Question
        The question (read by its two difficulties).
    scheme : str, optional
        The weighting scheme.

    Returns
    -------
    float
        Its weight.

    Raises
    ------
    ValueError
        ``scheme`` is not one of :data:`benchmarks.difficulty.WEIGHTINGS`.

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

    Parameters
    ----------
    verdicts : iterable of Verdict
        The verdicts.

    Returns
    -------
    float
        The weighted accuracy.

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
