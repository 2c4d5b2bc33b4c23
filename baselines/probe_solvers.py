"""Solvers for perception probes: an oracle that works each answer out from the graph, and an echo floor.

``oracle`` recomputes every answer with the graph's own queries (never reading the record's reference): the
ceiling of the probe table (100% when generation and scoring agree) and a cross-check of the generator. It
writes lines as :func:`benchmarks.network_facts.line_label` does; a map's own spelling (``1号线`` for ``Line 1``)
names the same line to the scorer.
``echo`` answers in the right format with what the question names (its stations, its line), never looking at
the map: the floor of a model that only repeats the question.
``noisy`` is a simulated perceptual model: the oracle, except that it misreads a probe with a probability that
grows as the map's line colours get closer (:func:`misread_probability` of the realised ``colour_distance`` in
the probe's ``knobs``), then answering with a confusable line, a skipped or extra station, the other yes/no or
a count one off.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from baselines.answers import typed_predictions
from benchmarks.network_facts import line_label, share_a_line, stations_between
from benchmarks.probe.questions import ProbePrediction, ProbeQuestion
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph

__all__ = [
    "PROBE_SOLVERS",
    "probe_oracle_answer",
    "probe_echo_answer",
    "misread_probability",
    "probe_noisy_answer",
    "solve_probe",
]

#: The probe solvers ``reasonmap baseline`` runs.
PROBE_SOLVERS = ("oracle", "echo", "noisy")
#: The noisy solver misreads half the probes at this CIEDE2000 distance between the closest line colours ...
MISREAD_MIDPOINT = 8.0
#: ... and its log-odds of a misread fall by this much per unit of distance.
MISREAD_SLOPE = 0.4


def probe_oracle_answer(question: ProbeQuestion, graph: TransitGraph) -> str:
    """The oracle's response to one probe, written as a model would (``Answer: P Station, Q Station``).

    Parameters
    ----------
    question : ProbeQuestion
        The probe.
    graph : TransitGraph
        Its city's graph.

    Returns
    -------
    str
        The response.

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

    Parameters
    ----------
    question : ProbeQuestion
        The probe.

    Returns
    -------
    str
        The response.

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


def misread_probability(knobs: Mapping[str, Any]) -> float:
    """The noisy solver's chance of misreading a probe on a map whose closest line colours are
    ``knobs["colour_distance"]`` apart: ``1 / (1 + exp(MISREAD_SLOPE * (distance - MISREAD_MIDPOINT)))``
    (about 92% at 2, 50% at 8, 4% at 16); 0 on a map with no measured distance (today's palette).

    Parameters
    ----------
    knobs : mapping
        The rendering knobs a probe records (its map's).

    Returns
    -------
    float
        The probability, in [0, 1].

    Examples
    --------
    >>> round(misread_probability({"colour_distance": 8.0}), 2), misread_probability({})
    (0.5, 0.0)
    """
    distance = knobs.get("colour_distance")
    if not isinstance(distance, int | float):
        return 0.0
    return 1.0 / (1.0 + math.exp(MISREAD_SLOPE * (float(distance) - MISREAD_MIDPOINT)))


def probe_noisy_answer(question: ProbeQuestion, graph: TransitGraph, rng: random.Random) -> str:
    """The simulated perceptual model's response: the oracle's, misread with :func:`misread_probability`.

    A misread answer is always wrong: ``lines_at`` adds a line the station lacks, ``follow`` skips a station
    between the ends, ``neighbours`` adds the station itself, ``same_line`` says the other answer and
    ``count_between`` counts one more.

    Parameters
    ----------
    question : ProbeQuestion
        The probe.
    graph : TransitGraph
        Its city's graph.
    rng : random.Random
        The probe's draw.

    Returns
    -------
    str
        The response.
    """
    right = probe_oracle_answer(question, graph)
    if rng.random() >= misread_probability(dict(question.knobs)):
        return right
    names = right.removeprefix("Answer: ").split(", ")
    if question.type == "lines_at":
        served = set(graph.lines_at(question.station))
        others = sorted(line_label(line) for line in graph.lines if line not in served)
        answer = ", ".join([*names, rng.choice(others) if others else "Line 0"])
    elif question.type == "follow":
        answer = ", ".join(names[:1] + names[2:]) if len(names) > 2 else f"{names[0]}, {question.station}, {names[-1]}"
    elif question.type == "neighbours":
        answer = ", ".join([*names, str(question.station)])
    elif question.type == "same_line":
        answer = "no" if names == ["yes"] else "yes"
    else:
        answer = str(int(names[0]) + 1)
    return f"Answer: {answer}"


def solve_probe(
    name: str,
    questions: Iterable[ProbeQuestion],
    graph_for: Callable[[ProbeQuestion], TransitGraph],
    *,
    seed: int = 0,
    settings: Mapping[str, Any] = MappingProxyType({}),
) -> list[ProbePrediction]:
    """The probe task's solver entry (its record's ``solve``): ``oracle``, ``echo`` or ``noisy`` (seeded: each
    probe's draw keyed by ``seed`` and its id); none takes settings.

    Parameters
    ----------
    name : {"oracle", "echo", "noisy"}
        The solver.
    questions : iterable of ProbeQuestion
        The probes.
    graph_for : callable
        A probe's city graph.
    seed : int, optional
        Seeds the ``noisy`` solver's draws.
    settings : mapping, optional
        The command line's solver settings (none applies).

    Returns
    -------
    list of ProbePrediction
        One per probe, in order, by the model ``baseline:probe-<name>``.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`PROBE_SOLVERS`.
    """
    check_choice(name, PROBE_SOLVERS, what="probe solver")
    model = f"baseline:probe-{name}"
    if name == "echo":
        return typed_predictions(ProbePrediction, questions, model, probe_echo_answer)
    if name == "noisy":

        def noisy(question: ProbeQuestion) -> str:  # each probe's draw keyed by the seed and its id
            return probe_noisy_answer(question, graph_for(question), random.Random(f"{seed}:{question.id}"))

        return typed_predictions(ProbePrediction, questions, model, noisy)
    return typed_predictions(ProbePrediction, questions, model, lambda q: probe_oracle_answer(q, graph_for(q)))
