"""Map questions, predictions and verdicts: the JSON Lines schema of map QA.

A question file has one JSON object per line:

=========== ===================================================================
field       value
=========== ===================================================================
``id``      string (an integer is read as its string); unique within a file
``image``   path of the map image, relative to the question file's folder
            (or to the folder given with ``--maps``), or absolute
``question`` the question text, without its options
``options`` 2 to 26 non-empty strings, lettered ``A``, ``B``, ... in order
``answer``  ``single``: one letter (``"B"``); ``multiple``: the correct
            letters (``["A", "C"]``, any order, at least one); ``sorting``:
            every letter once, in the right order (``["B", "A", "C"]``). A
            string of letters and separators (``"A, C"``, ``"B > A > C"``)
            is read too; letters are case-insensitive
``type``    ``"single"``, ``"multiple"`` or ``"sorting"``
``level``   ``1`` perception, ``2`` single-step reasoning, ``3`` multi-step
            reasoning
``category`` the kind of map, a free label (``"metro"``, ``"topographic"``)
``language`` the question's language tag (``"en"``, ``"zh"``)
=========== ===================================================================

Other fields are ignored. :meth:`MapQuestion.to_dict` writes the canonical
form: the answer as a letter (``single``) or a list of letters (sorted for
``multiple``, in order for ``sorting``).

A prediction is a row ``{id, model, response, tokens}`` (the rows the model
client writes; their other fields are ignored; a ``null`` response is a
failed call and is scored as invalid).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.errors import InvalidRecord
from benchmarks.records import answer_fields, prediction_row, repeat_of

__all__ = [
    "KIND",
    "LETTERS",
    "LEVELS",
    "QUESTION_TYPES",
    "QuestionType",
    "Level",
    "MapQuestion",
    "MapPrediction",
    "MapVerdict",
]

QuestionType = Literal["single", "multiple", "sorting"]
Level = Literal[1, 2, 3]
QUESTION_TYPES: tuple[QuestionType, ...] = ("single", "multiple", "sorting")
LEVELS: dict[int, str] = {1: "perception", 2: "single-step reasoning", 3: "multi-step reasoning"}
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# The question kind of map QA requests and prediction rows (ReasonMap's are "short" and "long").
KIND = "mapqa"

_INSTRUCTIONS: dict[str, str] = {
    "single": "Exactly one option is correct. End with a line 'Answer: X', where X is its letter.",
    "multiple": (
        "One or more options are correct. End with a line 'Answer: X, Y', listing the letters of all the correct"
        " options."
    ),
    "sorting": (
        "Put all the options in the right order. End with a line 'Answer: X > Y > Z', giving every option's letter"
        " once, in that order."
    ),
}
_ANSWER_SEPARATORS = re.compile(r"[\s,;>、，]+")


def _text(record: Mapping[str, Any], name: str, where: str) -> str:
    value = record.get(name)
    if name not in record:
        raise InvalidRecord(f"{where}: missing field {name!r}")
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecord(f"{where}: field {name!r} must be a non-empty string, got {value!r:.80}")
    return value


def _answer(value: Any, kind: str, count: int, where: str) -> tuple[str, ...]:
    """The answer's letters, checked against the question type and the number of options."""
    tokens = [token for token in _ANSWER_SEPARATORS.split(value) if token] if isinstance(value, str) else []
    if tokens and all(len(token) == 1 and token.isascii() and token.isalpha() for token in tokens):
        letters = tokens
    elif len(tokens) == 1 and re.fullmatch(r"[A-Z]+", tokens[0]):  # "AC"
        letters = list(tokens[0])
    elif isinstance(value, list) and all(isinstance(item, str) and len(item.strip()) == 1 for item in value):
        letters = [item.strip() for item in value]
    else:
        raise InvalidRecord(
            f'{where}: field \'answer\' must be option letters (a string like "B" or "A, C", or a list of'
            f" letters), got {value!r:.80}"
        )
    letters = [letter.upper() for letter in letters]
    valid = LETTERS[:count]
    for letter in letters:
        if letter not in valid:
            raise InvalidRecord(f"{where}: field 'answer' names {letter!r}, not one of the options {list(valid)}")
    if len(set(letters)) != len(letters):
        raise InvalidRecord(f"{where}: field 'answer' repeats a letter: {letters}")
    if kind == "single" and len(letters) != 1:
        raise InvalidRecord(f"{where}: field 'answer' of a single-choice question must be one letter, got {letters}")
    if kind == "multiple":
        if not letters:
            raise InvalidRecord(f"{where}: field 'answer' of a multiple-choice question names no option")
        letters.sort()
    if kind == "sorting" and len(letters) != count:
        raise InvalidRecord(
            f"{where}: field 'answer' of a sorting question must order all {count} options, got {letters}"
        )
    return tuple(letters)


