"""Variant ``official``: the public evaluation code's verdict and map score, defects included.

Published ReasonMap tables were produced by the public evaluation script
(``main.py`` of fscdc/ReasonMap). This module reproduces what that script
computes for one answer, so that our numbers can be set beside published
ones. It was written from the script's behaviour, not from its code, and
shares nothing with the paper-faithful scorer (:mod:`~benchmarks.reasonmap.scoring`).

What the public code does, step by step
    *Answer text*: chosen by model path (:data:`~benchmarks.official_rules.OFFICIAL_MODELS`, rules in
    :data:`~benchmarks.official_rules.ANSWER_RULES`): after the last ``◁/think▷`` for the Kimi paths, after
    the last ``</think>`` for the Skywork paths (both stripped), the
    ``\\text{}`` parts of ``\\boxed{}`` one per line for QVQ, and the whole
    response for every other model of ``main.py`` and every model of
    ``main_closed_models.py``; a name the scripts do not know gets the
    closed-model script's rule (``whole``). *Sections*: the text split on
    every ``--``; a part counts when it holds ``Route Name:``, ``Departure
    Stop:`` and ``Arrival Stop:``. A field is the text between ``<Label>: ``
    (one space) and the next line break (``Wrong`` when there is none); the
    short answer's arrival is everything after its last ``Arrival Stop:``.
    The long answer's ``Via Stops`` / ``Number of Via Stops`` is everything
    after the label's last occurrence, or the whole section when the label is
    absent. Names are compared through the script's ``clean_string``: drop
    ``Metro``/``metro``, commas, ``*``, line breaks, any parenthesised text,
    blanks and hyphens; lower-case.

    *Correct* when the first departure and the last arrival are the
    question's stations, and every section's route name is a Metro Data key
    *as written* (``八通`` → ``Line 1``, ``大兴`` → ``Line 4``) whose stations hold
    its departure and arrival, each arrival being the next departure.

    *Map score*, per reference route in order, the last best kept on ties:
    nothing unless the endpoints are right; then 1, and per aligned section
    2 for the route name, 1 for the departure, 1 for the arrival. The
    reference's names get ``站`` (China) or `` Station`` appended when they
    lack it; the reference arrival is its *departure* when that carries the
    suffix (short answers in China, all answers elsewhere; when it does not,
    the suffix is appended to the arrival unconditionally). The route name
    compared is, in China, ``Line N`` for the reference name's first number
    (else the name without parentheses and ``地铁``); elsewhere it is derived
    from the *answer's* name (``Metro X``, ``Linea X``, or its first one or two
    letters or digits: ``Line 1`` becomes ``Line Li``), so it almost never matches.
    Long, count template: the first run of digits after the label (0 when
    none), 4 when equal to the reference's, 0 when the reference's is 0, else
    ``max(0, 4 - 4·error / reference)``; capped at 10. Long, via-stop template:
    the via text split on ASCII commas without stripping, read only when it
    contains ``站``; every entry found in the reference's suffixed list counts
    (duplicates too), capped at 10; the IoU pools the sections whose cleaned
    route names match, and is 0 when nothing was pooled; the part is
    ``(10·IoU + matched) / 2``. Outside China the reference gives no via list
    (the public code reads a list left over from an earlier question, or
    fails); here it is empty. Short: ``min(10, points) + 10`` when correct;
    long: ``min(20, points) + 20``.

Attribution
    Each behaviour of the public code that neither the paper nor the toolkit
    shares is a :data:`DEVIATIONS` entry that can be switched off (its off
    state is the obvious fix). :mod:`~benchmarks.reasonmap.attribution` switches
    them on one at a time, in the order of :data:`DEVIATIONS`, and charges each
    step's change to that deviation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from benchmarks.difficulty import get_weighting
from benchmarks.official_rules import DEFAULT_RULE, RuleChoice, official_answer_text, rule_for
from benchmarks.reasonmap.official_reading import OfficialSection, clean_name, official_sections
from benchmarks.reasonmap.records import KINDS, Prediction, Question, Verdict
from benchmarks.reasonmap.weighting import weight_of
from benchmarks.records import unmatched
from graphkit.graph import TransitGraph

__all__ = [
    "DEVIATIONS",
    "OfficialMetro",
    "OfficialScore",
    "OfficialSection",
    "clean_name",
    "official_metro",
    "official_sections",
    "score_official",
    "score_official_predictions",
]

Kind = Literal["short", "long"]

#: The public code's own behaviours, in the order they are charged (name: what it does).
DEVIATIONS: dict[str, str] = {
    "arrival_vs_departure": "the reference arrival is read from the reference departure",
    "route_name_from_answer": "outside China the reference line name is derived from the answer's name",
    "suffix_appended": "'站' / ' Station' appended to reference names lacking it",
    "line_key_exact": "a route name must be a Metro Data key as written",
    "via_only_china": "outside China the reference gives no via stops",
    "via_needs_zhan": "via stops read only when the text contains '站'",
    "via_ascii_comma": "via stops split on ASCII commas only, entries not stripped ('None' is a stop)",
    "duplicate_via_counted": "a via stop named twice is matched twice",
    "empty_iou_zero": "the via-stop IoU is 0 when the pooled via lists are all empty",
    "count_from_section": "a missing via count is the section's first number",
    "count_over_reference": "the via-count error is divided by the reference count",
}


_ALL = frozenset(DEVIATIONS)
_MARKS = ("（换乘站）", "（支线起始站）", " (Transfer Station)", " (Branch-starting Station)")
_DIGITS = re.compile(r"\d+")
_NUMBER = re.compile(r"(\d+)")
_PARENTHESES = re.compile(r"\(.*?\)")
_VIA_SEPARATORS = re.compile(r"[,，、]")
_NO_STOPS = ("none", "无", "n/a", "-")  # an empty list, as written (read so only when via_ascii_comma is off)
# the answer-derived line name outside China: the first of these that matches names "Line <group 1>"
_ANSWER_LINE = (
    re.compile(r"Metro\s+([A-Z0-9]{1,2})[-\s]?Line", re.IGNORECASE),
    re.compile(r"Metro\s+([A-Z0-9]{1,2})", re.IGNORECASE),
    re.compile(r"Linea\s+([A-Z0-9]{1,2})", re.IGNORECASE),
    re.compile(r"([A-Z0-9]{1,2})", re.IGNORECASE),
)


@dataclass(frozen=True, slots=True)
class OfficialMetro:
    """A city's Metro Data as the public code holds it: raw line keys to cleaned station names.

    Parameters
    ----------
    country, city : str
        Where.
    stations : mapping of str to frozenset of str
        Line key to its stations' cleaned names.
    resolve_line : callable
        A route name to its line key (``None`` when it names none).
    """

    country: str
    city: str
    stations: Mapping[str, frozenset[str]]
    resolve_line: Callable[[str], str | None]


def official_metro(graph: TransitGraph) -> OfficialMetro:
    """The public code's view of a graph's Metro Data (its four annotation marks removed, names cleaned).

    Parameters
    ----------
    graph : TransitGraph
        The city's graph.

    Returns
    -------
    OfficialMetro
        Its lines' cleaned station names, and the graph's line index to resolve route names.
    """
    stations = {}
    for line, names in graph.metro.to_dict().items():
        cleaned = set()
        for name in names:
            for mark in _MARKS:
                name = name.replace(mark, "")
            cleaned.add(clean_name(name))
        stations[line] = frozenset(cleaned)
    index = graph.line_index
    return OfficialMetro(graph.metro.country, graph.metro.city, stations, lambda name: index.lookup(name).name)


@dataclass(frozen=True, slots=True)
class OfficialScore:
    """The public code's judgement of one answer.

    Parameters
    ----------
    correct : int
        1 or 0.
    map_score : float
        The map score, the bonus of a correct answer included.
    components : dict of str to float or None
        The score's parts, the fields the public code stores.
    failure : str or None
        The first failing check (``invalid_format``, ``wrong_endpoints``, ``unknown_line``,
        ``station_not_on_line``, ``broken_chain``) of a wrong answer.
    sections : tuple of OfficialSection
        What the public code read.
    """

    correct: int
    map_score: float
    components: dict[str, float | None]
    failure: str | None
    sections: tuple[OfficialSection, ...]


def _failure(
    sections: tuple[OfficialSection, ...], question: Question, metro: OfficialMetro, on: frozenset
) -> str | None:
    if not sections:
        return "invalid_format"
    if not _endpoints_right(sections, question):
        return "wrong_endpoints"
    failure = None  # the public code checks every section; the first failure is the label
    for index, section in enumerate(sections):
        name = section.route_name
        if "八通" in name:
            name = "Line 1"
        if "大兴" in name:
            name = "Line 4"
        if name not in metro.stations and "line_key_exact" not in on:
            name = metro.resolve_line(name) or name
        stations = metro.stations.get(name)
        if stations is None:
            failure = failure or "unknown_line"
        elif clean_name(section.departure) not in stations or clean_name(section.arrival) not in stations:
            failure = failure or "station_not_on_line"
        elif index + 1 < len(sections) and clean_name(section.arrival) != clean_name(sections[index + 1].departure):
            failure = failure or "broken_chain"
    return failure


def _endpoints_right(sections: tuple[OfficialSection, ...], question: Question) -> bool:
    return clean_name(sections[0].departure) == clean_name(question.station_1) and clean_name(
        sections[-1].arrival
    ) == clean_name(question.station_2)


def _answer_line(name: str, city: str) -> str:
    """Outside China: the line name the public code derives from the answer's route name."""
    for pattern in _ANSWER_LINE:
        found = pattern.search(name)
        if found:
            letters = found.group(1)
            return "Line " + ("B" if letters == "B1" and city == "rome" else letters)
    return name  # no ASCII letter or digit: the script's remaining cases cannot apply


