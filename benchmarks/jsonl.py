"""Reading and writing JSON Lines files, for every task.

Reading never stops at a bad record: it is reported (file, line, what is
wrong) and skipped, and every good record is kept. Writing is atomic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.errors import InvalidRecord
from graphkit.io import atomic_writer

__all__ = [
    "Problem",
    "read_jsonl",
    "write_jsonl",
    "first_record",
    "unique_by_id",
    "first_answers",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Problem:
    """A record that was skipped, and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def read_jsonl(path: str | Path, parse: Callable[..., T]) -> tuple[list[T], list[Problem]]:
    """Parse every line of a JSON Lines file with ``parse(obj, where=...)``.

    Returns the good records and the problems (bad JSON, invalid records);
    blank lines are ignored.

    Raises
    ------
    InvalidRecord
        The file cannot be read at all.
    """
    label = str(path)
    try:
        handle = open(path, encoding="utf-8", errors="strict")
    except OSError as error:
        raise InvalidRecord(f"{label}: cannot read ({error.strerror or error})") from None
    records: list[T] = []
    problems: list[Problem] = []
    with handle:
        number = 0
        while True:
            try:
                line = handle.readline()
            except UnicodeDecodeError as error:
                problems.append(Problem(label, number + 1, f"not UTF-8 ({error.reason}); rest of file skipped"))
                break
            if not line:
                break
            number += 1
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(Problem(label, number, f"not valid JSON ({error.msg} at column {error.colno})"))
                continue
            try:
                records.append(parse(obj, where=f"{label}:{number}"))
            except InvalidRecord as error:
                problems.append(Problem(label, number, str(error).removeprefix(f"{label}:{number}: ")))
    return records, problems


def write_jsonl(path: str | Path, records: Iterable[Any]) -> int:
    """Write records (objects with ``to_dict`` or plain dicts) atomically, one per line; returns the count."""
    count = 0
    with atomic_writer(path) as stream:
        for record in records:
            obj = record.to_dict() if hasattr(record, "to_dict") else record
            stream.write(json.dumps(obj, ensure_ascii=False))
            stream.write("\n")
            count += 1
    return count


def first_record(path: str | Path) -> Any:
    """The first non-blank record of a JSON Lines file, to tell what kind of file it is.

    ``None`` for parquet files, unreadable files, bad JSON and empty files:
    telling the kind is not the place to report them (the loader does).
    """
    path = Path(path)
    if path.suffix == ".parquet":
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if line.strip():
                    return json.loads(line)
    except (OSError, json.JSONDecodeError):
        return None
    return None


def unique_by_id(records: Iterable[T], path: str | Path) -> tuple[dict[str, T], list[Problem]]:
    """Records by their ``id``; a repeated id is reported and the first record kept."""
    unique: dict[str, T] = {}
    problems: list[Problem] = []
    for record in records:
        if record.id in unique:
            problems.append(Problem(str(path), 0, f"question id {record.id!r} appears twice; the first is used"))
            continue
        unique[record.id] = record
    return unique, problems


def first_answers(
    predictions: Iterable[T], key: Callable[[T], Hashable], path: str | Path
) -> tuple[list[T], list[str]]:
    """Predictions with repeats dropped: a model's second answer to one question is reported, the first counts."""
    seen: set[Hashable] = set()
    kept: list[T] = []
    problems: list[str] = []
    for prediction in predictions:
        found = key(prediction)
        if found in seen:
            problems.append(f"{path}: {prediction.model} answered {prediction.id} again; the first answer counts")
            continue
        seen.add(found)
        kept.append(prediction)
    return kept, problems
