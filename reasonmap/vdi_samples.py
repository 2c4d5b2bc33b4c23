"""Samples of the text-mediated pathway (:mod:`reasonmap.vdi`): questions of any task with their map image.

A :class:`~benchmarks.samples.SampleSet` holds the questions to ask (id,
request kind, map image, the question as asked) and how an answer is judged;
each task builds its own (the ``samples`` of its record in
:mod:`benchmarks.tasks`): map QA questions are correct on an exact match;
ReasonMap questions are asked in their short form and are correct as the
paper's Algorithm 1 judges them, against the city's graph; ReasonMap-Plus
questions are correct as :mod:`benchmarks.plus.scoring` judges them.
City maps come from a folder of ``<city>.png`` (or
``<country>__<city>.png``), as for the ``full`` prompt mode. A question
whose image is missing is skipped and reported.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.samples import SampleSet

__all__ = ["load_samples"]


def load_samples(path: str | Path, *, maps: str | Path | None = None, task: str | None = None) -> SampleSet:
    """The samples of a question file of any task (:mod:`benchmarks.tasks`): map QA, ReasonMap route (the
    toolkit's or the public data set's) or ReasonMap-Plus questions; ``task`` ``None`` tells them apart by the
    first record.

    Parameters
    ----------
    path
        The question file.
    maps
        The folder of map images: for questions that name their own image (map QA), what ``image`` paths are
        relative to (default: the file's folder); for questions about a city's map (route, plus), required.
    task : str, optional
        A registered task's name (:func:`benchmarks.tasks.task_names`); default: told from the file.

    Returns
    -------
    SampleSet
        The task's samples and how an answer is judged; the questions skipped (no readable image, a bad
        record) among its problems.

    Raises
    ------
    ValueError
        An unknown task, or questions about a city's map without ``maps``.
    InvalidRecord
        The file cannot be read at all.
    """
    from benchmarks.provenance import input_entry
    from reasonmap.score_files import task_of

    path = Path(path)
    found = task_of(path, task)
    if not found.maps.own_images and maps is None:
        raise ValueError(f"{found.name} questions need the folder of map images (--maps DIR; the toolkit ships none)")
    loaded = found.load(path)
    samples = found.samples(loaded, Path(maps) if maps is not None else None, path)
    return SampleSet(
        samples.benchmark,
        samples.samples,
        samples.judge,
        loaded.problems + samples.problems,
        {"questions": input_entry(path)},
    )
