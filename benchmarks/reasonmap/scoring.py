"""Scoring route answers: correctness (the paper's Algorithm 1) and map score (Algorithm 2).

Two pure stages, as everywhere in the toolkit: :func:`parse_answer` reads a
response (never raises), :func:`score_answer` judges what it read against a
question and its city's :class:`~graphkit.graph.TransitGraph`.

Names are matched with graphkit's rules, never by string surgery: a route
name resolves through ``graph.line_index`` (``Line 1`` = ``Route 1`` = ``1``
= ``1号线``), a station name through ``graph.station_index`` (case, spacing,
a ``Station``/``站`` suffix, pinyin for Chinese names). A name that fits
several stations is settled by its context (the section's line; for the first
departure and the last arrival, the question's own station when it is among
the candidates) and otherwise stays unresolved: distinct stations are never
merged (``Cathedral Pkwy (110 St)`` and ``Cathedral Pkwy(110 St)`` stay two).

Correctness
    At least one section; the first departure is ``station_1`` and the last
    arrival ``station_2``; every section's route name is a line of the city
    and its departure and arrival lie on that line; each section arrives where
    the next departs. Optimality is not required and via stops play no part.
    A wrong answer gets the label of the first failing check (:data:`FAILURES`).

Map score, per reference route (Algorithm 2 as printed)
    Everything sits inside the endpoint check: when the first departure is
    not ``station_1`` or the last arrival not ``station_2``, the map score is
    0. Otherwise ``dep_arr`` is 1; sections are paired with the reference's
    segments by position (up to the shorter); each pair earns 2 for the line
    (``route_name``) and 1 each for the departure and the arrival (``stops``),
    the arrival compared with the reference's arrival. Long answers add, for
    the question's template only, ``num_via`` (``min(10, sum of 4 - 4·|a -
    r| / max(a, r))`` over pairs, 4 when both counts are 0, 0 for a missing
    count) or ``via_stop`` (``(10·IoU + min(10, matched)) / 2``: the IoU pools
    the via stops of the pairs whose line is the reference segment's line, 1
    when those are all stated and both pools are empty, 0 when no pair's line
    matches; ``matched`` counts the answer's via stops found in their paired
    segment, in every pair). Short: ``min(10, points) + 10`` when correct
    (≤ 20); long: ``min(20, points) + 20`` when correct (≤ 40). The references
    are aggregated as the :data:`MAP_SCORE_RULES` entry says (the paper: the best).

An answer that states its route more than once (a draft, then a final
answer) is judged on its last statement: a new statement starts at a section,
after the first, that departs from ``station_1`` again.

Decisions where the paper is silent: the per-reference components kept are
those of the best reference (the first on ties). The public evaluation
code's own behaviour, defects included, is the ``official`` variant, in a
module of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from benchmarks.difficulty import get_weighting
from benchmarks.reasonmap.map_score_rules import (
    LONG_BONUS,
    LONG_CAP,
    MAP_SCORE_RULES,
    SHORT_BONUS,
    SHORT_CAP,
    VIA_CAP,
    MapScoreRule,
    get_map_score_rule,
    is_long,
    max_map_score,
)
from benchmarks.reasonmap.parsing import read_answer
from benchmarks.reasonmap.records import ParsedAnswer, ParsedSection, Prediction, Question, Verdict
from benchmarks.reasonmap.resolution import (
    OFF_LINE,
    GraphNames,
    PreparedQuestion,
    Reference,
    Unresolved,
    graph_names,
)
from benchmarks.reasonmap.weighting import weight_of
from benchmarks.records import Invalid, record_builder, unmatched
from graphkit.graph import TransitGraph

__all__ = [
    "COMPONENTS",
    "FAILURES",
    "MAP_SCORE_RULES",
    "MapScoreRule",
    "Score",
    "ReadAnswer",
    "max_map_score",
    "score_answer",
    "score_prediction",
    "score_predictions",
    "get_map_score_rule",
]

Kind = Literal["short", "long"]


class ReadAnswer(Protocol):
    """How a response is read before it is judged: ``(response, long, template) -> ParsedAnswer | Invalid``
    (:func:`~benchmarks.reasonmap.parsing.read_answer`, the toolkit's, by default). The extraction step of
    scoring, a seam as plus's variants have one: it never raises."""

    def __call__(self, response: str, long: bool, template: str | None, /) -> ParsedAnswer | Invalid: ...


#: Map-score components of a :class:`Score` (the paper's Table A3 columns); ``None`` where not applicable.
COMPONENTS: tuple[str, ...] = ("dep_arr", "route_name", "stops", "num_via", "via_stop", "bonus")

#: Failure labels of wrong answers, in the order the checks run.
FAILURES: dict[str, str] = {
    "invalid_format": "the response did not parse into route sections",
    "refusal": "the model declined to answer",
    "wrong_endpoints": "the first departure is not station_1 or the last arrival is not station_2",
    "unknown_line": "a route name is no line of the city (or fits several)",
    "unknown_station": "a departure or arrival names no station of the city",
    "ambiguous_station": "a departure or arrival fits several stations of the section's line",
    "station_not_on_line": "a departure or arrival is not on the section's line",
    "broken_chain": "a section does not depart where the previous one arrived",
}

_new_verdict = record_builder(Verdict)  # Verdict(*fields), made once per answer


@dataclass(frozen=True, slots=True)
class Score:
    """The judgement of one answer.

    Attributes
    ----------
    correct : int
        1 when the route is valid (Algorithm 1), else 0.
    map_score : float
        0 to 20 (short) or 0 to 40 (long).
    components : dict
        :data:`COMPONENTS` to points, for the best reference (the mean ones
        for a mean variant); ``num_via`` and ``via_stop`` are ``None`` where
        the question does not ask for them.
    failure : str or None
        The :data:`FAILURES` label of a wrong answer.
    invalid_reason : str or None
        Why the response did not parse.
    """

    correct: int
    map_score: float
    components: dict[str, float | None]
    failure: str | None = None
    invalid_reason: str | None = None


# -- scoring -----------------------------------------------------------------


def _empty_components(via: str | None) -> dict[str, float | None]:
    return {
        "dep_arr": 0.0,
        "route_name": 0.0,
        "stops": 0.0,
        "num_via": 0.0 if via == "via_count" else None,
        "via_stop": 0.0 if via == "via_stops" else None,
        "bonus": 0.0,
    }


def _failure(lines: list, departures: list, arrivals: list, on_line: dict) -> str | None:
    """The first failing check of Algorithm 1 after the endpoints (right here), in its order, or ``None``."""
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if line is None:
            return "unknown_line"
        departure, arrival = departures[index], arrivals[index]
        if isinstance(departure, Unresolved):
            return departure.failure
        if isinstance(arrival, Unresolved):
            return arrival.failure
        stations = on_line[line]
        if departure not in stations or arrival not in stations:
            return "station_not_on_line"
        if index < last and arrival != departures[index + 1]:
            return "broken_chain"
    return None


def _via_count_points(sections: tuple[ParsedSection, ...], reference: Reference, pairs: int) -> float:
    """``num_via``: up to 4 per pair, less by the count's error relative to the larger count; at most 10."""
    points = 0.0
    counts = reference.via_counts
    for index in range(pairs):
        answer = sections[index].num_via_stops
        if answer is None or answer < 0:  # missing (or impossible): no points for the pair
            continue
        expected = counts[index]
        if answer == expected:
            points += 4.0
        else:
            points += max(0.0, 4 - abs(answer - expected) / max(answer, expected) * 4)
    return min(VIA_CAP, points)


def _via_stop_points(
    names: GraphNames, sections: tuple[ParsedSection, ...], lines: list, reference: Reference, pairs: int
) -> float:
    """``via_stop``: the mean of 10 × the IoU of the line-matched pairs' via stops and the matches (at most 10)."""
    given: set = set()
    expected: set = set()
    matched = 0
    pooled = missing = False
    ref_lines, via_sets, contexts = reference.lines, reference.via_sets, reference.contexts
    identities = names.identities
    for index in range(pairs):
        stops = sections[index].via_stops
        line_matches = lines[index] == ref_lines[index]
        if line_matches:
            pooled = True
            expected |= via_sets[index]
        if stops is None:
            missing = missing or line_matches
            continue
        line = contexts[index]  # an ambiguous via stop is read on the reference's line
        resolved = identities(stops, line)
        matched += len(resolved & via_sets[index])
        if line_matches:
            given |= resolved
    union = given | expected
    if union:
        iou = len(given & expected) / len(union)
    else:  # exact empty lists are right; absent ones, or no right line at all, are not
        iou = 1.0 if pooled and not missing else 0.0
    return (iou * 10 + min(VIA_CAP, matched)) / 2


def score_answer(
    answer: ParsedAnswer | Invalid,
    question: Question,
    graph: TransitGraph,
    *,
    kind: Kind,
    variant: str = "paper",
) -> Score:
    """Judge a parsed answer: correctness, map score and its components.

    Parameters
    ----------
    answer : ParsedAnswer or Invalid
        What :func:`~benchmarks.reasonmap.parsing.parse_answer` read.
    question : Question
    graph : TransitGraph
        The question's city.
    kind : {"short", "long"}
        The question asked (the long one is scored with its template's via part).
    variant : str
        A :data:`MAP_SCORE_RULES` name.

    Returns
    -------
    Score

    Raises
    ------
    ValueError
        ``kind`` or ``variant`` is not one of the choices, or the graph is another city's.
    TypeError
        ``answer`` is neither a ``ParsedAnswer`` nor an ``Invalid``.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> from benchmarks.reasonmap.records import ParsedAnswer, ParsedSection
    >>> graph = city_graph("rome")
    >>> question = generate_questions(graph, seed=1, per_city=1)[0]
    >>> answer = ParsedAnswer(
    ...     tuple(ParsedSection(s.route_name, s.departure_stop, s.arrival_stop) for s in question.routes[0])
    ... )
    >>> score = score_answer(answer, question, graph, kind="short")
    >>> score.correct, score.failure, score.components["bonus"]
    (1, None, 10.0)
    """
    long = is_long(kind)
    chosen = MAP_SCORE_RULES.get(variant) if isinstance(variant, str) else None
    if chosen is None:
        get_map_score_rule(variant)  # raises, listing the choices
    if not isinstance(answer, (ParsedAnswer, Invalid)):
        raise TypeError(f"answer must be a ParsedAnswer or an Invalid, got {type(answer).__name__}")
    names = graph_names(graph)
    return Score(*_judge(answer, names, names.prepared(question), question.long_template, long, chosen)[:5])


def _last_statement(names: GraphNames, sections: tuple, lines: list, departures: list, station_1: str) -> int:
    """Where the answer's last statement of its route starts: the last later section departing from ``station_1``."""
    for index in range(len(sections) - 1, 0, -1):
        departure = departures[index]
        if departure == station_1:
            return index
        if departure.__class__ is Unresolved and departure is not OFF_LINE:
            # a homonym read without the question's station as its preference: ask again with it
            if names.station(sections[index].departure_stop, lines[index], station_1) == station_1:
                return index
    return 0


def _judge(
    answer: ParsedAnswer | Invalid,
    names: GraphNames,
    prepared: PreparedQuestion,
    template: str,
    long: bool,
    chosen: MapScoreRule,
) -> tuple[int, float, dict[str, float | None], str | None, str | None, tuple[ParsedSection, ...] | None]:
    """:func:`score_answer` on checked options, as the fields of a :class:`Score` and the sections judged."""
    via = template if long else None
    if isinstance(answer, Invalid):
        failure = "refusal" if answer.refusal else "invalid_format"
        return 0, 0.0, _empty_components(via), failure, answer.reason, None
    sections = answer.sections
    if not sections:
        return 0, 0.0, _empty_components(via), "invalid_format", "no route section", sections

    # the answer's names are resolved once; every reference is compared with these
    station_1, station_2 = prepared.station_1, prepared.station_2
    lines, departures, arrivals = names.sections(sections, station_1, station_2)
    if len(sections) > 1:
        start = _last_statement(names, sections, lines, departures, station_1)
        if start:
            sections = sections[start:]
            lines, departures, arrivals = names.sections(sections, station_1, station_2)
    endpoints = departures[0] == station_1 and arrivals[-1] == station_2
    failure = _failure(lines, departures, arrivals, names.on_line) if endpoints else "wrong_endpoints"
    if chosen.gated and not endpoints:
        return 0, 0.0, _empty_components(via), failure, None, sections
    dep_arr = 1.0 if chosen.endpoint_point and endpoints else 0.0
    cap = LONG_CAP if long else SHORT_CAP
    size = len(sections)
    mean = chosen.aggregate == "mean"
    best = None
    sums = [0.0, 0.0, 0.0, 0.0]  # capped total, route_name, stops, via part: for a mean
    for reference in prepared.references:
        pairs = size if size < reference.size else reference.size
        ref_lines, ref_departures, ref_arrivals = reference.lines, reference.departures, reference.arrivals
        route_points = stop_points = 0.0
        for index in range(pairs):
            if lines[index] == ref_lines[index]:
                route_points += 2.0
            if departures[index] == ref_departures[index]:
                stop_points += 1.0
            if arrivals[index] == ref_arrivals[index]:
                stop_points += 1.0
        if via is None:
            via_points = 0.0
        elif via == "via_count":
            via_points = _via_count_points(sections, reference, pairs)
        else:
            via_points = _via_stop_points(names, sections, lines, reference, pairs)
        total = dep_arr + route_points + stop_points + via_points
        if total > cap:
            total = cap
        if mean:
            sums[0] += total
            sums[1] += route_points
            sums[2] += stop_points
            sums[3] += via_points
        elif best is None or total > best[0]:
            best = (total, route_points, stop_points, via_points)
    if mean:
        count = len(prepared.references)
        best = (sums[0] / count, sums[1] / count, sums[2] / count, sums[3] / count)
    total, route_points, stop_points, via_points = best
    bonus = 0.0 if failure is not None else (LONG_BONUS if long else SHORT_BONUS)
    components = {
        "dep_arr": dep_arr,
        "route_name": route_points,
        "stops": stop_points,
        "num_via": via_points if via == "via_count" else None,
        "via_stop": via_points if via == "via_stops" else None,
        "bonus": bonus,
    }
    return (0 if failure else 1), total + bonus, components, failure, None, sections


# -- predictions -------------------------------------------------------------


def _verdict(
    prediction: Prediction,
    names: GraphNames,
    prepared: PreparedQuestion,
    template: str,
    weight: float,
    chosen: MapScoreRule,
    read: ReadAnswer,
) -> Verdict:
    kind = prediction.question
    long = kind == "long"
    answer = read(prediction.response, long, template if long else None)
    correct, map_score, components, failure, invalid_reason, judged = _judge(
        answer, names, prepared, template, long, chosen
    )
    return _new_verdict(
        prediction.id,
        prediction.model,
        kind,
        judged,
        correct,
        map_score,
        components,
        weight,
        failure,
        invalid_reason,
        prediction.tokens,
        0,  # the repeat: the task's scorer sets it on the verdicts of repeated answers
    )


def score_prediction(
    prediction: Prediction,
    question: Question,
    graph: TransitGraph,
    *,
    weighting: str = "paper",
    variant: str = "paper",
    read: ReadAnswer = read_answer,
) -> Verdict:
    """Parse and score one prediction; the verdict carries the question's weight.

    Parameters
    ----------
    prediction : Prediction
        The answer.
    question : Question
        The question with the prediction's id.
    graph : TransitGraph
        Its city's graph.
    weighting : str, optional
        The weighting scheme whose weight the verdict carries.
    variant : str, optional
        The scoring variant.
    read : ReadAnswer, optional
        How the response is read (the toolkit's reading by default).

    Returns
    -------
    Verdict
        Correctness, map score and its components, the weight, the tokens and the repeat.

    Raises
    ------
    ValueError
        The prediction answers another question, or ``weighting`` or
        ``variant`` is not one of the choices.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> from benchmarks.reasonmap.records import Prediction
    >>> graph = city_graph("rome")
    >>> question = generate_questions(graph, seed=1, per_city=1)[0]
    >>> question.station_1, question.station_2, question.routes[0][0].route_name
    ('Colosseo Station', 'Marconi Station', 'Line B')
    >>> text = "**Route Name:** Metro B\\nDeparture Stop: colosseo\\nArrival Stop: Marconi Station."
    >>> verdict = score_prediction(Prediction(question.id, "m", "short", text), question, graph)
    >>> verdict.correct, verdict.map_score, verdict.weight
    (1, 15.0, 1.0)
    """
    if prediction.id != question.id:
        raise ValueError(f"prediction {prediction.id!r} answers another question than {question.id!r}")
    names = graph_names(graph)
    prepared = names.prepared(question)
    weight = weight_of(question, weighting)
    return _verdict(prediction, names, prepared, question.long_template, weight, get_map_score_rule(variant), read)


def score_predictions(
    questions: Mapping[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    *,
    weighting: str = "paper",
    variant: str = "paper",
    read: ReadAnswer = read_answer,
) -> tuple[list[Verdict], list[str]]:
    """Score a batch of predictions.

    Parameters
    ----------
    questions : mapping
        Question id to question.
    predictions : iterable of Prediction
    graph_for : callable
        The graph of a question's city (called once per question).
    weighting, variant : str
        A weighting scheme and a map-score variant, by name.
    read : ReadAnswer, optional
        How each response is read (the toolkit's reading by default).

    Returns
    -------
    verdicts : list of Verdict
        One per prediction that matches a question, in input order.
    skipped : list of str
        Why the others were skipped, one message each (:func:`benchmarks.records.unmatched`: no question
        has their id); nothing else is lost. Every task's batch scorer returns the same.

    Raises
    ------
    ValueError
        ``weighting`` or ``variant`` is not one of the choices.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> questions = {q.id: q for q in generate_questions(city_graph("rome"), seed=1, per_city=2)}
    >>> predictions = [Prediction(id, "m", "short", "Sorry, I cannot read it.") for id in [*questions, "x"]]
    >>> verdicts, skipped = score_predictions(questions, predictions, lambda q: city_graph(q.city))
    >>> [v.failure for v in verdicts], skipped
    (['refusal', 'refusal'], ["prediction 'x' matches no question"])
    """
    scheme = get_weighting(weighting)
    chosen = get_map_score_rule(variant)
    # what a question's answers share, found once: its graph's names, its resolved references, its weight
    shared: dict[str, tuple[GraphNames, PreparedQuestion, str, float]] = {}
    verdicts: list[Verdict] = []
    skipped: list[str] = []
    for prediction in predictions:
        entry = shared.get(prediction.id)
        if entry is None:
            question = questions.get(prediction.id)
            if question is None:
                skipped.append(unmatched(prediction.id))
                continue
            names = graph_names(graph_for(question))
            entry = shared[prediction.id] = (
                names,
                names.prepared(question),
                question.long_template,
                weight_of(question, scheme.name),
            )
        verdicts.append(_verdict(prediction, *entry, chosen, read))
    return verdicts, skipped
