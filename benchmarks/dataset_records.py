"""Raw records of a public data set, whatever holds them: parquet, JSON Lines, a JSON array, a Hugging Face dataset.

The route and ReasonMap-Plus data sets share these containers;
:func:`public_records` yields ``(position, record)`` and each task maps the
records onto its own questions (``benchmarks.<task>.public_dataset``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import decode_line, numbered_lines, open_regular
from graphkit.extras import install_hint
from graphkit.reading import read_json_file

__all__ = ["MAX_DATASET_BYTES", "public_records", "dataset_rows", "hf_datasets"]

#: The largest JSON array of records read whole (the public set with its figures is far smaller).
MAX_DATASET_BYTES = 1 << 31

_NEEDS = f"needs the datasets package ({install_hint('hf')})"


def public_records(path: Any, *, figures: bool = False) -> Iterator[tuple[int, Any]]:
    """``(position, raw record)`` of a parquet, JSON Lines or JSON-array file; unreadable lines come as exceptions.

    ``path`` may also be a Hugging Face dataset folder (``save_to_disk``) or a
    ``datasets.Dataset`` (see :func:`dataset_rows`;
    its maps are read only when ``figures``).

    Parameters
    ----------
    path : str, Path or datasets.Dataset
        The file, the dataset folder, or the dataset.
    figures : bool, optional
        Read each record's map too.

    Yields
    ------
    position : int
        The record's place in the file, from 0.
    record : Any
        The raw record, or the exception that reading its line raised.

    Raises
    ------
    InvalidRecord
        The file cannot be read, or parquet support (pyarrow) or ``datasets`` is missing.
    """
    if not isinstance(path, str | Path) or Path(path).is_dir():
        yield from dataset_rows(path, figures=figures)
        return
    path = Path(path)
    if not path.exists():
        raise InvalidRecord(f"{path}: no such file")
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - pyarrow is part of the test extras
            raise InvalidRecord(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
        try:
            table = pq.read_table(path)
        except Exception as error:  # pyarrow raises many kinds
            raise InvalidRecord(f"{path}: not a readable parquet file ({error})") from None
        for position, record in enumerate(table.to_pylist()):
            yield position, record
        return
    with open_regular(path, "data set") as stream:
        if stream.read(4).lstrip(b"\xef\xbb\xbf").startswith(b"["):
            records = read_json_file(path, what="data set", error=InvalidRecord, max_bytes=MAX_DATASET_BYTES)
            yield from enumerate(records)
            return
        stream.seek(0)
        position = 0
        for _, line in numbered_lines(stream, str(path)):
            if line is not None and not line.strip():
                continue
            value, why = decode_line(line) if line is not None else (None, "line too long")
            yield position, value if why is None else InvalidRecord(why)
            position += 1


def hf_datasets() -> Any:
    """The ``datasets`` module, imported when called.

    Returns
    -------
    module
        ``datasets``.

    Raises
    ------
    InvalidRecord
        ``datasets`` is not installed (the message says how to install it).
    """
    try:
        import datasets
    except ImportError:
        raise InvalidRecord(f"Hugging Face datasets {_NEEDS}") from None
    return datasets


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

    Parameters
    ----------
    source : datasets.Dataset or str or Path
        The dataset, or a folder ``save_to_disk`` wrote.
    figures : bool, optional
        Keep each record's ``figure``.

    Yields
    ------
    position : int
        The row, from 0.
    record : dict
        The row's fields.

    Raises
    ------
    InvalidRecord
        The folder is not a dataset, holds several splits, or ``datasets`` is missing.
    """
    label = str(source)
    if isinstance(source, str | Path):
        _only_regular_files(Path(source))  # before importing datasets (seconds): a FIFO is refused at once
    datasets = hf_datasets()
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
