"""A harness's file scored against a question file it was not made from is refused at its first differing row.

The hostile report's cases (campaign 4): E70, an lmms-eval 0.4 log (rows matched by ``doc_id`` as a position)
scored against another seed's question file; F17, the same with an Inspect log (by id; see
``tests/reasonmap/test_inspect_tasks.py``). What each harness logs of its question, as its own code writes it:

- lmms-eval: ``input`` is ``arguments[0]``, the request's context, i.e. the task's ``doc_to_text`` of the
  document (``lmms_eval/api/task.py``, ``ConfigurableTask.construct_requests``: ``arguments = (ctx,
  generation_kwargs, doc_to_visual, doc_id, task, split)``; ``lmms_eval/loggers/evaluation_tracker.py``,
  ``save_results_samples``: ``sample["input"] = sample["arguments"][0]``, v0.3.0 to v0.7); up to 0.3 the row
  keeps ``doc`` too. Rows are written here by :mod:`harness_writers`, which cites the lines.
- VLMEvalKit: the sheet keeps the data set's columns (``vlmeval/inference.py`` lines 272–285, commit
  e8e78f05); ReasonMap-Plus's ``build_prompt`` sends the ``question`` cell as the text
  (``vlmeval/dataset/reasonmap_plus.py``, commit 160057c6, ``build_prompt``: ``prompt = line.get("question")``).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from baselines.answers import render_answer
from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import write_jsonl
from benchmarks.log_checks import Logged, normalized
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.harnesses import read_lmms_eval, read_vlmevalkit
from benchmarks.reasonmap.log_checks import route_mismatch
from graphkit import city_graph
from reasonmap.convert import convert_predictions
from reasonmap.score_files import ScoreSettings, evaluate_files

from .harness_writers import LMMS_EVAL_VERSIONS, lmms_eval_row, write_lmms_eval_log, write_vlmevalkit_sheet


@pytest.fixture(scope="module")
def seeds():
    """Rome's questions of two seeds, the second given the first's ids, as every seed's file had them."""
    graph = city_graph("rome")
    first = generate_questions(graph, seed=1, per_city=4)
    other = generate_questions(graph, seed=2, per_city=4)
    assert [(q.station_1, q.station_2) for q in first] != [(q.station_1, q.station_2) for q in other]
    return first, [dataclasses.replace(q, id=p.id) for q, p in zip(other, first)]


def _answer(question, kind="short"):
    return render_answer(question.routes[0], kind, question.long_template if kind == "long" else None)


def _log(tmp_path, version, questions, *, prompt=lambda q: f"<image>\n{q.question_short}", doc=lambda q: {}):
    rows = [lmms_eval_row(version, n, doc(q), [_answer(q)], prompt=prompt(q)) for n, q in enumerate(questions)]
    return write_lmms_eval_log(tmp_path, "m", "reasonmap_short", rows)


def _file(tmp_path, name, questions):
    write_jsonl(tmp_path / name, questions)
    return tmp_path / name


def _score(tmp_path, questions_path, log, **given):
    return evaluate_files(
        questions_path, log, out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(**given)
    )


@pytest.mark.parametrize("version", LMMS_EVAL_VERSIONS)
def test_an_lmms_eval_log_of_another_seed_is_refused_at_its_first_row(tmp_path, seeds, version):
    made, other = seeds
    log = _log(tmp_path, version, made)
    assert [
        v.correct for v in _score(tmp_path, _file(tmp_path, "made.jsonl", made), log, source="lmms-eval").verdicts
    ] == [1] * 4
    wanted = rf"samples_reasonmap_short\.jsonl:1: not made from the question it is matched to \('{made[0].id}', short\)"
    with pytest.raises(InvalidRecord, match=wanted) as refused:
        _score(tmp_path, _file(tmp_path, "other.jsonl", other), log, source="lmms-eval")
    message = str(refused.value)
    # what the log says and what the question says, in one line
    said = normalized(f"{made[0].station_1} to {made[0].station_2}")
    asked = normalized(f"{other[0].station_1} to {other[0].station_2}")
    assert f"asks the way from {said!r}, the question from {asked!r}" in message and "\n" not in message


def test_the_first_differing_row_is_named(tmp_path, seeds):
    made, other = seeds
    mixed = [*made[:2], *other[2:]]  # the first two rows agree
    log = _log(tmp_path, "0.4", made)
    with pytest.raises(InvalidRecord, match=r"\.jsonl:3: not made from"):
        read_lmms_eval(log, questions={q.id: q for q in mixed})


