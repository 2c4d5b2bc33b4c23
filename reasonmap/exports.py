"""Question sets exported for other tools: a Hugging Face dataset in the public data set's schema.

This composes the question loader, the embedded Metro Data and the map
folder of the prompts (``<city>.png`` or ``<country>__<city>.png``) into
:func:`benchmarks.reasonmap.hub.write_hf_dataset`. The public set's schema
is that of route questions: other tasks' files are refused in one line.
The output folder is replaced only when it is empty or holds a dataset
(what ``save_to_disk`` writes), never a folder of other files.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks.reasonmap.records import Question

__all__ = ["Export", "export_hf"]


@dataclass(frozen=True, slots=True)
class Export:
    """What an export wrote, and what it left out (records skipped, maps not found)."""

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
        The file holds another task's questions, or ``out`` is a folder of files that are not a dataset.
    """
    from baselines.prompts import find_map
    from benchmarks.reasonmap.hub import write_hf_dataset
    from benchmarks.reasonmap.loading import load_questions
    from graphkit.cities import city_names, load_city, load_metro_file
    from reasonmap.score_files import task_of

    task = task_of(questions_path)
    if task.name != "route":
        raise ValueError(
            f"{questions_path}: holds {task.name} questions; `export --format hf` writes route questions only"
            " (the public ReasonMap set's schema)"
        )
    out = Path(os.path.abspath(out))  # `.` and `..` have a name to write beside
    _check_out(out)
    _check_out(out.with_name(out.name + ".partial"), partial=True)  # the dataset is written there, then moved
    questions, carried, skipped = load_questions(questions_path)
    problems = [str(problem) for problem in skipped]
    if not questions:
        return Export(0, tuple(problems))
    override = load_metro_file(metro, overlay=overlay)[0] if metro is not None else None
    texts: dict[str, str | None] = {}
    figures: dict[str, bytes | None] = {}

    def metro_text(question: Question) -> str | None:
        if question.city not in texts:
            data = override or carried.get(question.city)
            if data is None and question.city in city_names():
                data = load_city(question.city)[0]
            texts[question.city] = None if data is None else json.dumps(data.to_dict(), ensure_ascii=False)
        return texts[question.city]

    def figure(question: Question) -> bytes | None:
        if maps is None:
            return None
        if question.city not in figures:
            try:
                figures[question.city] = find_map(maps, question).read_bytes()
            except (FileNotFoundError, ValueError) as error:  # missing, or a name leading out of the folder
                problems.append(str(error))
                figures[question.city] = None
        return figures[question.city]

    count = write_hf_dataset(list(questions.values()), out, metro_text=metro_text, figure=figure)
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
