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

:func:`dataset_rows` reads any dataset in that schema, the official one
included (``datasets.load_dataset("FSCCS/ReasonMap", split=...)``, or a folder
``save_to_disk`` wrote), as plain records for the official loader. Maps are
not decoded unless asked for. Everything here needs the ``datasets`` package
(``pip install 'reasonmap-toolkit[hf]'``); it is imported when called.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.records import Question
from graphkit.extras import install_hint

__all__ = ["COLUMNS", "hf_features", "hf_records", "to_hf_dataset", "write_hf_dataset", "dataset_rows"]

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
_NEEDS = f"needs the datasets package ({install_hint('hf')})"


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise InvalidRecord(f"Hugging Face datasets {_NEEDS}") from None
    return datasets


def hf_features(route_count: int) -> Any:
    """The ``datasets.Features`` of a set whose questions have at most ``route_count`` references."""
    datasets = _datasets()
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
    """The records of :func:`to_hf_dataset`: each question's fields, its city's Metro Data text and map bytes."""
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
    """
    route_count = max((len(question.routes) for question in questions), default=1)
    records = hf_records(questions, metro_text=metro_text, figure=figure)
    return _datasets().Dataset.from_list(records, features=hf_features(route_count))


def write_hf_dataset(
    questions: Sequence[Question],
    out: str | Path,
    *,
    metro_text: Callable[[Question], str | None],
    figure: Callable[[Question], bytes | None],
) -> int:
    """Save :func:`to_hf_dataset` to the folder ``out`` (replaced whole, never left half written); the count.

    Same questions and maps, same bytes.
    """
    out = Path(out)
    dataset = to_hf_dataset(questions, metro_text=metro_text, figure=figure)
    partial = out.with_name(out.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    datasets = _datasets()
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


def _one_split(found: Any, label: str) -> Any:
    """A ``Dataset``; a ``DatasetDict`` of one split gives that split, of several an error naming them."""
    if hasattr(found, "column_names") and not isinstance(found.column_names, dict):
        return found
    splits = sorted(found)
    if len(splits) != 1:
        raise InvalidRecord(f"{label}: holds the splits {', '.join(splits)}; pass one ({label}/<split>)")
    return found[splits[0]]


def _only_regular_files(folder: Path, depth: int = 2) -> None:
    """Refuse a dataset folder holding a FIFO or a device (``datasets`` would block on it for ever, or never end).

    A ``save_to_disk`` folder holds its files and, for a dataset of several splits, one folder per split.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return  # not a folder we can list: ``load_from_disk`` says what is wrong
    for entry in entries:
        try:
            mode = os.stat(entry.path).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            if depth > 1:
                _only_regular_files(Path(entry.path), depth - 1)
        elif not stat.S_ISREG(mode):
            raise InvalidRecord(f"{entry.path}: not a regular file (only regular files are read)")


def dataset_rows(source: Any, *, figures: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(position, record)`` of a ``datasets`` dataset or of a folder ``save_to_disk`` wrote.

    ``figure`` is left out unless ``figures``; then it comes undecoded, as
    ``{"bytes": ..., "path": ...}`` (or the official set's base64 text).

    Raises
    ------
    InvalidRecord
        The folder is not a dataset, holds several splits, or ``datasets`` is missing.
    """
    label = str(source)
    if isinstance(source, str | Path):
        _only_regular_files(Path(source))  # before importing datasets (seconds): a FIFO is refused at once
    datasets = _datasets()
    if isinstance(source, str | Path):
        try:
            source = datasets.load_from_disk(str(source))
        except (FileNotFoundError, ValueError, OSError) as error:
            raise InvalidRecord(f"{label}: not a dataset folder ({error})") from None
    dataset = _one_split(source, label)
    if "figure" in dataset.column_names:
        if not figures:
            dataset = dataset.remove_columns("figure")
        elif isinstance(dataset.features["figure"], datasets.Image):
            dataset = dataset.cast_column("figure", datasets.Image(decode=False))
    yield from enumerate(dataset)
