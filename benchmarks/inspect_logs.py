"""Inspect eval logs read within bounds: the log's header and its samples, as Inspect's own models.

A task maps the samples onto its predictions (route:
:func:`benchmarks.reasonmap.harnesses.read_inspect_log`). An ``.eval`` archive's
samples are unpacked one by one, each only when within :data:`MAX_SAMPLE_BYTES`;
a sample that cannot be read is reported and the others kept. A log whose run
did not finish (status ``error``, ``cancelled`` or ``started``) is refused,
naming the status and the first error, unless ``partial`` asks for its
finished samples.
"""

from __future__ import annotations

import importlib.util
import os
import re
import zipfile
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import MAX_LINE_BYTES, Problem, open_regular
from benchmarks.sheets import MAX_SHEET_BYTES
from graphkit.extras import install_hint

__all__ = ["MAX_SAMPLE_BYTES", "UNFINISHED", "read_inspect_samples", "first_line", "sample_prompts"]

#: The largest Inspect sample read (unpacked); an answer of the benchmarks is far smaller.
MAX_SAMPLE_BYTES = MAX_LINE_BYTES

#: the statuses of a run that did not finish: read only with ``partial``
UNFINISHED = ("error", "cancelled", "started")
_SAMPLE_MEMBER = re.compile(r"samples/.+\.json")


def first_line(text: Any) -> str:
    """The first line of an error's text, at most 300 characters (empty for none).

    Parameters
    ----------
    text : Any
        An error's text (``None``: none).

    Returns
    -------
    str
    """
    return str(text).strip().splitlines()[0][:300] if str(text).strip() else ""


def _eval_samples(path: Path, label: str) -> tuple[Any, list[tuple[int, Any]], list[Problem]]:
    """The header and the samples of an ``.eval`` archive, each sample unpacked only when within the bound."""
    from inspect_ai.log import EvalSample, read_eval_log

    problems: list[Problem] = []
    samples: list[tuple[int, Any]] = []
    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        try:
            archive = zipfile.ZipFile(handle)
            members = archive.infolist()
            others = [m for m in members if not _SAMPLE_MEMBER.fullmatch(m.filename)]
            if sum(member.file_size for member in others) > MAX_SHEET_BYTES:
                raise InvalidRecord(f"{label}: its header parts unpack to over {MAX_SHEET_BYTES:,} bytes")
            handle.seek(0)
            log = read_eval_log(handle, header_only=True)
            number = 0
            for member in members:
                if not _SAMPLE_MEMBER.fullmatch(member.filename):
                    continue
                number += 1
                if member.file_size > MAX_SAMPLE_BYTES:
                    problems.append(
                        Problem(
                            label,
                            number,
                            f"{member.filename} unpacks to {member.file_size:,} bytes, over"
                            f" the {MAX_SAMPLE_BYTES:,} a sample may hold; not read",
                        )
                    )
                    continue
                try:
                    samples.append((number, EvalSample.model_validate_json(archive.read(member))))
                except Exception as error:  # pydantic and JSON errors: this sample only, the others are kept
                    why = first_line(f"{type(error).__name__}: {error}")
                    problems.append(Problem(label, number, f"{member.filename} is not a readable sample ({why})"))
        except InvalidRecord:
            raise
        except Exception as error:  # zipfile, pydantic and Inspect raise many kinds on a broken log
            raise InvalidRecord(f"{label}: not a readable Inspect log ({type(error).__name__}: {error})") from None
    return log, samples, problems


def _json_log(path: Path, label: str) -> tuple[Any, list[tuple[int, Any]], list[Problem]]:
    from inspect_ai.log import read_eval_log

    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_SHEET_BYTES:
            raise InvalidRecord(f"{label}: {size:,} bytes, over the {MAX_SHEET_BYTES:,} an Inspect log is read to")
        try:
            log = read_eval_log(handle, format="json")
        except Exception as error:  # Inspect raises many kinds on a broken log
            raise InvalidRecord(f"{label}: not a readable Inspect log ({type(error).__name__}: {error})") from None
    return log, list(enumerate(log.samples or [], start=1)), []


def read_inspect_samples(
    path: str | Path, *, partial: bool = False
) -> tuple[Any, list[tuple[int, Any]], list[Problem]]:
    """The header of an Inspect log (``.eval`` or ``.json``), its samples numbered from 1, and the samples skipped.

    Parameters
    ----------
    path : str or Path
        The Inspect log.
    partial : bool, optional
        Read the finished samples of a run that did not finish.

    Returns
    -------
    header : Any
        The log's header (Inspect's ``EvalLog`` without samples).
    samples : list of (int, Any)
        The samples, numbered.
    problems : list of Problem
        The samples skipped.

    Raises
    ------
    InvalidRecord
        Inspect is not installed, the log cannot be read, or its run did not finish (unless ``partial``).
    """
    if importlib.util.find_spec("inspect_ai") is None:  # found, not imported: that takes seconds, done when read
        raise InvalidRecord(f"{path}: reading Inspect logs needs inspect-ai ({install_hint('inspect')})")
    path, label = Path(path), str(path)
    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        archived = handle.read(4) == b"PK\x03\x04"
    log, samples, problems = (_eval_samples if archived else _json_log)(path, label)
    if log.status in UNFINISHED and not partial:
        error = first_line(log.error.message) if log.error is not None else "no error recorded"
        raise InvalidRecord(
            f"{label}: the run ended with status {log.status!r} ({error}); pass --partial to score the samples"
            " it finished"
        )
    return log, samples, problems


def sample_prompts(given: Any) -> tuple[str, ...]:
    """The text an Inspect sample was asked: its input, a string or chat messages (their text parts).

    Parameters
    ----------
    given : Any
        A sample's ``input``.

    Returns
    -------
    tuple of str
        The texts, in order.
    """
    if isinstance(given, str):
        return (given,) if given.strip() else ()
    texts = (getattr(message, "text", None) for message in given or ())
    return tuple(text for text in texts if isinstance(text, str) and text.strip())
