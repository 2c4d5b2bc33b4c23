"""The summary writer: the bytes of ``json.dumps(indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)``,
laid out faster; a NaN or an infinity is refused naming its field (strict JSON)."""

from __future__ import annotations

import json
import math
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.summaries import summary_json, write_summary


def _reference(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False) + "\n"


def _same_outcome(document) -> None:
    """The writer gives json.dumps's strict bytes, or, where json.dumps refuses a NaN or infinity, a ValueError."""
    try:
        expected = _reference(document)
    except ValueError:
        with pytest.raises(ValueError, match="JSON holds no NaN or infinity"):
            summary_json(document)
    else:
        assert summary_json(document) == expected


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),  # any code point: quotes, backslashes, control characters, non-ASCII, lone surrogates
)
_DOCUMENTS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(st.text(max_size=6), inner, max_size=6),
    ),
    max_leaves=60,
)


@settings(max_examples=150, deadline=None)
@given(_DOCUMENTS)
def test_a_summary_is_json_dumps_bytes_for_any_nesting_of_plain_values(document):
    _same_outcome(document)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(max_size=4), _DOCUMENTS, max_size=4), st.integers(1, 6))
def test_a_summary_nested_deep_in_containers_keeps_each_levels_indent(document, depth):
    # the writer's per-depth encoders: the same document under ``depth`` more levels of lists and dictionaries
    for level in range(depth):
        document = {"level": document, "n": level} if level % 2 else [document, level]
    _same_outcome(document)


def test_a_report_shaped_summary_by_hand():
    # a model row of plain figures around nested ones (intervals), an empty mapping and list: every line is
    # indented by 2 per level, the plain values between containers kept in key order
    summary = {"models": {"m": {"n": 2, "intervals": {"acc": {"low": 0.5, "high": 1.0}}, "a": None, "z": []}}}
    assert summary_json(summary) == (
        "{\n"
        '  "models": {\n'
        '    "m": {\n'
        '      "a": null,\n'
        '      "intervals": {\n'
        '        "acc": {\n'
        '          "high": 1.0,\n'
        '          "low": 0.5\n'
        "        }\n"
        "      },\n"
        '      "n": 2,\n'
        '      "z": []\n'
        "    }\n"
        "  }\n"
        "}\n"
    )


@pytest.mark.parametrize(
    "unusual",
    [
        {1: "an integer key", 2.5: "a float key", False: "a bool key", None: "no key"},
        {"inner": {3: "an integer key inside"}},
        {"proxy": MappingProxyType({"a": 1})},  # not JSON: json.dumps's own TypeError
        {"set": {1, 2}},
        {"enum-like": type("Count", (int,), {})(3)},  # an int subclass
        {"big": [-0.0, 5e-324, 1.7976931348623157e308]},
    ],
)
def test_what_the_writer_does_not_lay_out_itself_is_json_dumps_outcome(unusual):
    # keys that are no strings, other types, values JSON cannot hold: the same text, or the same error
    try:
        expected = _reference(unusual)
    except (TypeError, ValueError) as error:
        with pytest.raises(type(error), match=str(error)[:30]):
            summary_json(unusual)
    else:
        assert summary_json(unusual) == expected


def test_a_cycle_is_refused_as_json_dumps_refuses_it():
    looped: dict = {"a": []}
    looped["a"].append(looped)
    with pytest.raises(ValueError, match="Circular reference detected"):
        summary_json(looped)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_figure_json_cannot_hold_is_refused_naming_its_field_and_file(tmp_path, bad):
    # campaign 4, J2: a summary holding NaN / -Infinity was written with those non-JSON tokens
    summary = {"models": {"m": {"weighted_accuracy_short": 0.5, "intervals": {"acc": {"low": bad, "high": 1.0}}}}}
    path = tmp_path / "leaderboard.json"
    with pytest.raises(ValueError) as caught:
        write_summary(path, summary)
    assert str(caught.value) == (f"{path}: field models.m.intervals.acc.low is {bad!r}: JSON holds no NaN or infinity")
    assert not path.exists()


def test_write_summary_writes_those_bytes(tmp_path):
    summary = {"b": [1, {"c": "é"}], "a": {}}
    path = write_summary(tmp_path / "summary.json", summary)
    assert path.read_bytes() == _reference(summary).encode("utf-8")
