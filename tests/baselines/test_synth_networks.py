"""Synthetic networks through the baselines: textualizations round-trip, the oracles score full marks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from baselines.solvers import run_solver
from baselines.textualize import TEXTUALIZATIONS, identical, parse, render
from benchmarks.reasonmap.generate import Quota, generate_questions
from benchmarks.reasonmap.scoring import score_predictions
from graphkit.graph import compile_graph
from graphkit.synth import synthesize_network
from tests.graphkit.test_synth import shapes


def graph_of(shape):
    network = synthesize_network(**shape)
    return compile_graph(network.metro, network.overlay)


@pytest.mark.parametrize("name", tuple(TEXTUALIZATIONS))
@settings(max_examples=25)
@given(shape=shapes())
def test_textualizations_of_synthetic_networks_round_trip(name, shape):
    graph = graph_of(shape)
    text = render(graph, name).text
    rebuilt = parse(text, name)
    assert identical(rebuilt, graph)
    assert render(rebuilt, name).text == text


@pytest.mark.parametrize("solver", ["oracle", "text-oracle"])
@settings(max_examples=15)
@given(shape=shapes(most_stations=30))
def test_the_oracles_score_full_marks_on_synthetic_networks(solver, shape):
    graph = graph_of(shape)
    questions = generate_questions(graph, seed=shape["seed"] % 1000, per_city=8, quota=Quota(4, 3, 1))
    table = {question.id: question for question in questions}
    predictions = run_solver(solver, questions, lambda question: graph)
    verdicts, skipped = score_predictions(table, predictions, lambda question: graph)
    assert skipped == [] and len(verdicts) == 2 * len(questions)
    assert all(verdict.correct for verdict in verdicts)
