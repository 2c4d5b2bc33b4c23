"""Diagnosis runs and their summaries: read the files, label every answer, write the labels and a table.

:func:`diagnose_files` is what ``reasonmap diagnose`` calls: it reads the
questions and the raw prediction rows (keeping each row's ``error`` field,
which :class:`~benchmarks.reasonmap.records.Prediction` drops), labels every
answer with :func:`vision.diagnose.diagnose`, and writes, atomically:

- ``OUT`` (JSON Lines): one :class:`~vision.diagnose.Diagnosis` per prediction, in input order;
- ``OUT.summary.json`` (``OUT`` without its suffix): :func:`summarize`'s counts and shares;
- ``OUT.summary.md``: :func:`summary_markdown`'s tables;
- with ``draw=DIR``: one PNG per wrong answer in ``DIR`` (:mod:`vision.diagnosis_drawings`; the manifest lists
  them), and in the summaries one drawn example per failure label (``examples``: label → the PNG, relative
  to the summaries).

Bad records are reported and skipped; every good one is kept.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.jsonl import read_jsonl, write_jsonl
from benchmarks.manifests import begin_outputs, manifest_beside, write_manifest
from benchmarks.reasonmap.loading import load_questions
from benchmarks.reasonmap.records import Prediction, Question
from benchmarks.summaries import write_summary, write_text
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import MetroData
from graphkit.names import fold
from graphkit.overlays import Overlay
from vision.diagnose import DEFAULT_COLOUR_THRESHOLD, LABELS, Diagnosis, diagnose
from vision.diagnosis_summary import summarize, summary_markdown, summary_paths
from vision.errors import VisionError
from vision.evidence import MapEvidence

if TYPE_CHECKING:
    from graphkit.executors import Executor

# rows per job handed to an executor
_ROWS_PER_JOB = 10_000

__all__ = [
    "DIAGNOSED_TASK",
    "DiagnosisRun",
    "prediction_row",
    "diagnose_predictions",
    "diagnose_files",
    "OneNetwork",
    "DiagnoseJob",
    "diagnose_block",
    "summarize",
    "summary_markdown",
    "summary_paths",
]

#: The task whose answers a diagnosis labels (route answers, read with the route task's records).
DIAGNOSED_TASK = "route"


@dataclass(frozen=True, slots=True)
class DiagnosisRun:
    """What :func:`diagnose_files` did.

    Attributes
    ----------
    diagnoses : tuple of Diagnosis
        One per good prediction, in input order.
    problems : tuple of str
        Skipped records and other warnings, each naming its file and line where known.
    summary : dict
        :func:`summarize` of the diagnoses.
    outputs : tuple of Path
        The files written: the JSON Lines, the summary JSON, the markdown table.
    """

    diagnoses: tuple[Diagnosis, ...]
    problems: tuple[str, ...]
    summary: dict[str, Any]
    outputs: tuple[Path, ...]


def prediction_row(record: Any, *, where: str = "prediction") -> tuple[Prediction, str | None]:
    """A prediction row as ``(prediction, error)``: the checked prediction and its client ``error``, if any.

    Parameters
    ----------
    record : Any
        One row of a predictions file (a JSON object).
    where : str, optional
        Where the row is, for the message (a file and line).

    Returns
    -------
    prediction : Prediction
        The checked prediction (an empty response when it has none).
    error : str or None
        The client's error for the row, if any.

    Raises
    ------
    InvalidRecord
        The row is not a prediction (the message names ``where`` and the field).

    Examples
    --------
    >>> prediction_row({"id": "q1", "model": "m", "question": "short", "response": None, "error": "timeout"})
    (Prediction(id='q1', model='m', question='short', response='', tokens=None, repeat=0), 'timeout')
    """
    prediction = Prediction.from_dict(record, where=where)
    error = record.get("error")
    if error is not None and not isinstance(error, str):
        error = json.dumps(error, ensure_ascii=False, sort_keys=True)
    return prediction, error


Evidence = MapEvidence | Mapping[str, MapEvidence] | Callable[[str], MapEvidence | None] | None


def _evidence_for(evidence: Evidence, problems: list[str]) -> Callable[[Question], MapEvidence | None]:
    """The map evidence of a question's city; a city without one (or whose map cannot be read) is reported once."""
    if isinstance(evidence, MapEvidence):
        by_city = {fold(evidence.city): evidence} if evidence.city else None
        single = evidence
    elif callable(evidence):
        by_city, single = None, None
    else:
        by_city = {fold(city): found for city, found in (evidence or {}).items()}
        single = None
    looked: dict[str, MapEvidence | None] = {}

    def lookup(question: Question) -> MapEvidence | None:
        if question.city in looked:
            return looked[question.city]
        if callable(evidence) and not isinstance(evidence, MapEvidence):
            try:
                found = evidence(question.city)
            except (OSError, ValueError, VisionError) as failure:  # an unreadable map: its city goes without evidence
                problems.append(f"city {question.city!r}: map not read ({failure}); line confusions: 'wrong_line'")
                looked[question.city] = None
                return None
        elif by_city is None:
            return single
        else:
            found = by_city.get(fold(question.city))
        if found is None:
            problems.append(f"no map evidence for city {question.city!r}: line confusions there are 'wrong_line'")
        looked[question.city] = found
        return found

    return lookup


