"""ReasonMap-Plus questions: records, templates and seeded generation, checked against brute force on the graph."""

from __future__ import annotations

import json
import re
from collections import Counter, deque

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import write_jsonl
from benchmarks.plus.questions import (
    format_type_counts,
    generate_plus_questions,
    generate_plus_set,
    line_label,
    plus_question_text,
)
from benchmarks.plus.records import ANSWER_KINDS, OPTION_LETTERS, PLUS_TYPES, PlusPrediction, PlusQuestion
from graphkit import city_graph
from graphkit.graph import TransitGraph
from graphkit.stats import city_stats
from reasonmap.cli import main
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CLOSED_LOOP,
    DISCONNECTED,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_LINE,
    ONE_STATION,
    SPLIT,
    SPLIT_OVERLAY,
    graph_of,
)

SMALL = {
    "one_station": (ONE_STATION, None),
    "one_line": (ONE_LINE, None),
    "loop": (LOOP, LOOP_OVERLAY),
    "closed_loop": (CLOSED_LOOP, None),
    "branch": (BRANCH, BRANCH_OVERLAY),
    "disconnected": (DISCONNECTED, None),
    "homonyms": (HOMONYMS, None),
}
# a path, a loop, branches, and irregular lines; easy, middle and hard maps
CITIES = ("rome", "lisboa", "beijing", "shanghai", "new_york", "sydney")


def graphs() -> list[tuple[str, TransitGraph]]:
    return [(name, graph_of(*SMALL[name])) for name in SMALL] + [(name, city_graph(name)) for name in CITIES]


@pytest.fixture(scope="module")
def generated() -> list[tuple[TransitGraph, list[PlusQuestion]]]:
    return [(graph, generate_plus_questions(graph, seed=5, per_type=12)) for _, graph in graphs()]


def stops_along(graph: TransitGraph, line: str, a: str, b: str) -> int:
    """Fewest hops from a to b on the line's own adjacency (breadth first, independent of graph.ride)."""
    adjacency = graph.lines[line].adjacency
    distance = {a: 0}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        for there in adjacency[here]:
            if there not in distance:
                distance[there] = distance[here] + 1
                queue.append(there)
    return distance[b]


def brute_force(graph: TransitGraph, question: PlusQuestion) -> str | int:
    """The answer worked out from the Metro Data lists, the slow way."""
    stations_of = {line.name: set(line.stations) for line in graph.metro.lines}
    if question.type == "Counting1":
        via = stops_along(graph, question.line, question.station_1, question.station_2) - 1
        return OPTION_LETTERS[question.options.index(via)]
    if question.type == "Counting2":
        return sum(question.station in stations for stations in stations_of.values())
    if question.type == "Counting3":
        return len(stations_of[question.line])
    if question.type == "TorF1":
        return "yes" if question.station in stations_of[question.line] else "no"
    both = any({question.station_1, question.station_2} <= stations for stations in stations_of.values())
    return "yes" if both else "no"


def test_every_answer_agrees_with_brute_force_on_the_graph(generated):
    for graph, questions in generated:
        for question in questions:
            assert question.answer == brute_force(graph, question), question.id
            if question.type == "Counting2":
                assert question.answer == len(graph.lines_at(question.station))
            if question.type == "TorF2":
                shares = bool(set(graph.lines_at(question.station_1)) & set(graph.lines_at(question.station_2)))
                assert (question.answer == "yes") == shares
                cost = graph.least_cost(question.station_1, question.station_2)
                assert (question.answer == "yes") == (cost is not None and cost[0] == 0)


def test_records_name_their_entities_and_the_map(generated):
    for graph, questions in generated:
        stats = city_stats(graph.metro)
        assert len({q.id for q in questions}) == len(questions)
        for kind in PLUS_TYPES:
            ids = [q.id for q in questions if q.type == kind]
            # seed 5 (the fixture's): the seed is in the id, so two seeds' files never share one
            assert ids == [f"{graph.city or 'custom'}-s5-plus-{kind}-{n:03d}" for n in range(len(ids))]
        for question in questions:
            assert question.difficulty_city == stats.difficulty and question.city == (graph.city or "custom")
            assert question.country == graph.metro.country
            record = question.to_dict()
            assert PlusQuestion.from_dict(json.loads(json.dumps(record))) == question
            assert record["answer"] == question.answer and record["type"] == question.type
            for name in ("station", "station_1", "station_2"):
                if record.get(name) is not None:
                    assert record[name] in graph.stations and record[name] in question.question
            if "line" in record:
                assert record["line"] in graph.lines and line_label(record["line"]) in question.question
            assert ("options" in record) == (question.type == "Counting1")
            if question.type == "TorF2" or question.type == "Counting1":
                assert question.station_1 != question.station_2


