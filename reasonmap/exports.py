"""Question sets exported for other tools: a Hugging Face dataset in the public data set's schema; and a
network as a GTFS feed (:func:`export_gtfs`, :mod:`graphkit.gtfs.export`).

This composes a task's loader and the map folder of the prompts
(``<city>.png`` or ``<country>__<city>.png``) into the task's own writer
(its record's ``export``: route questions, whose schema the public set's is,
through :func:`benchmarks.reasonmap.hub.write_hf_dataset`). A file of a task
without one is refused in one line.
The output folder is replaced only when it is empty or holds a dataset
(what ``save_to_disk`` writes), never a folder of other files.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Export", "export_hf", "export_gtfs"]


@dataclass(frozen=True, slots=True)
class Export:
    """What an export wrote, and what it left out (records skipped, maps not found).

    Attributes
    ----------
    count : int
        The records written.
    problems : tuple of str
        What was left out, and why.
    """

    count: int
    problems: tuple[str, ...]


def export_hf(
    questions_path: str | Path,
    out: str | Path,
    *,
    maps: str | Path | None = None,
    metro: str | Path | None = None,
    overlay: str | Path | None = None,
) -> Export:
    """Write the questions of ``questions_path`` as a dataset folder ``out`` (``datasets.load_from_disk``).

    Parameters
    ----------
    questions_path : path
        Any question file ``reasonmap score`` reads.
    out : path
        The dataset folder to write: new, empty, or a dataset folder (replaced).
    maps : path, optional
        The folder of map images, stored as the ``figure`` of each question of the city
        (byte for byte); without it, or for a city whose map is missing (reported), ``figure`` is empty.
    metro, overlay : path, optional
        A Metro Data file for every question (else the embedded city's, else what the file carried).

    Returns
    -------
    Export
        Nothing is written when the file holds no route question (``count`` 0, the records skipped in
        ``problems``).

    Raises
    ------
    ValueError
        The file holds the questions of a task without a dataset schema, or ``out`` is a folder of files that
        are not a dataset.
    """
    from baselines.prompts import find_map
    from benchmarks.tasks import get_task, task_names
    from graphkit.cities import load_metro_file
    from reasonmap.score_files import task_of

    task = task_of(questions_path)
    if task.export is None:
        writers = " and ".join(name for name in task_names() if get_task(name).export is not None)
        raise ValueError(
            f"{questions_path}: holds {task.name} questions; `export --format hf` writes {writers} questions only"
            " (the public ReasonMap set's schema)"
        )
    out = Path(os.path.abspath(out))  # `.` and `..` have a name to write beside
    _check_out(out)
    _check_out(out.with_name(out.name + ".partial"), partial=True)  # the dataset is written there, then moved
    loaded = task.load(questions_path)
    problems = list(loaded.problems)
    if not loaded.questions:
        return Export(0, tuple(problems))
    override = load_metro_file(metro, overlay=overlay)[0] if metro is not None else None
    figures: dict[str, bytes | None] = {}

    def figure(question: Any) -> bytes | None:
        if maps is None:
            return None
        if question.city not in figures:
            try:
                figures[question.city] = find_map(maps, question).read_bytes()
            except (FileNotFoundError, ValueError) as error:  # missing, or a name leading out of the folder
                problems.append(str(error))
                figures[question.city] = None
        return figures[question.city]

    count = task.export(loaded, out, figure=figure, metro=override)
    return Export(count, tuple(problems))


# what `Dataset.save_to_disk` writes (datasets 3-5): its two JSON files and the Arrow shards
_DATASET_FILE = re.compile(r"(state|dataset_info)\.json|data-\d{5}-of-\d{5}\.arrow")


def _check_out(out: Path, *, partial: bool = False) -> None:
    """Refuse to replace ``out`` unless it is absent, an empty folder, or a dataset folder (``partial``: or what
    an interrupted export left of one)."""
    if not out.exists() and not out.is_symlink():
        return
    if out.is_symlink() or not out.is_dir():
        raise ValueError(f"{out}: exists and is not a folder; give a new folder for the dataset")
    names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in os.scandir(out))
    other = [name for name in names if not _DATASET_FILE.fullmatch(name)]
    if other or (names and "state.json" not in names and not partial):
        shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
        raise ValueError(
            f"{out}: holds files that are not a dataset ({shown or 'no state.json'}); give a new or empty folder"
            " (a dataset folder is replaced)"
        )


def export_gtfs(
    out: str | Path, *, city: str | None = None, metro: str | Path | None = None, overlay: str | Path | None = None
) -> tuple[int, int]:
    """Write the network of an embedded ``city`` or a ``metro`` file as a zipped GTFS feed ``out``, atomically.

    Returns the numbers of lines and stations written.

    Parameters
    ----------
    out : str or Path
        The zip file.
    city : str, optional
        An embedded city.
    metro : str or Path, optional
        A Metro Data file (exactly one of ``city`` and ``metro``).
    overlay : str or Path, optional
        An overlay in place of the network's own.

    Returns
    -------
    lines, stations : int
    """
    from graphkit.cities import open_graph
    from graphkit.files import atomic_writer
    from graphkit.gtfs.export import feed_bytes

    graph = open_graph(city=city, metro=metro, overlay=overlay)
    data = feed_bytes(graph)
    with atomic_writer(out, binary=True) as stream:
        stream.write(data)
    return len(graph.lines), len(graph.stations)
