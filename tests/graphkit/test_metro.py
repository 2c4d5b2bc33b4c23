"""Metro Data: loading from every kind of source, validation errors, annotation parsing, the embedded cities."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.cities import city_names, load_city
from graphkit.errors import InvalidMetroData
from graphkit.metro import MetroData, load_metro, parse_station
from tests.networks import BRANCH, CHINESE, CLOSED_LOOP, HOMONYMS, LOOP, ONE_LINE, ONE_STATION

NETWORKS = [ONE_STATION, ONE_LINE, LOOP, CLOSED_LOOP, BRANCH, HOMONYMS, CHINESE]

# The notice published with the data says "30 cities, 3,888 stations, 830,840 ordered station pairs".
NOTICE_CITIES = 30
NOTICE_STATIONS = 3_888
NOTICE_ORDERED_PAIRS = 830_840

TRANSFER_MARKS = ("(Transfer Station)", "（换乘站）")
BRANCH_MARKS = ("(Branch-starting Station)", "（支线起始站）")


def _write(tmp_path, obj, name="city.json"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path


# -- sources -------------------------------------------------------------------


@pytest.mark.parametrize("data", NETWORKS)
def test_path_dict_and_json_string_give_the_same_lines(tmp_path, data):
    from_dict = load_metro(data)
    from_json = load_metro(json.dumps(data, ensure_ascii=False))
    from_path = load_metro(_write(tmp_path, data))
    assert from_dict.lines == from_json.lines == from_path.lines
    assert from_dict.line_names == tuple(data)
    assert (from_dict.source, from_json.source) == ("<dict>", "<json>")


@pytest.mark.parametrize("data", NETWORKS)
def test_to_dict_gives_back_the_raw_data(data):
    assert load_metro(data).to_dict() == data


def test_json_string_may_start_with_whitespace():
    text = "\n  " + json.dumps(ONE_LINE)
    assert load_metro(text).line_names == tuple(ONE_LINE)


def test_path_names_city_and_country_after_file_and_folder(tmp_path):
    path = _write(tmp_path, ONE_LINE, name="norway/oslo.json")
    for source in (path, str(path)):
        data = load_metro(source)
        assert (data.city, data.country, data.source) == ("oslo", "norway", str(path))


def test_explicit_city_and_country_win_over_the_path(tmp_path):
    path = _write(tmp_path, ONE_LINE, name="norway/oslo.json")
    data = load_metro(path, city="Oslo", country="Norway")
    assert (data.city, data.country) == ("Oslo", "Norway")


def test_station_names_are_distinct_in_first_appearance_order():
    data = load_metro(BRANCH)
    listed = [name for line in data.lines for name in line.stations]
    assert data.station_names == tuple(dict.fromkeys(listed))
    assert len(set(data.station_names)) == len(data.station_names)
    # "M4 (Transfer Station)" on Line C is the same station as "M4" on Line B
    assert data.station_names.count("M4") == 1


def test_line_by_exact_name():
    data = load_metro(CHINESE)
    assert data.line("昌平线").stations == tuple(CHINESE["昌平线"])
    with pytest.raises(KeyError):
        data.line("Line 9")


def test_metro_data_is_immutable():
    data = load_metro(ONE_LINE)
    with pytest.raises(AttributeError):
        data.city = "elsewhere"  # type: ignore[misc]
    assert isinstance(data.lines, tuple)


# -- validation: every error names the file, the line and the station -----------


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        (["Line 1", "A"], ["must be a JSON object", "list"]),
        ("just text", ["must be a JSON object", "str"]),
        ({}, ["has no lines"]),
        ({"Line 1": []}, ["'Line 1'", "no stations"]),
        ({"Line 1": "A, B, C"}, ["'Line 1'", "list of stations", "str"]),
        ({"Line 1": {"A": 1}}, ["'Line 1'", "list of stations", "dict"]),
        ({"Line 1": ["A", 7]}, ["'Line 1'", "station #2", "7"]),
        ({"Line 1": ["A", None]}, ["'Line 1'", "station #2", "None"]),
        ({"Line 1": ["A", "(Transfer Station)"]}, ["'Line 1'", "station #2", "empty station name"]),
        ({"Line 1": ["A", "（换乘站）（支线起始站）"]}, ["'Line 1'", "station #2", "empty station name"]),
        ({"Line 1": ["A", "   "]}, ["'Line 1'", "station #2", "empty station name"]),
        ({"Line 1": ["A", "B", "A", "C"]}, ["'Line 1'", "station #3", "'A' is repeated", "station #1"]),
        ({"Line 1": ["A", "B", "B (Transfer Station)"]}, ["'Line 1'", "station #3", "'B' is repeated"]),
        ({"Line 1": ["A", "A"]}, ["'Line 1'", "station #2", "'A' is repeated"]),
        ({"Line 1": ["A (Transfer Statoin)"]}, ["'Line 1'", "station #1", "unknown annotation", "Transfer Statoin"]),
        ({"Line 1": ["A", "B（换乘）"]}, ["'Line 1'", "station #2", "unknown annotation", "换乘"]),
        ({"Line 1": ["A (Interchange)"]}, ["'Line 1'", "station #1", "unknown annotation", "Interchange"]),
        ({"": ["A"]}, ["line names must be non-empty strings"]),
        ({"  ": ["A"]}, ["line names must be non-empty strings"]),
    ],
)
def test_invalid_data_names_file_line_and_station(tmp_path, data, fragments):
    path = _write(tmp_path, json.dumps(data, ensure_ascii=False))
    with pytest.raises(InvalidMetroData) as raised:
        load_metro(path)
    message = str(raised.value)
    assert message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(
    "data",
    [{}, {"Line 1": []}, {"Line 1": ["A", "(Transfer Station)"]}, {"Line 1": ["A", "B", "A", "C"]}],
)
def test_invalid_dict_and_json_string_are_labelled(data):
    with pytest.raises(InvalidMetroData, match=r"^<dict>"):
        load_metro(data)
    with pytest.raises(InvalidMetroData, match=r"^<json>"):
        load_metro(json.dumps(data))


def test_invalid_metro_data_is_a_value_error():
    with pytest.raises(ValueError):
        load_metro({})


def test_the_first_wrong_station_is_the_one_reported():
    data = {"Line 1": ["A", "B"], "Line 2": ["C", "D (Transfer Statoin)", "E (Branch Statoin)"]}
    with pytest.raises(InvalidMetroData, match=r"'Line 2', station #2: unknown annotation \(Transfer Statoin\)"):
        load_metro(data)


def test_loop_closing_repeat_is_allowed():
    line = load_metro(CLOSED_LOOP).lines[0]
    assert line.closes_on_itself
    assert line.stations[0] == line.stations[-1]


def test_loop_closing_repeat_may_carry_a_mark():
    line = load_metro({"Circle": ["P0", "P1", "P2", "P0 (Transfer Station)"]}).lines[0]
    assert line.closes_on_itself
    assert line.entries[-1].transfer_mark and not line.entries[0].transfer_mark


def test_open_line_does_not_close_on_itself():
    assert not load_metro(ONE_LINE).lines[0].closes_on_itself


def test_allowed_repeat_is_accepted_for_its_line_only():
    data = {"R": ["A", "B", "C", "B", "D"], "S": ["X", "Y", "X", "Z"]}
    with pytest.raises(InvalidMetroData, match=r"'S', station #3: 'X' is repeated"):
        load_metro(data, allowed_repeats=[("R", "B")])
    accepted = load_metro(data, allowed_repeats=[("R", "B"), ("S", "X")])
    assert accepted.line("R").stations == tuple(data["R"])
    assert accepted.station_names.count("B") == 1


def test_allowed_repeat_does_not_cover_another_station_of_the_line():
    with pytest.raises(InvalidMetroData, match=r"'C' is repeated"):
        load_metro({"R": ["A", "B", "C", "B", "C"]}, allowed_repeats=[("R", "B")])


def test_invalid_json_reports_line_and_column(tmp_path):
    rows = ["{", '  "Line 1": [', '    "A", @', "  ]", "}"]
    path = _write(tmp_path, "\n".join(rows))
    with pytest.raises(InvalidMetroData) as raised:
        load_metro(path)
    message = str(raised.value)
    assert message.startswith(str(path))
    assert f"line {3}, column {rows[2].index('@') + 1}" in message


def test_invalid_json_string_reports_line_and_column():
    text = '{"Line 1": ["A",, "B"]}'
    with pytest.raises(InvalidMetroData, match=rf"^<json>: not valid JSON at line 1, column {text.index(',,') + 2}"):
        load_metro(text)


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nowhere.json"
    with pytest.raises(InvalidMetroData) as raised:
        load_metro(path)
    assert str(path) in str(raised.value)
    assert "no such" in str(raised.value)


def test_file_that_is_not_utf8_is_reported(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"Línea 1": ["Estación"]}'.encode("latin-1"))
    with pytest.raises(InvalidMetroData, match=r"latin1\.json: not UTF-8 at line 1 \(byte 0xED\)"):
        load_metro(path)


# -- annotations -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name", "transfer", "branch"),
    [
        ("Bologna Station", "Bologna Station", False, False),
        ("Termini Station (Transfer Station)", "Termini Station", True, False),
        ("M2 (Branch-starting Station)", "M2", False, True),
        ("大连站（换乘站）", "大连站", True, False),
        ("开发区站（支线起始站）", "开发区站", False, True),
        ("Promenade Station (Transfer Station) (Branch-starting Station)", "Promenade Station", True, True),
        ("Promenade Station (Branch-starting Station) (Transfer Station)", "Promenade Station", True, True),
        ("开发区站（换乘站）（支线起始站）", "开发区站", True, True),
        ("开发区站(换乘站)", "开发区站", True, False),
        ("Dhoby Ghaut Station （Transfer Station）", "Dhoby Ghaut Station", True, False),
        ("Tiburtina Station ( transfer   STATION )", "Tiburtina Station", True, False),
        ("Cathedral Pkwy (110 St) Station", "Cathedral Pkwy (110 St) Station", False, False),
        ("Cathedral Pkwy(110 St) Station", "Cathedral Pkwy(110 St) Station", False, False),
        ("Cathedral Pkwy Station (110 St)", "Cathedral Pkwy Station (110 St)", False, False),
        ("Cathedral Pkwy (110 St) Station (Transfer Station)", "Cathedral Pkwy (110 St) Station", True, False),
        ("四方河（省中医院）站", "四方河（省中医院）站", False, False),
        ("（省中医院）", "（省中医院）", False, False),
        ("四方河（省中医院）站（换乘站）", "四方河（省中医院）站", True, False),
        ("125 St Station ", "125 St Station", False, False),
        ("Due  Leoni /  Font. Candida Station", "Due Leoni / Font. Candida Station", False, False),
    ],
)
def test_parse_station(raw, name, transfer, branch):
    entry = parse_station(raw)
    assert (entry.raw, entry.name, entry.transfer_mark, entry.branch_start_mark) == (raw, name, transfer, branch)


@pytest.mark.parametrize(
    "raw", ["A (Transfer Statoin)", "B（换乘）", "C (Branch Station)", "D（支线站）", "E (Interchange)"]
)
def test_parse_station_refuses_annotation_lookalikes(raw):
    with pytest.raises(InvalidMetroData, match="unknown annotation") as raised:
        parse_station(raw, where="somewhere")
    assert str(raised.value).startswith("somewhere")
    assert repr(raw) in str(raised.value)


_WORDS = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.'/-西直门车公庄站", min_size=1
)
_NAMES = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)
_QUALIFIERS = st.sampled_from(["", " (110 St)", "（省中医院）", "(North)"])
_GAPS = st.sampled_from(["", " ", "  "])


@settings(max_examples=100)
@given(
    base=_NAMES,
    qualifier=_QUALIFIERS,
    transfer=st.sampled_from(("",) + TRANSFER_MARKS),
    branch=st.sampled_from(("",) + BRANCH_MARKS),
    gap=_GAPS,
    branch_first=st.booleans(),
)
def test_parse_station_strips_exactly_the_known_marks(base, qualifier, transfer, branch, gap, branch_first):
    name = base + qualifier
    marks = [branch, transfer] if branch_first else [transfer, branch]
    raw = name + "".join(gap + mark for mark in marks if mark)
    entry = parse_station(raw)
    assert entry.raw == raw
    assert entry.name == " ".join(name.split())
    assert entry.transfer_mark == bool(transfer)
    assert entry.branch_start_mark == bool(branch)


def test_marks_do_not_split_a_station():
    data = load_metro({"Line 1": ["A", "B (Transfer Station)"], "Line 2": ["B（换乘站）", "C"]})
    assert data.station_names == ("A", "B", "C")


# -- the embedded cities -----------------------------------------------------------


def test_there_are_as_many_embedded_cities_as_the_notice_says():
    assert len(city_names()) == NOTICE_CITIES


@pytest.mark.parametrize("city", city_names())
def test_embedded_city_loads(city):
    metro, _ = load_city(city)
    assert isinstance(metro, MetroData)
    assert metro.city == city
    assert metro.lines and all(line.entries for line in metro.lines)
    assert len(set(metro.line_names)) == len(metro.line_names)
    assert all(parse_station(entry.raw) == entry for line in metro.lines for entry in line.entries)


_ONE_TRAILING_MARK = re.compile(r"\s*[(（](?:Transfer Station|换乘站|Branch-starting Station|支线起始站)[)）]\s*$")


def test_station_total_is_the_notice_figure_less_one_double_counted_station():
    # The notice's 3,888 (and its 830,840 ordered pairs) is what a count that strips one trailing
    # mark per entry gives: it keeps "Promenade Station (Transfer Station)" from Singapore's
    # doubly marked entry as a station of its own. Parsed properly, there is one station fewer.
    cleaned = {city: load_city(city)[0].station_names for city in city_names()}
    one_mark = {
        city: tuple(
            dict.fromkeys(
                _ONE_TRAILING_MARK.sub("", entry.raw).strip()
                for line in load_city(city)[0].lines
                for entry in line.entries
            )
        )
        for city in city_names()
    }
    assert sum(len(names) for names in one_mark.values()) == NOTICE_STATIONS
    assert sum(len(names) * (len(names) - 1) for names in one_mark.values()) == NOTICE_ORDERED_PAIRS
    extra = [(city, name) for city in city_names() for name in set(one_mark[city]) - set(cleaned[city])]
    assert len(extra) == 1
    city, name = extra[0]
    assert parse_station(name).name in cleaned[city]
    assert sum(len(names) for names in cleaned.values()) == NOTICE_STATIONS - 1