def test_counting1_options_are_four_distinct_values_near_the_truth_with_balanced_letters(generated):
    for _, questions in generated:
        choices = [q for q in questions if q.type == "Counting1"]
        for question in choices:
            values = question.options
            truth = values[OPTION_LETTERS.index(question.answer)]
            assert len(set(values)) == 4 and min(values) >= 0
            assert all(abs(value - truth) <= 3 for value in values)
            for letter, value in zip(OPTION_LETTERS, values):
                assert f"\n{letter}. {value}\n" in question.question
        letters = Counter(q.answer for q in choices)
        if len(choices) == 12:  # a map with pairs enough: each letter 3 times
            assert letters == {letter: 3 for letter in OPTION_LETTERS}


def test_true_false_answers_are_balanced_and_maps_without_a_no_give_none(generated):
    for graph, questions in generated:
        for kind in ("TorF1", "TorF2"):
            answers = Counter(q.answer for q in questions if q.type == kind)
            assert answers["yes"] == answers["no"]
            if len(graph.lines) >= 2 and len(graph.stations) >= 6:
                assert answers["yes"] == 6
    one_line = generate_plus_questions(city_graph("sydney"), per_type=10)
    assert Counter(q.type for q in one_line) == {"Counting1": 10, "Counting2": 10, "Counting3": 1}


def test_counting_questions_spread_over_lines_and_station_kinds():
    questions = generate_plus_questions(city_graph("beijing"), seed=0, per_type=10)
    counting2 = [q.answer for q in questions if q.type == "Counting2"]
    assert Counter(answer > 1 for answer in counting2) == {True: 5, False: 5}
    counting3 = [q.line for q in questions if q.type == "Counting3"]
    assert len(set(counting3)) == 10
    assert len({q.line for q in questions if q.type == "Counting1"}) == 10
    rome = generate_plus_questions(city_graph("rome"), per_type=10)
    assert sorted(q.line for q in rome if q.type == "Counting3") == ["Line A", "Line B", "Line C"]


def test_counting1_rides_the_short_way_round_a_loop_and_along_a_branch():
    loop = graph_of(LOOP, LOOP_OVERLAY)
    text = plus_question_text("Counting1", station_1="L0", station_2="L6", line="Line 2", options=(1, 0, 2, 3))
    assert "between L0 and L6 on Line 2, riding the shortest way" in text
    assert stops_along(loop, "Line 2", "L0", "L6") - 1 == 1  # via L7, not L1..L5
    branch = graph_of(BRANCH, BRANCH_OVERLAY)
    assert stops_along(branch, "Line B", "B2", "M4") - 1 == 3  # B1, M2, M3
    for graph in (loop, branch):
        for question in generate_plus_questions(graph, per_type=30, types=["Counting1"]):
            stops, _ = graph.ride(question.line, question.station_1, question.station_2)
            assert question.options[OPTION_LETTERS.index(question.answer)] == stops - 1


def test_generation_is_byte_identical_for_a_seed_and_changes_with_it(tmp_path):
    chosen = [city_graph(name) for name in ("rome", "beijing", "new_york")]
    write_jsonl(tmp_path / "a.jsonl", generate_plus_set(chosen, seed=3))
    write_jsonl(tmp_path / "b.jsonl", generate_plus_set(chosen, seed=3))
    write_jsonl(tmp_path / "c.jsonl", generate_plus_set(chosen, seed=4))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() != (tmp_path / "c.jsonl").read_bytes()


def test_one_types_count_never_shifts_another_types_draws():
    graph = city_graph("lisboa")
    alone = generate_plus_questions(graph, seed=1, per_type=6, types=["TorF2"])
    mixed = generate_plus_questions(graph, seed=1, per_type=6, types=["Counting1", "TorF2"])
    assert [q for q in mixed if q.type == "TorF2"] == alone
    more = generate_plus_questions(graph, seed=1, per_type=6, types=["TorF2", "Counting3"])
    assert [q for q in more if q.type == "TorF2"] == alone


def test_generation_rejects_unknown_types_and_negative_counts():
    graph = graph_of(ONE_LINE)
    with pytest.raises(ValueError, match="Counting4"):
        generate_plus_questions(graph, types=["Counting4"])
    with pytest.raises(ValueError, match="non-negative"):
        generate_plus_questions(graph, per_type=-1)
    assert generate_plus_questions(graph, per_type=0) == []


def test_templates_in_the_house_style():
    assert plus_question_text("Counting2", station="X") == (
        "According to the subway map, how many lines serve X? Answer with a single integer."
    )
    assert plus_question_text("Counting3", line="Red Line") == (
        "According to the subway map, how many stations does Red Line have? Count every station of the line once, "
        "both ends and any branches included. Answer with a single integer."
    )
    assert plus_question_text("TorF1", station="X", line="Q") == (
        "According to the subway map, is X a station of Line Q? Answer yes or no."
    )
    assert plus_question_text("TorF2", station_1="X", station_2="Y") == (
        "According to the subway map, can one ride from X to Y without changing lines? Answer yes or no."
    )
    counting1 = plus_question_text("Counting1", station_1="X", station_2="Y", line="Line 1", options=(5, 3, 4, 6))
    assert counting1.endswith("\nA. 5\nB. 3\nC. 4\nD. 6\nAnswer with the letter of the correct option.")
    with pytest.raises(ValueError, match="station_2"):
        plus_question_text("TorF2", station_1="X")
    with pytest.raises(ValueError, match="options"):
        plus_question_text("Counting1", station_1="X", station_2="Y", line="1", options=(1, 2))
    with pytest.raises(ValueError, match="Counting1"):
        plus_question_text("Counting9", station="X")


