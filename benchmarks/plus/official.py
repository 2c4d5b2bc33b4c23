"""ReasonMap-Plus scored the public code's way: ``main_plus.py``'s extraction (the public scorer).

The public data set's own plus records are read by :mod:`benchmarks.plus.public_dataset`.

Variant ``official`` (:func:`official_plus_answer`, :func:`score_official_plus`)
reproduces the public ``main_plus.py``, written from its behaviour: the
answer text by model path (:data:`PLUS_MODELS`: after the last ``◁/think▷``,
stripped, for the Kimi paths; the whole response for the Qwen2.5-VL and
DeepEyes paths and any other name); when it
holds no ``oxed{``, for each of ``the final answer is``, ``the answer is``,
``the correct answer is``, ``the answer should be``, first as written and
then capitalised (``The ...``), the text after the phrase's last occurrence,
stripped, cut (when the phrase was there) to its first line and before its
first ``". "``; when it holds several ``oxed{``, the last box. Then ``utils.py``'s
``find_math_answer`` (lower case; the last box's content up to its final
``}``, cut before a leading ``}``; after the last ``=``; LaTeX spacing,
``\\text``, ``$``, units and the like removed; blanks removed), then ``.`` off
the end and ``:`` off the start. Correct when that equals ``yes``/``no``
(TorF), is ``a``–``d`` naming the right index (Counting1), or reads as the
right integer with Python's ``int`` (Counting2/3). ``find_math_answer``'s
last rewrites (``\\sqrt`` and ``\\frac`` braces, ``a/b`` to ``\\frac``, ``0.5`` to
``\\frac{1}{2}``) are left out: they touch only strings that are no answer either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from benchmarks.official_rules import DEFAULT_RULE, RuleChoice, official_answer_text, rule_for
from benchmarks.plus.records import PlusPrediction, PlusQuestion
from benchmarks.plus.scoring import PlusVerdict

__all__ = [
    "PLUS_MODELS",
    "official_plus_answer",
    "score_official_plus",
    "official_plus_verdict",
]

#: Every model path of ``main_plus.py`` (fscdc/ReasonMap 7ac3bcb: Kimi line 136, the others 175) and its rule
#: (:data:`~benchmarks.official_rules.ANSWER_RULES`); any other name is read whole.
PLUS_MODELS: dict[str, str] = {
    "moonshotai/Kimi-VL-A3B-Thinking": "kimi",
    "moonshotai/Kimi-VL-A3B-Instruct": "kimi",
    "Qwen/Qwen2.5-VL-3B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-7B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-32B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-72B-Instruct": "whole",
    "ChenShawn/DeepEyes-7B": "whole",  # extracted like Qwen, though the script loads no model for it
}
_PHRASES = ("the final answer is", "the answer is", "the correct answer is", "the answer should be")
_BOX = re.compile("oxed{(.*)}", flags=re.S)
# (old, new) in the order find_math_answer applies them, then its _strip_string's first rewrites
_REWRITES = (
    (" ", ""),
    ("\\,", ""),
    ("∞", "\\infty"),
    ("+\\infty", "\\infty"),
    ("\\\\", "\\"),
    ("\n", ""),
    ("\\text", ""),
    ("\\mbox", ""),
    ("bmatrix", "pmatrix"),
    ("\\left", ""),
    ("\\right", ""),
    ("^{\\circ}", ""),
    ("^\\circ", ""),
    ("{m}^3", ""),
    ("m^3", ""),
    ("{units}", ""),
    ("units", ""),
    ("{km}", ""),
    ("km", ""),
)
_STRIP_REWRITES = (
    ("\n", ""),
    ("\\!", ""),
    ("\\\\", "\\"),
    ("tfrac", "frac"),
    ("dfrac", "frac"),
    ("\\left", ""),
    ("\\right", ""),
    ("^{\\circ}", ""),
    ("^\\circ", ""),
    ("\\$", ""),
    ("$", ""),
)


def _find_math_answer(text: str) -> str:
    text = text.lower().replace("{}", "")
    boxes = _BOX.findall(text)
    answer = boxes[-1] if boxes else text
    close = answer.find("}")
    if close != -1 and (answer.find("{") == -1 or close < answer.find("{")):
        answer = answer.split("}")[0]
    answer = answer.split("=")[-1].split("\\approx")[-1]
    for old, new in _REWRITES:
        answer = answer.replace(old, new)
    for old, new in _STRIP_REWRITES:
        answer = answer.replace(old, new)
    answer = answer.split("\\text{ ")[0].replace("\\%", "").replace(" .", " 0.").replace("{.", "{0.")
    if answer.startswith("."):
        answer = "0" + answer
    for mark in ("=", "\\approx"):
        parts = answer.split(mark)
        if len(parts) == 2:
            answer = parts[1]
    return answer.replace(" ", "")


def official_plus_answer(response: str, *, rule: str = DEFAULT_RULE) -> str:
    """The answer string ``main_plus.py`` extracts from a response, its text taken by ``rule``.

    Parameters
    ----------
    response : str
        The model's full response.
    rule : str, optional
        How the answer text is taken from the response (:mod:`~benchmarks.official_rules`).

    Returns
    -------
    str
        The extracted answer (possibly empty).

    Examples
    --------
    >>> official_plus_answer("I count them. The answer is 4. Done.")
    '4'
    >>> official_plus_answer("Maybe \\\\boxed{B}, no: \\\\boxed{C}.")
    'c'
    """
    text = official_answer_text(response, rule=rule)
    if "oxed{" not in text:
        for phrase in _PHRASES:
            for form in (phrase, phrase.replace("the", "The")):
                present = form in text
                text = text.split(form)[-1].strip()
                if present:
                    text = text.split("\n")[0].split(". ")[0]
    elif text.count("oxed{") > 1:
        text = "\\boxed{" + text.split("oxed{")[-1]
    return _find_math_answer(text).rstrip(".").lstrip(":").strip()


def score_official_plus(
    response: str, question: PlusQuestion, *, rule: str = DEFAULT_RULE
) -> tuple[int, str | int | None]:
    """``(correct, chosen)`` the public way; ``chosen`` is the answer in the question's terms, ``None`` if none.

    Parameters
    ----------
    response : str
        The model's full response.
    question : PlusQuestion
        The question it answers.
    rule : str, optional
        How the answer text is taken from the response.

    Returns
    -------
    correct : int
        1 or 0.
    chosen : str, int or None
        ``yes``/``no``, an option letter or a count, as the question's type reads it.
    """
    answer = official_plus_answer(response, rule=rule)
    if question.type.startswith("TorF"):
        chosen: str | int | None = answer.lower() if answer.lower() in ("yes", "no") else None
    elif question.type == "Counting1":
        letter = answer.lower()
        chosen = letter.upper() if letter in ("a", "b", "c", "d") else None
    else:
        try:
            chosen = int(answer)
        except ValueError:
            chosen = None
    return int(chosen is not None and chosen == question.answer), chosen


def official_plus_verdict(
    prediction: PlusPrediction,
    question: PlusQuestion,
    weight: float,
    *,
    rules: Mapping[str, RuleChoice] | None = None,
) -> PlusVerdict:
    """A plus verdict read the public way (``parsed``: the extracted string), by the model's rule: ``rules``
    (a run's ``--official-model`` resolved over :data:`PLUS_MODELS`,
    :func:`~benchmarks.official_rules.resolve_rules`), else the one its name chooses.

    Parameters
    ----------
    prediction : PlusPrediction
        The answer.
    question : PlusQuestion
        The question it answers.
    weight : float
        The verdict's weight (the toolkit's verdict's).
    rules : mapping, optional
        Model to its rule.

    Returns
    -------
    PlusVerdict
        The verdict, its ``parsed`` the extracted string.
    """
    rule = rule_for(prediction.model, rules or {}, table=PLUS_MODELS)
    correct, chosen = score_official_plus(prediction.response, question, rule=rule)
    return PlusVerdict.of(
        prediction, question, official_plus_answer(prediction.response, rule=rule), chosen, correct, weight
    )