def _other_cities(
    rows: list[tuple[Prediction, str | None]],
    questions: Mapping[str, Question],
    cities: Iterable[str],
    problems: list[str],
) -> list[tuple[Prediction, str | None]]:
    """Rows whose question is of one of ``cities``; the others are dropped and reported in one line."""
    wanted = {fold(city) for city in cities}
    kept, dropped = [], Counter()
    for row in rows:
        question = questions.get(row[0].id)
        if question is not None and fold(question.city) not in wanted:
            dropped[question.city] += 1
        else:
            kept.append(row)
    if dropped:
        named = ", ".join(f"{city} ({count})" for city, count in sorted(dropped.items()))
        problems.append(
            f"{sum(dropped.values())} predictions about other cities than the map's ({named}) skipped; "
            "diagnose several cities with --maps DIR"
        )
    return kept


def _first_answers(
    rows: list[tuple[Prediction, str | None]], path: str | Path, problems: list[str]
) -> list[tuple[Prediction, str | None]]:
    """Rows with repeats dropped: a model's second answer to one question kind is reported, the first counts.
    Answers numbered by ``repeat`` (repeated sampling) are each diagnosed: only a repeated repeat is dropped."""
    seen: set[tuple[str, str, str, int]] = set()
    kept = []
    for row in rows:
        key = (row[0].model, row[0].id, row[0].question, row[0].repeat)
        if key in seen:
            problems.append(f"{path}: {key[0]} answered {key[1]} ({key[2]}) again; the first answer counts")
            continue
        seen.add(key)
        kept.append(row)
    return kept