def valid_record(**changes):
    record = {
        "id": "x-plus-Counting1-000",
        "type": "Counting1",
        "country": "c",
        "city": "x",
        "station_1": "P",
        "station_2": "Q",
        "line": "Line 1",
        "question": "...",
        "options": {"A": 3, "B": 1, "C": 2, "D": 4},
        "answer": "C",
        "difficulty_city": "easy",
    }
    record.update(changes)
    return {key: value for key, value in record.items() if value is not None}


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"type": "Counting7"}, "type"),
        ({"station_2": None}, "station_2"),
        ({"options": {"A": 1, "B": 1, "C": 2, "D": 3}}, "options"),
        ({"options": {"A": 1, "B": 2, "C": 3}}, "options"),
        ({"options": {"A": -1, "B": 2, "C": 3, "D": 4}}, "options"),
        ({"answer": "E"}, "answer"),
        ({"answer": 2}, "answer"),
        ({"difficulty_city": "medium"}, "difficulty_city"),
        ({"type": "Counting2", "station": "P", "answer": "2"}, "answer"),
        ({"type": "Counting2", "station": "P", "answer": True}, "answer"),
        ({"type": "Counting3", "answer": -3}, "answer"),
        ({"type": "TorF1", "station": "P", "answer": "maybe"}, "answer"),
        ({"type": "TorF2", "answer": "Yes"}, "answer"),
    ],
)
def test_invalid_records_name_the_field(changes, field):
    with pytest.raises(InvalidRecord, match=rf"q\.jsonl:7: .*'{field}'"):
        PlusQuestion.from_dict(valid_record(**changes), where="q.jsonl:7")


def test_predictions_accept_the_type_name_or_no_question_field():
    row = {"id": 1, "model": "m", "response": None, "tokens": 3}
    assert PlusPrediction.from_dict(row) == PlusPrediction("1", "m", "", 3, None)
    assert PlusPrediction.from_dict(dict(row, question="TorF1")).question == "TorF1"
    with pytest.raises(InvalidRecord, match="'question'"):
        PlusPrediction.from_dict(dict(row, question="short"))
    with pytest.raises(InvalidRecord, match="'tokens'"):
        PlusPrediction.from_dict(dict(row, tokens=-1))


def test_answer_kinds_cover_every_type():
    assert set(ANSWER_KINDS) == set(PLUS_TYPES)
    assert set(ANSWER_KINDS.values()) == {"choice", "integer", "yes_no"}


def test_cli_generates_plus_records_and_prints_the_type_table(tmp_path, capsys):
    out = tmp_path / "plus.jsonl"
    assert main(["generate", "--task", "plus", "--cities", "rome,lisboa", "--per-type", "4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    first = out.read_bytes()
    records = [json.loads(line) for line in first.decode().splitlines()]
    assert {record["type"] for record in records} == set(PLUS_TYPES)
    assert re.search(r"^TorF2\s+8\s+no:4 yes:4$", printed, re.MULTILINE)
    questions = [PlusQuestion.from_dict(record) for record in records]
    assert format_type_counts(questions) == printed.rstrip("\n")
    assert main(["generate", "--task", "plus", "--cities", "rome,lisboa", "--per-type", "4", "--out", str(out)]) == 0
    assert out.read_bytes() == first


def test_plus_questions_never_name_a_station_whose_name_others_share():
    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    questions = generate_plus_questions(graph, seed=0, per_type=40)
    named = {name for q in questions for name in (q.station, q.station_1, q.station_2) if name is not None}
    assert named and not named & {"Hub", "Hub@Red", "Hub@Blue"}
    assert named <= set(graph.stations)
    new_york = city_graph("new_york")
    for question in generate_plus_questions(new_york, seed=0, per_type=20):
        for name in (question.station, question.station_1, question.station_2):
            assert name is None or new_york.namesakes(name) == (name,)


def test_two_seeds_never_share_an_id_and_seed_0_keeps_its_ids():
    graph = city_graph("rome")
    zero, one = (generate_plus_questions(graph, seed=seed, per_type=2) for seed in (0, 1))
    assert [q.id for q in zero if q.type == "Counting3"] == ["rome-plus-Counting3-000", "rome-plus-Counting3-001"]
    assert {q.id for q in one} == {q.id.replace("rome-", "rome-s1-", 1) for q in zero}
    assert not {q.id for q in zero} & {q.id for q in one}