@dataclass(frozen=True, slots=True)
class MapQuestion:
    """One objective question about one map image.

    ``answer`` holds letters: one for ``single``, the sorted correct ones for
    ``multiple``, every option's letter in the right order for ``sorting``.

    Examples
    --------
    >>> record = {"id": 7, "image": "metro.png", "question": "Which line is red?", "options": ["Line 1", "Line 2"],
    ...           "answer": "b", "type": "single", "level": 1, "category": "metro", "language": "en"}
    >>> question = MapQuestion.from_dict(record)
    >>> question.id, question.answer, question.letters
    ('7', ('B',), ('A', 'B'))
    >>> print(question.text())
    Which line is red?
    <BLANKLINE>
    A. Line 1
    B. Line 2
    <BLANKLINE>
    Exactly one option is correct. End with a line 'Answer: X', where X is its letter.
    """

    id: str
    image: str
    question: str
    options: tuple[str, ...]
    answer: tuple[str, ...]
    type: QuestionType
    level: Level
    category: str
    language: str

    @property
    def letters(self) -> tuple[str, ...]:
        """The options' letters, in order."""
        return tuple(LETTERS[: len(self.options)])

    def text(self) -> str:
        """The question as asked: the question, its lettered options, and how to answer."""
        options = "\n".join(f"{letter}. {option}" for letter, option in zip(LETTERS, self.options))
        return f"{self.question}\n\n{options}\n\n{_INSTRUCTIONS[self.type]}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "image": self.image,
            "question": self.question,
            "options": list(self.options),
            "answer": self.answer[0] if self.type == "single" else list(self.answer),
            "type": self.type,
            "level": self.level,
            "category": self.category,
            "language": self.language,
        }

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "question") -> MapQuestion:
        """A question from its JSON form; :class:`InvalidRecord` names the field at fault."""
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a map question must be a JSON object")
        if "id" not in record:
            raise InvalidRecord(f"{where}: missing field 'id'")
        identifier = record["id"]
        if isinstance(identifier, bool) or not isinstance(identifier, str | int) or not str(identifier).strip():
            raise InvalidRecord(f"{where}: field 'id' must be a non-empty string or an integer, got {identifier!r:.80}")
        kind = record.get("type")
        if kind not in QUESTION_TYPES:
            raise InvalidRecord(f"{where}: field 'type' must be one of {list(QUESTION_TYPES)}, got {kind!r:.80}")
        options = record.get("options")
        if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
            raise InvalidRecord(f"{where}: field 'options' must be a list of non-empty strings, got {options!r:.80}")
        if not 2 <= len(options) <= len(LETTERS):
            raise InvalidRecord(f"{where}: field 'options' must hold 2 to {len(LETTERS)} options, got {len(options)}")
        if "answer" not in record:
            raise InvalidRecord(f"{where}: missing field 'answer'")
        level = record.get("level")
        # the type first: `in LEVELS` hashes the value, and a list or dict is not hashable
        if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
            raise InvalidRecord(f"{where}: field 'level' must be one of {list(LEVELS)}, got {level!r:.80}")
        return cls(
            id=str(identifier),
            image=_text(record, "image", where),
            question=_text(record, "question", where),
            options=tuple(options),
            answer=_answer(record["answer"], kind, len(options), where),
            type=kind,
            level=level,
            category=_text(record, "category", where),
            language=_text(record, "language", where),
        )


@dataclass(frozen=True, slots=True)
class MapPrediction:
    """One model's answer to one map question."""

    id: str
    model: str
    response: str
    tokens: int | None = None
    #: which answer to the same question this is (0-based): several come from repeated sampling
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        return prediction_row(self, KIND)

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "prediction") -> MapPrediction:
        identifier, model, response, tokens = answer_fields(record, where)
        if not model:
            raise InvalidRecord(f"{where}: field 'model' must be a non-empty string")
        return cls(identifier, model, response, tokens, repeat_of(record, where))


@dataclass(frozen=True, slots=True)
class MapVerdict:
    """The score of one prediction.

    ``parsed`` is the letters read from the response (``None`` when invalid,
    ``invalid_reason`` then says why); ``scores`` maps each metric that applies
    to the question's type (see :data:`benchmarks.mapqa.scoring.METRICS`) to
    its value.
    """

    id: str
    model: str
    parsed: tuple[str, ...] | None
    scores: dict[str, float] = field(default_factory=dict)
    invalid_reason: str | None = None
    tokens: int | None = None
    repeat: int = 0

    @property
    def correct(self) -> int:
        """1 when the answer is exactly right, else 0."""
        return int(self.scores.get("exact", 0.0) == 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "model": self.model,
            "parsed": None if self.parsed is None else list(self.parsed),
            "correct": self.correct,
            **self.scores,
            "invalid_reason": self.invalid_reason,
            "tokens": self.tokens,
            **({"repeat": self.repeat} if self.repeat else {}),
        }
