"""ReasonMap-Plus records: the question and prediction rows, their types and what each type's answer is.

A question names the entities its type asks about (:data:`ENTITIES`) and carries the map's difficulty, which
weights it; its answer is an option letter, an integer or yes/no (:data:`ANSWER_KINDS`). The questions'
templates and seeded generation are in :mod:`benchmarks.plus.questions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from benchmarks.difficulty import DIFFICULTIES, Difficulty
from benchmarks.errors import InvalidRecord
from benchmarks.records import TypedPrediction, field_of
from benchmarks.short_answers import OPTION_LETTERS, AnswerKind

__all__ = [
    "PlusType",
    "AnswerKind",
    "PLUS_TYPES",
    "ANSWER_KINDS",
    "OPTION_LETTERS",
    "ENTITIES",
    "PlusQuestion",
    "PlusPrediction",
]

PlusType = Literal["Counting1", "Counting2", "Counting3", "TorF1", "TorF2"]
PLUS_TYPES: tuple[PlusType, ...] = ("Counting1", "Counting2", "Counting3", "TorF1", "TorF2")
#: What each type's answer is.
ANSWER_KINDS: dict[str, AnswerKind] = {
    "Counting1": "choice",
    "Counting2": "integer",
    "Counting3": "integer",
    "TorF1": "yes_no",
    "TorF2": "yes_no",
}
#: The entities each type names, in record order.
ENTITIES: dict[str, tuple[str, ...]] = {
    "Counting1": ("station_1", "station_2", "line"),
    "Counting2": ("station",),
    "Counting3": ("line",),
    "TorF1": ("station", "line"),
    "TorF2": ("station_1", "station_2"),
}


@dataclass(frozen=True, slots=True)
class PlusQuestion:
    """One ReasonMap-Plus question.

    Attributes
    ----------
    id, type, country, city : str
    question : str
        The text asked.
    answer : str or int
        ``"A"``–``"D"`` (``Counting1``), an integer (``Counting2``, ``Counting3``)
        or ``"yes"``/``"no"`` (``TorF1``, ``TorF2``).
    difficulty_city : {"easy", "middle", "hard"}
        The map's difficulty.
    station, line, station_1, station_2 : str or None
        The entities the type names (see the module table); the others are ``None``.
    options : tuple of int or None
        ``Counting1``: the values of options A–D.
    """

    id: str
    type: PlusType
    country: str
    city: str
    question: str
    answer: str | int
    difficulty_city: Difficulty
    station: str | None = None
    line: str | None = None
    station_1: str | None = None
    station_2: str | None = None
    options: tuple[int, ...] | None = None

    @property
    def answer_kind(self) -> AnswerKind:
        return ANSWER_KINDS[self.type]

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "type": self.type, "country": self.country, "city": self.city}
        record.update((name, getattr(self, name)) for name in ENTITIES[self.type])
        record["question"] = self.question
        if self.options is not None:
            record["options"] = dict(zip(OPTION_LETTERS, self.options))
        record["answer"] = self.answer
        record["difficulty_city"] = self.difficulty_city
        return record

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "question") -> PlusQuestion:
        """Validate a plus question record; errors name ``where`` and the field."""
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a question must be a JSON object")
        kind = field_of(record, "type", str, where)
        if kind not in PLUS_TYPES:
            raise InvalidRecord(f"{where}: field 'type' must be one of {list(PLUS_TYPES)}, got {kind!r}")
        entities = {name: field_of(record, name, str, where) for name in ENTITIES[kind]}
        difficulty = field_of(record, "difficulty_city", str, where)
        if difficulty not in DIFFICULTIES:
            raise InvalidRecord(f"{where}: field 'difficulty_city' must be one of {list(DIFFICULTIES)}")
        options = None
        answer: str | int
        if ANSWER_KINDS[kind] == "choice":
            options = _options(field_of(record, "options", Mapping, where), where)
            answer = field_of(record, "answer", str, where)
            if answer not in OPTION_LETTERS:
                raise InvalidRecord(f"{where}: field 'answer' must be one of {list(OPTION_LETTERS)}, got {answer!r}")
        elif ANSWER_KINDS[kind] == "integer":
            answer = field_of(record, "answer", int, where)
            if answer < 0:
                raise InvalidRecord(f"{where}: field 'answer' must be a non-negative integer, got {answer}")
        else:
            answer = field_of(record, "answer", str, where)
            if answer not in ("yes", "no"):
                raise InvalidRecord(f"{where}: field 'answer' must be 'yes' or 'no', got {answer!r}")
        return cls(
            id=str(field_of(record, "id", (str, int), where)),
            type=kind,
            country=field_of(record, "country", str, where),
            city=field_of(record, "city", str, where),
            question=field_of(record, "question", str, where),
            answer=answer,
            difficulty_city=difficulty,
            options=options,
            **entities,
        )


def _options(options: Mapping[str, Any], where: str) -> tuple[int, ...]:
    if list(options) != list(OPTION_LETTERS):
        raise InvalidRecord(f"{where}: field 'options' must map exactly {list(OPTION_LETTERS)}, in order")
    values = tuple(options.values())
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values) or len(set(values)) != 4:
        raise InvalidRecord(f"{where}: field 'options' must hold 4 distinct non-negative integers, got {values}")
    return values


@dataclass(frozen=True, slots=True)
class PlusPrediction(TypedPrediction):
    """One model answer to a plus question.

    Parameters
    ----------
    id : str
        The question's id.
    model : str
        The model.
    response : str
        Its answer, as written.
    tokens : int, optional
        The output tokens, when reported.
    question : str, optional
        The type the row says it answers: the type's name, or ``None`` when the row leaves it out (route rows
        say ``short``/``long``).
    repeat : int, optional
        Which answer to the same request this is (0-based).
    """

    types = PLUS_TYPES
    what = "a plus type"
