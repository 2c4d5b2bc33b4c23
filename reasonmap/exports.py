"""Question sets exported for other tools: a Hugging Face dataset in the public data set's schema.

This composes the question loader, the embedded Metro Data and the map
folder of the prompts (``<city>.png`` or ``<country>__<city>.png``) into
:func:`benchmarks.reasonmap.hub.write_hf_dataset`.
"""

from __future__ import annotations

import json
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
        The dataset folder to write (replaced).
    maps : path, optional
        The folder of map images, stored as the ``figure`` of each question of the city
        (byte for byte); without it, or for a city whose map is missing (reported), ``figure`` is empty.
    metro, overlay : path, optional
        A Metro Data file for every question (else the embedded city's, else what the file carried).
    """
    from baselines.prompts import find_map
    from benchmarks.reasonmap.hub import write_hf_dataset
    from benchmarks.reasonmap.loading import load_questions
    from graphkit.cities import city_names, load_city, load_metro_file

    questions, carried, skipped = load_questions(questions_path)
    problems = [str(problem) for problem in skipped]
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
            except FileNotFoundError as error:
                problems.append(str(error))
                figures[question.city] = None
        return figures[question.city]

    count = write_hf_dataset(list(questions.values()), out, metro_text=metro_text, figure=figure)
    return Export(count, tuple(problems))
