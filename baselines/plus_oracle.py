"""The oracle for ReasonMap-Plus questions: answers worked out from the graph, never read from the record.

It is the ceiling of the plus table (100% when generation and scoring agree)
and a cross-check of the generator: each answer is computed again here from
the graph's own queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from baselines.answers import typed_predictions
from benchmarks.plus.records import OPTION_LETTERS, PlusPrediction, PlusQuestion
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph

__all__ = ["PLUS_ORACLE_MODEL", "plus_oracle_answer", "plus_oracle_predictions", "solve_plus"]

PLUS_ORACLE_MODEL = "baseline:plus-oracle"


def plus_oracle_answer(question: PlusQuestion, graph: TransitGraph) -> str:
    """The oracle's response to one plus question, written as a model would (``The answer is B.``).

    Parameters
    ----------
    question : PlusQuestion
        The question.
    graph : TransitGraph
        Its city's graph.

    Returns
    -------
    str
        The response.

    Raises
    ------
    UnknownLine, KeyError
        The question names a line or station the graph lacks.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.plus.questions import generate_plus_questions
    >>> graph = city_graph("rome")
    >>> question = generate_plus_questions(graph, per_type=1, types=["Counting2"])[0]
    >>> question.station, plus_oracle_answer(question, graph)
    ('San Giovanni Station', 'The answer is 2.')
    """
    if question.type == "Counting1":
        ride = graph.ride(question.line, question.station_1, question.station_2)
        via = ride[0] - 1 if ride else None
        options = question.options or ()
        answer = OPTION_LETTERS[options.index(via)] if via in options else via
    elif question.type == "Counting2":
        answer = len(graph.lines_at(question.station))
    elif question.type == "Counting3":
        answer = len(graph.line(question.line).stations)
    elif question.type == "TorF1":
        answer = "yes" if question.line in graph.lines_at(question.station) else "no"
    else:
        shared = set(graph.lines_at(question.station_1)) & set(graph.lines_at(question.station_2))
        answer = "yes" if shared else "no"
    return f"The answer is {answer}."


def plus_oracle_predictions(
    questions: Iterable[PlusQuestion],
    graph_for: Callable[[PlusQuestion], TransitGraph],
    *,
    model: str = PLUS_ORACLE_MODEL,
) -> list[PlusPrediction]:
    """The oracle's predictions for plus questions, in the predictions format (``question`` = the type).

    Parameters
    ----------
    questions : iterable of PlusQuestion
        The plus questions.
    graph_for : callable
        A question's city graph.
    model : str, optional
        The model name the predictions carry.

    Returns
    -------
    list of PlusPrediction
        One per question, in order, each the answer the graph gives.
    """
    return typed_predictions(PlusPrediction, questions, model, lambda q: plus_oracle_answer(q, graph_for(q)))


def solve_plus(
    name: str,
    questions: Iterable[PlusQuestion],
    graph_for: Callable[[PlusQuestion], TransitGraph],
    *,
    seed: int = 0,
    settings: Mapping[str, Any] = MappingProxyType({}),
) -> list[PlusPrediction]:
    """The plus task's solver entry (its record's ``solve``): its one solver, ``oracle``, needs neither a seed nor
    settings.

    Parameters
    ----------
    name : str
        The solver: ``oracle``.
    questions : iterable
        The task's questions.
    graph_for : callable
        A question's city graph.
    seed : int, optional
        Seeds the solver's draws.
    settings : mapping, optional
        The command line's solver settings.

    Returns
    -------
    list of PlusPrediction
        :func:`plus_oracle_predictions`.

    Raises
    ------
    ValueError
        ``name`` is not ``oracle``.
    """
    check_choice(name, ("oracle",), what="plus solver")
    return plus_oracle_predictions(questions, graph_for)
