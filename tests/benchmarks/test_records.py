"""Record pieces every task shares: the record builder that the per-answer records are made with."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.records import ParsedSection, Prediction, Question, Verdict
from benchmarks.records import Invalid, record_builder


@pytest.mark.parametrize(
    "values",
    [
        (ParsedSection, ("Line 1", "A", "B", None, None)),
        (ParsedSection, ("Line 1", "A", "B", 3, ("C", "D"))),
        (Verdict, ("q", "m", "long", (), 1, 39.5, {"bonus": 20.0}, 1.5, None, None, 12, 0)),
        (Prediction, ("q", "m", "short", "Route Name: 1", None, 2)),
        (Invalid, ("refusal", True)),
    ],
)
def test_a_built_record_is_the_record_the_class_makes(values):
    cls, fields = values
    built, made = record_builder(cls)(*fields), cls(*fields)
    # equal, of the class itself, every field the same object, and as frozen as one the class made
    assert built == made and type(built) is cls and hash(built.__class__) == hash(cls)
    assert all(getattr(built, field.name) is value for field, value in zip(dataclasses.fields(cls), fields))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.__setattr__(dataclasses.fields(cls)[0].name, "changed")
    assert repr(built) == repr(made)


def test_a_builder_of_an_inherited_slotted_record_sets_the_parents_fields_too():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Child(Base):
        b: int = 0

    assert record_builder(Child)(1, 2) == Child(1, 2)


def test_only_frozen_slotted_records_without_a_post_init_get_a_builder():
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclasses.dataclass(slots=True)
    class Mutable:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("a must be >= 0")

    for cls in (Unslotted, Mutable, dict):
        with pytest.raises(TypeError, match="frozen dataclass with slots"):
            record_builder(cls)
    with pytest.raises(TypeError, match="__post_init__"):  # it would skip the check
        record_builder(Checked)


_SEGMENT = {"route_name": "Line 1", "departure_stop": "A", "arrival_stop": "C", "via_stops": ["B"], "num_via_stops": 1}


@pytest.mark.parametrize(
    "segment",
    [
        _SEGMENT,
        {key: value for key, value in _SEGMENT.items() if key != "num_via_stops"},
        {**_SEGMENT, "num_via_stops": 1.0},  # equal to the list's length: taken
        {**_SEGMENT, "num_via_stops": 2},
        {**_SEGMENT, "num_via_stops": None},
        {**_SEGMENT, "via_stops": ["B", 3]},
        {**_SEGMENT, "via_stops": "B"},
        {**_SEGMENT, "route_name": 1},
        {key: value for key, value in _SEGMENT.items() if key != "arrival_stop"},
        ["not", "an", "object"],
    ],
)
def test_a_question_reads_the_same_from_dicts_as_from_any_mappings(segment):
    # a question's segments as JSON gives them (dicts) are checked in one look, any other mapping field by
    # field: the same question, or the same refusal naming the same segment
    question = Question(
        "q1", "x", "rome", "A", "C", "short?", "long?", "via_count", ((),), "easy", "easy", 1, 0, 0
    ).to_dict()
    question["routes"] = {"route_1": [segment]}

    def read(routes):
        try:
            return Question.from_dict({**question, "routes": routes}, where="q.jsonl:1")
        except InvalidRecord as error:
            return str(error)

    as_mapping = segment if not isinstance(segment, dict) else MappingProxyType(segment)
    assert read({"route_1": [segment]}) == read({"route_1": [as_mapping]})