def _reference_line(name: str) -> str:
    """In China: ``Line N`` for the reference name's first number, else the name without ``(...)`` and ``地铁``."""
    found = _NUMBER.search(name)
    if found:
        return f"Line {int(found.group(1))}"
    return _PARENTHESES.sub("", name).replace("地铁", "")


def _via_list(text: str, on: frozenset) -> list[str]:
    if "via_needs_zhan" in on and "站" not in text:
        return []
    if "via_ascii_comma" in on:
        return text.split(",")
    entries = [entry.strip() for entry in _VIA_SEPARATORS.split(text)]
    return [entry for entry in entries if entry and entry.lower() not in _NO_STOPS]


def _count(section: OfficialSection, on: frozenset) -> int | None:
    if not section.labelled and "count_from_section" not in on:
        return None
    found = _DIGITS.search(section.extra or "")
    return int(found.group()) if found else 0


def _count_points(answer: int | None, expected: int, on: frozenset) -> float:
    if answer is None:
        return 0.0
    error = abs(answer - expected)
    if error == 0:
        return 4.0
    scale = expected if "count_over_reference" in on else max(answer, expected)
    return 0.0 if scale == 0 else max(0.0, 4 - error / scale * 4)


def _reference_points(
    sections: tuple[OfficialSection, ...],
    route: tuple,
    question: Question,
    metro: OfficialMetro,
    long: bool,
    counts: bool,
    on: frozenset,
) -> tuple[float, float, float, float, float]:
    """``(route_name, stops, num_via, via_stop, via_part)`` points of the sections against one reference route."""
    china = metro.country == "china"
    suffix, ending = ("站", "站") if china else (" Station", "Station")
    appended = "suffix_appended" in on
    # the reference arrival is its departure in short answers in China and in every answer elsewhere
    quirk = "arrival_vs_departure" in on and (not china or not long)

    def suffixed(name: str) -> str:
        return name + suffix if appended and not name.endswith(ending) else name

    route_points = stop_points = count_points = 0.0
    matched = 0
    pooled = False
    union: set[str] = set()
    common: set[str] = set()
    for section, segment in zip(sections, route):
        if china or "route_name_from_answer" not in on:
            line = _reference_line(segment.route_name)
        else:
            line = _answer_line(section.route_name, metro.city)
        departure = suffixed(segment.departure_stop)
        if quirk and segment.departure_stop.endswith(ending):
            arrival = segment.departure_stop
        elif quirk:
            arrival = segment.arrival_stop + suffix if appended else segment.arrival_stop
        else:
            arrival = suffixed(segment.arrival_stop)
        same_line = clean_name(line) == clean_name(section.route_name)
        if same_line:
            route_points += 2
        if clean_name(departure) == clean_name(section.departure):
            stop_points += 1
        if clean_name(arrival) == clean_name(section.arrival):
            stop_points += 1
        if not long:
            continue
        if counts:
            count_points += _count_points(_count(section, on), len(segment.via_stops), on)
            continue
        given = _via_list(section.extra or "", on)
        expected = [suffixed(stop) for stop in segment.via_stops] if china or "via_only_china" not in on else []
        found = [stop for stop in given if stop in expected]
        matched += len(found) if "duplicate_via_counted" in on else len(set(found))
        if same_line:
            pooled = True
            union.update(expected, given)
            common.update(set(expected) & set(given))
    if union:
        iou = len(common) / len(union)
    else:
        iou = 1.0 if pooled and "empty_iou_zero" not in on else 0.0  # off: the paper's 1 for pooled empty lists
    via_part = (iou * 10 + min(10, matched)) / 2 if long and not counts else 0.0
    count_part = min(10.0, count_points)
    return route_points, stop_points, count_part, via_part, via_part + count_part


