"""Reading and scoring answers to perception probes: exact and partial.

Two pure stages, as for route answers: :func:`parse_answer` reads a response (never raises: it returns
:class:`~benchmarks.records.Invalid`), :func:`score_answer` compares what it read with the reference.

- ``same_line`` and ``count_between``: the shared reading of short answers
  (:func:`benchmarks.short_answers.read_short_answer`, as ReasonMap-Plus reads ``TorF2`` and counts); exact
  match, partial = exact.
- ``lines_at``, ``follow``, ``neighbours``: a list of names. It is looked for after the last ``</think>``, in
  the last non-empty ``<answer>`` block, the last ``\\boxed{...}``, after the last answer phrase (``Answer:``,
  ``the answer is``, ``答案是``: to the paragraph's end), else in the list that ends the response (one item a line,
  numbered or bulleted), else on its last non-empty line (after a colon, when it has one). Names are split at
  commas, semicolons, ``、``, arrows, new lines and ``and`` (never at a spaced hyphen: a name may hold one); list
  markers, markdown, quotes and end punctuation are dropped. Names compare by a key that ignores case, spaces,
  punctuation and a trailing ``station``/``站`` (stations) or the word ``line``, ``linea``, ``号线``/``线`` (lines),
  so ``2号线``, ``line 2`` and ``Line 2`` are one line. Sets (``lines_at``, ``neighbours``): exact = the same set,
  partial = F1 of the two sets. Sequences (``follow``): exact = the same names in the same order, partial =
  normalised edit similarity of the two name sequences (rapidfuzz's Levenshtein, 1 − distance / the longer
  length).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.answer_text import after_reasoning, mentions_refusal
from benchmarks.probe.questions import ANSWER_SHAPES, PROBE_TYPES, ProbePrediction, ProbeQuestion
from benchmarks.records import Invalid, check_answers, score_matched
from benchmarks.short_answers import read_short_answer

__all__ = [
    "ProbeAnswer",
    "ProbeScore",
    "ProbeVerdict",
    "name_key",
    "parse_answer",
    "score_answer",
    "score_prediction",
    "score_predictions",
]


@dataclass(frozen=True, slots=True)
class ProbeAnswer:
    """What a response answers.

    Parameters
    ----------
    value : tuple of str, str or int
        Names (in the order given), ``"yes"``/``"no"``, or an integer.
    """

    value: tuple[str, ...] | str | int


@dataclass(frozen=True, slots=True)
class ProbeScore:
    """The judgement of one answer.

    Parameters
    ----------
    correct : int
        1 or 0.
    partial : float
        Partial credit in [0, 1]; equal to ``correct`` for yes/no and counts.
    """

    correct: int
    partial: float


@dataclass(frozen=True, slots=True)
class ProbeVerdict:
    """The score of one prediction of a probe.

    Parameters
    ----------
    id : str
        The probe's id.
    model : str
        The model.
    type : str
        The probe type.
    city : str
        The probe's city.
    parsed : tuple of str, str, int or None
        What the response answers (``None`` when invalid).
    answer : tuple of str, str or int
        The right answer.
    correct : int
        1 or 0.
    partial : float
        Partial credit in [0, 1].
    invalid_reason : str, optional
        Why the response was invalid.
    tokens : int, optional
        The output tokens, when reported.
    repeat : int, optional
        Which answer to the request this is (0-based).
    weight : float, optional
        The answer's weight in weighted figures.
    """

    id: str
    model: str
    type: str
    city: str
    parsed: tuple[str, ...] | str | int | None
    answer: tuple[str, ...] | str | int
    correct: int
    partial: float
    invalid_reason: str | None = None
    tokens: int | None = None
    repeat: int = 0
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        record = {
            "id": self.id,
            "model": self.model,
            "question": self.type,
            "city": self.city,
            "parsed": list(self.parsed) if isinstance(self.parsed, tuple) else self.parsed,
            "answer": list(self.answer) if isinstance(self.answer, tuple) else self.answer,
            "correct": self.correct,
            "partial": self.partial,
            "invalid_reason": self.invalid_reason,
            "tokens": self.tokens,
        }
        if self.repeat:
            record["repeat"] = self.repeat
        return record


# -- parsing ---------------------------------------------------------------------

_MAX_TEXT = 20_000  # the end of a longer response is read
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.IGNORECASE | re.DOTALL)
_BOXED = re.compile(r"\\boxed\s*\{([^{}]{0,2000})\}")
_PHRASE = re.compile(
    r"\b(?:final\s+)?answers?\b[^\n\d]{0,30}?(?:\bis\b|\bare\b|[:：=])|答案\s*(?:是|为|:|：)", re.IGNORECASE
)
# not " - ": a station's name may hold one (Budapest's "Szent Gellért tér - Műegyetem Station")
_SPLIT = re.compile(r"\s*(?:[,;，；、\n|]|->|=>|→|⟶|⇒|—>|\band\b|\bthen\b)\s*", re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•·+>#]+|\(\d{1,3}\))\s*")
_DROPPED = str.maketrans({ch: " " for ch in "*_`~$\"'“”‘’„「」『』«»＂＇[]{}"})
_STRIP = " \t\u00a0\u3000.。!！?？:："
_PUNCTUATION = re.compile(r"[\W_]+", re.UNICODE)
_STATION_WORD = re.compile(r"(?:\bstation|站)$", re.IGNORECASE)
_LINE_WORD = re.compile(r"^(?:line|linea|ligne|linie|metro line)\s*|\s*(?:line|号线|線|线)$", re.IGNORECASE)
_MAX_NAMES = 200
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")


def name_key(name: str, *, line: bool = False) -> str:
    """What a name is compared by: case, width, spaces, punctuation and the words ``station``/``line`` ignored.

    Parameters
    ----------
    name : str
        A station's or line's name.
    line : bool, optional
        The name is a line's (the line words are dropped, not the station ones).

    Returns
    -------
    str
        The key.

    Examples
    --------
    >>> name_key("Termini Station"), name_key("termini."), name_key("2号线", line=True), name_key("Line 2", line=True)
    ('termini', 'termini', '2', '2')
    """
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = _LINE_WORD.sub("", text) if line else _STATION_WORD.sub("", text.rstrip(" .")).strip()
    return _PUNCTUATION.sub("", text)


def _region(answer: str) -> str:
    """Where the names are: an answer block, a box, what follows the last answer phrase, else the last line."""
    blocks = [block for block in _ANSWER_BLOCK.findall(answer) if block.strip()]
    if blocks:
        answer = blocks[-1]
    boxed = _BOXED.findall(answer)
    if boxed and boxed[-1].strip():
        return boxed[-1]
    phrases = list(_PHRASE.finditer(answer))
    if phrases:
        rest = _PARAGRAPH_END.split(answer[phrases[-1].end() :].lstrip(), maxsplit=1)[0]
        if rest.strip():
            return rest
    lines = [line for line in answer.split("\n") if line.translate(_DROPPED).strip(_STRIP)]
    if not lines:
        return ""
    items = 0  # a list at the end, one item a line ("1. X", "- X"): all of it
    while items < len(lines) and _MARKER.match(lines[-1 - items].translate(_DROPPED)):
        items += 1
    if items > 1:
        return "\n".join(lines[-items:])
    last = lines[-1]
    return last.split(":", 1)[1] if ":" in last and last.split(":", 1)[1].strip() else last


def _names(region: str) -> tuple[str, ...]:
    found: list[str] = []
    for piece in _SPLIT.split(region.translate(_DROPPED)):
        name = _MARKER.sub("", piece).strip(_STRIP)
        if name and _PUNCTUATION.sub("", name):
            found.append(name)
        if len(found) == _MAX_NAMES:
            break
    return tuple(found)


def parse_answer(text: object, probe_type: str) -> ProbeAnswer | Invalid:
    """Read the answer of a response to a probe (see the module notes for where it is looked for).

    Parameters
    ----------
    text : object
        The model's response; anything but text is an :class:`Invalid` answer.
    probe_type : str
        One of :data:`~benchmarks.probe.questions.PROBE_TYPES`: it says whether names, yes/no or an integer
        are read.

    Returns
    -------
    ProbeAnswer or Invalid

    Raises
    ------
    ValueError
        ``probe_type`` is not a probe type (a caller's mistake; the text never makes this function raise).

    Examples
    --------
    >>> parse_answer("The line runs north.\\nAnswer: Termini, Repubblica → Spagna.", "follow")
    ProbeAnswer(value=('Termini', 'Repubblica', 'Spagna'))
    >>> parse_answer("<think>hmm</think>No, a change is needed.", "same_line")
    ProbeAnswer(value='no')
    """
    shape = ANSWER_SHAPES.get(probe_type) if isinstance(probe_type, str) else None
    if shape is None:
        raise ValueError(f"probe_type must be one of {list(PROBE_TYPES)}, got {probe_type!r}")
    if shape in ("yes_no", "integer"):
        value = read_short_answer(text, shape)
        return value if isinstance(value, Invalid) else ProbeAnswer(value)
    if not isinstance(text, str):
        return Invalid("not text")
    if not text.strip():
        return Invalid("empty response")
    answer = after_reasoning(text[-_MAX_TEXT:].replace("\r\n", "\n").replace("\r", "\n"))
    if answer is None:
        return Invalid("no answer after reasoning")
    names = _names(_region(answer))
    if names:
        return ProbeAnswer(names)
    if mentions_refusal(answer):
        return Invalid("refusal", refusal=True)
    return Invalid("no answer found")


# -- scoring ---------------------------------------------------------------------


def _edit_similarity(given: list[str], wanted: list[str]) -> float:
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(given, wanted))


def score_answer(parsed: ProbeAnswer | Invalid, question: ProbeQuestion) -> ProbeScore:
    """Exact and partial match of what was read with the reference (see the module notes).

    Parameters
    ----------
    parsed : ProbeAnswer or Invalid
        What :func:`parse_answer` read.
    question : ProbeQuestion

    Returns
    -------
    ProbeScore
        ``correct`` (1 or 0) and ``partial`` (in [0, 1]).

    Examples
    --------
    >>> question = ProbeQuestion("x", "neighbours", "c", "city", "...", ("P Station", "Q Station"), "R", "1")
    >>> score_answer(ProbeAnswer(("q", "P station")), question)
    ProbeScore(correct=1, partial=1.0)
    >>> score_answer(ProbeAnswer(("P", "S")), question)
    ProbeScore(correct=0, partial=0.5)
    """
    if isinstance(parsed, Invalid):
        return ProbeScore(0, 0.0)
    value, shape = parsed.value, question.shape
    if shape in ("yes_no", "integer"):
        same = int(value == question.answer)
        return ProbeScore(same, float(same))
    if not isinstance(value, tuple) or not isinstance(question.answer, tuple):
        return ProbeScore(0, 0.0)
    is_line = question.type == "lines_at"
    given = [name_key(name, line=is_line) for name in value]
    wanted = [name_key(name, line=is_line) for name in question.answer]
    if shape == "sequence":
        return ProbeScore(int(given == wanted), round(_edit_similarity(given, wanted), 6))
    found, reference = set(given), set(wanted)
    common = len(found & reference)
    f1 = 2 * common / (len(found) + len(reference)) if found or reference else 1.0
    return ProbeScore(int(found == reference), round(f1, 6))


def score_prediction(prediction: ProbePrediction, question: ProbeQuestion) -> ProbeVerdict:
    """Parse and score one prediction.

    Parameters
    ----------
    prediction : ProbePrediction
    question : ProbeQuestion
        The probe with the prediction's id.

    Returns
    -------
    ProbeVerdict

    Raises
    ------
    ValueError
        The prediction answers another question.
    """
    check_answers(prediction, question)
    parsed = parse_answer(prediction.response, question.type)
    score = score_answer(parsed, question)
    return ProbeVerdict(
        prediction.id,
        prediction.model,
        question.type,
        question.city,
        None if isinstance(parsed, Invalid) else parsed.value,
        question.answer,
        score.correct,
        score.partial,
        parsed.reason if isinstance(parsed, Invalid) else None,
        prediction.tokens,
        prediction.repeat,
    )


def score_predictions(
    questions: Mapping[str, ProbeQuestion], predictions: Iterable[ProbePrediction]
) -> tuple[list[ProbeVerdict], list[str]]:
    """Score a batch of predictions.

    Parameters
    ----------
    questions : mapping
        Probe id to probe.
    predictions : iterable of ProbePrediction

    Returns
    -------
    verdicts : list of ProbeVerdict
        One per prediction that matches a probe, in input order.
    skipped : list of str
        Why the others were skipped, one message each: no probe has their id
        (:func:`benchmarks.records.unmatched`), or their ``question`` field names another type
        (:func:`benchmarks.records.wrong_type`).
    """
    return score_matched(questions, predictions, score_prediction)
