"""Scoring map answers: exact match for every type, partial credit and rank correlation beside it.

Two pure stages: :func:`~benchmarks.mapqa.parsing.parse_answer` reads the
letters (never raises), :func:`score_answer` scores them with every metric of
:data:`METRICS` that applies to the question's type:

``exact`` (all types)
    1 when the answer is exactly right: the one letter (single), the same set
    of letters (multiple: order and repeats do not matter), the same order of
    all the options (sorting); else 0. Accuracy is its mean.
``jaccard`` (multiple)
    Partial credit: ``|chosen ∩ correct| / |chosen ∪ correct|``, in [0, 1];
    1 exactly when the sets are equal, 0 when they share nothing. Every wrong
    pick and every missed option lowers it, so choosing all the options earns
    only ``|correct| / |options|``.
``kendall_tau`` (sorting)
    Kendall's tau-b between the answer's order and the right one, in
    [-1, 1]: 1 exactly for the right order, -1 for its reverse. An order
    that does not rank every option exactly once gets 0, the expected tau of
    a random order.

An invalid answer gets each metric's ``invalid`` value (0 for all three).
Scores depend only on which options were chosen and how they were ordered,
never on the options' letters or positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchmarks.mapqa.parsing import Choice, parse_answer
from benchmarks.mapqa.records import QUESTION_TYPES, MapPrediction, MapQuestion, MapVerdict, QuestionType
from benchmarks.records import Invalid, check_answers, score_matched

__all__ = [
    "Metric",
    "METRICS",
    "metrics_for",
    "exact_match",
    "jaccard",
    "kendall_tau",
    "score_answer",
    "score_prediction",
    "score_predictions",
]


def exact_match(chosen: Sequence[str], answer: Sequence[str], *, ordered: bool) -> float:
    """Whether the letters chosen are the answer.

    Parameters
    ----------
    chosen, answer : sequence of str
        The letters chosen and the right ones.
    ordered : bool
        Compare them as sequences (sorting), else as sets.

    Returns
    -------
    float
        1.0 when ``chosen`` is ``answer``, else 0.0.

    Examples
    --------
    >>> exact_match(["C", "A"], ["A", "C"], ordered=False), exact_match(["C", "A"], ["A", "C"], ordered=True)
    (1.0, 0.0)
    """
    same = list(chosen) == list(answer) if ordered else set(chosen) == set(answer)
    return 1.0 if same else 0.0


def jaccard(chosen: Iterable[str], answer: Iterable[str]) -> float:
    """The Jaccard index of two sets of letters.

    Parameters
    ----------
    chosen, answer : iterable of str
        The letters chosen and the right ones.

    Returns
    -------
    float
        ``|chosen ∩ answer| / |chosen ∪ answer|``; 1.0 for two empty sets.

    Examples
    --------
    >>> jaccard("AC", "AB"), jaccard("AB", "BA"), jaccard("D", "AB")
    (0.3333333333333333, 1.0, 0.0)
    """
    chosen, answer = set(chosen), set(answer)
    union = chosen | answer
    return len(chosen & answer) / len(union) if union else 1.0


def kendall_tau(order: Sequence[str], reference: Sequence[str]) -> float:
    """Kendall's tau-b between two orders of the same distinct items.

    Without ties tau-b is ``(concordant - discordant) / (n (n - 1) / 2)``,
    computed in integers and divided once, so the right order gives exactly
    1.0 and its reverse exactly -1.0. A single item gives 1.0.

    Parameters
    ----------
    order : sequence of str
        The order given.
    reference : sequence of str
        The right order.

    Returns
    -------
    float
        Tau from -1.0 to 1.0.

    Raises
    ------
    ValueError
        The two orders are not of the same distinct items.

    Examples
    --------
    >>> kendall_tau("BAC", "BAC"), kendall_tau("CAB", "BAC"), kendall_tau("ABC", "BAC")
    (1.0, -1.0, 0.3333333333333333)
    """
    order, reference = list(order), list(reference)
    if len(set(reference)) != len(reference) or sorted(order) != sorted(reference):
        raise ValueError(f"kendall_tau: {order} and {reference} are not orders of the same distinct items")
    count = len(order)
    if count < 2:
        return 1.0
    rank = {item: position for position, item in enumerate(reference)}
    ranks = [rank[item] for item in order]
    balance = 0
    for i in range(count):
        for j in range(i + 1, count):
            balance += 1 if ranks[i] < ranks[j] else -1
    return balance / (count * (count - 1) // 2)


@dataclass(frozen=True, slots=True)
class Metric:
    """A registered metric.

    Parameters
    ----------
    name : str
        Its name (a key of :data:`METRICS` and of a verdict's ``scores``).
    types : tuple of str
        The question types it applies to.
    compute : callable
        ``(letters chosen, question) -> value``.
    invalid : float
        Its value for an invalid answer.
    low, high : float
        Its range.
    higher_is_better : bool
        Its direction.
    aggregation : str
        How a summary aggregates it.
    description : str
        What it measures, in words.
    """

    name: str
    types: tuple[QuestionType, ...]
    compute: Callable[[tuple[str, ...], MapQuestion], float]
    invalid: float
    low: float
    high: float
    higher_is_better: bool
    aggregation: str
    description: str


def _tau_or_zero(chosen: tuple[str, ...], question: MapQuestion) -> float:
    if sorted(chosen) != sorted(question.answer):
        return 0.0  # not every option ranked once: no association
    return kendall_tau(chosen, question.answer)


METRICS: dict[str, Metric] = {
    "exact": Metric(
        "exact",
        QUESTION_TYPES,
        lambda chosen, question: exact_match(chosen, question.answer, ordered=question.type == "sorting"),
        invalid=0.0,
        low=0.0,
        high=1.0,
        higher_is_better=True,
        aggregation="mean",
        description="exactly the right option, set of options or order (accuracy when averaged)",
    ),
    "jaccard": Metric(
        "jaccard",
        ("multiple",),
        lambda chosen, question: jaccard(chosen, question.answer),
        invalid=0.0,
        low=0.0,
        high=1.0,
        higher_is_better=True,
        aggregation="mean",
        description="partial credit: |chosen ∩ correct| / |chosen ∪ correct|",
    ),
    "kendall_tau": Metric(
        "kendall_tau",
        ("sorting",),
        _tau_or_zero,
        invalid=0.0,
        low=-1.0,
        high=1.0,
        higher_is_better=True,
        aggregation="mean",
        description="Kendall's tau-b with the right order; 0 when the order does not rank every option once",
    ),
}


def metrics_for(kind: QuestionType) -> tuple[Metric, ...]:
    """The metrics that apply to a question type, in :data:`METRICS` order.

    Parameters
    ----------
    kind : {"single", "multiple", "sorting"}
        The question type.

    Returns
    -------
    tuple of Metric
        Those whose ``types`` hold ``kind``.

    Raises
    ------
    ValueError
        ``kind`` is not a question type.
    """
    if kind not in QUESTION_TYPES:
        raise ValueError(f"question type must be one of {list(QUESTION_TYPES)}, got {kind!r}")
    return tuple(metric for metric in METRICS.values() if kind in metric.types)


def score_answer(parsed: Choice | Invalid, question: MapQuestion) -> dict[str, float]:
    """Every metric that applies to ``question``, for what was parsed from an answer.

    Parameters
    ----------
    parsed : Choice or Invalid
        What :func:`benchmarks.mapqa.parsing.parse_letters` read.
    question : MapQuestion
        The question answered.

    Returns
    -------
    dict of str to float
        Each metric of the question's type (:func:`metrics_for`) with its value; an invalid answer gets each
        metric's ``invalid`` value.

    Examples
    --------
    >>> record = {"id": "q", "image": "m.png", "question": "Order them", "options": ["x", "y", "z"],
    ...           "answer": "B > A > C", "type": "sorting", "level": 2, "category": "metro", "language": "en"}
    >>> question = MapQuestion.from_dict(record)
    >>> score_answer(Choice(("B", "A", "C")), question)
    {'exact': 1.0, 'kendall_tau': 1.0}
    >>> score_answer(Choice(("A", "B", "C")), question)
    {'exact': 0.0, 'kendall_tau': 0.3333333333333333}
    >>> score_answer(Invalid("no option found"), question)
    {'exact': 0.0, 'kendall_tau': 0.0}
    """
    if isinstance(parsed, Invalid):
        return {metric.name: metric.invalid for metric in metrics_for(question.type)}
    return {metric.name: metric.compute(parsed.letters, question) for metric in metrics_for(question.type)}


def score_prediction(prediction: MapPrediction, question: MapQuestion) -> MapVerdict:
    """Parse and score one prediction.

    Parameters
    ----------
    prediction : MapPrediction
        The answer.
    question : MapQuestion
        The question it answers.

    Returns
    -------
    MapVerdict
        The letters read (``None`` when invalid, with the reason), every metric's value, the tokens and repeat.

    Raises
    ------
    ValueError
        The prediction answers another question.
    """
    check_answers(prediction, question)
    parsed = parse_answer(prediction.response, question)
    return MapVerdict(
        prediction.id,
        prediction.model,
        None if isinstance(parsed, Invalid) else parsed.letters,
        score_answer(parsed, question),
        parsed.reason if isinstance(parsed, Invalid) else None,
        prediction.tokens,
        prediction.repeat,
    )


def score_predictions(
    questions: Mapping[str, MapQuestion], predictions: Iterable[MapPrediction]
) -> tuple[list[MapVerdict], list[str]]:
    """Score a batch of predictions.

    Parameters
    ----------
    questions : mapping
        Question id to question.
    predictions : iterable of MapPrediction

    Returns
    -------
    verdicts : list of MapVerdict
        One per prediction that matches a question, in input order.
    skipped : list of str
        Why the others were skipped, one message each (:func:`benchmarks.records.unmatched`: no question
        has their id); nothing else is lost.
    """
    return score_matched(questions, predictions, score_prediction)
