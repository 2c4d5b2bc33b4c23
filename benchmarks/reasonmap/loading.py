"""Reading route question and prediction files: the toolkit's own and the public data set's.

Public data set files (JSON, parquet, a Hugging Face dataset folder) carry
their cities' Metro Data; :func:`graph_lookup` finds a question's graph
there, in a folder of Metro Data, or among the embedded cities.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.jsonl import Problem, first_record, read_jsonl, read_jsonl_lines, unique_by_id
from benchmarks.reasonmap.public_dataset import load_public_dataset
from benchmarks.reasonmap.records import Prediction, Question
from graphkit.graph import TransitGraph

__all__ = ["load_questions", "read_predictions", "graph_lookup"]


def read_predictions(path: str | Path) -> tuple[list[Prediction], list[Problem]]:
    """Prediction records of a JSON Lines file.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    predictions : list of Prediction
        The rows read.
    problems : list of Problem
        The rows skipped and why.
    """
    return read_jsonl(path, Prediction.from_dict)


def _is_public_dataset(path: Path) -> bool:
    """Public data set files have no ``long_template``; the toolkit's own question files do.

    Parquet files and Hugging Face dataset folders are read as the public data set's (whatever columns they add).
    """
    if path.suffix == ".parquet" or path.is_dir():
        return True
    first = first_record(path)
    return isinstance(first, dict) and "long_template" not in first and "json" in first


def load_questions(path: str | Path) -> tuple[dict[str, Question], dict[str, Any], list[Problem]]:
    """Questions of the toolkit's own files or of the public data set's, with any Metro Data they carry.

    The public data set's may be a Hugging Face dataset folder (``reasonmap export --format hf`` writes one);
    a repeated id there is reported too.

    Parameters
    ----------
    path : str or Path
        A JSON Lines file of the toolkit's questions, or the public data set's file or folder.

    Returns
    -------
    questions : dict of str to Question
        The questions by id (a repeated id: the first).
    metro : dict
        The Metro Data the public data set's records carry, by city (empty for the toolkit's files).
    problems : list of Problem
        The records skipped and why, repeated ids among them.
    """
    path = Path(path)
    if _is_public_dataset(path):
        found = load_public_dataset(path)
        unique, repeated = unique_by_id(found.questions, path)
        return unique, dict(found.metro), list(found.problems) + repeated
    numbered, problems = read_jsonl_lines(path, Question.from_dict)
    unique, repeated = unique_by_id([q for _, q in numbered], path, lines=[line for line, _ in numbered])
    return unique, {}, problems + repeated


def graph_lookup(
    metro: dict[str, Any], override: TransitGraph | None = None, metro_dir: str | Path | None = None
) -> Callable[[Question], TransitGraph]:
    """The graph of a question's city: ``override``, else one from ``metro_dir`` (a folder of Metro Data
    files named after their cities, like a synthetic benchmark's), else the embedded city, else one
    compiled from ``metro``.

    Parameters
    ----------
    metro : dict
        A city's Metro Data, as its question file carried it (see :func:`load_questions`).
    override : TransitGraph, optional
        The graph of every question.
    metro_dir : str or Path, optional
        A folder of Metro Data files named after their cities.

    Returns
    -------
    callable
        A question's graph (each compiled once); it raises ``ValueError`` for a city neither embedded nor in
        ``metro`` (without ``override`` or ``metro_dir``).
    """
    from graphkit.cities import city_graph, city_names, graphs_by_city
    from graphkit.graph import compile_graph

    compiled: dict[str, TransitGraph] = {}
    by_city = graphs_by_city(metro_dir) if metro_dir is not None else None

    def graph_for(question: Question) -> TransitGraph:
        if override is not None:
            return override
        if by_city is not None:
            return by_city(question.city)
        if question.city in city_names():
            return city_graph(question.city)  # embedded, with its topology overlay
        if question.city not in compiled:
            if question.city not in metro:
                raise ValueError(f"no Metro Data for city {question.city!r}: pass --metro or --metro-dir")
            compiled[question.city] = compile_graph(metro[question.city])
        return compiled[question.city]

    return graph_for