def score_official(
    response: str,
    question: Question,
    metro: OfficialMetro,
    *,
    kind: Kind,
    deviations: Collection[str] = _ALL,
    rule: str = DEFAULT_RULE,
) -> OfficialScore:
    """The public code's correctness and map score of one response.

    Parameters
    ----------
    response : str
        The model's full response.
    question : Question
    metro : OfficialMetro
        The question's city (:func:`official_metro`).
    kind : {"short", "long"}
    deviations : collection of str
        The :data:`DEVIATIONS` switched on (all: the public code).
    rule : str
        How the answer text is taken from the response (:mod:`~benchmarks.official_rules`).

    Returns
    -------
    OfficialScore
        Correctness, map score and its parts, the first failing check and the sections read.

    Raises
    ------
    ValueError
        ``kind`` is not a kind, or a deviation or the rule is unknown.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap.generate import generate_questions
    >>> graph = city_graph("rome")
    >>> question = generate_questions(graph, seed=1, per_city=1)[0]
    >>> question.station_1, question.station_2, question.routes[0][0].route_name
    ('Colosseo Station', 'Marconi Station', 'Line B')
    >>> text = "Route Name: Line B\\nDeparture Stop: Colosseo Station\\nArrival Stop: Marconi Station\\n"
    >>> score = score_official(text, question, official_metro(graph), kind="short")
    >>> score.correct, score.map_score, score.components["route_name"]
    (1, 12.0, 0.0)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    on = frozenset(deviations)
    unknown = on - _ALL
    if unknown:
        raise ValueError(f"deviations must be among {list(DEVIATIONS)}, got {sorted(unknown)}")
    long = kind == "long"
    counts = "Number of Via Stops:" in question.question_long
    sections = official_sections(official_answer_text(response, rule=rule), kind=kind, counts=counts)
    failure = _failure(sections, question, metro, on)
    correct = 0 if failure else 1
    best = 0.0
    saved = (0.0, 0.0, 0.0, 0.0, 0.0)
    right_ends = bool(sections) and _endpoints_right(sections, question)
    for route in question.routes:
        points = (0.0, 0.0, 0.0, 0.0, 0.0)
        total = 0.0
        if right_ends:
            points = _reference_points(sections, route, question, metro, long, counts, on)
            total = 1 + points[0] + points[1] + points[4]
        total = min(20.0 if long else 10.0, total) + (correct * (20.0 if long else 10.0))
        if total >= best:  # ties: the later reference's parts are kept, as in the public code
            best, saved = total, (1.0 if right_ends else 0.0, *points[:4])
    dep_arr, route_points, stop_points, count_part, via_part = saved
    components: dict[str, float | None] = {
        "dep_arr": dep_arr,
        "route_name": route_points,
        "stops": stop_points,
        "num_via": count_part if long and counts else None,
        "via_stop": via_part if long and not counts else None,
        "bonus": correct * (20.0 if long else 10.0),
    }
    return OfficialScore(correct, best, components, failure, sections)


def score_official_predictions(
    questions: Mapping[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    *,
    weighting: str = "paper",
    rules: Mapping[str, RuleChoice] | None = None,
) -> tuple[list[Verdict], list[str]]:
    """Score a batch the public code's way; the same shape as :func:`~benchmarks.reasonmap.scoring.score_predictions`.

    Each answer is read with its model's rule: ``rules`` (a run's ``--official-model`` resolved,
    :func:`~benchmarks.official_rules.resolve_rules`), else the one its name chooses. A verdict's ``parsed``
    holds the sections the public code read, ``None`` when it read none.

    Parameters
    ----------
    questions, predictions, graph_for, weighting
        As :func:`~benchmarks.reasonmap.scoring.score_predictions` takes them.
    rules : mapping, optional
        Model to its rule (a run's ``--official-model``).

    Returns
    -------
    tuple of (list of Verdict, list of str)
        The verdicts in input order, and why the others were skipped (:func:`benchmarks.records.unmatched`).
    """
    from benchmarks.reasonmap.records import ParsedSection

    scheme = get_weighting(weighting)
    metros: dict[int, OfficialMetro] = {}
    verdicts: list[Verdict] = []
    skipped: list[str] = []
    chosen: dict[str, str] = {}
    for prediction in predictions:
        question = questions.get(prediction.id)
        if question is None:
            skipped.append(unmatched(prediction.id))
            continue
        graph = graph_for(question)
        metro = metros.get(id(graph))
        if metro is None:
            metro = metros[id(graph)] = official_metro(graph)
        rule = chosen.get(prediction.model)
        if rule is None:
            rule = chosen[prediction.model] = rule_for(prediction.model, rules or {})
        score = score_official(prediction.response, question, metro, kind=prediction.question, rule=rule)
        parsed = tuple(ParsedSection(s.route_name, s.departure, s.arrival) for s in score.sections) or None
        verdicts.append(
            Verdict(
                prediction.id,
                prediction.model,
                prediction.question,
                parsed,
                score.correct,
                score.map_score,
                score.components,
                weight_of(question, scheme.name),
                score.failure,
                "no section with Route Name, Departure Stop and Arrival Stop" if parsed is None else None,
                prediction.tokens,
            )
        )
    return verdicts, skipped
