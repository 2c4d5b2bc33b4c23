"""Why an answer went wrong: one failure label per prediction, with the map evidence behind it.

Each prediction gets exactly one :data:`LABELS` entry. Correctness is the
scorer's (the paper's Algorithm 1); the diagnosis then asks what the map
evidence (:class:`~vision.evidence.MapEvidence`: station positions, OCR
readability, line colours and paths) says about the first thing that broke.

Labels and categories
    ``grounding``: the answer misreads the map: ``hallucinated_station``,
    ``misread_station``, ``line_confusion_colour``, ``line_confusion_layout``,
    ``wrong_line``. ``reasoning``: the map was read right but the plan is
    wrong: ``transfer_error``, ``suboptimal``, ``via_stop_error``. ``other``:
    ``format_error``, ``refusal``, ``endpoint_error``. And ``correct``.

Precedence (the first that applies wins; the others are listed in the
evidence's ``also``)
    ``endpoint_error`` > ``refusal`` > ``format_error`` >
    ``hallucinated_station`` > ``misread_station`` >
    ``line_confusion_colour`` > ``line_confusion_layout`` > ``wrong_line`` >
    ``transfer_error`` > ``suboptimal`` > ``via_stop_error`` > ``correct``.
    Perception comes before planning: a plan built on a misread map is
    explained by the misreading.

How each label is decided
    ``endpoint_error``: the prediction row has a non-empty ``error`` (the
    model client's call failed); ``refusal`` and ``format_error``: the parser
    found no route (a refusal when it says so).

    Stations: a departure or arrival that names no station of the city is
    ``misread_station`` when it is a near miss of a real name (at most 2
    edits and at most half the name, on the folded name or graphkit's match
    keys: case, accents, ``Station``/``站`` and pinyin do not count), else
    ``hallucinated_station``. A real station in a place where it breaks the
    route (a wrong first departure or last arrival, a broken chain, a ride no
    line makes) is ``misread_station`` when the map evidence cannot read
    that station's label or the label of the station the references have
    there (``found`` is ``False``), or when it is a near miss of the asked
    station.

    Lines: a section whose line does not serve both its stations, while
    another line does, is a line confusion: ``line_confusion_colour`` when
    the claimed line's colour is within ``colour_threshold`` CIEDE2000 of a
    line that serves the section; else ``line_confusion_layout`` when the
    claimed line's drawn path passes within ``layout_threshold`` pixels of
    the departure or the arrival (default: 3 label heights); else
    ``wrong_line``. ``wrong_line`` (the label when neither likeness explains
    the confusion) also takes route names that are no line of the city. It counts as grounding:
    the answer states a fact of the map (this line serves these stations)
    that the map contradicts, though the evidence does not say how it was
    misread. Without map evidence every line confusion is ``wrong_line``.

    Planning: ``transfer_error`` when the sections do not chain, when no line
    at all serves a section's two stations (a transfer made at a station the
    lines do not share, or a missing transfer), or when the route does not
    start or end at the asked stations for no reason the evidence shows.

    Valid routes (the scorer's ``correct``): ``suboptimal`` when the route
    has more transfers than the references (consecutive sections on one line
    are one ride), or as many and more stops than every reference;
    ``via_stop_error`` (long answers only) when a section's via count or
    via-stop set is missing or matches neither the aligned section of any
    reference nor the ride the section names (so a valid route missing from
    the references is not penalised); else ``correct``.

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.reasonmap.generate import generate_questions
>>> from benchmarks.reasonmap.records import Prediction
>>> graph = city_graph("rome")
>>> question = generate_questions(graph, seed=1, per_city=1)[0]
>>> question.station_1, question.station_2, question.routes[0][0].route_name
('Colosseo Station', 'Marconi Station', 'Line B')
>>> def ask(text):
...     return diagnose(Prediction(question.id, "m", "short", text), question, graph)
>>> ask("Route Name: Line B\\nDeparture Stop: Colosseo\\nArrival Stop: Marconi").label
'correct'
>>> found = ask("Route Name: Line B\\nDeparture Stop: Colosseo\\nArrival Stop: Marcomi")
>>> found.label, found.category, found.evidence["near_miss"]
('misread_station', 'grounding', 'Marconi Station')
>>> ask("Route Name: Line B\\nDeparture Stop: Colosseo\\nArrival Stop: Gloriana Towers").label
'hallucinated_station'
>>> ask("I am sorry, I cannot read this map.").label
'refusal'
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import ParsedSection, Prediction, Question
from benchmarks.reasonmap.resolution import GraphNames, Unresolved, graph_names
from benchmarks.reasonmap.scoring import score_answer
from benchmarks.records import Invalid
from graphkit.graph import TransitGraph
from vision.evidence import MapEvidence
from vision.station_names import name_forms, near_miss, near_miss_distance

__all__ = [
    "LABELS",
    "CATEGORIES",
    "PRECEDENCE",
    "Diagnosis",
    "diagnose",
    "layout_threshold_of",
    "near_miss",
]

Category = Literal["correct", "grounding", "reasoning", "other"]

#: Label -> (category, description), in order of precedence (the first that applies wins).
LABELS: dict[str, tuple[Category, str]] = {
    "endpoint_error": ("other", "the model client's call failed (the prediction row carries an error)"),
    "refusal": ("other", "the model declined to answer"),
    "format_error": ("other", "the response did not parse into route sections"),
    "hallucinated_station": ("grounding", "a station name that fits no station of the city, nor nearly"),
    "misread_station": ("grounding", "a near miss of a real name, or a station whose label cannot be read"),
    "line_confusion_colour": ("grounding", "a line coloured like the line that serves the section"),
    "line_confusion_layout": ("grounding", "a line drawn at or near the section's station, not serving the section"),
    "wrong_line": ("grounding", "a line that does not serve the section, with no colour or layout likeness"),
    "transfer_error": ("reasoning", "sections that do not chain, or a ride no line makes"),
    "suboptimal": ("reasoning", "a valid route with more transfers (or stops) than the references"),
    "via_stop_error": ("reasoning", "a valid, optimal long answer whose via stops are wrong or missing"),
    "correct": ("correct", "a valid, optimal route (with the right via stops for long answers)"),
}
PRECEDENCE: tuple[str, ...] = tuple(LABELS)
CATEGORIES: tuple[Category, ...] = ("correct", "grounding", "reasoning", "other")
_RANK = {label: rank for rank, label in enumerate(PRECEDENCE)}

DEFAULT_COLOUR_THRESHOLD = 10.0
DEFAULT_LABEL_HEIGHTS = 3.0
_DIAGONAL_SHARE = 0.02  # the layout threshold when the evidence has no label boxes
_ERROR_CHARS = 300


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """The failure label of one prediction and the evidence for it.

    Attributes
    ----------
    id, model : str
        The prediction's question id and model.
    question : {"short", "long"}
        The question kind answered.
    label : str
        A :data:`LABELS` key.
    category : {"correct", "grounding", "reasoning", "other"}
        The label's category.
    evidence : dict
        What decided the label (JSON-ready): ``section`` (0-based) and
        ``field`` where one is at fault, ``claimed_station`` / ``near_miss`` /
        ``edit_distance`` / ``unreadable``, ``claimed_line`` / ``right_line`` /
        ``station`` (the departure; for a layout confusion the end nearer the
        claimed line) / ``colour_distance`` / ``pixel_distance`` / ``threshold``,
        ``transfers`` / ``stops`` against ``reference_*``, ``scorer_failure``
        and ``also`` (the other labels that applied, by precedence).
    city : str
        The question's city.
    repeat : int
        Which of several answers to the request it labels (0-based; written only when not 0).
    """

    id: str
    model: str
    question: str
    label: str
    category: str
    evidence: dict[str, Any] = field(default_factory=dict)
    city: str = ""
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        record = {
            "id": self.id,
            "model": self.model,
            "question": self.question,
            "city": self.city,
            "label": self.label,
            "category": self.category,
            "evidence": self.evidence,
        }
        if self.repeat:  # absent means 0: single-answer diagnoses keep their bytes
            record["repeat"] = self.repeat
        return record


# -- thresholds --------------------------------------------------------

_THRESHOLDS: dict[int, tuple[MapEvidence, float | None]] = {}
_KEPT = 64


def layout_threshold_of(evidence: MapEvidence | None, *, label_heights: float = DEFAULT_LABEL_HEIGHTS) -> float | None:
    """The default layout threshold of a map, in pixels: ``label_heights`` × the median label height.

    Without label boxes, 2% of the diagonal of the stations' extent; ``None``
    without station positions.

    Parameters
    ----------
    evidence : MapEvidence or None
        The map's evidence.
    label_heights : float, optional
        How many median label heights.

    Returns
    -------
    float or None
        The threshold in pixels.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 0, "label_box": [2, -6, 30, 6]}}, "lines": {}}
    >>> layout_threshold_of(MapEvidence.from_truth(truth))
    36.0
    """
    if evidence is None:
        return None
    heights = [box[3] - box[1] for found in evidence.stations.values() if (box := found.box) and box[3] > box[1]]
    if heights:
        return round(label_heights * float(statistics.median(heights)), 2)
    points = [found.point for found in evidence.stations.values() if found.point is not None]
    if len(points) < 2:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return round(_DIAGONAL_SHARE * ((max(xs) - min(xs)) ** 2 + (max(ys) - min(ys)) ** 2) ** 0.5, 2)


def _default_layout_threshold(evidence: MapEvidence) -> float | None:
    entry = _THRESHOLDS.get(id(evidence))
    if entry is None or entry[0] is not evidence:
        if len(_THRESHOLDS) >= _KEPT:
            del _THRESHOLDS[next(iter(_THRESHOLDS))]
        entry = _THRESHOLDS[id(evidence)] = (evidence, layout_threshold_of(evidence))
    return entry[1]


# -- one prediction ----------------------------------------------------------


def diagnose(
    prediction: Prediction,
    question: Question,
    graph: TransitGraph,
    evidence: MapEvidence | None = None,
    *,
    error: str | None = None,
    colour_threshold: float = DEFAULT_COLOUR_THRESHOLD,
    layout_threshold: float | None = None,
) -> Diagnosis:
    """Label one prediction (see the module docstring for the rules).

    Parameters
    ----------
    prediction : Prediction
    question : Question
        The question it answers.
    graph : TransitGraph
        The question's city.
    evidence : MapEvidence, optional
        What the map shows; without it, line confusions are ``wrong_line`` and
        only near misses make ``misread_station``.
    error : str, optional
        The prediction row's ``error`` field (a failed model call).
    colour_threshold : float
        CIEDE2000 below which two lines count as alike (default 10).
    layout_threshold : float, optional
        Pixels within which a line counts as drawn near a station (default:
        :func:`layout_threshold_of` the evidence).

    Returns
    -------
    Diagnosis

    Raises
    ------
    ValueError
        The prediction answers another question, or the graph is another city's.
    """
    if prediction.id != question.id:
        raise ValueError(f"prediction {prediction.id!r} answers another question than {question.id!r}")
    if layout_threshold is None and evidence is not None:
        layout_threshold = _default_layout_threshold(evidence)
    label, found = _label(prediction, question, graph, evidence, error, colour_threshold, layout_threshold)
    return Diagnosis(
        prediction.id,
        prediction.model,
        prediction.question,
        label,
        LABELS[label][0],
        found,
        question.city,
        prediction.repeat,
    )


def _label(
    prediction: Prediction,
    question: Question,
    graph: TransitGraph,
    evidence: MapEvidence | None,
    error: str | None,
    colour_threshold: float,
    layout_threshold: float | None,
) -> tuple[str, dict[str, Any]]:
    if isinstance(error, str) and error.strip():
        return "endpoint_error", {"error": error.strip()[:_ERROR_CHARS]}
    kind = prediction.question
    template = question.long_template if kind == "long" else None
    answer = parse_answer(prediction.response, kind=kind, template=template)
    if isinstance(answer, Invalid):
        return ("refusal" if answer.refusal else "format_error"), {"reason": answer.reason}
    if not answer.sections:
        return "format_error", {"reason": "no route section"}
    score = score_answer(answer, question, graph, kind=kind)
    names = graph_names(graph)
    check = _Check(names, question, answer.sections, evidence, colour_threshold, layout_threshold)
    if score.correct:
        check.valid_route(kind == "long", template)
    else:
        check.wrong_route()
    if not check.findings:
        if score.correct:
            return "correct", {}
        # a failure none of the checks explains: the scorer's own label, mapped
        check.add("wrong_line" if score.failure == "unknown_line" else "transfer_error", reason=score.failure)
    label, found = min(check.findings, key=lambda item: _RANK[item[0]])
    also = sorted({other for other, _ in check.findings} - {label}, key=_RANK.__getitem__)
    found = dict(found)
    if score.failure:
        found["scorer_failure"] = score.failure
    if also:
        found["also"] = also
    return label, found


class _Check:
    """The findings about one parsed answer: ``(label, evidence)`` pairs in the order met."""

    def __init__(
        self,
        names: GraphNames,
        question: Question,
        sections: tuple[ParsedSection, ...],
        evidence: MapEvidence | None,
        colour_threshold: float,
        layout_threshold: float | None,
    ):
        self.names = names
        self.graph = names.graph
        self.prepared = names.prepared(question)
        self.sections = sections
        self.evidence = evidence
        self.colour_threshold = colour_threshold
        self.layout_threshold = layout_threshold
        self.lines, self.departures, self.arrivals = names.sections(
            sections, self.prepared.station_1, self.prepared.station_2
        )
        self.findings: list[tuple[str, dict[str, Any]]] = []

    def add(self, label: str, **found: Any) -> None:
        self.findings.append((label, found))

    # -- wrong routes --------------------------------------------------------

    def candidates(self, text: str, resolved: str | Unresolved) -> tuple[str, ...]:
        """The stations a name may stand for (several for a homonym; none for an unknown name)."""
        if not isinstance(resolved, Unresolved):
            return (resolved,)
        if resolved.failure == "unknown_station":
            return ()
        return self.graph.station_index.lookup(text.strip()).names

    def unreadable(self, names: Iterable[str]) -> str | None:
        """The first of ``names`` whose label the map evidence could not read."""
        if self.evidence is None:
            return None
        for name in names:
            found = self.evidence.station(name)
            if found is not None and not found.found:
                return name
        return None

    def expected(self, index: int, arrival: bool) -> list[str]:
        """The stations the references have at a section's departure or arrival."""
        found = []
        for reference in self.prepared.references:
            if index < reference.size:
                found.append(reference.arrivals[index] if arrival else reference.departures[index])
        if arrival and index == len(self.sections) - 1:
            found.insert(0, self.prepared.station_2)
        if not arrival and index == 0:
            found.insert(0, self.prepared.station_1)
        return list(dict.fromkeys(name for name in found if isinstance(name, str)))

    def station_fault(self, index: int, arrival: bool, claimed: tuple[str, ...], reason: str, **found: Any) -> None:
        """A real station where it breaks the route: misread when the evidence says so, else a transfer error."""
        where = {"section": index, "field": "arrival_stop" if arrival else "departure_stop"}
        text = self.sections[index].arrival_stop if arrival else self.sections[index].departure_stop
        expected = [name for name in self.expected(index, arrival) if name not in claimed]
        unreadable = self.unreadable([*claimed, *expected])
        if unreadable is not None:
            self.add("misread_station", **where, claimed_station=text, unreadable=unreadable, expected=expected[:3])
            return
        for name in expected[:1]:
            if (index == 0 and not arrival) or (arrival and index == len(self.sections) - 1):
                close = [near_miss_distance(a, b, real=True) for a in name_forms(text) for b in name_forms(name)]
                distances = [distance for distance in close if distance is not None]
                if distances:
                    self.add(
                        "misread_station", **where, claimed_station=text, near_miss=name, edit_distance=min(distances)
                    )
                    return
        self.add("transfer_error", **where, reason=reason, claimed_station=text, expected=expected[:3], **found)

    def wrong_route(self) -> None:
        sections, lines = self.sections, self.lines
        slots: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        for index, section in enumerate(sections):
            pair = []
            for arrival, text, resolved in (
                (False, section.departure_stop, self.departures[index]),
                (True, section.arrival_stop, self.arrivals[index]),
            ):
                if isinstance(resolved, Unresolved) and resolved.failure == "unknown_station":
                    self.unknown_station(index, arrival, text)
                pair.append(self.candidates(text, resolved))
            slots.append((pair[0], pair[1]))
        first, last = slots[0][0], slots[-1][1]
        if first and self.prepared.station_1 not in first:
            self.station_fault(0, False, first, "wrong_endpoints")
        if last and self.prepared.station_2 not in last:
            self.station_fault(len(sections) - 1, True, last, "wrong_endpoints")
        for index, (line, (departure, arrival)) in enumerate(zip(lines, slots)):
            if line is None:
                self.add(
                    "wrong_line", section=index, claimed_line=sections[index].route_name, reason="no line of the city"
                )
            elif departure and arrival:
                self.ride(index, line, departure, arrival)
            if (
                index + 1 < len(slots)
                and arrival
                and slots[index + 1][0]
                and not set(arrival) & set(slots[index + 1][0])
            ):
                self.station_fault(
                    index, True, arrival, "broken_chain", next_departure=sections[index + 1].departure_stop
                )

    def unknown_station(self, index: int, arrival: bool, text: str) -> None:
        where = {"section": index, "field": "arrival_stop" if arrival else "departure_stop", "claimed_station": text}
        found = near_miss(text, self.graph)
        if found is None:
            self.add("hallucinated_station", **where)
        else:
            self.add("misread_station", **where, near_miss=found[0], edit_distance=found[1])

    def ride(self, index: int, line: str, departure: tuple[str, ...], arrival: tuple[str, ...]) -> None:
        """One section's line against its (real) stations."""
        served = self.names.on_line[line]
        on_departure = any(name in served for name in departure)
        on_arrival = any(name in served for name in arrival)
        if on_departure and on_arrival:
            return
        graph = self.graph
        right = [
            other
            for other in graph.lines
            if other != line
            and any(name in self.names.on_line[other] for name in departure)
            and any(name in self.names.on_line[other] for name in arrival)
        ]
        if not right:
            for arrival_side, claimed, on in ((False, departure, on_departure), (True, arrival, on_arrival)):
                if not on:
                    self.station_fault(index, arrival_side, claimed, "no_common_line", claimed_line=line)
            return
        found: dict[str, Any] = {"section": index, "station": departure[0], "claimed_line": line}
        found["right_line"] = right[0]
        evidence = self.evidence
        if evidence is not None:
            colours = [(d, other) for other in right if (d := evidence.colour_difference(line, other)) is not None]
            if colours:
                distance, closest = min(colours)
                found.update(right_line=closest, colour_distance=round(distance, 2))
                if distance < self.colour_threshold:
                    self.add("line_confusion_colour", **found, threshold=self.colour_threshold)
                    return
            pixels = [
                (d, name) for name in (*departure, *arrival) if (d := evidence.distance_to_line(name, line)) is not None
            ]
            if pixels:
                distance, station = min(pixels)
                found.update(station=station, pixel_distance=round(distance, 2))
                if self.layout_threshold is not None and distance < self.layout_threshold:
                    self.add("line_confusion_layout", **found, threshold=self.layout_threshold)
                    return
        self.add("wrong_line", **found, reason="does not serve both stations")

    # -- valid routes --------------------------------------------------------

    def valid_route(self, long: bool, template: str | None) -> None:
        graph, lines = self.graph, self.lines
        transfers = sum(1 for a, b in zip(lines, lines[1:]) if a != b)
        stops = 0
        alternatives: list[tuple[tuple[str, ...], ...]] = []
        for line, departure, arrival in zip(lines, self.departures, self.arrivals):
            ride = (0, ((),)) if departure == arrival else graph.ride(line, departure, arrival)
            stops += ride[0] if ride else 0
            alternatives.append(ride[1] if ride else ())
        costs = [
            (_transfers(reference.lines), sum(c + 1 for c in reference.via_counts))
            for reference in self.prepared.references
        ]
        best = min(costs)[0]
        longest = max(stops for transfers_, stops in costs if transfers_ == best)
        if transfers > best or (transfers == best and stops > longest):
            self.add(
                "suboptimal",
                transfers=transfers,
                stops=stops,
                reference_transfers=best,
                reference_stops=min(costs)[1],
            )
        if long:
            self.via_stops(template, alternatives)

    def via_stops(self, template: str | None, alternatives: list[tuple[tuple[str, ...], ...]]) -> None:
        """Long answers: each section's via count or set, against the references and the rides named."""
        sections, names = self.sections, self.names
        if template == "via_count":
            given = [section.num_via_stops for section in sections]
            if any(
                reference.size == len(sections) and list(reference.via_counts) == given
                for reference in self.prepared.references
            ):
                return
            for index, count in enumerate(given):
                expected = sorted({len(via) for via in alternatives[index]})
                if count is None or count not in expected:
                    self.add("via_stop_error", section=index, claimed=count, expected=expected[0] if expected else None)
                    return
            return
        given_sets = [
            None if section.via_stops is None else frozenset(names.identity(stop, line) for stop in section.via_stops)
            for section, line in zip(sections, self.lines)
        ]
        if any(
            reference.size == len(sections) and list(reference.via_sets) == given_sets
            for reference in self.prepared.references
        ):
            return
        for index, stops in enumerate(given_sets):
            expected = [frozenset(via) for via in alternatives[index]]
            if stops is None or stops not in expected:
                claimed = None if stops is None else list(sections[index].via_stops)
                right = list(alternatives[index][0]) if alternatives[index] else None
                self.add("via_stop_error", section=index, claimed=claimed, expected=right)
                return


def _transfers(lines: Iterable[str]) -> int:
    lines = list(lines)
    return sum(1 for a, b in zip(lines, lines[1:]) if a != b)
