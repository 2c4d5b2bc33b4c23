"""Every task writes and types its prediction rows the same way (benchmarks/records.py: prediction_row,
answer_type); the expected rows are written out by hand."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.mapqa.records import MapPrediction
from benchmarks.plus.records import PlusPrediction
from benchmarks.probe.questions import ProbePrediction
from benchmarks.reasonmap.records import Prediction


@pytest.mark.parametrize(
    ("prediction", "question"),
    [
        (Prediction("q1", "m", "short", "Route: A", 5), "short"),
        (PlusPrediction("q1", "m", "Route: A", 5, "TorF1"), "TorF1"),
        (ProbePrediction("q1", "m", "Route: A", 5, None), None),
        (MapPrediction("q1", "m", "Route: A", 5), "mapqa"),
    ],
)
def test_a_row_holds_the_five_fields_in_order_and_repeat_only_when_not_zero(prediction, question):
    row = {"id": "q1", "model": "m", "question": question, "response": "Route: A", "tokens": 5}
    assert prediction.to_dict() == row and list(prediction.to_dict()) == list(row)
    again = type(prediction).from_dict({**row, "repeat": 2})
    assert again.to_dict() == {**row, "repeat": 2}
    assert type(prediction).from_dict(row) == prediction


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (PlusPrediction, r"^row 3: field 'question' must be a plus type \['Counting1', .*'TorF2'\] or absent$"),
        (ProbePrediction, r"^row 3: field 'question' must be a probe type \['lines_at', .*\] or absent$"),
    ],
)
def test_a_row_answering_another_type_is_refused_naming_the_types(kind, message):
    row = {"id": "q1", "model": "m", "question": "short", "response": "yes"}
    with pytest.raises(InvalidRecord, match=message):
        kind.from_dict(row, where="row 3")


_ROW = {"id": "q1", "model": "m", "question": "long", "response": "Route: A", "tokens": 5}


@pytest.mark.parametrize(
    "row",
    [
        _ROW,
        {**_ROW, "tokens": None, "repeat": 3},
        {key: value for key, value in _ROW.items() if key != "tokens"},
        {**_ROW, "id": 7},  # an integer id reads as its text
        {**_ROW, "response": None},  # a failed call: an empty response
        {**_ROW, "tokens": True},
        {**_ROW, "tokens": -1},
        {**_ROW, "repeat": False},
        {**_ROW, "repeat": -2},
        {**_ROW, "question": "medium"},
        {**_ROW, "question": ["long"]},
        {**_ROW, "model": 3},
        {key: value for key, value in _ROW.items() if key != "response"},
        {key: value for key, value in _ROW.items() if key != "model"},
    ],
)
def test_a_route_row_reads_the_same_from_a_dict_as_from_any_mapping(row):
    # a dict (what JSON gives) takes a one-look path, any other mapping the field-by-field checks: the same
    # prediction, or the same refusal with the same message
    def read(record):
        try:
            return Prediction.from_dict(record, where="p.jsonl:1")
        except InvalidRecord as error:
            return str(error)

    assert read(dict(row)) == read(MappingProxyType(row))
