"""The public ReasonMap data set's own files: parquet from the hub, or JSON Lines exported from it.

Each record carries ``country, city, station_1, station_2, question_short,
question_long, routes`` (``route_1`` … ``route_N``: lists of segments; a
parquet struct may hold ``None`` for missing ones), ``json`` (the city's Metro
Data, an object or its JSON text), ``figure`` (the map, a base64 PNG),
``difficulty_question, difficulty_city, city_line_count,
city_transfer_count, question_transfer_count``. Records have no id and no
template field: the id is the record's position, and the long template is
read off the long question (it asks for the ``Number of Via Stops`` or not).

Bad records are reported and skipped; the good ones are all kept.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.dataset_records import public_records
from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem
from benchmarks.reasonmap.records import Question
from graphkit.errors import InvalidMetroData
from graphkit.files import atomic_writer, file_in
from graphkit.metro import MetroData, load_metro

__all__ = ["PublicDataset", "load_public_dataset", "to_question", "export_figures"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_DIFFICULTY_ALIASES = {"medium": "middle", "mid": "middle"}


@dataclass(frozen=True, slots=True)
class PublicDataset:
    """What the public data set holds.

    Parameters
    ----------
    questions : tuple of Question
        Its questions, in order.
    metro : dict of str to MetroData, optional
        The Metro Data its records carry, by city.
    problems : tuple of Problem, optional
        The records skipped and why.
    """

    questions: tuple[Question, ...]
    metro: dict[str, MetroData] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()


def _metro_of(record: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    value = record.get("json")
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise InvalidRecord(f"{where}: field 'json' is not valid JSON Metro Data") from None
    if not isinstance(value, Mapping):
        raise InvalidRecord(f"{where}: field 'json' must be the Metro Data object")
    return value


def to_question(record: Any, *, position: int, where: str) -> Question:
    """One public-data-set record as a :class:`Question`.

    Parameters
    ----------
    record : Any
        The record (``routes`` may be JSON text; parquet's padding ``None`` routes are dropped).
    position : int
        Its position in the set: its id unless it has one.
    where : str
        Where it is, as an error names it.

    Returns
    -------
    Question
        The question; a missing ``long_template`` is read from the long question's text, and ``medium``-style
        difficulties as the toolkit's.

    Raises
    ------
    InvalidRecord
        Not an object, ``routes`` not JSON, or a field :meth:`Question.from_dict` refuses.
    """
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{where}: a record must be an object")
    routes = record.get("routes")
    if isinstance(routes, str):
        try:
            routes = json.loads(routes)
        except json.JSONDecodeError:
            raise InvalidRecord(f"{where}: field 'routes' is not valid JSON") from None
    if isinstance(routes, Mapping):
        routes = {name: route for name, route in routes.items() if route}  # parquet structs pad with None
    long_text = record.get("question_long")
    template = record.get("long_template")
    if template is None and isinstance(long_text, str):
        template = "via_count" if "Number of Via Stops" in long_text else "via_stops"
    fields = dict(record)
    fields.update(id=str(record.get("id", position)), routes=routes, long_template=template)
    for name in ("difficulty_question", "difficulty_city"):
        value = fields.get(name)
        if isinstance(value, str):
            fields[name] = _DIFFICULTY_ALIASES.get(value.lower(), value.lower())
    return Question.from_dict(fields, where=where)


def load_public_dataset(path: Any) -> PublicDataset:
    """Read the public data set's questions and references (and the Metro Data of each city).

    Parameters
    ----------
    path : str, Path or datasets.Dataset
        A parquet, JSON Lines or JSON file, a Hugging Face dataset folder, or a ``datasets.Dataset``.

    Returns
    -------
    PublicDataset
        The questions, each city's Metro Data (the first record's) and the records skipped.
    """
    label = str(path) if isinstance(path, str | Path) else "dataset"
    questions: list[Question] = []
    metro: dict[str, MetroData] = {}
    problems: list[Problem] = []
    for position, record in public_records(path):
        where = f"{label}, record {position}"
        if isinstance(record, Exception):
            problems.append(Problem(label, position, str(record)))
            continue
        try:
            question = to_question(record, position=position, where=where)
            data = _metro_of(record, where)
            if data is not None and question.city not in metro:
                metro[question.city] = load_metro(data, city=question.city, country=question.country)
        except (InvalidRecord, InvalidMetroData) as error:
            problems.append(Problem(label, position, str(error).removeprefix(f"{where}: ")))
            continue
        questions.append(question)
    return PublicDataset(tuple(questions), metro, tuple(problems))


def export_figures(
    path: Any, out_dir: str | Path, *, before_write: Callable[[Path], None] | None = None
) -> tuple[list[Path], list[Problem]]:
    """Write each city's map (the records' ``figure``) as ``<country>__<city>.png``, once per city.

    ``figure`` is base64 text (the public set's parquet) or an ``Image`` feature's ``{"bytes": ...}``.
    A record whose ``country`` or ``city`` would lead the name out of ``out_dir`` (a path
    separator, ``..``) is a problem, and nothing is written for it. ``before_write`` is called
    with each file about to be written (a run records it in its manifest).

    Parameters
    ----------
    path : str, Path or datasets.Dataset
        The public data set (:func:`load_public_dataset`).
    out_dir : str or Path
        The folder the maps go to (made when missing).
    before_write : callable, optional
        Called with each file about to be written.

    Returns
    -------
    written : list of Path
        The maps written, sorted.
    problems : list of Problem
        The figures not written and why.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    problems: list[Problem] = []
    for position, record in public_records(path, figures=True):
        if not isinstance(record, Mapping) or str(record.get("city")) in written:
            continue
        figure = record.get("figure")
        if isinstance(figure, Mapping):
            figure = figure.get("bytes")
        if figure is None:
            continue
        try:
            data = figure if isinstance(figure, bytes) else base64.b64decode(figure, validate=True)
        except (binascii.Error, ValueError, TypeError):
            problems.append(Problem(str(path), position, "field 'figure' is not base64"))
            continue
        if not data.startswith(_PNG_SIGNATURE):
            problems.append(Problem(str(path), position, "field 'figure' is not a PNG image"))
            continue
        try:
            target = file_in(out, f"{record.get('country', 'unknown')}__{record.get('city', position)}.png")
        except ValueError as error:
            problems.append(Problem(str(path), position, f"fields 'country' and 'city' name no map: {error}"))
            continue
        if before_write is not None:
            before_write(target)
        with atomic_writer(target, binary=True) as stream:  # a killed export leaves no torn image
            stream.write(data)
        written[str(record.get("city"))] = target
    return sorted(written.values()), problems