def test_an_03_log_is_checked_against_its_documents_fields(tmp_path, seeds):
    made, other = seeds
    doc = lambda q: {"id": q.id, "station_1": q.station_1, "station_2": q.station_2, "city": q.city}  # noqa: E731
    log = _log(tmp_path, "0.3", made, prompt=lambda q: "<image>", doc=doc)
    predictions, _ = read_lmms_eval(log, questions={q.id: q for q in made})
    assert len(predictions) == 4
    with pytest.raises(
        InvalidRecord, match=rf":1: .*field 'station_1': the log says {normalized(made[0].station_1)!r}"
    ):
        read_lmms_eval(log, questions={q.id: q for q in other})


def test_a_question_file_in_another_order_is_refused_a_log_in_another_order_is_not(tmp_path, seeds):
    made, _ = seeds
    log = _log(tmp_path, "0.7", made)
    reordered = [made[1], made[0], *made[2:]]
    with pytest.raises(InvalidRecord, match=r":1: not made from"):
        _score(tmp_path, _file(tmp_path, "reordered.jsonl", reordered), log, source="lmms-eval")
    # the log's own rows in another order: each still names its position
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    result = _score(tmp_path, _file(tmp_path, "made.jsonl", made), log, source="lmms-eval")
    assert sorted(v.id for v in result.verdicts) == sorted(q.id for q in made) and result.problems == ()


def test_what_legitimately_differs_is_accepted(tmp_path, seeds):
    made, _ = seeds
    question = made[0]
    same = [
        question.question_short,
        "SYSTEM: answer briefly.\n\n" + question.question_short.upper() + "\n<image>",  # a wrapper, another case
        "  ".join(question.question_short.split()),  # other white space
        f"Which lines take me from {question.station_1} to {question.station_2}?",  # a prompt of its own
        # the paper's opening in other words around it: the stations and what is asked agree
        f"Look at the map. {question.question_short.replace('According to the subway map, h', 'H')}",
    ]
    for prompt in same:
        assert route_mismatch(question, "short", Logged((prompt,))) is None, prompt
    assert route_mismatch(question, "short", Logged()) is None  # nothing logged: nothing to compare
    found = route_mismatch(question, "short", Logged(("Describe the image.",)))
    assert "holds neither the question's text nor its stations" in found


def test_a_log_of_plus_questions_is_refused_against_route_questions(tmp_path, seeds):
    from benchmarks.plus.questions import generate_plus_questions

    made, _ = seeds
    plus = generate_plus_questions(city_graph("rome"), seed=1, per_type=1)
    rows = [lmms_eval_row("0.4", n, {}, ["yes"], prompt=p.question) for n, p in enumerate(plus[: len(made)])]
    log = write_lmms_eval_log(tmp_path, "m", "reasonmap_short", rows)
    with pytest.raises(InvalidRecord, match=r":1: not made from .*holds neither"):
        convert_predictions(log, "lmms-eval", tmp_path / "p.jsonl", questions=_file(tmp_path, "q.jsonl", made))
    assert not (tmp_path / "p.jsonl").exists()


def test_the_command_line_refuses_in_one_line_with_a_non_zero_exit(tmp_path, seeds, capsys):
    from reasonmap.cli import main

    made, other = seeds
    log = _log(tmp_path, "0.4", made)
    command = ["score", "--questions", str(_file(tmp_path, "other.jsonl", other)), "--predictions", str(log)]
    command += ["--from", "lmms-eval", "--out", str(tmp_path / "s.jsonl"), "--report", str(tmp_path / "r")]
    assert main(command) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and ".jsonl:1: not made from the question" in error
    assert not (tmp_path / "s.jsonl").exists()


# -- VLMEvalKit sheets -----------------------------------------------------------------------------


def test_a_route_sheet_is_checked_against_its_station_and_question_columns(tmp_path, seeds):
    made, other = seeds
    columns = ("index", "question", "station_1", "station_2", "city", "kind", "prediction")
    rows = [[q.id, q.question_short, q.station_1, q.station_2, q.city, "short", _answer(q)] for q in made]
    sheet = write_vlmevalkit_sheet(tmp_path / "m_ReasonMap.tsv", rows, columns)
    predictions, problems = read_vlmevalkit(sheet, questions={q.id: q for q in made})
    assert len(predictions) == 4 and "4 rows checked" in problems[0].message
    with pytest.raises(InvalidRecord, match=r"m_ReasonMap\.tsv:2: not made from .*field 'station_1'"):
        read_vlmevalkit(sheet, questions={q.id: q for q in other})


