"""Wrong routes told apart by the same model's perception probes on the same maps.

A route answer that is wrong (any label but ``correct`` and the ``other`` category: a format error, a
refusal or a failed call says nothing of the map) is attributed by the ``follow`` probes (:mod:`benchmarks.probe`)
the same model answered on the same city, line by line, for the lines the answer rides:

- ``line_following``: the model failed a ``follow`` probe of a line its answer rides: it cannot trace that
  line on this map;
- ``reasoning``: it passed every ``follow`` probe of every line its answer rides (each was probed): it reads
  those lines, so the route went wrong in the planning;
- ``untested``: a line it rides has no ``follow`` probe of this model (or the answer names no line of the city).

The diagnosis label (:mod:`vision.diagnose`) stays as it was; the attribution sits beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.probe.questions import ProbeQuestion
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import Prediction, Question
from benchmarks.records import Invalid
from graphkit.errors import TransitError
from graphkit.graph import TransitGraph
from vision.diagnose import Diagnosis

__all__ = [
    "ATTRIBUTIONS",
    "LineProbes",
    "follow_results",
    "attribute",
    "attribute_diagnoses",
    "probe_attribution_files",
]

#: What a wrong route is put down to, in the order reports list them.
ATTRIBUTIONS = ("line_following", "reasoning", "untested")


@dataclass(frozen=True, slots=True)
class LineProbes:
    """One model's ``follow`` probes of one line of one city: how many it answered exactly, of how many.

    Attributes
    ----------
    passed, asked : int
        The probes answered exactly, and all of them.
    """

    passed: int
    asked: int


def follow_results(
    scored: Iterable[Mapping[str, Any]], probes: Mapping[str, ProbeQuestion]
) -> dict[tuple[str, str, str], LineProbes]:
    """``(model, city, line) -> LineProbes`` from scored probe rows (``score --task probe --out``: ``id``,
    ``model``, ``correct``); rows of other probe types, or of no probe in ``probes``, are passed over.

    Parameters
    ----------
    scored : iterable of mapping
        The scored probe rows.
    probes : mapping of str to ProbeQuestion
        The probes by id.

    Returns
    -------
    dict
        ``(model, city, line)`` to the :class:`LineProbes` of that line: how many it answered exactly, of how
        many.

    Examples
    --------
    >>> probe = ProbeQuestion("p1", "follow", "italy", "rome", "...", ("A", "B", "C"), line="Line B",
    ...                       station_1="A", station_2="C", line_name="Line B")
    >>> follow_results([{"id": "p1", "model": "m", "correct": 0}], {"p1": probe})
    {('m', 'rome', 'Line B'): LineProbes(passed=0, asked=1)}
    """
    passed: Counter[tuple[str, str, str]] = Counter()
    asked: Counter[tuple[str, str, str]] = Counter()
    for row in scored:
        probe = probes.get(str(row.get("id")))
        if probe is None or probe.type != "follow" or probe.line is None:
            continue
        key = (str(row.get("model")), probe.city, probe.line)
        asked[key] += 1
        passed[key] += int(row.get("correct") == 1)
    return {key: LineProbes(passed[key], asked[key]) for key in asked}


def _ridden(prediction: Prediction, question: Question, graph: TransitGraph) -> tuple[str, ...]:
    """The lines of the city a route answer rides, in its order (names that are no line are left out)."""
    kind = prediction.question
    answer = parse_answer(prediction.response, kind=kind, template=question.long_template if kind == "long" else None)
    if isinstance(answer, Invalid):
        return ()
    found: list[str] = []
    for section in answer.sections:
        try:
            line = graph.resolve_line(section.route_name)
        except TransitError:  # no line of the city, or several (a bad name too)
            continue
        if line not in found:
            found.append(line)
    return tuple(found)


def attribute(
    diagnosis: Diagnosis, lines: tuple[str, ...], results: Mapping[tuple[str, str, str], LineProbes]
) -> str | None:
    """What a diagnosed route answer's failure is put down to (see the module notes); ``None`` for an answer
    that is right, or whose failure is not about the map (``other``).

    Parameters
    ----------
    diagnosis : Diagnosis
        A route answer's diagnosis.
    lines : tuple of str
        The lines the answer rides.
    results : mapping
        The same model's ``follow`` probes by ``(model, city, line)`` (:func:`follow_results`).

    Returns
    -------
    str or None
        One of :data:`ATTRIBUTIONS`.

    Examples
    --------
    >>> wrong = Diagnosis("q", "m", "short", "transfer_error", "reasoning", {}, "rome")
    >>> results = {("m", "rome", "Line A"): LineProbes(2, 2), ("m", "rome", "Line B"): LineProbes(1, 2)}
    >>> attribute(wrong, ("Line A",), results), attribute(wrong, ("Line A", "Line B"), results)
    ('reasoning', 'line_following')
    >>> attribute(wrong, ("Line C",), results)
    'untested'
    """
    if diagnosis.category not in ("grounding", "reasoning"):
        return None
    probed = [results.get((diagnosis.model, diagnosis.city, line)) for line in lines]
    if any(found is not None and found.passed < found.asked for found in probed):
        return "line_following"
    if probed and all(found is not None for found in probed):
        return "reasoning"
    return "untested"


def attribute_diagnoses(
    diagnoses: Iterable[Diagnosis],
    predictions: Mapping[tuple[str, str, str, int], Prediction],
    questions: Mapping[str, Question],
    graph_for: Callable[[Question], TransitGraph],
    results: Mapping[tuple[str, str, str], LineProbes],
) -> dict[str, Any]:
    """Each wrong route's attribution and the counts per model (JSON-ready).

    ``predictions`` are keyed ``(id, model, kind, repeat)``, as the diagnoses name them.

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The diagnoses of route answers; only wrong routes are attributed.
    predictions : mapping
        The predictions diagnosed, by ``(id, model, kind, repeat)``.
    questions : mapping of str to Question
        The route questions by id.
    graph_for : callable
        A question's city graph.
    results : mapping
        The ``follow`` probes' results, as :func:`follow_results` returns them.

    Returns
    -------
    dict
        ``models``: per model, ``wrong`` (routes attributed) and the count of each of :data:`ATTRIBUTIONS`;
        ``rows``: per wrong route, ``id``, ``model``, ``question``, ``repeat``, ``label``, ``attribution``,
        ``lines`` (ridden) and ``failed_lines`` (those with a failed ``follow`` probe).
    """
    rows: list[dict[str, Any]] = []
    counts: dict[str, Counter[str]] = {}
    for diagnosis in diagnoses:
        question = questions.get(diagnosis.id)
        prediction = predictions.get((diagnosis.id, diagnosis.model, diagnosis.question, diagnosis.repeat))
        if question is None or prediction is None or diagnosis.category not in ("grounding", "reasoning"):
            continue
        lines = _ridden(prediction, question, graph_for(question))
        found = attribute(diagnosis, lines, results)
        failed = [
            line
            for line in lines
            if (probes := results.get((diagnosis.model, diagnosis.city, line))) and probes.passed < probes.asked
        ]
        counts.setdefault(diagnosis.model, Counter())[found or ""] += 1
        rows.append(
            {
                "id": diagnosis.id,
                "model": diagnosis.model,
                "question": diagnosis.question,
                "repeat": diagnosis.repeat,
                "label": diagnosis.label,
                "attribution": found,
                "lines": list(lines),
                "failed_lines": failed,
            }
        )
    models = {
        model: {"wrong": sum(counter.values()), **{name: counter[name] for name in ATTRIBUTIONS}}
        for model, counter in sorted(counts.items())
    }
    return {"attributions": list(ATTRIBUTIONS), "models": models, "rows": rows}


def probe_attribution_files(
    diagnoses: Iterable[Diagnosis],
    questions_path: str | Path,
    predictions_path: str | Path,
    graph_for: Callable[[Question], TransitGraph],
    *,
    probe_questions: str | Path,
    probe_scored: str | Path,
    out: str | Path,
) -> tuple[Path, dict[str, Any], list[str]]:
    """:func:`attribute_diagnoses` over files: the route questions and predictions the diagnoses came from,
    the probes and their scored rows (``score --task probe --out``); written as ``<out stem>.probes.json``.

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The route answers' diagnoses.
    questions_path, predictions_path : str or Path
        The route questions and predictions diagnosed.
    graph_for : callable
        A question's city graph.
    probe_questions, probe_scored : str or Path
        The probes, and the same models' scored answers to them.
    out : str or Path
        The diagnoses' file (the attribution goes beside it).

    Returns
    -------
    path, attribution, problems
        The file written, what it holds, and the records skipped (bad rows of the probe files).

    Raises
    ------
    InvalidRecord
        A file cannot be read at all.
    """
    from benchmarks.jsonl import read_jsonl
    from benchmarks.probe.io import load_questions as load_probe_questions
    from benchmarks.reasonmap.loading import load_questions
    from benchmarks.summaries import write_summary
    from vision.diagnosis_report import prediction_row

    probes, probe_problems = load_probe_questions(probe_questions)
    scored, scored_problems = read_jsonl(probe_scored, _scored_row)
    questions, _, _ = load_questions(questions_path)
    rows, _ = read_jsonl(predictions_path, prediction_row)
    predictions: dict[tuple[str, str, str, int], Prediction] = {}
    for prediction, _error in rows:
        predictions.setdefault((prediction.id, prediction.model, prediction.question, prediction.repeat), prediction)
    found = attribute_diagnoses(diagnoses, predictions, questions, graph_for, follow_results(scored, probes))
    path = Path(out)
    path = path.with_name(path.stem + ".probes.json")
    write_summary(path, found)
    return path, found, [str(problem) for problem in (*probe_problems, *scored_problems)]


def _scored_row(record: Any, *, where: str = "row") -> Mapping[str, Any]:
    from benchmarks.errors import InvalidRecord

    if not isinstance(record, Mapping) or "id" not in record or "model" not in record or "correct" not in record:
        raise InvalidRecord(f"{where}: a scored probe row needs 'id', 'model' and 'correct'")
    return record
