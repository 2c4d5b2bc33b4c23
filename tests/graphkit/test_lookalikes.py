"""Names that look alike (:func:`graphkit.names.lookalike_key`): one check for station names (``lint``'s
``near_duplicate``) and model names (``leaderboard``, campaign 4's B23: ``gpt-4o`` and ``gpt-4о``)."""

from __future__ import annotations

import pytest

from graphkit.lint import lint_graph
from graphkit.names import lookalike_key
from tests.networks import graph_of


@pytest.mark.parametrize(
    "one, other",
    [
        ("gpt-4o", "gpt-4\u043e"),  # Cyrillic small o
        ("Claude", "\u0421laude"),  # Cyrillic capital Es
        ("Kappa", "\u039aappa"),  # Greek capital Kappa
        ("gpt-4o", "gpt\u200b-4o"),  # a zero-width space
        ("gpt-4o", "\uff47\uff50\uff54-4o"),  # full-width letters
        ("mod\u00e8le", "mode\u0300le"),  # NFC and NFD
    ],
)
def test_names_that_print_alike_share_a_key(one, other):
    assert one != other and lookalike_key(one) == lookalike_key(other)


@pytest.mark.parametrize("one, other", [("gpt-4o", "GPT-4o"), ("gpt-4o", "gpt-40"), ("gpt-4o", "gpt4o")])
def test_names_a_reader_tells_apart_keep_their_keys(one, other):
    assert lookalike_key(one) != lookalike_key(other)


def test_lint_reports_station_names_that_look_alike():
    one, other = "Vokzal Station", "V\u043ekzal Station"  # the second with a Cyrillic о
    graph = graph_of({"L1": ["A", one, "B"], "L2": ["C", other, "D"], "L3": ["A", "C"]})
    (finding,) = [finding for finding in lint_graph(graph) if finding.kind == "near_duplicate"]
    assert set(finding.stations) == {one, other} and "look alike" in finding.message
