"""ReasonMap-Plus the public code's way: the hub's records as they are, and ``main_plus.py``'s extraction.

The hub's ReasonMap-Plus records carry ``country, city, type, question,
station_1, station_2, answer, figure, difficulty_city, city_line_count,
city_transfer_count`` and no id (a record's id is its position, as the
public script numbers them). ``answer`` is an integer: ``TorF`` 1 = yes and
0 = no, ``Counting1`` the option's index 0–3 (A–D), ``Counting2``/``Counting3``
the count. :func:`hub_plus_question` reads one as a
:class:`~benchmarks.plus.questions.PlusQuestion` (no ``options``: a
``Counting1`` answer is then read by its letter only).

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
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem
from benchmarks.plus.questions import OPTION_LETTERS, PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.plus.scoring import PlusVerdict
from benchmarks.reasonmap.official_rules import DEFAULT_RULE, choose_rule, official_answer_text

__all__ = [
    "PLUS_MODELS",
    "is_hub_record",
    "hub_plus_question",
    "load_hub_plus",
    "official_plus_answer",
    "score_official_plus",
    "official_plus_verdict",
]

#: Every model path of ``main_plus.py`` (fscdc/ReasonMap 7ac3bcb: Kimi line 136, the others 175) and its rule
#: (:data:`~benchmarks.reasonmap.official_rules.ANSWER_RULES`); any other name is read whole.
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


def is_hub_record(record: Any) -> bool:
    """Whether a plus record is in the hub's form (no id, or the hub's map statistics)."""
    return isinstance(record, Mapping) and ("id" not in record or "city_line_count" in record)


def _text(record: Mapping[str, Any], name: str, where: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise InvalidRecord(f"{where}: field {name!r} must be a string, got {value!r:.80}")
    return value


def hub_plus_question(record: Any, *, position: int, where: str) -> PlusQuestion:
    """One hub record as a :class:`~benchmarks.plus.questions.PlusQuestion` (id = its position unless it has one).

    Examples
    --------
    >>> record = {"country": "italy", "city": "rome", "type": "Counting1", "question": "...",
    ...           "station_1": "Termini", "station_2": "Jonio", "answer": 2, "difficulty_city": "easy"}
    >>> question = hub_plus_question(record, position=7, where="record 7")
    >>> question.id, question.answer, question.options
    ('7', 'C', None)
    """
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{where}: a record must be an object")
    kind = record.get("type")
    if kind not in PLUS_TYPES:
        raise InvalidRecord(f"{where}: field 'type' must be one of {list(PLUS_TYPES)}, got {kind!r:.80}")
    answer = record.get("answer")
    if isinstance(answer, str) and answer.strip().lstrip("-").isdigit():
        answer = int(answer)
    if not isinstance(answer, int) or isinstance(answer, bool):
        raise InvalidRecord(f"{where}: field 'answer' must be an integer, got {answer!r:.80}")
    value: str | int
    if kind.startswith("TorF"):
        if answer not in (0, 1):
            raise InvalidRecord(f"{where}: field 'answer' of a {kind} record must be 0 or 1, got {answer}")
        value = "yes" if answer == 1 else "no"
    elif kind == "Counting1":
        if not 0 <= answer < len(OPTION_LETTERS):
            raise InvalidRecord(f"{where}: field 'answer' of a Counting1 record must be 0 to 3, got {answer}")
        value = OPTION_LETTERS[answer]
    else:
        if answer < 0:
            raise InvalidRecord(f"{where}: field 'answer' must be a non-negative integer, got {answer}")
        value = answer
    difficulty = str(record.get("difficulty_city", "")).lower()
    difficulty = {"medium": "middle", "mid": "middle"}.get(difficulty, difficulty)
    if difficulty not in ("easy", "middle", "hard"):
        raise InvalidRecord(f"{where}: field 'difficulty_city' must be easy, middle or hard")
    stations = {name: record.get(name) or None for name in ("station_1", "station_2")}
    return PlusQuestion(
        id=str(record.get("id", position)),
        type=kind,
        country=_text(record, "country", where),
        city=_text(record, "city", where),
        question=_text(record, "question", where),
        answer=value,
        difficulty_city=difficulty,
        station_1=stations["station_1"] if isinstance(stations["station_1"], str) else None,
        station_2=stations["station_2"] if isinstance(stations["station_2"], str) else None,
    )


def load_hub_plus(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """The hub's plus records of a JSON Lines, JSON or parquet file, by id; bad ones reported and skipped."""
    from benchmarks.reasonmap.official import official_records

    label = str(path)
    questions: dict[str, PlusQuestion] = {}
    problems: list[Problem] = []
    for position, record in official_records(path):
        if isinstance(record, Exception):
            problems.append(Problem(label, position, str(record)))
            continue
        try:
            question = hub_plus_question(record, position=position, where=f"record {position}")
        except InvalidRecord as error:
            problems.append(Problem(label, position, str(error).removeprefix(f"record {position}: ")))
            continue
        if question.id in questions:
            problems.append(Problem(label, position, f"repeated id {question.id!r} (the first is used)"))
            continue
        questions[question.id] = question
    return questions, problems


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
    """``(correct, chosen)`` the public way; ``chosen`` is the answer in the question's terms, ``None`` if none."""
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
    official_model: str | Mapping[str, str] | None = None,
) -> PlusVerdict:
    """A plus verdict read the public way (``parsed``: the extracted string), by the model's rule
    (:func:`~benchmarks.reasonmap.official_rules.choose_rule` over :data:`PLUS_MODELS`)."""
    rule = choose_rule(prediction.model, given=official_model, table=PLUS_MODELS).rule
    correct, chosen = score_official_plus(prediction.response, question, rule=rule)
    return PlusVerdict(
        prediction.id,
        prediction.model,
        question.type,
        question.city,
        question.difficulty_city,
        official_plus_answer(prediction.response, rule=rule),
        chosen,
        question.answer,
        correct,
        weight,
        None,
        prediction.tokens,
        prediction.repeat,
    )