def diagnose_predictions(
    rows: Iterable[tuple[Prediction, str | None]],
    questions: Mapping[str, Question],
    graph_for: Callable[[Question], TransitGraph],
    evidence_for: Callable[[Question], MapEvidence | None] | None = None,
    *,
    colour_threshold: float = DEFAULT_COLOUR_THRESHOLD,
    layout_threshold: float | None = None,
) -> tuple[list[Diagnosis], list[str]]:
    """Diagnose a batch of ``(prediction, error)`` rows, in input order.

    Parameters
    ----------
    rows : iterable of (Prediction, str or None)
        The predictions with their client error, as :func:`prediction_row` reads them.
    questions : mapping of str to Question
        The route questions by id.
    graph_for : callable
        A question's city graph.
    evidence_for : callable, optional
        A question's map evidence (by default none: every line confusion is then ``wrong_line``).
    colour_threshold : float, optional
        The CIEDE2000 difference under which two lines' colours count as alike.
    layout_threshold : float, optional
        The distance in pixels under which a claimed line passes near a station (by default 3 label heights of
        the map, :func:`~vision.diagnose.layout_threshold_of`).

    Returns
    -------
    diagnoses : list of Diagnosis
    problems : list of str
        Rows skipped, and why (an unknown question id, a city without a graph).
    """
    diagnoses: list[Diagnosis] = []
    problems: list[str] = []
    graphs: dict[str, TransitGraph | str] = {}
    for prediction, error in rows:
        question = questions.get(prediction.id)
        if question is None:
            problems.append(f"prediction {prediction.id!r} ({prediction.model}) answers no question; skipped")
            continue
        graph = graphs.get(question.city)
        if graph is None:
            try:
                graph = graphs[question.city] = graph_for(question)
            except Exception as failure:  # any failure to build a graph is reported once and skips its city
                graph = graphs[question.city] = f"no graph for city {question.city!r} ({failure})"
                problems.append(graph)
        if isinstance(graph, str):
            problems.append(f"prediction {prediction.id!r} ({prediction.model}) skipped: {graph}")
            continue
        evidence = evidence_for(question) if evidence_for is not None else None
        try:
            diagnoses.append(
                diagnose(
                    prediction,
                    question,
                    graph,
                    evidence,
                    error=error,
                    colour_threshold=colour_threshold,
                    layout_threshold=layout_threshold,
                )
            )
        except ValueError as failure:
            problems.append(f"prediction {prediction.id!r} ({prediction.model}) skipped: {failure}")
    return diagnoses, problems


@dataclass(frozen=True, slots=True)
class OneNetwork:
    """``graph_for`` of a single network that a worker can receive: compiled once per process.

    Attributes
    ----------
    metro : MetroData
        The network's data.
    overlay : Overlay
        Its overlay.
    """

    metro: MetroData
    overlay: Overlay

    def __call__(self, question: Question) -> TransitGraph:
        key = (self.metro, self.overlay)
        if key not in _COMPILED:
            _COMPILED.clear()
            _COMPILED[key] = compile_graph(self.metro, self.overlay)
        return _COMPILED[key]


_COMPILED: dict[tuple[MetroData, Overlay], TransitGraph] = {}  # the network a worker compiled last


@dataclass(frozen=True, slots=True)
class DiagnoseJob:
    """A block of rows with their questions, their graphs and their map evidence (for a worker).

    Attributes
    ----------
    rows : tuple of (Prediction, str or None)
        The predictions and their client errors.
    questions : dict of str to Question
        Their questions by id.
    graph_for : callable
        A question's city graph (picklable: :class:`OneNetwork`, :class:`~graphkit.cities.CityGraphs`).
    evidence : MapEvidence, mapping or None
        The map evidence, as :func:`diagnose_files` takes it.
    colour_threshold : float
        As :func:`diagnose_predictions`.
    layout_threshold : float or None
        As :func:`diagnose_predictions`.
    """

    rows: tuple[tuple[Prediction, str | None], ...]
    questions: dict[str, Question]
    graph_for: Callable[[Question], TransitGraph]
    evidence: MapEvidence | Mapping[str, MapEvidence] | None
    colour_threshold: float
    layout_threshold: float | None


def diagnose_block(job: DiagnoseJob) -> tuple[list[Diagnosis], list[str], list[str]]:
    """The diagnoses of one block, the rows it skipped and the missing evidence it met (run by a worker).

    Parameters
    ----------
    job : DiagnoseJob
        The block.

    Returns
    -------
    diagnoses : list of Diagnosis
        In the rows' order.
    skipped : list of str
        The rows skipped, and why.
    missing : list of str
        One message per city without map evidence (or whose map could not be read).
    """
    missing: list[str] = []
    diagnoses, skipped = diagnose_predictions(
        job.rows,
        job.questions,
        job.graph_for,
        _evidence_for(job.evidence, missing),
        colour_threshold=job.colour_threshold,
        layout_threshold=job.layout_threshold,
    )
    return diagnoses, skipped, missing


