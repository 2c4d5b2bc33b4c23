"""Synthetic networks: sizes, validity, lint, determinism, and routes against a brute force."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.graph import compile_graph
from graphkit.lint import lint_graph
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from graphkit.stats import TIERS, city_stats
from graphkit.synth import SCRIPTS, default_transfers, synthesize_network, tier_shapes
from tests.graphkit.test_routes import brute_force_cost, check_route


@st.composite
def shapes(draw, *, most_stations=40):
    lines = draw(st.integers(1, 6))
    loops = draw(st.integers(0, min(2, lines)))
    branches = draw(st.integers(0, min(2, lines - loops)))
    transfers = 0 if lines == 1 else draw(st.integers(lines - 1, 3 * lines))
    least = max(2, transfers + 2 * lines + loops + 3 * branches)
    return {
        "stations": draw(st.integers(least, max(least, most_stations))),
        "lines": lines,
        "transfers": transfers,
        "loops": loops,
        "branches": branches,
        "seed": draw(st.integers(0, 2**32)),
        "script": draw(st.sampled_from(SCRIPTS)),
    }


def compiled(network):
    return compile_graph(network.metro, network.overlay)


@settings(max_examples=60)
@given(shape=shapes())
def test_networks_have_the_asked_sizes_are_connected_and_lint_clean(shape):
    network = synthesize_network(**shape)
    graph = compiled(network)
    assert len(graph.stations) == shape["stations"]
    assert len(graph.lines) == shape["lines"]
    assert len(graph.transfer_stations()) == shape["transfers"]
    assert len(graph.components()) == 1
    assert lint_graph(graph) == ()
    shapes_seen = [topology.shape for topology in graph.lines.values()]
    assert shapes_seen.count("loop") == shape["loops"]
    assert shapes_seen.count("tree") == shape["branches"]


@settings(max_examples=30)
@given(shape=shapes())
def test_the_written_texts_load_back_to_the_same_network_and_repeat_byte_for_byte(shape):
    network = synthesize_network(**shape)
    assert synthesize_network(**shape).metro_json == network.metro_json
    assert load_metro(json.loads(network.metro_json), city="synthetic", country="synthetic") == network.metro
    assert (network.overlay_json is None) == (shape["loops"] + shape["branches"] == 0)
    if network.overlay_json is not None:
        overlay = load_overlay(json.loads(network.overlay_json))
        assert (overlay.loops, overlay.branches) == (network.overlay.loops, network.overlay.branches)


@settings(max_examples=25)
@given(shape=shapes(most_stations=24))
def test_references_agree_with_a_brute_force_on_small_networks(shape):
    graph = compiled(synthesize_network(**shape))
    from graphkit.routes import reference_routes

    pairs = 0
    for found in reference_routes(graph):
        pairs += 1
        for route in found.routes:
            check_route(graph, route, found.source, found.target)
        assert (found.transfers, found.routes[0].stops) == brute_force_cost(graph, found.source, found.target)
    n = shape["stations"]
    assert pairs == n * (n - 1)  # connected: every ordered pair has references


def test_a_small_network_by_hand():
    network = synthesize_network(stations=12, lines=2, seed=1)
    # 12 * 0.12 rounds to 1 interchange; it is listed on both lines, so the lists hold 13 entries
    assert sum(len(line.entries) for line in network.metro.lines) == 13
    marked = [entry for line in network.metro.lines for entry in line.entries if entry.transfer_mark]
    assert len(marked) == 2 and marked[0].name == marked[1].name
    assert all(line.entries[0].transfer_mark is False for line in network.metro.lines)  # terminals are their own


def test_seeds_and_scripts_change_the_network():
    one = synthesize_network(stations=30, lines=3, seed=1)
    assert synthesize_network(stations=30, lines=3, seed=2).metro_json != one.metro_json
    chinese = synthesize_network(stations=30, lines=3, seed=1, script="cjk").metro
    assert all(name.endswith("站") for name in chinese.station_names)
    assert "（换乘站）" in chinese.lines[0].entries[0].raw or any(
        entry.raw.endswith("（换乘站）") for line in chinese.lines for entry in line.entries
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"stations": 5, "lines": 3}, "at least 8 needed"),
        ({"stations": 30, "lines": 3, "transfers": 1}, "at least 2 transfers"),
        ({"stations": 30, "lines": 1, "transfers": 2}, "one line has no transfers"),
        ({"stations": 30, "lines": 2, "loops": 2, "branches": 1}, "need as many lines"),
        ({"stations": 30, "lines": 2, "script": "greek"}, "script must be one of"),
    ],
)
def test_impossible_sizes_say_what_is_missing(options, message):
    with pytest.raises(ValueError, match=message):
        synthesize_network(**options)


def test_default_transfers_follow_the_median_city():
    assert default_transfers(100, 6) == 12
    assert default_transfers(10, 6) == 5  # at least one fewer than the lines, to connect them
    assert default_transfers(50, 1) == 0


@pytest.mark.parametrize("tier", TIERS)
def test_networks_of_a_tiers_shapes_fall_in_that_tier(tier):
    shapes_of_tier = tier_shapes(tier)
    assert shapes_of_tier
    for lines, stations, transfers in shapes_of_tier:
        network = synthesize_network(stations=stations, lines=lines, transfers=transfers, seed=3)
        assert city_stats(network.metro).difficulty == tier


@pytest.mark.parametrize("stations", [20_001, 10**20])
def test_the_station_count_is_bounded(stations):
    from graphkit.synth import MAX_STATIONS

    with pytest.raises(ValueError, match=f"stations must be at most {MAX_STATIONS:,}"):
        synthesize_network(stations=stations, lines=4)


def test_names_are_less_alike_than_lints_near_duplicate_ratio():
    from rapidfuzz.distance import LCSseq

    from graphkit.lint import NEAR_DUPLICATE_RATIO
    from graphkit.names import fold
    from graphkit.synth import _station_names

    keys = [fold(name) for name in _station_names(random.Random(0), 3000, "latin")]  # seed 0 had a 92% pair
    long_keys = sorted((key for key in keys if len(key) >= 6), key=len)
    from rapidfuzz import fuzz, process

    for index, key in enumerate(long_keys):
        near = process.extract(key, long_keys[index + 1 :], scorer=fuzz.ratio, score_cutoff=90, limit=None)
        # lint's ratio: twice the longest common subsequence over the total length
        assert all(
            2 * LCSseq.similarity(key, other) / (len(key) + len(other)) < NEAR_DUPLICATE_RATIO for other, _, _ in near
        )
