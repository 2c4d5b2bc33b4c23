"""Symbolic solvers: ceilings, floors and the noisy oracle."""

from __future__ import annotations

import pytest

from baselines.solvers import SOLVERS, Noise, run_solver, solve
from benchmarks.reasonmap.generate import generate_set
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import ParsedAnswer
from benchmarks.reasonmap.resolution import Unresolved, graph_names
from benchmarks.reasonmap.scoring import score_predictions
from graphkit import city_graph


@pytest.fixture(scope="module")
def questions():
    return generate_set([city_graph(c) for c in ("rome", "beijing", "new_york", "singapore")], seed=4, per_city=16)


def accuracy(verdicts, kind):
    chosen = [v for v in verdicts if v.question == kind]
    return sum(v.correct for v in chosen) / len(chosen)


def scored(name, questions, **options):
    table = {q.id: q for q in questions}
    predictions = run_solver(name, questions, lambda q: city_graph(q.city), seed=1, **options)
    verdicts, skipped = score_predictions(table, predictions, lambda q: city_graph(q.city))
    assert skipped == [] and len(verdicts) == 2 * len(questions)
    return verdicts


def test_every_solver_answers_both_kinds_in_the_benchmark_format(questions):
    for name in SOLVERS:
        predictions = run_solver(name, questions[:6], lambda q: city_graph(q.city))
        assert [p.question for p in predictions[:2]] == ["short", "long"]
        assert all(p.model == f"baseline:{name}" for p in predictions)
        assert all(isinstance(parse_answer(p.response, kind=p.question), ParsedAnswer) for p in predictions)


def test_the_oracle_is_the_ceiling_and_the_floors_are_below(questions):
    oracle = scored("oracle", questions)
    assert accuracy(oracle, "short") == accuracy(oracle, "long") == 1.0
    echo = scored("echo", questions)
    assert accuracy(echo, "short") == 0.0 and all(v.failure == "unknown_line" for v in echo)
    direct = scored("direct-line", questions)
    easy = [q.id for q in questions if q.question_transfer_count == 0]
    assert 0.0 < accuracy(direct, "short") < 1.0
    assert all(v.correct for v in direct if v.id in easy)


def test_noise_lowers_accuracy_as_its_rates_grow(questions):
    quiet = scored("noisy", questions, noise=Noise(0, 0, 0, 0))
    some = scored("noisy", questions, noise=Noise(0.3, 0.3, 0.0, 0.0))
    loud = scored("noisy", questions, noise=Noise(1.0, 1.0, 0.0, 0.0))
    assert accuracy(quiet, "short") == 1.0
    assert accuracy(loud, "short") < accuracy(some, "short") < 1.0


def test_solvers_are_deterministic_for_a_seed(questions):
    question = questions[0]
    graph = city_graph(question.city)
    loud = Noise(0.5, 0.5, 0.5, 0.5)
    first = [solve("noisy", q, city_graph(q.city), "long", seed=3, noise=loud) for q in questions]
    again = [solve("noisy", q, city_graph(q.city), "long", seed=3, noise=loud) for q in questions]
    other = [solve("noisy", q, city_graph(q.city), "long", seed=4, noise=loud) for q in questions]
    assert first == again and first != other
    with pytest.raises(ValueError, match="oracle"):
        solve("psychic", question, graph, "short")
    with pytest.raises(ValueError, match="probability"):
        Noise(wrong_line=1.5)


def test_colour_likeness_picks_the_closest_line():
    graph = city_graph("rome")
    question = next(q for q in generate_set([graph], seed=2) if q.question_transfer_count == 0)
    line = question.routes[0][0].route_name
    others = sorted(set(graph.lines) - {line})
    colours = {line: "#ff0000", others[0]: "#0000ff", others[1]: "#fe0101"}
    text = solve("noisy", question, graph, "short", noise=Noise(1.0, 0, 0, 0, colours=colours))
    station_lines = graph.lines_at(question.station_1)
    expected = others[1] if others[1] in station_lines else None
    if expected:
        assert f"Route Name: {expected}" in text
    else:  # the departure is served by one line only: any other line is a guess
        assert f"Route Name: {line}" not in text


def test_misread_noise_misspells_one_station_wherever_it_is_named(questions):
    from graphkit.names import fold

    for question in questions[:40]:
        graph = city_graph(question.city)
        text = solve("noisy", question, graph, "short", noise=Noise(0, 0, 0, 0, misread=1.0))
        parsed = parse_answer(text)
        assert isinstance(parsed, ParsedAnswer)
        names = graph_names(graph)  # a name several stations share is read on its section's line
        named = {(s.departure_stop, s.route_name) for s in parsed.sections}
        named |= {(s.arrival_stop, s.route_name) for s in parsed.sections}
        unknown = {name for name, line in named if isinstance(names.station(name, names.line(line)), Unresolved)}
        assert len(unknown) == 1, (text, unknown)
        assert not {fold(graph.display_name(name)) for name in graph.stations} & {fold(unknown.pop())}
    quiet = [solve("noisy", q, city_graph(q.city), "long", noise=Noise()) for q in questions[:40]]
    assert quiet == [solve("noisy", q, city_graph(q.city), "long", noise=Noise(misread=0.0)) for q in questions[:40]]