def test_a_plus_sheet_with_its_rows_moved_is_refused(tmp_path):
    from benchmarks.plus.questions import generate_plus_questions

    plus = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)
    q_path = _file(tmp_path, "plus.jsonl", plus)
    columns = ("id", "question", "answer", "type", "difficulty_city", "country", "city", "prediction")
    rows = [[p.id, p.question, p.answer, p.type, p.difficulty_city, p.country, p.city, "1"] for p in plus]
    good = write_vlmevalkit_sheet(tmp_path / "m_ReasonMap-Plus.json", rows, columns)
    assert len(_score(tmp_path, q_path, good, source="vlmevalkit").verdicts) == len(plus)
    # the questions' cells shifted one row: each id now stands beside another question
    moved = [[row[0], *other[1:]] for row, other in zip(rows, [*rows[1:], rows[0]])]
    sheet = write_vlmevalkit_sheet(tmp_path / "moved_ReasonMap-Plus.json", moved, columns)
    with pytest.raises(InvalidRecord, match=rf"moved_ReasonMap-Plus\.json:1: not made from .*\('{plus[0].id}'\)"):
        _score(tmp_path, q_path, sheet, source="vlmevalkit")
    with pytest.raises(InvalidRecord, match=r":1: not made from"):
        convert_predictions(sheet, "vlmevalkit", tmp_path / "p.jsonl", questions=q_path)


def test_rows_that_log_nothing_are_counted_not_refused(tmp_path, seeds):
    made, _ = seeds
    log = tmp_path / "m" / "samples_reasonmap_short.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps({"doc_id": n, "filtered_resps": ["x"]}) + "\n" for n in range(4)), "utf-8")
    predictions, problems = read_lmms_eval(log, questions={q.id: q for q in made})
    assert len(predictions) == 4 and "4 rows record no question: not checked" in problems[0].message


def test_route_rows_matched_to_plus_questions_are_refused(tmp_path):
    # a route sheet converted with a plus question file whose ids its rows happen to carry
    from benchmarks.plus.questions import generate_plus_questions

    plus = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)
    rows = [[p.id, "short", "Route Name: Line A"] for p in plus]
    sheet = write_vlmevalkit_sheet(tmp_path / "m_ReasonMap.csv", rows, ("id", "kind", "prediction"))
    # refused before any row is read: the sheet is read as route predictions, the file holds plus questions
    with pytest.raises(
        InvalidRecord, match=r"\.csv: read as route predictions, but --questions .*plus\.jsonl holds plus"
    ):
        convert_predictions(sheet, "vlmevalkit", tmp_path / "p.jsonl", questions=_file(tmp_path, "plus.jsonl", plus))


def test_the_same_stations_asked_with_another_template_are_refused(seeds):
    # two seeds may draw one pair and give its long question another template: the ask tells them apart
    from benchmarks.reasonmap.templates import long_question

    made, _ = seeds
    question = made[0]
    other = "via_stops" if question.long_template == "via_count" else "via_count"
    asked = long_question(question.station_1, question.station_2, other)
    assert route_mismatch(question, "long", Logged((asked,))).startswith("the prompt asks for ")
    assert route_mismatch(question, "short", Logged((question.question_long,))).startswith("the prompt asks for ")
    assert route_mismatch(question, "long", Logged((question.question_long,))) is None


def test_score_compare_refuses_before_writing(tmp_path, seeds):
    from reasonmap.score_files import explain_files

    made, other = seeds
    log = _log(tmp_path, "0.4", made)
    with pytest.raises(InvalidRecord, match=r"\.jsonl:1: not made from"):
        explain_files(
            _file(tmp_path, "other.jsonl", other),
            log,
            out=tmp_path / "s.jsonl",
            report_dir=tmp_path / "r",
            settings=ScoreSettings(source="lmms-eval"),
        )
    assert not (tmp_path / "r").exists() and not list(tmp_path.glob("s*.jsonl"))


def test_a_plus_sheet_scored_as_route_answers_is_refused(tmp_path, seeds):
    # both sets numbered by position, as the hub's are: the ids collide, the questions do not
    from benchmarks.plus.questions import generate_plus_questions

    made, _ = seeds
    route = [dataclasses.replace(q, id=str(n)) for n, q in enumerate(made)]
    plus = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)[: len(route)]
    columns = ("index", "question", "type", "city", "prediction")
    sheet = write_vlmevalkit_sheet(
        tmp_path / "m_ReasonMap.tsv", [[n, p.question, p.type, p.city, "yes"] for n, p in enumerate(plus)], columns
    )
    with pytest.raises(InvalidRecord, match=r"m_ReasonMap\.tsv:2: not made from .*holds neither"):
        _score(tmp_path, _file(tmp_path, "route.jsonl", route), sheet, source="vlmevalkit", kind="short")
