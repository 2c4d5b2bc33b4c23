"""Textualized maps: every format parses back to the identical graph; the text oracle answers from prompts."""

from __future__ import annotations

import doctest
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baselines import textualize
from baselines.textualize import (
    TEXTUALIZATIONS,
    InvalidTextualization,
    find_map,
    identical,
    parse,
    render,
    symbolic_context,
    text_oracle_routes,
)
from benchmarks.reasonmap.generate import generate_questions
from graphkit.cities import city_graph, city_names
from graphkit.errors import InvalidOverlay
from graphkit.graph import compile_graph
from graphkit.metro import load_metro, parse_station
from graphkit.routes import shortest_routes
from tests import networks
from tests.networks import graph_of

FORMATS = tuple(TEXTUALIZATIONS)
# What each format puts on one row; a new format must be classified here (and so get the checks below).
ROW_UNIT = {"lines": "line", "adjacency": "line", "stations": "station"}
ORACLE_CITIES = ("rome", "beijing", "hangzhou", "budapest", "toronto")  # test cities with 40 questions each

HAND_MADE = {
    "one station": (networks.ONE_STATION, None),
    "one line": (networks.ONE_LINE, None),
    "loop": (networks.LOOP, networks.LOOP_OVERLAY),
    "closed loop": (networks.CLOSED_LOOP, None),
    "branch": (networks.BRANCH, networks.BRANCH_OVERLAY),
    "disconnected": (networks.DISCONNECTED, None),
    "homonyms": (networks.HOMONYMS, None),
    "chinese": (networks.CHINESE, None),
    "repeated": (networks.REPEATED, networks.REPEATED_OVERLAY),
    "suffix variants": (networks.SUFFIX_VARIANTS, None),
}

# Names that collide with every delimiter, keyword and suffix the formats use (all valid cleaned names).
HOSTILE_STATIONS = (
    "Alpha",
    "Beta Station",
    "東京站",
    "北京西站（南广场）",
    "Cathedral Pkwy (110 St)",
    'Quote "Q"',
    "Comma, Place",
    "Semi; colon: x",
    "A -> B",
    "a -- b",
    "--",
    "Pipe | Bar",
    "#1",
    "</map>",
    '<map name="lines">',
    "back\\slash",
    "none",
    "separately",
    "branch from Alpha",
    "stations in order",
    "Lines",
    "X (loop)",
    "Y (irregular)",
    "Z #3",
    "also adjacent",
    "the last station connects back to the first",
    "Étoile ☆ 🚇",
    "O'Hare",
)
HOSTILE_LINES = (
    "Line 1",
    "Line (loop)",
    'Line "2", east',
    "A: B",
    "Line\n3",
    " edge spaces ",
    "环线 (branched)",
    "L #2",
)


def _round_trip(graph, name):
    found = render(graph, name)
    return parse(found.text, name)


# -- registry ------------------------------------------------------------------
def test_every_format_is_classified():
    assert set(TEXTUALIZATIONS) == set(ROW_UNIT)
    assert {"lines", "adjacency", "stations"} <= set(TEXTUALIZATIONS)


@pytest.mark.parametrize("name", FORMATS)
def test_registry_entries(name):
    render_text, parse_text, description = TEXTUALIZATIONS[name]
    assert callable(render_text) and callable(parse_text)
    assert description and "\n" not in description


@pytest.mark.parametrize("call", [lambda: render(city_graph("rome"), "csv"), lambda: parse("", "csv")])
def test_unknown_format_lists_the_valid_ones(call):
    listed = re.escape("textualization must be one of ['lines', 'adjacency', 'stations'], got 'csv'")
    with pytest.raises(ValueError, match=listed):
        call()


# -- round trips -----------------------------------------------------------------
@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("network", HAND_MADE, ids=str)
def test_hand_made_networks_round_trip(network, name):
    graph = graph_of(*HAND_MADE[network])
    assert identical(_round_trip(graph, name), graph)


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("city", city_names())
def test_embedded_cities_round_trip(city, name):
    graph = city_graph(city)
    found = render(graph, name)
    rebuilt = parse(found.text, name)
    assert identical(rebuilt, graph)
    assert rebuilt.city == graph.city
    assert render(rebuilt, name) == found


