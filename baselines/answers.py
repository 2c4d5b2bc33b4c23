"""Writing answers: routes in the benchmark's answer format, and the predictions of a solver of typed questions."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from benchmarks.reasonmap.records import Kind, LongTemplate
from benchmarks.records import TypedPrediction
from graphkit.segments import Segment

__all__ = ["render_answer", "typed_predictions"]

P = TypeVar("P", bound=TypedPrediction)


def render_answer(segments: Sequence[Segment], kind: Kind, template: LongTemplate | None = None) -> str:
    """The answer text for a route, in the format the questions ask for.

    Parameters
    ----------
    segments : sequence of Segment
        The route's rides, in order.
    kind : {"short", "long"}
        The question kind: each ride gives its line, departure and arrival; a long answer adds its via stops.
    template : {"via_count", "via_stops"}, optional
        For ``long``: whether a ride gives its number of via stops or lists them.

    Returns
    -------
    str
        The answer, one ``Key: value`` line per field and a ``--`` line between rides.

    Examples
    --------
    >>> print(render_answer([Segment("Line 2", "A", "C", ("B",))], "long", "via_count"))
    Route Name: Line 2
    Departure Stop: A
    Arrival Stop: C
    Number of Via Stops: 1
    """
    blocks = []
    for segment in segments:
        lines = [
            f"Route Name: {segment.route_name}",
            f"Departure Stop: {segment.departure_stop}",
            f"Arrival Stop: {segment.arrival_stop}",
        ]
        if kind == "long" and template == "via_count":
            lines.append(f"Number of Via Stops: {len(segment.via_stops)}")
        elif kind == "long":
            lines.append(f"Via Stops: {', '.join(segment.via_stops) if segment.via_stops else 'None'}")
        blocks.append("\n".join(lines))
    return "\n--\n".join(blocks)


def typed_predictions(
    prediction: type[P], questions: Iterable[Any], model: str, answer: Callable[[Any], str]
) -> list[P]:
    """A solver's predictions for questions of several types (plus, probe): one per question, in order, each
    saying the type it answers.

    Parameters
    ----------
    prediction : type
        The task's :class:`~benchmarks.records.TypedPrediction`.
    questions : iterable
        The questions (each with an ``id`` and a ``type``).
    model : str
        The model name the predictions carry.
    answer : callable
        A question's response.

    Returns
    -------
    list
        ``prediction(question.id, model, answer(question), None, question.type)`` for each question.

    Examples
    --------
    >>> from types import SimpleNamespace as Question
    >>> from benchmarks.probe.questions import ProbePrediction
    >>> typed_predictions(ProbePrediction, [Question(id="p1", type="same_line")], "m", lambda q: "Answer: yes")
    [ProbePrediction(id='p1', model='m', response='Answer: yes', tokens=None, question='same_line', repeat=0)]
    """
    return [prediction(question.id, model, answer(question), None, question.type) for question in questions]