def _diagnose_on(
    executor: Executor,
    rows: list[tuple[Prediction, str | None]],
    questions: Mapping[str, Question],
    template: DiagnoseJob,
    problems: list[str],
) -> tuple[list[Diagnosis], list[str]]:
    """Diagnose blocks of rows on ``executor``, in row order; what is reported once per city, once."""
    jobs = (
        replace(template, rows=block, questions={p.id: questions[p.id] for p, _ in block if p.id in questions})
        for start in range(0, len(rows), _ROWS_PER_JOB)
        for block in [tuple(rows[start : start + _ROWS_PER_JOB])]
    )
    diagnoses: list[Diagnosis] = []
    skipped: list[str] = []
    for block_diagnoses, block_skipped, missing in executor.map(diagnose_block, jobs):
        diagnoses.extend(block_diagnoses)
        # a city without a graph is reported once (then each row it skips); so is one without evidence
        skipped.extend(
            message for message in block_skipped if message.startswith("prediction ") or message not in skipped
        )
        problems.extend(message for message in missing if message not in problems)
    return diagnoses, skipped


def diagnose_files(
    questions_path: str | Path,
    predictions_path: str | Path,
    evidence: Evidence,
    graph_for: Callable[[Question], TransitGraph],
    *,
    out: str | Path,
    cities: Iterable[str] | None = None,
    colour_threshold: float = DEFAULT_COLOUR_THRESHOLD,
    layout_threshold: float | None = None,
    executor: Executor | None = None,
    draw: str | Path | None = None,
    images: Callable[[str], str | Path | None] | None = None,
    progress: bool = False,
) -> DiagnosisRun:
    """Diagnose a predictions file against its questions and map; write the labels and their summary.

    Parameters
    ----------
    questions_path, predictions_path : str or Path
        JSON Lines files (the toolkit's, or the public data set's for questions).
    evidence : MapEvidence, mapping of city to MapEvidence, callable, or None
        What the map shows (:func:`vision.evidence.read_truth`, or the OCR
        pipeline's). One ``MapEvidence`` with an empty ``city`` serves every
        question; a callable ``city -> MapEvidence | None`` is asked once per
        city (:func:`vision.analyse.folder_evidence`); questions of cities
        without evidence are diagnosed without it (and that is reported).
    graph_for : callable
        The graph of a question's city (for ``--city NAME``: ``lambda q: city_graph(NAME)``).
    out : str or Path
        The JSON Lines file to write; the summaries go beside it (:func:`summary_paths`).
    cities : iterable of str, optional
        Diagnose only questions of these cities (one map's city); predictions about other cities are
        left out of the labels and the summary, and reported in one line.
    colour_threshold, layout_threshold : float
        See :func:`vision.diagnose.diagnose`.
    executor : Executor, optional
        Diagnose blocks of rows on its workers (:mod:`graphkit.executors`); ``graph_for`` must then
        be picklable, like :class:`OneNetwork`. The outputs are the same byte for byte.
    draw : str or Path, optional
        A folder to draw every wrong answer in (:func:`vision.diagnosis_drawings.draw_diagnoses`), on the
        image ``images`` gives for its city (a path, or ``None``: drawn from the evidence alone).
    progress : bool
        Show a progress bar while drawing.

    Returns
    -------
    DiagnosisRun

    Raises
    ------
    InvalidRecord
        A file cannot be read at all (bad records are skipped and reported instead).
    """
    questions, rows, problems = _read_inputs(questions_path, predictions_path, cities)
    if executor is None:
        diagnoses, skipped = diagnose_predictions(
            rows,
            questions,
            graph_for,
            _evidence_for(evidence, problems),
            colour_threshold=colour_threshold,
            layout_threshold=layout_threshold,
        )
    else:
        template = DiagnoseJob((), {}, graph_for, evidence, colour_threshold, layout_threshold)
        diagnoses, skipped = _diagnose_on(executor, rows, questions, template, problems)
    problems.extend(f"{predictions_path}: {message}" for message in skipped)
    summary = summarize(diagnoses)
    summary_json, summary_md = summary_paths(out)
    drawings: list[Path] = []
    if draw is not None:
        rows_by_key = {(p.model, p.id, p.question, p.repeat): p.response for p, _ in rows}
        drawings = _draw(diagnoses, questions, rows_by_key, graph_for, evidence, images, draw, problems, progress)
        examples = _examples(drawings)
        summary["examples"] = {
            label: Path(os.path.relpath(path, summary_md.parent)).as_posix() for label, path in examples.items()
        }
    _write_outputs(out, diagnoses, summary, [path for _, path in drawings])
    return DiagnosisRun(tuple(diagnoses), tuple(problems), summary, (Path(out), summary_json, summary_md))