@st.composite
def hostile_networks(draw):
    """Random lines over hostile names; loops, branches and repeated stations only through overlays."""
    names = draw(st.lists(st.sampled_from(HOSTILE_LINES), min_size=1, max_size=4, unique=True))
    data, overlay = {}, {"loops": [], "branches": [], "repeated_stations": []}
    for name in names:
        stations = draw(st.lists(st.sampled_from(HOSTILE_STATIONS), min_size=1, max_size=9, unique=True))
        size = len(stations)
        kind = draw(st.sampled_from(["plain", "loop", "closed", "branch", "two branches", "repeat", "loop+branch"]))
        if "loop" in kind and size >= 3:
            overlay["loops"].append({"line": name, "note": "a loop"})
        if kind == "closed" and size >= 3:
            stations.append(stations[0])
        if "branch" in kind and size >= 3:
            start = draw(st.integers(1, size - 1))
            end = draw(st.integers(start, size - 1))
            entry = {"line": name, "leaves_at": stations[draw(st.integers(0, start - 1))], "first": stations[start]}
            if end < size - 1 or draw(st.booleans()):
                entry["last"] = stations[end]
            overlay["branches"].append(entry | {"note": "a branch"})
            if kind == "two branches" and end + 2 < size:
                second = draw(st.integers(end + 2, size - 1))
                at = stations[draw(st.integers(0, second - 1))]
                overlay["branches"].append({"line": name, "leaves_at": at, "first": stations[second], "note": "b"})
        if kind == "repeat" and size >= 2:
            again = draw(st.integers(0, size - 1))
            stations.insert(draw(st.integers(again + 1, size)), stations[again])
            overlay["repeated_stations"].append({"line": name, "station": stations[again], "note": "twice"})
        data[name] = stations
    try:
        return graph_of(data, overlay)
    except InvalidOverlay:  # a drawn branch that the overlay rules refuse (it holds its own junction)
        return draw(st.nothing())


def test_hostile_names_are_valid_station_names():
    assert all(parse_station(name).name == name for name in HOSTILE_STATIONS)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(graph=hostile_networks())
def test_random_networks_round_trip(name, graph):
    found = render(graph, name)
    rebuilt = parse(found.text, name)
    assert identical(rebuilt, graph)
    assert render(rebuilt, name).text == found.text  # byte for byte: rendering depends on the graph alone


def _hostile_city():
    data = {name: list(HOSTILE_STATIONS[8 * index : 8 * index + 12]) for index, name in enumerate(HOSTILE_LINES[:3])}
    return compile_graph(load_metro(data, city='São "Paulo": centro'))


def test_hostile_city_and_names_are_quoted_and_survive():
    graph = _hostile_city()
    for name in FORMATS:
        text = render(graph, name).text
        assert text.startswith('# Metro map of "São \\"Paulo\\": centro": 3 lines, 28 stations.')
        assert '"Comma, Place"' in text and "Alpha" in text.split("\n", 3)[3]  # quoted only when needed
        assert "</map>" not in text.splitlines()  # a name never ends a prompt's map block early
        rebuilt = parse(text, name)
        assert identical(rebuilt, graph) and rebuilt.city == graph.city


# -- what the texts say ------------------------------------------------------------
@pytest.mark.parametrize("name", FORMATS)
def test_rendering_is_deterministic_and_sized(name):
    graph = city_graph("beijing")
    first, again = render(graph, name), render(graph, name)
    assert first == again
    assert first.characters == len(first.text) and first.name == name
    assert not first.text.endswith("\n")
    counted = render(graph, name, count_tokens=lambda text: text.count(" ") + 1)
    assert counted.tokens == first.text.count(" ") + 1 and counted.text == first.text


def test_rows_per_line_or_station():
    graph = city_graph("rome")
    for name, unit in ROW_UNIT.items():
        rows = [row for row in render(graph, name).text.splitlines() if not row.startswith(("#", "Lines: "))]
        assert len(rows) == len(graph.lines if unit == "line" else graph.stations)


