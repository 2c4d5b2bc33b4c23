"""ReasonMap-Plus the way VLMEvalKit scores it: variant ``vlmevalkit``, so numbers compare with its leaderboard.

Written from the behaviour of open-compass/VLMEvalKit ``vlmeval/dataset/reasonmap_plus.py``
(``normalize_prediction`` and ``ReasonMap_Plus.evaluate``'s per-row rule,
commit e8e78f05, lines 23–109 and 150–170). The response, stripped, is read
from the content of its last ``\\boxed{...}`` (no nested braces; the
``\\text{...}`` parts inside it, joined by a space, when there are any), else
from the text after the last occurrence of the first of ``the final answer
is``, ``final answer is``, ``the answer is``, ``answer is``, ``the correct
answer is``, ``correct answer is``, ``final answer:``, ``final:``, ``answer:``,
``ans:`` that the lower-cased response holds (cut at its first line end,
``". "`` or final ``.``), else from the whole response. Then, by type:

- ``TorF``: yes when the candidate, stripped and lower-cased, is one of
  ``yes y true t 1``, no when one of ``no n false f 0`` (else the same test on
  the whole response); anything else is no answer, so ``No, it is not`` is
  not read as no.
- ``Counting1``: the first standalone letter A–D in the candidate (else in
  the whole response), in any case, so the article ``a`` reads as option A.
- ``Counting2``/``Counting3``: the first integer (with its sign) in the
  candidate, else in the whole response.

Correct when that equals the question's answer. VLMEvalKit's weighted
accuracy (1 / 1.5 / 2 by map difficulty) is the task's ``city`` weighting;
its aggregate crashes on NumPy 2, the per-row rule above does not.
"""

from __future__ import annotations

import re

from benchmarks.plus.records import PlusPrediction, PlusQuestion
from benchmarks.plus.scoring import PlusVerdict

__all__ = ["vlmevalkit_plus_answer", "score_vlmevalkit_plus", "vlmevalkit_plus_verdict"]

_BOXED = re.compile(r"(?:\\boxed|boxed)\{([^}]*)\}", re.IGNORECASE)
_TEXT = re.compile(r"\\text\{([^}]*)\}", re.IGNORECASE)
_PHRASES = (
    "the final answer is",
    "final answer is",
    "the answer is",
    "answer is",
    "the correct answer is",
    "correct answer is",
    "final answer:",
    "final:",
    "answer:",
    "ans:",
)
_CUT = re.compile(r"\n|\. |\.$")
_YES = frozenset({"yes", "y", "true", "t", "1"})
_NO = frozenset({"no", "n", "false", "f", "0"})
_LETTER = re.compile(r"\b([ABCD])\b", re.IGNORECASE)
_INTEGER = re.compile(r"[-+]?\d+")


def _candidate(text: str) -> str:
    boxes = list(_BOXED.finditer(text))
    if boxes:
        content = boxes[-1].group(1).strip()
        parts = _TEXT.findall(content)
        found = " ".join(part.strip() for part in parts) if parts else content
        if found:
            return found
    lowered = text.lower()
    for phrase in _PHRASES:
        if phrase in lowered:
            return _CUT.split(text[lowered.rfind(phrase) + len(phrase) :].strip(), maxsplit=1)[0].strip()
    return text


def _yes_no(text: str) -> str | None:
    value = text.strip().lower()
    return "yes" if value in _YES else "no" if value in _NO else None


def _letter(text: str) -> str | None:
    match = _LETTER.search(text)
    return match.group(1).upper() if match else None


def _integer(text: str) -> int | None:
    match = _INTEGER.search(text)
    return int(match.group(0)) if match else None


def vlmevalkit_plus_answer(response: str, question_type: str) -> str | int | None:
    """What VLMEvalKit reads from a response.

    Parameters
    ----------
    response : str
        The model's answer.
    question_type : str
        The plus type (matched without case: ``torf``, ``counting1``, else a count).

    Returns
    -------
    str, int or None
        ``yes``/``no``, a letter, an integer, or ``None`` for nothing.

    Examples
    --------
    >>> vlmevalkit_plus_answer("No, they are not on one line.", "TorF1") is None
    True
    >>> vlmevalkit_plus_answer("There is a transfer, so the answer is B.", "Counting1")
    'B'
    >>> vlmevalkit_plus_answer("It takes a while to count: 3 lines.", "Counting1")
    'A'
    """
    text = response.strip()
    if not text:
        return None
    candidate = _candidate(text)
    kind = question_type.lower()
    if "torf" in kind:
        return _yes_no(candidate) or _yes_no(text)
    if "counting1" in kind:
        return _letter(candidate) or _letter(text)
    found = _integer(candidate)
    return found if found is not None else _integer(text)


def score_vlmevalkit_plus(response: str, question: PlusQuestion) -> tuple[int, str | int | None]:
    """Score a response VLMEvalKit's way.

    Parameters
    ----------
    response : str
        The model's answer.
    question : PlusQuestion
        The question answered.

    Returns
    -------
    correct : int
        1 when the answer read is the question's, else 0.
    chosen : str, int or None
        The answer read (:func:`vlmevalkit_plus_answer`); ``None`` when it reads none.
    """
    chosen = vlmevalkit_plus_answer(response, question.type)
    return int(chosen is not None and chosen == question.answer), chosen


def vlmevalkit_plus_verdict(prediction: PlusPrediction, question: PlusQuestion, weight: float) -> PlusVerdict:
    """A plus verdict read VLMEvalKit's way.

    Parameters
    ----------
    prediction : PlusPrediction
        The answer.
    question : PlusQuestion
        The question it answers.
    weight : float
        The answer's weight.

    Returns
    -------
    PlusVerdict
        ``parsed`` and ``chosen`` both the answer VLMEvalKit reads; never an invalid reason.
    """
    correct, chosen = score_vlmevalkit_plus(prediction.response, question)
    return PlusVerdict.of(prediction, question, chosen, chosen, correct, weight)
