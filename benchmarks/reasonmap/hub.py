"""Question sets as Hugging Face ``datasets``, in the public data set's schema, out and back in.

:func:`write_hf_dataset` writes questions (generated, synthetic or read from
anywhere) as a dataset folder (``datasets.load_from_disk``) so they can be
pushed and shared like the original. The columns are the official records'
(see :mod:`benchmarks.reasonmap.public_dataset`), with two more that keep a set's
identity: ``id`` (the question's own id; the official records have none and
take their position) and ``long_template``. ``routes`` is a struct of
``route_1`` … ``route_N`` (``N`` the most references of any question; a
question with fewer has ``None`` in the rest, as in the official parquet),
``json`` the city's Metro Data as JSON text, and ``figure`` the map as an
``Image`` feature (``None`` when no map was given).

:func:`benchmarks.dataset_records.dataset_rows` reads any dataset in that schema, the official one
included (``datasets.load_dataset("FSCCS/ReasonMap", split=...)``, or a folder
``save_to_disk`` wrote), as plain records for the official loader. Maps are
not decoded unless asked for. Everything here needs the ``datasets`` package
(``pip install 'reasonmap-toolkit[hf]'``); it is imported when called.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.dataset_records import hf_datasets
from benchmarks.reasonmap.records import Question

__all__ = ["COLUMNS", "hf_features", "hf_records", "to_hf_dataset", "write_hf_dataset"]

#: The columns written, in order: the official records' plus ``id`` and ``long_template``.
COLUMNS: tuple[str, ...] = (
    "id",
    "country",
    "city",
    "station_1",
    "station_2",
    "question_short",
    "question_long",
    "long_template",
    "routes",
    "json",
    "figure",
    "difficulty_question",
    "difficulty_city",
    "city_line_count",
    "city_transfer_count",
    "question_transfer_count",
)
_INTEGERS = ("city_line_count", "city_transfer_count", "question_transfer_count")


def hf_features(route_count: int) -> Any:
    """The ``datasets.Features`` of a set whose questions have at most ``route_count`` references.

    Parameters
    ----------
    route_count : int
        The most references a question has: columns ``route_1`` to ``route_<route_count>``.

    Returns
    -------
    datasets.Features
        The public data set's columns, ``figure`` an image.
    """
    datasets = hf_datasets()
    text = datasets.Value("string")
    segment = {
        "route_name": text,
        "departure_stop": text,
        "arrival_stop": text,
        "via_stops": [text],
        "num_via_stops": datasets.Value("int64"),
    }
    columns: dict[str, Any] = {name: text for name in COLUMNS}
    columns["routes"] = {f"route_{number}": [segment] for number in range(1, route_count + 1)}
    columns["figure"] = datasets.Image()
    columns.update((name, datasets.Value("int64")) for name in _INTEGERS)
    return datasets.Features(columns)


def hf_records(
    questions: Sequence[Question],
    *,
    metro_text: Callable[[Question], str | None],
    figure: Callable[[Question], bytes | None],
) -> list[dict[str, Any]]:
    """The records of :func:`to_hf_dataset`.

    Parameters
    ----------
    questions : sequence of Question
        The questions.
    metro_text, figure : callable
        As :func:`to_hf_dataset`.

    Returns
    -------
    list of dict
        Per question, its fields, its city's Metro Data text (``json``) and map bytes (``figure``), in the public
        data set's columns.
    """
    route_count = max((len(question.routes) for question in questions), default=1)
    records = []
    for question in questions:
        record = question.to_dict()
        routes = record["routes"]
        record["routes"] = {f"route_{n}": routes.get(f"route_{n}") for n in range(1, route_count + 1)}
        record["json"] = metro_text(question)
        data = figure(question)
        record["figure"] = None if data is None else {"bytes": data, "path": None}
        records.append({name: record[name] for name in COLUMNS})
    return records


def to_hf_dataset(
    questions: Sequence[Question],
    *,
    metro_text: Callable[[Question], str | None],
    figure: Callable[[Question], bytes | None],
) -> Any:
    """A ``datasets.Dataset`` of ``questions`` in the public data set's schema (see the module notes).

    Parameters
    ----------
    questions : sequence of Question
    metro_text : callable
        The Metro Data JSON text of a question's city (``None``: left empty).
    figure : callable
        The map image (PNG bytes) of a question's city (``None``: no map).

    Returns
    -------
    datasets.Dataset
        One row per question.
    """
    route_count = max((len(question.routes) for question in questions), default=1)
    records = hf_records(questions, metro_text=metro_text, figure=figure)
    return hf_datasets().Dataset.from_list(records, features=hf_features(route_count))


def write_hf_dataset(
    questions: Sequence[Question],
    out: str | Path,
    *,
    metro_text: Callable[[Question], str | None],
    figure: Callable[[Question], bytes | None],
) -> int:
    """Save :func:`to_hf_dataset` to the folder ``out`` (replaced whole, never left half written).

    Same questions and maps, same bytes.

    Parameters
    ----------
    questions : sequence of Question
        The questions.
    out : str or Path
        The dataset folder.
    metro_text, figure : callable
        As :func:`to_hf_dataset`.

    Returns
    -------
    int
        The rows written.
    """
    out = Path(out)
    dataset = to_hf_dataset(questions, metro_text=metro_text, figure=figure)
    partial = out.with_name(out.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    datasets = hf_datasets()
    quiet = datasets.utils.are_progress_bars_disabled()
    datasets.disable_progress_bars()  # a progress bar per shard says nothing here
    try:
        dataset.save_to_disk(str(partial))
    finally:
        if not quiet:
            datasets.enable_progress_bars()
    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)
    return len(dataset)