def test_topology_notes():
    loop = render(graph_of(networks.LOOP, networks.LOOP_OVERLAY), "lines").text
    assert "Line 2 (loop): L0, L1, L2, L3, L4, L5, L6, L7; the last station connects back to the first" in loop
    branch = render(graph_of(networks.BRANCH, networks.BRANCH_OVERLAY), "lines").text
    assert "Line B (branched): M0, M1, M2, M3, M4, M5; branch from M2: B1, B2, B3" in branch
    stations = render(graph_of(networks.BRANCH, networks.BRANCH_OVERLAY), "stations").text
    assert "M4 (transfer) | Line B #5: M3, M5 | Line C #2: C0, C2" in stations.splitlines()
    assert "M2 | Line B #3: M1, M3, B1" in stations.splitlines()
    adjacency = render(graph_of(networks.REPEATED, networks.REPEATED_OVERLAY), "adjacency").text
    assert adjacency.splitlines()[-1] == "R (irregular): A -- B, B -- C, C -- D, B -- D, B -- E"


def test_identical_tells_graphs_apart():
    graph = graph_of(networks.LOOP, networks.LOOP_OVERLAY)
    assert identical(graph, graph_of(networks.LOOP, networks.LOOP_OVERLAY))
    assert not identical(graph, graph_of(networks.LOOP))  # no loop
    assert not identical(graph, graph_of(dict(reversed(networks.LOOP.items())), networks.LOOP_OVERLAY))
    assert not identical(graph_of(networks.ONE_LINE), graph_of({"Line 1": networks.ONE_LINE["Line 1"][::-1]}))


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("lines", "Line A: X, Y", "row 1: expected '# Metro map"),
        ("lines", "# Metro map: 1 line, 3 stations.\nLine A: X, Y", "truncated"),
        ("lines", "# Metro map: 1 line, 2 stations.\nLine A: X, Y; loop please", "unknown clause"),
        ("lines", '# Metro map: 1 line, 2 stations.\n"Line \\q": X, Y', "row 2: malformed quoted name"),
        ("lines", '# Metro map: 1 line, 2 stations.\n"Line A: X, Y', "row 2: expected ':'"),
        ("lines", "# Metro map: 2 lines, 2 stations.\nL: X, Y\nL: X, Y", "listed twice"),
        ("adjacency", "# Metro map: 1 line, 2 stations.\nL: X -- X", "adjacent to itself"),
        ("stations", "# Metro map: 1 line, 2 stations.\nX | L #1: Y", "Lines:"),
        ("stations", "# Metro map: 1 line, 2 stations.\nLines: L\nX | L #1: Y\nY | L #2", "not back"),
        ("stations", "# Metro map: 1 line, 2 stations.\nLines: L\nX | L #1: Y\nY | L #3: X", "not 1..N"),
    ],
)
def test_malformed_texts_are_refused_with_the_row(name, text, message):
    with pytest.raises(InvalidTextualization, match=message):
        parse(text, name)


# -- prompts and the text oracle -----------------------------------------------------
def test_symbolic_context_and_find_map():
    found = render(graph_of(networks.ONE_LINE), "adjacency")
    block = symbolic_context(found)
    assert block.startswith('<map name="adjacency">\n') and block.endswith("\n</map>")
    prompt = "Read the map.\n" + symbolic_context(render(graph_of(networks.LOOP), "lines")) + "\n" + block + "\nGo?"
    assert find_map(prompt) == ("lines", render(graph_of(networks.LOOP), "lines").text)
    assert find_map(prompt.replace("\n", "\r\n"), "adjacency") == ("adjacency", found.text)
    with pytest.raises(InvalidTextualization, match='no <map name="stations">'):
        find_map(prompt, "stations")


@pytest.mark.parametrize("city", ORACLE_CITIES)
def test_text_oracle_answers_generated_questions(city):
    graph = city_graph(city)
    questions = generate_questions(graph, seed=0)
    assert len(questions) == 40
    for name in FORMATS:
        prompt = f"{symbolic_context(render(graph, name))}\nQuestion: how do you get from A to B?"
        for question in questions:
            found = text_oracle_routes(prompt, question.station_1, question.station_2)
            assert found.routes[0].segments == question.routes[0], (name, question.id)


def test_text_oracle_matches_graphkit_on_hostile_names():
    graph = _hostile_city()
    pairs = [(a, b) for a in graph.stations[::5] for b in graph.stations[1::4] if a != b]
    for name in FORMATS:
        prompt = f"Map:\n{symbolic_context(render(graph, name))}\nWhich way?"
        for a, b in pairs:
            assert text_oracle_routes(prompt, a, b, name) == shortest_routes(graph, a, b)


def test_docstring_examples_run():
    assert doctest.testmod(textualize).failed == 0
