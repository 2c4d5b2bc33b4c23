"""Reading and scoring answers to ReasonMap-Plus questions: exact match.

Two pure stages, as for route answers: :func:`parse_plus_answer` reads a
response (never raises: it returns :class:`~benchmarks.records.Invalid`),
:func:`score_plus_answer` compares what it read with the question's answer.

Where the answer is looked for, first hit wins:

1. after the last ``</think>`` (nothing left: invalid), inside the last
   non-empty ``<answer>`` block when there is one;
2. the last ``\\boxed{...}``;
3. after an answer phrase (``the answer is``, ``Answer:``, ``final answer =``,
   ``the correct option is``, ``答案是``), the last first (of the last 16): the
   rest of its line, or the next non-empty line;
4. the start of the first, then of the last, non-empty line (``Yes, ...``,
   ``No.``, ``B) 4``, ``**3**``);
5. anywhere: the last marked letter (``(B)``, ``**B**``, ``option B``, ``B.``),
   the last integer, or the last yes/no word (a line's letter or number, as in
   ``Line C.`` or ``Line 2``, is not taken for an answer).

In 2–4 an option letter is read at the start only, and ``A`` or a lowercase
letter followed by a word (``A station lies...``) is the article, not an
option, unless it is marked (``(A)``, ``option a``) or the word is a verb
(``A is correct``); ``B``–``D`` are options whatever follows. Markdown, quotes, LaTeX wrappers, case, whitespace
and punctuation around the answer never matter. ``true``/``false`` count as
``yes``/``no``; numbers may be digits or words up to twenty.

``Counting1`` accepts the option's letter or its value: a value names the
option that holds it, so the same answer scores the same however the options
are ordered. A value that is no option is wrong, not invalid.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.answer_text import after_reasoning, mentions_refusal
from benchmarks.difficulty import get_weighting
from benchmarks.plus.questions import ANSWER_KINDS, OPTION_LETTERS, PLUS_TYPES, AnswerKind, PlusPrediction, PlusQuestion
from benchmarks.records import Invalid

__all__ = [
    "PlusAnswer",
    "PlusScore",
    "PlusScorer",
    "PlusVerdict",
    "PLUS_SCORERS",
    "plus_weight",
    "parse_plus_answer",
    "score_plus_answer",
    "score_plus_prediction",
    "score_plus_predictions",
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
    """What a response answers: ``"A"``–``"D"``, ``"yes"``/``"no"``, or an integer."""

    value: str | int


@dataclass(frozen=True, slots=True)
class PlusScore:
    """The judgement of one answer: ``correct`` (1 or 0) and ``chosen``, the answer in the question's terms.

    ``chosen`` is the option letter a ``Counting1`` value names (``None`` when
    it names none, or when the response was invalid).
    """

    correct: int
    chosen: str | int | None


@dataclass(frozen=True, slots=True)
class PlusVerdict:
    """The score of one prediction of a plus question."""

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


# -- parsing ---------------------------------------------------------------------

_ANSWER_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_ANSWER_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\s*+\{")
_MAX_BOXED = 200
# An answer phrase, then the value: no digit between "answer" and "is" (so "answer for line 2 is" does not match).
_PHRASE = re.compile(
    r"\b(?:final\s++)?answers?\b[^\n\d]{0,30}?(?:\bis\b|\bwould\s++be\b|\bshould\s++be\b|[:：=])"
    r"|\bcorrect\s++(?:option|choice|answer)\s++is\b|答案\s*+(?:是|为|:|：)",
    re.IGNORECASE,
)
_MAX_REGION = 120
_MAX_PHRASES = 16  # the last ones; more is not an answer but a loop
# The next non-empty line after a phrase that ends its own line (the whitespace run is scanned once).
_NEXT_LINE = re.compile(rf"[^\n]{{0,{_MAX_REGION}}}\n\s*+([^\n]{{1,{_MAX_REGION}}})")
_LATEX_WRAPPER = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|fbox|boxed)\s*+\{")
_DROPPED = str.maketrans({ch: " " for ch in "*_`~${}\"'“”‘’„「」『』«»＂＇"})
_LEAD = " \t\u00a0\u3000\u200b\ufeff#>:：-–—•·+=,"
# A letter at the start of a region: with its marker ("(", "option") when there is one, and what follows.
_LEAD_LETTER = re.compile(
    r"(?P<marker>(?:option|choice)\s*+[(\[]?+|[(\[])?+(?P<letter>[A-Da-d])(?!\w)(?P<after>[^\n]{0,3})", re.IGNORECASE
)
_WORD_AFTER = re.compile(r"[\s\u00a0]++[^\W\d_]")
# The article "A" may precede one of these and still be option A ("A is correct").
_VERB_AFTER = re.compile(r"[\s\u00a0]++(?:is|was|would|should)\b", re.IGNORECASE)
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
# Digits, not inside a word or a decimal; anywhere in a text, not a line's number either ("Line 2").
_INTEGER = re.compile(r"(?<![A-Za-z0-9.])(?<![Ll]ine )(?<!LINE )(\d{1,9})(?!\d|\.\d)")
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(\d{1,9})(?![\d]|\.\d)|\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_YES_NO = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)
_YES_NO_VALUE = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
# Letters marked as options anywhere in a text: (B), [B], **B**, option B, or a capital letter closed by . ) :
_MARKED_LETTER = re.compile(
    r"[(\[]([A-Da-d])[)\]]|\*\*([A-Da-d])\*\*|(?i:\b(?:option|choice)\s++\(?([A-D])\b)"
    r"|(?<![\w.])(?<![Ll]ine )(?<!LINE )([A-D])[.):](?![\w.])"
)


def _answer_block(text: str) -> str:
    """The content of the last non-empty ``<answer>`` block, or the text when there is none."""
    openings = list(_ANSWER_OPEN.finditer(text))
    closings = [match.start() for match in _ANSWER_CLOSE.finditer(text)]
    for index in range(len(openings) - 1, -1, -1):
        start = openings[index].end()
        end = len(text) if index + 1 == len(openings) else openings[index + 1].start()
        after = bisect.bisect_left(closings, start)
        if after < len(closings):
            end = min(end, closings[after])
        content = text[start:end]
        if content and not content.isspace():
            return content
    return text


def _boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (braces balanced, at most a few hundred characters)."""
    matches = list(_BOXED.finditer(text))
    if not matches:
        return None
    start = matches[-1].end()
    depth = 1
    for index in range(start, min(len(text), start + _MAX_BOXED)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return text[start : start + _MAX_BOXED]


def _normalized(region: str) -> str:
    """A region without markdown, quotes, LaTeX wrappers and leading punctuation."""
    return _LATEX_WRAPPER.sub(" ", region).translate(_DROPPED).replace("\\", " ").lstrip(_LEAD)


def _lead_letter(text: str) -> str | None:
    """An option letter that starts ``text`` and stands alone (not the article of a sentence)."""
    match = _LEAD_LETTER.match(text)
    if match is None:
        return None
    letter, after = match["letter"], match["after"]
    alone = not _WORD_AFTER.match(after) or (letter == "A" and _VERB_AFTER.match(text, match.end("letter")))
    if match["marker"] or letter in "BCD" or alone:
        return letter.upper()
    return None


def _number(match: re.Match) -> int:
    return int(match[1]) if match[1] is not None else _NUMBER_WORDS[match[2].lower()]


def _read_region(region: str, kind: AnswerKind, *, at_start: bool) -> str | int | None:
    """The value a short region gives: at its start only (``at_start``), else its first one."""
    text = _normalized(region)
    if kind == "choice":
        letter = _lead_letter(text)
        if letter is not None:
            return letter
    if kind == "yes_no":
        match = _YES_NO.match(text) if at_start else _YES_NO.search(text)
        return _YES_NO_VALUE[match[1].lower()] if match else None
    match = _NUMBER.match(text) if at_start else _NUMBER.search(text)
    return _number(match) if match else None


def _phrase_regions(text: str) -> list[str]:
    """What follows the last answer phrases (the rest of the line, or the next non-empty line), the last first."""
    regions = []
    for match in list(_PHRASE.finditer(text))[-_MAX_PHRASES:][::-1]:
        region = text[match.end() : match.end() + _MAX_REGION].split("\n", 1)[0]
        if not _normalized(region).strip():
            following = _NEXT_LINE.match(text, match.end())
            region = following[1] if following else ""
        regions.append(region)
    return regions


def _anywhere(text: str, kind: AnswerKind) -> str | int | None:
    """The last marked letter, integer or yes/no word of the whole text."""
    if kind == "choice":
        letter = None
        for match in _MARKED_LETTER.finditer(text):
            letter = next(group for group in match.groups() if group is not None).upper()
        if letter is not None:
            return letter
    if kind == "yes_no":
        words = _YES_NO.findall(text)
        return _YES_NO_VALUE[words[-1].lower()] if words else None
    numbers = _INTEGER.findall(text)
    return int(numbers[-1]) if numbers else None


def parse_plus_answer(text: str, question_type: str) -> PlusAnswer | Invalid:
    """Read the answer of a response to a plus question (see the module notes for where it is looked for).

    Parameters
    ----------
    text : str
        The model's response. Anything else gives ``Invalid("not text")``.
    question_type : str
        One of :data:`~benchmarks.plus.questions.PLUS_TYPES`: it says whether
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
    >>> parse_plus_answer("A station lies between them, so the answer is C.", "Counting1")
    PlusAnswer(value='C')
    >>> parse_plus_answer("There is a line serving both.", "Counting1")
    Invalid(reason='no answer found', refusal=False)
    >>> parse_plus_answer("<think>Line 2 and Line 4.</think>\\n\\\\boxed{2}", "Counting2")
    PlusAnswer(value=2)
    >>> parse_plus_answer("Yes, both lie on Line 1.", "TorF2")
    PlusAnswer(value='yes')
    """
    kind = ANSWER_KINDS.get(question_type) if isinstance(question_type, str) else None
    if kind is None:
        raise ValueError(f"question_type must be one of {list(PLUS_TYPES)}, got {question_type!r}")
    if not isinstance(text, str):
        return Invalid("not text")
    if not text.strip():
        return Invalid("empty response")
    answer = after_reasoning(text.replace("\r\n", "\n").replace("\r", "\n"))
    if answer is None:
        return Invalid("no answer after reasoning")
    answer = _answer_block(answer)
    boxed = _boxed(answer)
    if boxed is not None:
        value = _read_region(boxed, kind, at_start=False)
        if value is not None:
            return PlusAnswer(value)
    for region in _phrase_regions(answer):
        value = _read_region(region, kind, at_start=False)
        if value is not None:
            return PlusAnswer(value)
    lines = answer.split("\n")
    for ordered in (lines, reversed(lines)):  # the first non-empty line, then the last
        line = next((line for line in ordered if _normalized(line).strip()), None)
        value = None if line is None else _read_region(line, kind, at_start=True)
        if value is not None:
            return PlusAnswer(value)
    value = _anywhere(answer, kind)
    if value is not None:
        return PlusAnswer(value)
    if mentions_refusal(answer):
        return Invalid("refusal", refusal=True)
    return Invalid("no answer found")


# -- scoring ---------------------------------------------------------------------


def score_plus_answer(parsed: PlusAnswer | Invalid, question: PlusQuestion) -> PlusScore:
    """Exact match of what was read with the question's answer.

    ``Counting1`` takes a letter as it is and a value as the letter of the
    option holding it; integers and yes/no compare as they are.

    Examples
    --------
    >>> from benchmarks.plus.questions import PlusQuestion
    >>> question = PlusQuestion("x", "Counting1", "c", "city", "...", "B", "easy", options=(4, 2, 3, 5))
    >>> score_plus_answer(PlusAnswer(2), question), score_plus_answer(PlusAnswer("D"), question)
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

    Raises
    ------
    ValueError
        ``weighting`` is not a scheme of :data:`~benchmarks.difficulty.WEIGHTINGS`.
    """
    return get_weighting(weighting).weight("easy", question.difficulty_city)


def score_plus_prediction(
    prediction: PlusPrediction, question: PlusQuestion, *, weighting: str = "city"
) -> PlusVerdict:
    """Parse and score one prediction; the verdict carries the question's weight.

    Raises
    ------
    ValueError
        The prediction answers another question, or ``weighting`` is not a scheme.
    """
    if prediction.id != question.id:
        raise ValueError(f"prediction {prediction.id!r} answers another question than {question.id!r}")
    return _verdict(prediction, question, plus_weight(question, weighting))


def _verdict(prediction: PlusPrediction, question: PlusQuestion, weight: float) -> PlusVerdict:
    parsed = parse_plus_answer(prediction.response, question.type)
    score = score_plus_answer(parsed, question)
    return PlusVerdict(
        prediction.id,
        prediction.model,
        question.type,
        question.city,
        question.difficulty_city,
        None if isinstance(parsed, Invalid) else parsed.value,
        score.chosen,
        question.answer,
        score.correct,
        weight,
        parsed.reason if isinstance(parsed, Invalid) else None,
        prediction.tokens,
        prediction.repeat,
    )


def score_plus_predictions(
    questions: Mapping[str, PlusQuestion], predictions: Iterable[PlusPrediction], *, weighting: str = "city"
) -> tuple[list[PlusVerdict], list[str]]:
    """Score a batch of predictions.

    Returns
    -------
    verdicts : list of PlusVerdict
        One per prediction that matches a question, in input order.
    skipped : list of str
        Why the others were skipped: no question has their id, or their
        ``question`` field names another type than the question's.

    Raises
    ------
    ValueError
        ``weighting`` is not a scheme.
    """
    scheme = get_weighting(weighting)
    verdicts: list[PlusVerdict] = []
    skipped: list[str] = []
    for prediction in predictions:
        question = questions.get(prediction.id)
        if question is None:
            skipped.append(f"prediction {prediction.id!r} matches no question")
        elif prediction.question is not None and prediction.question != question.type:
            skipped.append(
                f"prediction {prediction.id!r} answers a {prediction.question} question;"
                f" {question.id!r} is {question.type}"
            )
        else:
            verdicts.append(_verdict(prediction, question, scheme.weight("easy", question.difficulty_city)))
    return verdicts, skipped
