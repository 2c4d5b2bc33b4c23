"""The public data set's ReasonMap-Plus records (the hub's), read as they are.

The hub's ReasonMap-Plus records carry ``country, city, type, question,
station_1, station_2, answer, figure, difficulty_city, city_line_count,
city_transfer_count`` and no id (a record's id is its position, as the
public script numbers them). ``answer`` is an integer: ``TorF`` 1 = yes and
0 = no, ``Counting1`` the option's index 0–3 (A–D), ``Counting2``/``Counting3``
the count. :func:`hub_plus_question` reads one as a
:class:`~benchmarks.plus.questions.PlusQuestion` (no ``options``: a
``Counting1`` answer is then read by its letter only).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem
from benchmarks.plus.records import OPTION_LETTERS, PLUS_TYPES, PlusQuestion

__all__ = ["is_hub_record", "hub_plus_question", "load_hub_plus"]


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
    from benchmarks.dataset_records import public_records

    label = str(path)
    questions: dict[str, PlusQuestion] = {}
    problems: list[Problem] = []
    for position, record in public_records(path):
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
