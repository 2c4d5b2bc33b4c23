"""The benchmark's records: questions, predictions, parsed answers and verdicts.

Field names follow the public ReasonMap data set. Records are frozen values;
``from_dict`` validates and names the record and field at fault, ``to_dict``
gives the JSON form the toolkit writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.difficulty import DIFFICULTIES, Difficulty
from benchmarks.errors import InvalidRecord
from benchmarks.records import Invalid, answer_fields, field_of, prediction_row, record_builder, repeat_of
from graphkit.segments import Segment

__all__ = [
    "Kind",
    "LongTemplate",
    "KINDS",
    "LONG_TEMPLATES",
    "Question",
    "Prediction",
    "ParsedSection",
    "ParsedAnswer",
    "Invalid",
    "Verdict",
    "segment_from_dict",
    "answer_fields",
]

Kind = Literal["short", "long"]
LongTemplate = Literal["via_count", "via_stops"]
KINDS: tuple[Kind, ...] = ("short", "long")
LONG_TEMPLATES: tuple[LongTemplate, ...] = ("via_count", "via_stops")


def _choice(record: Mapping[str, Any], name: str, choices: tuple[str, ...], where: str) -> Any:
    value = field_of(record, name, str, where)
    if value not in choices:
        raise InvalidRecord(f"{where}: field {name!r} must be one of {list(choices)}, got {value!r}")
    return value


def segment_from_dict(segment: Any, *, where: str = "segment") -> Segment:
    """A reference segment from its record form.

    Parameters
    ----------
    segment : Any
        The record: ``route_name``, ``departure_stop``, ``arrival_stop``, ``via_stops`` and, optionally,
        ``num_via_stops``.
    where : str, optional
        Where it is, as an error names it.

    Returns
    -------
    Segment
        The segment.

    Raises
    ------
    InvalidRecord
        Not an object, a field missing or of the wrong type, or ``num_via_stops`` not the length of ``via_stops``.

    Examples
    --------
    >>> segment_from_dict({"route_name": "Line A", "departure_stop": "P", "arrival_stop": "R", "via_stops": ["Q"]})
    Segment(route_name='Line A', departure_stop='P', arrival_stop='R', via_stops=('Q',))
    """
    if not isinstance(segment, Mapping):
        raise InvalidRecord(f"{where}: a segment must be an object, got {segment!r:.80}")
    via = field_of(segment, "via_stops", list, where)
    if not all(isinstance(stop, str) for stop in via):
        raise InvalidRecord(f"{where}: via_stops must be a list of station names")
    count = segment.get("num_via_stops", len(via))
    if count != len(via):
        raise InvalidRecord(f"{where}: num_via_stops is {count!r} but via_stops lists {len(via)}")
    return _new_segment(
        field_of(segment, "route_name", str, where),
        field_of(segment, "departure_stop", str, where),
        field_of(segment, "arrival_stop", str, where),
        tuple(via),
    )


_new_segment = record_builder(Segment)  # Segment(*fields), made for each segment of each question read


def _plain_segment(segment: Any) -> Segment | None:
    """:func:`segment_from_dict` of a segment as JSON gives it (every field of its exact type), checked in one
    look, without the text naming where it is; ``None`` for any other, which :func:`segment_from_dict` reads."""
    if segment.__class__ is not dict:
        return None
    via, route, departure, arrival = (segment.get(name) for name in _SEGMENT_FIELDS)
    if (
        via.__class__ is list
        and route.__class__ is str
        and departure.__class__ is str
        and arrival.__class__ is str
        and all(stop.__class__ is str for stop in via)
        and segment.get("num_via_stops", len(via)) == len(via)
    ):
        return _new_segment(route, departure, arrival, tuple(via))
    return None


_SEGMENT_FIELDS = ("via_stops", "route_name", "departure_stop", "arrival_stop")


@dataclass(frozen=True, slots=True)
class Question:
    """One benchmark question: a station pair of a city, both question texts and the references.

    Parameters
    ----------
    id : str
        The question's id.
    country, city : str
        Its map.
    station_1, station_2 : str
        The departure and arrival stations.
    question_short, question_long : str
        The two question texts.
    long_template : {"via_count", "via_stops"}
        What the long question asks for: the number of via stops or the stops themselves.
    routes : tuple of tuple of Segment
        The references: each an optimal route, as its segments.
    difficulty_question, difficulty_city : {"easy", "middle", "hard"}
        The question's difficulty (by its transfers) and its map's.
    city_line_count, city_transfer_count : int
        The map's lines and transfer stations.
    question_transfer_count : int
        The fewest transfers between the two stations.
    """

    id: str
    country: str
    city: str
    station_1: str
    station_2: str
    question_short: str
    question_long: str
    long_template: LongTemplate
    routes: tuple[tuple[Segment, ...], ...]
    difficulty_question: Difficulty
    difficulty_city: Difficulty
    city_line_count: int
    city_transfer_count: int
    question_transfer_count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "country": self.country,
            "city": self.city,
            "station_1": self.station_1,
            "station_2": self.station_2,
            "question_short": self.question_short,
            "question_long": self.question_long,
            "long_template": self.long_template,
            "routes": {
                f"route_{number}": [segment.to_dict() for segment in route]
                for number, route in enumerate(self.routes, start=1)
            },
            "difficulty_question": self.difficulty_question,
            "difficulty_city": self.difficulty_city,
            "city_line_count": self.city_line_count,
            "city_transfer_count": self.city_transfer_count,
            "question_transfer_count": self.question_transfer_count,
        }

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "question") -> Question:
        """Validate a question record; errors name ``where`` and the field."""
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a question must be a JSON object")
        routes = field_of(record, "routes", Mapping, where)
        if not routes:
            raise InvalidRecord(f"{where}: field 'routes' has no reference route")
        parsed_routes = []
        for name in sorted(routes, key=_route_number):
            route = routes[name]
            if not isinstance(route, list) or not route:
                raise InvalidRecord(f"{where}: routes[{name!r}] must be a non-empty list of segments")
            parsed_routes.append(
                tuple(
                    _plain_segment(s) or segment_from_dict(s, where=f"{where}, routes[{name!r}][{i}]")
                    for i, s in enumerate(route)
                )
            )
        build = _new_question if cls is Question else cls  # a subclass gets its own __init__
        return build(
            str(field_of(record, "id", (str, int), where)),
            field_of(record, "country", str, where),
            field_of(record, "city", str, where),
            field_of(record, "station_1", str, where),
            field_of(record, "station_2", str, where),
            field_of(record, "question_short", str, where),
            field_of(record, "question_long", str, where),
            _choice(record, "long_template", LONG_TEMPLATES, where),
            tuple(parsed_routes),
            _choice(record, "difficulty_question", DIFFICULTIES, where),
            _choice(record, "difficulty_city", DIFFICULTIES, where),
            field_of(record, "city_line_count", int, where),
            field_of(record, "city_transfer_count", int, where),
            field_of(record, "question_transfer_count", int, where),
        )

    def text(self, kind: Kind) -> str:
        """The question text asked for ``kind``."""
        return self.question_short if kind == "short" else self.question_long


_new_question = record_builder(Question)  # Question(*fields), in the order of its fields


def _route_number(name: str) -> tuple[int, str]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else 0, name)


@dataclass(frozen=True, slots=True)
class Prediction:
    """One model answer to one question kind.

    Parameters
    ----------
    id : str
        The question's id.
    model : str
        The model.
    question : {"short", "long"}
        The kind of question answered.
    response : str
        The answer, as written.
    tokens : int, optional
        The output tokens, when reported.
    repeat : int, optional
        Which answer to the same request this is (0-based): several come from repeated sampling.
    """

    id: str
    model: str
    question: Kind
    response: str
    tokens: int | None = None
    #: which answer to the same request this is (0-based): several come from repeated sampling
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        return prediction_row(self, self.question)

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "prediction") -> Prediction:
        if cls is Prediction and record.__class__ is dict:  # a row as JSON gives it: every field checked at once
            identifier, model, response = record.get("id"), record.get("model"), record.get("response")
            kind, tokens, repeat = record.get("question"), record.get("tokens"), record.get("repeat", 0)
            if (
                identifier.__class__ is str
                and model.__class__ is str
                and response.__class__ is str
                and (kind == "short" or kind == "long")
                and kind.__class__ is str
                and (tokens is None or tokens.__class__ is int and tokens >= 0)
                and repeat.__class__ is int
                and repeat >= 0
            ):
                return _new_prediction(identifier, model, kind, response, tokens, repeat)
        identifier, model, response, tokens = answer_fields(record, where)
        kind = _choice(record, "question", KINDS, where)
        build = _new_prediction if cls is Prediction else cls  # a subclass gets its own __init__
        return build(identifier, model, kind, response, tokens, repeat_of(record, where))


_new_prediction = record_builder(Prediction)  # Prediction(*fields), made once per row read


@dataclass(frozen=True, slots=True)
class ParsedSection:
    """One route section as the model wrote it (names not yet matched to the data).

    Parameters
    ----------
    route_name : str
        The line.
    departure_stop, arrival_stop : str
        Where the section starts and ends.
    num_via_stops : int, optional
        The number of via stops, when given (``via_count``).
    via_stops : tuple of str, optional
        The via stops, when given (``via_stops``).
    """

    route_name: str
    departure_stop: str
    arrival_stop: str
    num_via_stops: int | None = None
    via_stops: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "route_name": self.route_name,
            "departure_stop": self.departure_stop,
            "arrival_stop": self.arrival_stop,
        }
        if self.num_via_stops is not None:
            record["num_via_stops"] = self.num_via_stops
        if self.via_stops is not None:
            record["via_stops"] = list(self.via_stops)
        return record


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """A response that parsed into route sections.

    Parameters
    ----------
    sections : tuple of ParsedSection
        The sections, in order.
    """

    sections: tuple[ParsedSection, ...]

    def to_list(self) -> list[dict[str, Any]]:
        return [section.to_dict() for section in self.sections]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The score of one prediction.

    Parameters
    ----------
    id : str
        The question's id.
    model : str
        The model.
    question : {"short", "long"}
        The kind of question answered.
    parsed : tuple of ParsedSection or None
        The sections read (``None`` when invalid).
    correct : int
        1 when the route is correct, else 0.
    map_score : float
        The map score.
    components : dict of str to float, optional
        The map-score parts (the paper's Table A3 columns): ``dep_arr``, ``route_name``, ``stops``,
        ``num_via``, ``via_stop``, and ``bonus``.
    weight : float, optional
        The answer's weight in weighted figures.
    failure : str, optional
        Why the route is not correct (the first failing check).
    invalid_reason : str, optional
        Why the response was invalid.
    tokens : int, optional
        The output tokens, when reported.
    repeat : int, optional
        Which answer to the request this is (0-based).
    """

    id: str
    model: str
    question: Kind
    parsed: tuple[ParsedSection, ...] | None
    correct: int
    map_score: float
    components: dict[str, float] = field(default_factory=dict)
    weight: float = 1.0
    failure: str | None = None
    invalid_reason: str | None = None
    tokens: int | None = None
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        record = {
            "id": self.id,
            "model": self.model,
            "question": self.question,
            "parsed": None if self.parsed is None else [section.to_dict() for section in self.parsed],
            "correct": self.correct,
            "map_score": self.map_score,
            **self.components,
            "weight": self.weight,
            "failure": self.failure,
            "invalid_reason": self.invalid_reason,
            "tokens": self.tokens,
        }
        if self.repeat:
            record["repeat"] = self.repeat
        return record