def _read_inputs(
    questions_path: str | Path, predictions_path: str | Path, cities: Iterable[str] | None
) -> tuple[Mapping[str, Question], list[tuple[Prediction, str | None]], list[str]]:
    """The questions, the prediction rows to diagnose (each model's first answer, of ``cities`` when given), and
    the problems met reading them."""
    questions, _, question_problems = load_questions(questions_path)  # repeated ids reported among the problems
    rows, row_problems = read_jsonl(predictions_path, prediction_row)
    problems = [str(problem) for problem in (*question_problems, *row_problems)]
    rows = _first_answers(rows, predictions_path, problems)
    if cities is not None:
        rows = _other_cities(rows, questions, cities, problems)
    return questions, rows, problems


def _write_outputs(out: str | Path, diagnoses: list[Diagnosis], summary: dict[str, Any], drawings: list[Path]) -> None:
    """Write the labels, the summaries beside them and, last, the manifest that makes them and the drawings one
    run."""
    summary_json, summary_md = summary_paths(out)
    manifest = begin_outputs(manifest_beside(out), "diagnose")
    write_jsonl(out, diagnoses)
    write_summary(summary_json, summary)
    write_text(summary_md, summary_markdown(summary))
    # last: the three files and the drawings are one run
    write_manifest(manifest, [out, summary_json, summary_md, *drawings], "diagnose")


def _draw(
    diagnoses: list[Diagnosis],
    questions: Mapping[str, Question],
    responses: Mapping[tuple[str, str, str, int], str],
    graph_for: Callable[[Question], TransitGraph],
    evidence: Evidence,
    images: Callable[[str], str | Path | None] | None,
    folder: str | Path,
    problems: list[str],
    progress: bool,
) -> list[tuple[Diagnosis, Path]]:
    """Draw every wrong answer in ``folder``; each diagnosis drawn, with its file."""
    import sys

    from tqdm import tqdm

    from vision.diagnosis_drawings import draw_diagnoses, drawing_name
    from vision.errors import EngineUnavailable
    from vision.fonts import find_font
    from vision.images import read_rgb

    def image_for(city: str) -> Any:
        from PIL import Image

        path = images(city) if images is not None else None
        if path is None:
            return None
        try:
            return Image.fromarray(read_rgb(path))
        except (OSError, ValueError, VisionError) as failure:
            problems.append(f"city {city!r}: map image not read for drawing ({failure}); drawn from the evidence")
            return None

    try:
        fonts = [find_font("cjk")]  # Chinese names in titles and notes
    except EngineUnavailable:
        fonts = []

    def failed(diagnosis: Diagnosis, failure: Exception) -> None:
        problems.append(f"{Path(folder) / drawing_name(diagnosis)}: not drawn ({failure})")

    unread: list[str] = []  # a city without evidence was reported when it was diagnosed
    try:
        drawn = draw_diagnoses(
            diagnoses,
            questions,
            responses,
            graph_for,
            _evidence_for(evidence, unread),
            image_for,
            folder,
            fonts=fonts,
            progress=lambda rows: tqdm(rows, unit="drawing", desc="drawing", file=sys.stderr, disable=not progress),
            on_failure=failed,
        )
    except OSError as failure:  # the folder itself: the diagnoses are still written
        problems.append(f"--draw {folder}: no drawing made ({failure})")
        return []
    return [(diagnosis, drawing.path) for diagnosis, drawing in drawn]


def _examples(drawings: list[tuple[Diagnosis, Path]]) -> dict[str, Path]:
    """The first drawing of each failure label, in label order."""
    first: dict[str, Path] = {}
    for diagnosis, path in drawings:
        first.setdefault(diagnosis.label, path)
    return {label: first[label] for label in LABELS if label in first}
