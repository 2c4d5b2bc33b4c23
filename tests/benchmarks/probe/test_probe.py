"""Perception probes: references checked against an independent reading of the Metro Data, a parser that never
raises, hand-counted scores, and oracle/echo end to end through the command line (generate, baseline, score,
eval)."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.probe_solvers import probe_oracle_answer
from benchmarks.probe.questions import PROBE_TYPES, ProbeQuestion, generate_probe_questions
from benchmarks.probe.scoring import ProbeAnswer, parse_answer, score_answer
from benchmarks.records import Invalid
from graphkit.cities import city_graph
from reasonmap.cli import main

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "graphkit" / "data" / "metro"
_SUFFIX = re.compile(r"\s*[（(][^）)]*[）)]\s*$")  # "（换乘站）", "(Transfer Station)", "(Branch-starting Station)"


# -- an independent reading of the Metro Data and its overlay ------------------------------------------------------


def _read_network(country: str, city: str) -> tuple[dict[str, list[str]], dict[str, dict[str, set[str]]]]:
    """Each line's stations (names without their bracketed notes, aliases folded) and each line's adjacency: the
    listed order, a loop's two ends joined, a branch hung at the station it leaves from (the overlay's words)."""
    data = json.loads((DATA / country / f"{city}.json").read_text("utf-8"))
    overlay_path = DATA / country / f"{city}.overlay.json"
    overlay = json.loads(overlay_path.read_text("utf-8")) if overlay_path.exists() else {}
    alias = {spelling: entry["station"] for entry in overlay.get("aliases", []) for spelling in entry["spellings"]}
    lines: dict[str, list[str]] = {}
    for line, names in data.items():
        stations = []
        for name in names:
            name = _SUFFIX.sub("", name)
            name = alias.get(name, name)
            if name not in stations:
                stations.append(name)
        lines[line] = stations
    adjacency: dict[str, dict[str, set[str]]] = {}
    for line, stations in lines.items():
        near: dict[str, set[str]] = {station: set() for station in stations}
        for a, b in zip(stations, stations[1:]):
            near[a].add(b)
            near[b].add(a)
        adjacency[line] = near
    for loop in overlay.get("loops", []):
        stations = lines[loop["line"]]
        adjacency[loop["line"]][stations[0]].add(stations[-1])
        adjacency[loop["line"]][stations[-1]].add(stations[0])
    for branch in overlay.get("branches", []):
        stations, near = lines[branch["line"]], adjacency[branch["line"]]
        first = stations.index(branch["first"])
        before = stations[first - 1]  # the list runs on from the main line's end into the branch
        near[before].discard(branch["first"])
        near[branch["first"]].discard(before)
        near[branch["leaves_at"]].add(branch["first"])
        near[branch["first"]].add(branch["leaves_at"])
    return lines, adjacency


def _shortest(near: dict[str, set[str]], a: str, b: str) -> list[list[str]]:
    """Every shortest path from ``a`` to ``b`` (breadth first)."""
    paths = {a: [[a]]}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        for there in sorted(near[here]):
            if there not in paths:
                paths[there] = [path + [there] for path in paths[here]]
                queue.append(there)
            elif len(paths[there][0]) == len(paths[here][0]) + 1:
                paths[there] += [path + [there] for path in paths[here]]
    return paths[b]


def _label(line: str) -> str:
    return line if "line" in line.lower() or re.search(r"[\u3400-\u9fff]", line) else f"Line {line}"


def _expected(question: ProbeQuestion, lines, adjacency):
    if question.type == "lines_at":
        return {_label(line) for line, stations in lines.items() if question.station in stations}
    if question.type == "neighbours":
        return adjacency[question.line][question.station]
    if question.type == "same_line":
        shared = any(question.station_1 in s and question.station_2 in s for s in lines.values())
        return "yes" if shared else "no"
    paths = _shortest(adjacency[question.line], question.station_1, question.station_2)
    if question.type == "follow":
        assert len(paths) == 1, "a follow probe has one shortest ride"
        return paths[0]
    return len(paths[0]) - 2


@pytest.fixture(scope="module", params=[("china", "beijing"), ("italy", "rome")])
def network(request):
    country, city = request.param
    questions = generate_probe_questions(city_graph(city), seed=0, per_type=60)
    return city, questions, *_read_network(country, city)


def test_every_reference_agrees_with_an_independent_reading_of_the_metro_data(network):
    city, questions, lines, adjacency = network
    assert {q.type for q in questions} == set(PROBE_TYPES)
    for question in questions:
        expected = _expected(question, lines, adjacency)
        found = question.answer
        if question.type in ("lines_at", "neighbours"):
            assert set(found) == expected and len(found) == len(expected), question
        elif question.type == "follow":
            assert list(found) == expected, question
        else:
            assert found == expected, question


def test_the_loops_and_the_branch_are_asked_as_the_overlay_says(network):
    city, questions, lines, adjacency = network
    neighbours = {(q.line, q.station): set(q.answer) for q in questions if q.type == "neighbours"}
    if city == "beijing":  # the overlay's notes: the loops' listed ends are neighbours (Chinese names)
        assert neighbours[("Line 2", "车公庄站")] == {"阜成门站", "西直门站"}
        assert neighbours[("Line 10", "火器营站")] == {"长春桥站", "巴沟站"}
    if city == "rome":  # Line B forks at Bologna: Policlinico behind, Tiburtina on to Rebibbia, S. Agnese on B1
        assert neighbours[("Line B", "Bologna Station")] == {
            "Policlinico Station",
            "Tiburtina Station",
            "S. Agnese Annibaliano Station",
        }
        crossing = [
            q.answer for q in questions if q.type == "follow" and "Bologna Station" in q.answer[1:-1]
        ]  # rides through the fork, never through Rebibbia to the branch
        assert crossing and all("Rebibbia Station" not in a or "Libia Station" not in a for a in crossing)


def test_answers_name_stations_as_the_data_writes_them_homonyms_included():
    """New York's homonyms are split in the graph (``Kings Hwy Station@B``); a probe's answer shows the name."""
    data = json.loads((DATA / "america" / "new_york.json").read_text("utf-8"))
    written = {_SUFFIX.sub("", name) for names in data.values() for name in names}
    questions = generate_probe_questions(city_graph("new_york"), seed=0, per_type=60, types=["follow", "neighbours"])
    names = {name for question in questions for name in question.answer}
    assert names and names <= written
    graph = city_graph("new_york")
    shared = {graph.display_name(station) for station in graph.stations if len(graph.namesakes(station)) > 1}
    assert names & shared  # homonyms are in the answers


def test_a_map_truth_names_the_lines_as_drawn_and_records_its_knobs(tmp_path, capsys):
    truth = tmp_path / "rome.truth.json"
    drawn = {"Line A": "Linea A", "Line B": "Linea B", "Line C": "Linea C"}
    knobs = {"colour_distance": 12.5, "crossings": 3, "label_height_px": 9.0}
    record = {"city": "rome", "lines": {line: {"name": name} for line, name in drawn.items()}, "knobs": knobs}
    truth.write_text(json.dumps(record), "utf-8")
    out = tmp_path / "probe.jsonl"
    assert (
        main(["generate", "--task", "probe", "--city", "rome", "--truth", str(truth), "--out", str(out), "--quiet"])
        == 0
    )
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert all(row["knobs"] == knobs for row in rows)
    named = [row for row in rows if "line" in row]
    assert named and all(
        row["line_name"] == drawn[row["line"]] and drawn[row["line"]] in row["question"] for row in named
    )
    assert {name for row in rows if row["type"] == "lines_at" for name in row["answer"]} <= set(drawn.values())
    other = tmp_path / "kl.truth.json"
    other.write_text(json.dumps({**record, "city": "kl"}), "utf-8")
    capsys.readouterr()
    assert main(["generate", "--task", "probe", "--city", "rome", "--truth", str(other), "--out", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(other) in err and "'kl'" in err
    assert main(["generate", "--task", "plus", "--city", "rome", "--truth", str(truth), "--out", str(out)]) != 0


# -- reading and scoring answers ------------------------------------------------------------------------------------


def _question(kind: str, answer) -> ProbeQuestion:
    return ProbeQuestion("x", kind, "c", "city", "...", answer, station="S", line="L", station_1="P", station_2="Q")


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=300), st.none(), st.integers()), kind=st.sampled_from(PROBE_TYPES))
def test_reading_never_raises_and_scores_stay_shares(text, kind):
    parsed = parse_answer(text, kind)
    assert isinstance(parsed, ProbeAnswer | Invalid)
    answer = {"same_line": "yes", "count_between": 2}.get(kind, ("P Station", "R Station", "Q Station"))
    score = score_answer(parsed, _question(kind, answer))
    assert score.correct in (0, 1) and 0.0 <= score.partial <= 1.0
    assert score.correct == 0 or score.partial == 1.0


@pytest.mark.parametrize(
    ("kind", "text", "names"),
    [
        ("follow", "Answer: Termini, Repubblica, Spagna", ("Termini", "Repubblica", "Spagna")),
        ("follow", "Going north.\nTermini → Repubblica → Spagna.", ("Termini", "Repubblica", "Spagna")),
        ("neighbours", "<think>Line 2 runs round.</think>\n1. 阜成门站\n2. 西直门站", ("阜成门站", "西直门站")),
        ("lines_at", "The final answer is: **Line 2** and **Line 10**.", ("Line 2", "Line 10")),
        ("lines_at", "\\boxed{2号线、10号线}", ("2号线", "10号线")),
        ("neighbours", "<answer>\n- Policlinico\n- Tiburtina\n</answer>", ("Policlinico", "Tiburtina")),
    ],
)
def test_lists_are_read_in_every_usual_shape(kind, text, names):
    assert parse_answer(text, kind) == ProbeAnswer(names)


def test_an_empty_or_unanswered_list_is_invalid_not_an_error():
    assert parse_answer("", "follow") == Invalid("empty response")
    assert parse_answer("<think>still thinking", "follow") == Invalid("no answer after reasoning")
    assert parse_answer(None, "lines_at") == Invalid("not text")
    with pytest.raises(ValueError, match="probe_type must be one of"):
        parse_answer("x", "TorF2")


def test_sets_score_f1_and_sequences_edit_similarity_counted_by_hand():
    # rapidfuzz 3.14.6 normalises the Levenshtein distance by its maximum, which with unit weights is the longer
    # length (rapidfuzz/distance/Levenshtein_py.py lines 11-23, _levenshtein_maximum): similarity = 1 − d / max
    lines = _question("lines_at", ("Line 2", "Line 10", "Line 13"))
    # {2} ∩ {2, 10, 13} = 1 name; F1 = 2·1 / (2 + 3) = 0.4 (the answer gave 2 names: 2 and 4)
    found = score_answer(ProbeAnswer(("2号线", "Line 4")), lines)
    assert (found.correct, found.partial) == (0, 0.4)
    found = score_answer(ProbeAnswer(("line 13", "10号线", "LINE 2")), lines)
    assert (found.correct, found.partial) == (1, 1.0)
    ride = _question("follow", ("A Station", "B Station", "C Station", "D Station"))
    # one name left out of four: one edit, 1 − 1/4 = 0.75
    found = score_answer(ProbeAnswer(("A", "C", "D")), ride)
    assert (found.correct, found.partial) == (0, 0.75)
    # the right names backwards: the edit-distance table of A B C D against D C B A (filled by hand) ends at 4:
    # 1 − 4/4 = 0
    found = score_answer(ProbeAnswer(("D", "C", "B", "A")), ride)
    assert (found.correct, found.partial) == (0, 0.0)
    assert score_answer(ProbeAnswer(("a station", "B", "c.", "D STATION")), ride).correct == 1
    found = score_answer(ProbeAnswer(3), _question("count_between", 3))
    assert (found.correct, found.partial) == (1, 1.0)
    found = score_answer(ProbeAnswer("no"), _question("same_line", "yes"))
    assert (found.correct, found.partial) == (0, 0.0)


def test_same_line_and_count_between_are_plus_torf2_and_counting1_in_other_words():
    """One home for what plus and the probes both ask: the same pairs give the same truths."""
    from benchmarks.plus.questions import generate_plus_questions

    graph = city_graph("rome")
    plus = generate_plus_questions(graph, per_type=40, types=["TorF2", "Counting1"])
    probes = generate_probe_questions(graph, per_type=40, types=["same_line", "count_between"])
    torf2 = {(q.station_1, q.station_2): q.answer for q in plus if q.type == "TorF2"}
    same = {(q.station_1, q.station_2): q.answer for q in probes if q.type == "same_line"}
    assert set(torf2.values()) == set(same.values()) == {"yes", "no"}
    counts = {(q.line, q.station_1, q.station_2): q.options[ord(q.answer) - 65] for q in plus if q.type == "Counting1"}
    between = {(q.line, q.station_1, q.station_2): q.answer for q in probes if q.type == "count_between"}
    for shared in set(torf2) & set(same):
        assert torf2[shared] == same[shared]
    for shared in set(counts) & set(between):
        assert counts[shared] == between[shared]


# -- end to end ------------------------------------------------------------------------------------------------------


def _generated(tmp_path: Path) -> Path:
    path = tmp_path / "probe.jsonl"
    argv = ["generate", "--task", "probe", "--city", "beijing,rome", "--per-type", "6", "--out", str(path), "--quiet"]
    assert main(argv) == 0
    return path


def test_oracle_scores_full_marks_and_echo_none_through_the_command_line(tmp_path):
    questions = _generated(tmp_path)
    for name in ("oracle", "echo"):
        predictions = tmp_path / f"{name}.jsonl"
        assert main(["baseline", name, "--questions", str(questions), "--out", str(predictions)]) == 0
        report = tmp_path / f"report-{name}"
        argv = ["score", "--task", "probe", "--questions", str(questions), "--predictions", str(predictions)]
        assert main([*argv, "--out", str(tmp_path / f"scored-{name}.jsonl"), "--report", str(report)]) == 0
        (row,) = json.loads((report / "summary.json").read_text("utf-8"))["models"].values()
        assert row["n"] == 60 and set(row["per_type"]) == set(PROBE_TYPES)
        if name == "oracle":
            assert row["accuracy"] == 1.0 and row["partial"] == 1.0 and row["n_invalid"] == 0
        else:  # the question's own stations, a made-up line, "maybe": never one right answer
            assert row["accuracy"] == 0.0
        table = (report / "table.md").read_text("utf-8")
        assert all(f" {kind} " in table.splitlines()[2] for kind in PROBE_TYPES)


def test_every_prompt_mode_asks_the_probes(tmp_path):
    questions = _generated(tmp_path)
    maps = tmp_path / "maps"
    maps.mkdir()
    from PIL import Image

    for city in ("beijing", "rome"):
        Image.new("RGB", (8, 8), "white").save(maps / f"{city}.png")
    for mode in ("full", "text-only", "symbolic"):
        out = tmp_path / f"{mode}.jsonl"
        assert (
            main(["prompts", "--questions", str(questions), "--mode", mode, "--maps", str(maps), "--out", str(out)])
            == 0
        )
        rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
        assert len(rows) == 60 and {row["question"] for row in rows} == set(PROBE_TYPES)


def test_eval_asks_and_scores_route_and_probe_questions(tmp_path):
    from benchmarks.probe.questions import generate_probe_set
    from benchmarks.splits import split_cities
    from graphkit.cities import city_names
    from tests.baselines.chat_server import ChatServer, Reply, last_message_text

    graphs = {name: city_graph(name) for name in split_cities("test", city_names())}
    answers = {q.question: probe_oracle_answer(q, graphs[q.city]) for q in generate_probe_set(graphs.values())}

    def script(call):
        text = last_message_text(call.body)
        return Reply(content=next((a for asked, a in answers.items() if text.endswith(asked)), "I cannot tell."))

    with ChatServer(script) as server:
        argv = ["eval", "--endpoint", server.url, "--model", "m", "--out", str(tmp_path / "run"), "--quiet"]
        assert main([*argv, "--tasks", "route,probe", "--modes", "text-only", "--limit", "5"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    rows = {(row["task"], row["mode"]): row for row in results["results"]}
    assert set(rows) == {("route", "text-only"), ("probe", "text-only")}
    assert rows[("probe", "text-only")]["n"] == 5 and rows[("probe", "text-only")]["metrics"]["accuracy"] == 1.0


def test_the_inspect_task_scores_probes_exactly_and_partly(tmp_path):
    pytest.importorskip("inspect_ai")
    import inspect_ai
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from reasonmap.inspect_tasks import probe

    graph = city_graph("rome")
    questions = generate_probe_questions(graph, seed=1, per_type=1)
    path = tmp_path / "probe.jsonl"
    path.write_text("".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in questions), "utf-8")
    follow = next(q for q in questions if q.type == "follow")
    answers = {q.question: probe_oracle_answer(q, graph) for q in questions}
    # the follow answer without its first station: one name left out of n, partial 1 − 1/n
    answers[follow.question] = "Answer: " + ", ".join(follow.answer[1:])

    def respond(messages, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm/model", answers.get(messages[-1].text, "no idea"))
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    model = get_model("mockllm/model", custom_outputs=respond)
    (log,) = inspect_ai.eval(
        probe(mode="text-only", questions=str(path)), model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    scores = {sample.id: next(iter(sample.scores.values())) for sample in log.samples}
    assert {id: score.value for id, score in scores.items()} == {q.id: int(q is not follow) for q in questions}
    assert scores[follow.id].metadata["partial"] == pytest.approx(1 - 1 / len(follow.answer))
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx(4 / 5) and metrics["accuracy_follow"] == 0.0
    assert metrics["partial"] == pytest.approx((4 + 1 - 1 / len(follow.answer)) / 5)


def test_a_name_with_a_spaced_hyphen_stays_one_name():
    # Budapest's "Szent Gellért tér - Műegyetem Station": the oracle's follow answers were read as two names
    text = "Answer: Fővám tér Station, Szent Gellért tér - Műegyetem Station, Móricz Zsigmond körtér Station"
    found = parse_answer(text, "follow")
    assert found == ProbeAnswer(
        ("Fővám tér Station", "Szent Gellért tér - Műegyetem Station", "Móricz Zsigmond körtér Station")
    )


def test_an_explanation_after_the_answer_is_not_read_as_names():
    text = "Answer: Policlinico, Tiburtina\n\nExplanation: Bologna is where Line B forks, so three lines meet."
    assert parse_answer(text, "neighbours") == ProbeAnswer(("Policlinico", "Tiburtina"))


def test_a_probe_with_knobs_is_hashable_and_picklable_and_reads_back_as_written():
    import pickle

    record = generate_probe_questions(city_graph("rome"), per_type=1, types=["follow"])[0].to_dict()
    record["knobs"] = {"crossings": 3, "colour_distance": 12.5}
    question = ProbeQuestion.from_dict(record)
    assert hash(question) == hash(pickle.loads(pickle.dumps(question)))
    assert question.to_dict() == {**record, "knobs": {"colour_distance": 12.5, "crossings": 3}}


def test_synth_writes_probes_tied_to_each_drawn_map_and_the_oracle_scores_them_fully(tmp_path):
    out = tmp_path / "set"
    argv = ["synth", "--count", "2", "--stations", "20", "--lines", "3", "--loops", "1", "--branches", "1"]
    assert main([*argv, "--script", "cjk", "--render", "--probes", "--out", str(out), "--quiet"]) == 0
    assert not (out / "questions.jsonl").exists()  # probes alone, without --questions
    rows = [json.loads(line) for line in (out / "probes.jsonl").read_text("utf-8").splitlines()]
    truths = {
        c: json.loads((out / "maps" / f"{c}.truth.json").read_text("utf-8")) for c in ("synth_0000", "synth_0001")
    }
    drawn = {(c, line): entry["name"] for c, truth in truths.items() for line, entry in truth["lines"].items()}
    named = [row for row in rows if "line" in row]
    assert named and all(row["line_name"] == drawn[(row["city"], row["line"])] for row in named)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["options"]["probes"] is True
    predictions = tmp_path / "oracle.jsonl"
    metro = ["--metro-dir", str(out / "metro")]
    assert (
        main(["baseline", "oracle", "--questions", str(out / "probes.jsonl"), *metro, "--out", str(predictions)]) == 0
    )
    report = tmp_path / "report"
    argv = ["score", "--questions", str(out / "probes.jsonl"), "--predictions", str(predictions)]
    assert main([*argv, "--out", str(tmp_path / "scored.jsonl"), "--report", str(report)]) == 0
    (row,) = json.loads((report / "summary.json").read_text("utf-8"))["models"].values()
    assert row["accuracy"] == 1.0 and row["n"] == len(rows)
