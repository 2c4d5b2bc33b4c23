"""Solvers for perception probes: an oracle that works each answer out from the graph, and an echo floor.

``oracle`` recomputes every answer with the graph's own queries (never reading the record's reference): the
ceiling of the probe table (100% when generation and scoring agree) and a cross-check of the generator. It
writes lines as :func:`benchmarks.network_facts.line_label` does; a map's own spelling (``1号线`` for ``Line 1``)
names the same line to the scorer.
``echo`` answers in the right format with what the question names (its stations, its line), never looking at
the map: the floor of a model that only repeats the question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from benchmarks.network_facts import line_label, share_a_line, stations_between
from benchmarks.probe.questions import ProbePrediction, ProbeQuestion
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph

__all__ = ["PROBE_SOLVERS", "probe_oracle_answer", "probe_echo_answer", "solve_probe"]

#: The probe solvers ``reasonmap baseline`` runs.
PROBE_SOLVERS = ("oracle", "echo")


def probe_oracle_answer(question: ProbeQuestion, graph: TransitGraph) -> str:
    """The oracle's response to one probe, written as a model would (``Answer: P Station, Q Station``).

    Raises
    ------
    UnknownLine, KeyError
        The probe names a line or station the graph lacks.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.probe.questions import generate_probe_questions
    >>> graph = city_graph("rome")
    >>> question = generate_probe_questions(graph, per_type=1, types=["lines_at"])[0]
    >>> question.station, probe_oracle_answer(question, graph)
    ('San Giovanni Station', 'Answer: Line A, Line C')
    """
    if question.type == "lines_at":
        answer = ", ".join(line_label(line) for line in graph.lines_at(question.station))
    elif question.type == "follow":
        ride = graph.ride(question.line, question.station_1, question.station_2)
        via = [graph.display_name(station) for station in ride[1][0]] if ride else []
        answer = ", ".join((question.station_1, *via, question.station_2))
    elif question.type == "neighbours":
        answer = ", ".join(graph.display_name(s) for s in graph.line(question.line).adjacency[question.station])
    elif question.type == "same_line":
        answer = "yes" if share_a_line(graph, question.station_1, question.station_2) else "no"
    else:
        answer = str(stations_between(graph, question.line, question.station_1, question.station_2))
    return f"Answer: {answer}"


def probe_echo_answer(question: ProbeQuestion) -> str:
    """The echo floor's response: the question's own entities in the answer's format, the map never looked at.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.probe.questions import generate_probe_questions
    >>> question = generate_probe_questions(city_graph("rome"), per_type=1, types=["follow"])[0]
    >>> probe_echo_answer(question) == f"Answer: {question.station_1}, {question.station_2}"
    True
    """
    if question.type == "lines_at":
        answer = "Line 0"  # a made-up line: the format, nothing of the map
    elif question.type == "follow":
        answer = f"{question.station_1}, {question.station_2}"
    elif question.type == "neighbours":
        answer = question.station or ""
    elif question.type == "same_line":
        answer = "maybe"
    else:
        answer = "unknown"
    return f"Answer: {answer}"


def solve_probe(
    name: str,
    questions: Iterable[ProbeQuestion],
    graph_for: Callable[[ProbeQuestion], TransitGraph],
    *,
    seed: int = 0,
    settings: Mapping[str, Any] = MappingProxyType({}),
) -> list[ProbePrediction]:
    """The probe task's solver entry (its record's ``solve``): ``oracle`` or ``echo``; neither needs a seed nor
    settings.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`PROBE_SOLVERS`.
    """
    check_choice(name, PROBE_SOLVERS, what="probe solver")
    model = f"baseline:probe-{name}"
    if name == "echo":
        return [ProbePrediction(q.id, model, probe_echo_answer(q), None, q.type) for q in questions]
    return [ProbePrediction(q.id, model, probe_oracle_answer(q, graph_for(q)), None, q.type) for q in questions]
