"""Reading and scoring answers to ReasonMap-Plus questions: exact match.

Two pure stages, as for route answers: :func:`parse_answer` reads a
response (never raises: it returns :class:`~benchmarks.records.Invalid`),
:func:`score_answer` compares what it read with the question's answer.

Where the answer is looked for, and what never matters, is the shared reading of short answers
(:func:`benchmarks.short_answers.read_short_answer`), which the probe task's yes/no and count questions use too.

``Counting1`` accepts the option's letter or its value: a value names the
option that holds it, so the same answer scores the same however the options
are ordered. A value that is no option is wrong, not invalid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.difficulty import get_weighting
from benchmarks.plus.records import ANSWER_KINDS, OPTION_LETTERS, PLUS_TYPES, AnswerKind, PlusPrediction, PlusQuestion
from benchmarks.records import Invalid, check_answers, score_matched
from benchmarks.short_answers import read_short_answer

__all__ = [
    "PlusAnswer",
    "PlusScore",
    "PlusScorer",
    "PlusVerdict",
    "PLUS_SCORERS",
    "plus_weight",
    "parse_answer",
    "score_answer",
    "score_prediction",
    "score_predictions",
]


@dataclass(frozen=True, slots=True)
class PlusScorer:
    """How one plus type is scored, and what its scorer guarantees (checked by one test suite for all).

    Attributes
    ----------
    type : str
    answer_kind : {"choice", "integer", "yes_no"}
    description : str
    invariances : tuple of str
        What never changes a verdict: ``case``, ``whitespace``, ``punctuation``,
        ``markdown`` around the answer; ``option_order`` for multiple choice.
    higher_is_better : bool
    aggregation : str
        How verdicts combine: the mean of ``correct`` weighted by map difficulty.
    """

    type: str
    answer_kind: AnswerKind
    description: str
    invariances: tuple[str, ...]
    higher_is_better: bool = True
    aggregation: str = "weighted_mean"


_TEXT_INVARIANCES = ("case", "whitespace", "punctuation", "markdown")
#: The scorer of every plus type.
PLUS_SCORERS: dict[str, PlusScorer] = {
    "Counting1": PlusScorer(
        "Counting1", "choice", "exact match of the option letter (or value)", (*_TEXT_INVARIANCES, "option_order")
    ),
    "Counting2": PlusScorer("Counting2", "integer", "exact match of the number of lines", _TEXT_INVARIANCES),
    "Counting3": PlusScorer("Counting3", "integer", "exact match of the number of stations", _TEXT_INVARIANCES),
    "TorF1": PlusScorer("TorF1", "yes_no", "exact match of yes/no", _TEXT_INVARIANCES),
    "TorF2": PlusScorer("TorF2", "yes_no", "exact match of yes/no", _TEXT_INVARIANCES),
}


@dataclass(frozen=True, slots=True)
class PlusAnswer:
    """What a response answers.

    Parameters
    ----------
    value : str or int
        ``"A"``–``"D"``, ``"yes"``/``"no"``, or an integer.
    """

    value: str | int


@dataclass(frozen=True, slots=True)
class PlusScore:
    """The judgement of one answer.

    Parameters
    ----------
    correct : int
        1 or 0.
    chosen : str, int or None
        The answer in the question's terms: the option letter a ``Counting1`` value names (``None`` when it names
        none, or when the response was invalid).
    """

    correct: int
    chosen: str | int | None


@dataclass(frozen=True, slots=True)
class PlusVerdict:
    """The score of one prediction of a plus question.

    Parameters
    ----------
    id : str
        The question's id.
    model : str
        The model.
    type : str
        The plus type.
    city : str
        The question's city.
    difficulty_city : str
        Its map's difficulty.
    parsed : str, int or None
        What the response answers (``None`` when invalid).
    chosen : str, int or None
        That answer in the question's terms (:class:`PlusScore`).
    answer : str or int
        The right answer.
    correct : int
        1 or 0.
    weight : float, optional
        The answer's weight in weighted figures (:func:`plus_weight`).
    invalid_reason : str, optional
        Why the response was invalid.
    tokens : int, optional
        The output tokens, when reported.
    repeat : int, optional
        Which answer to the request this is (0-based).
    """

    id: str
    model: str
    type: str
    city: str
    difficulty_city: str
    parsed: str | int | None
    chosen: str | int | None
    answer: str | int
    correct: int
    weight: float = 1.0
    invalid_reason: str | None = None
    tokens: int | None = None
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        record = {
            "id": self.id,
            "model": self.model,
            "question": self.type,
            "city": self.city,
            "difficulty_city": self.difficulty_city,
            "parsed": self.parsed,
            "chosen": self.chosen,
            "answer": self.answer,
            "correct": self.correct,
            "weight": self.weight,
            "invalid_reason": self.invalid_reason,
            "tokens": self.tokens,
        }
        if self.repeat:
            record["repeat"] = self.repeat
        return record

    @classmethod
    def of(
        cls,
        prediction: PlusPrediction,
        question: PlusQuestion,
        parsed: str | int | None,
        chosen: str | int | None,
        correct: int,
        weight: float,
        invalid_reason: str | None = None,
    ) -> PlusVerdict:
        """The verdict of ``prediction`` on ``question``, however the answer was read (the toolkit's way, the
        public script's, VLMEvalKit's).

        Parameters
        ----------
        prediction : PlusPrediction
            The answer (its id, model, tokens and repeat are kept).
        question : PlusQuestion
            The question it answers (its type, city, map difficulty and answer are kept).
        parsed, chosen : str, int or None
            What was read, and that answer in the question's terms.
        correct : int
            1 or 0.
        weight : float
            The answer's weight.
        invalid_reason : str, optional
            Why the response was invalid.

        Returns
        -------
        PlusVerdict
        """
        return cls(
            prediction.id,
            prediction.model,
            question.type,
            question.city,
            question.difficulty_city,
            parsed,
            chosen,
            question.answer,
            correct,
            weight,
            invalid_reason,
            prediction.tokens,
            prediction.repeat,
        )


# -- parsing ---------------------------------------------------------------------


def parse_answer(text: str, question_type: str) -> PlusAnswer | Invalid:
    """Read the answer of a response to a plus question (see the module notes for where it is looked for).

    Parameters
    ----------
    text : str
        The model's response. Anything else gives ``Invalid("not text")``.
    question_type : str
        One of :data:`~benchmarks.plus.records.PLUS_TYPES`: it says whether
        a letter, an integer or yes/no is read.

    Returns
    -------
    PlusAnswer or Invalid
        ``Invalid`` reasons: ``"not text"``, ``"empty response"``, ``"no
        answer after reasoning"``, ``"refusal"`` (with ``refusal=True``),
        ``"no answer found"``.

    Raises
    ------
    ValueError
        ``question_type`` is not a plus type (a caller's mistake; the text
        never makes this function raise).

    Examples
    --------
    >>> parse_answer("A station lies between them, so the answer is C.", "Counting1")
    PlusAnswer(value='C')
    >>> parse_answer("There is a line serving both.", "Counting1")
    Invalid(reason='no answer found', refusal=False)
    >>> parse_answer("<think>Line 2 and Line 4.</think>\\n\\\\boxed{2}", "Counting2")
    PlusAnswer(value=2)
    >>> parse_answer("Yes, both lie on Line 1.", "TorF2")
    PlusAnswer(value='yes')
    """
    kind = ANSWER_KINDS.get(question_type) if isinstance(question_type, str) else None
    if kind is None:
        raise ValueError(f"question_type must be one of {list(PLUS_TYPES)}, got {question_type!r}")
    value = read_short_answer(text, kind)
    return value if isinstance(value, Invalid) else PlusAnswer(value)


# -- scoring ---------------------------------------------------------------------


def score_answer(parsed: PlusAnswer | Invalid, question: PlusQuestion) -> PlusScore:
    """Exact match of what was read with the question's answer.

    ``Counting1`` takes a letter as it is and a value as the letter of the
    option holding it; integers and yes/no compare as they are.

    Parameters
    ----------
    parsed : PlusAnswer or Invalid
        What :func:`parse_answer` read.
    question : PlusQuestion

    Returns
    -------
    PlusScore
        ``correct`` (0 or 1) and the option letter or value ``chosen`` (``None`` when nothing was read).

    Examples
    --------
    >>> from benchmarks.plus.records import PlusQuestion
    >>> question = PlusQuestion("x", "Counting1", "c", "city", "...", "B", "easy", options=(4, 2, 3, 5))
    >>> score_answer(PlusAnswer(2), question), score_answer(PlusAnswer("D"), question)
    (PlusScore(correct=1, chosen='B'), PlusScore(correct=0, chosen='D'))
    """
    if isinstance(parsed, Invalid):
        return PlusScore(0, None)
    value = parsed.value
    if question.answer_kind == "choice" and isinstance(value, int):
        options = question.options or ()
        value = OPTION_LETTERS[options.index(value)] if value in options else None
    return PlusScore(int(value is not None and value == question.answer), value)


def plus_weight(question: PlusQuestion, weighting: str = "city") -> float:
    """The weight of a plus question: by map difficulty only, 1 / 1.5 / 2.

    Plus questions have no question difficulty, so every scheme is applied as
    to an easy question: ``paper`` and ``city`` both give 1 / 1.5 / 2, ``none`` 1.

    Parameters
    ----------
    question : PlusQuestion
        The question (read by its ``difficulty_city``).
    weighting : str, optional
        The weighting scheme.

    Returns
    -------
    float
        Its weight.

    Raises
    ------
    ValueError
        ``weighting`` is not a scheme of :data:`~benchmarks.difficulty.WEIGHTINGS`.
    """
    return get_weighting(weighting).weight("easy", question.difficulty_city)


def score_prediction(prediction: PlusPrediction, question: PlusQuestion, *, weighting: str = "city") -> PlusVerdict:
    """Parse and score one prediction; the verdict carries the question's weight.

    Parameters
    ----------
    prediction : PlusPrediction
    question : PlusQuestion
        The question with the prediction's id.
    weighting : str
        A weighting scheme (:data:`~benchmarks.difficulty.WEIGHTINGS`).

    Returns
    -------
    PlusVerdict

    Raises
    ------
    ValueError
        The prediction answers another question, or ``weighting`` is not a scheme.
    """
    check_answers(prediction, question)
    return _verdict(prediction, question, plus_weight(question, weighting))


def _verdict(prediction: PlusPrediction, question: PlusQuestion, weight: float) -> PlusVerdict:
    parsed = parse_answer(prediction.response, question.type)
    score = score_answer(parsed, question)
    if isinstance(parsed, Invalid):
        return PlusVerdict.of(prediction, question, None, score.chosen, score.correct, weight, parsed.reason)
    return PlusVerdict.of(prediction, question, parsed.value, score.chosen, score.correct, weight)


def score_predictions(
    questions: Mapping[str, PlusQuestion], predictions: Iterable[PlusPrediction], *, weighting: str = "city"
) -> tuple[list[PlusVerdict], list[str]]:
    """Score a batch of predictions.

    Parameters
    ----------
    questions : mapping
        Question id to question.
    predictions : iterable of PlusPrediction
    weighting : str
        A weighting scheme (:data:`~benchmarks.difficulty.WEIGHTINGS`).

    Returns
    -------
    verdicts : list of PlusVerdict
        One per prediction that matches a question, in input order.
    skipped : list of str
        Why the others were skipped, one message each: no question has their id
        (:func:`benchmarks.records.unmatched`), or their ``question`` field names another
        type than the question's (:func:`benchmarks.records.wrong_type`).

    Raises
    ------
    ValueError
        ``weighting`` is not a scheme.
    """
    scheme = get_weighting(weighting)
    return score_matched(questions, predictions, lambda p, q: _verdict(p, q, scheme.weight("easy", q.difficulty_city)))
