"""Hostile model and run names through every command that writes a table (campaign 4, classes A and B).

``score --report`` (``table.md``), ``leaderboard`` (``leaderboard.md`` / ``.csv``) and ``compare``
(``comparison.md`` / ``.csv``) run on answers under the campaign's model names, in a run folder named ``=run``:
no CSV cell may start a formula, every Markdown table row keeps its column count, no line of a table file is a
forged row or heading, and no HTML tag survives. Names that print the same (NFC / NFD, a Cyrillic ``о``) are one
model or refused naming both.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from baselines.answers import render_answer
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from graphkit import city_graph
from reasonmap.cli import main
from tests.benchmarks.test_cells import HOSTILE, markdown_cells

FORMULA = '=HYPERLINK("http://evil.example/x","click")'
DDE = "+cmd|/C calc!A0"
FORGED = "evil\n| 1 | fake-model | 100.00 |\n\n# Injected heading"
SCRIPT = "<script>alert(1)</script><img src=x onerror=alert(2)>"
MATH = "$\\undefinedmacro{x}$"  # B17
BROKEN_MATH = "cost $5 \\frac{a}{ and $x^{"  # B18


@pytest.fixture(scope="module")
def questions():
    return generate_questions(city_graph("rome"), seed=1, per_city=4)


def _predictions(questions, models, *, wrong=()):
    """Each model answers every question with its first reference (``wrong``: with nothing)."""
    rows = []
    for model in models:
        for question in questions:
            for kind in ("short", "long"):
                template = question.long_template if kind == "long" else None
                answer = "" if model in wrong else render_answer(question.routes[0], kind, template)
                rows.append({"id": question.id, "model": model, "question": kind, "response": answer, "tokens": 5})
    return rows


def _score(tmp_path, questions, models, report, *extra, wrong=()):
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / f"{report}.p.jsonl", _predictions(questions, models, wrong=wrong))
    command = ["score", "--questions", "q.jsonl", "--predictions", f"{report}.p.jsonl"]
    return main([*command, "--out", f"{report}.s.jsonl", "--report", report, *extra])


def _check_markdown(text: str) -> None:
    """Every table row has its header's column count; no forged row, heading or tag."""
    lines = text.splitlines()
    assert not any(line.lstrip().startswith("#") for line in lines), text
    assert "| 1 | fake-model | 100.00 |" not in lines
    # outside code spans (inside one, CommonMark shows raw HTML as text)
    bare = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)
    assert "<script" not in bare and "<img" not in bare, text
    width = None
    for line in lines:
        if not line.startswith("|"):
            width = None  # the table ended
            continue
        cells = markdown_cells(line)
        width = len(cells) if width is None else width
        assert len(cells) == width, line


def _check_csv(text: str) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    for row in rows:
        for value in row.values():
            assert value[:1] not in set("=+-@\t\r\n") or _number(value), row
    return rows


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.fixture()
def hostile_run(tmp_path, monkeypatch, questions):
    monkeypatch.chdir(tmp_path)
    assert _score(tmp_path, questions, HOSTILE, "=run", wrong=(DDE,)) == 0
    return tmp_path


def test_score_report_table_holds_each_name_in_one_cell(hostile_run):
    text = (hostile_run / "=run" / "table.md").read_text(encoding="utf-8")
    _check_markdown(text)
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table) == 2 + len(HOSTILE)  # the header, its rule, one row per model: no forged row


def test_leaderboard_csv_and_markdown_neutralise_names(hostile_run, capsys):
    assert main(["leaderboard", "=run", "--out", "lb", "--no-figure"]) == 0
    markdown = (hostile_run / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert capsys.readouterr().out == markdown
    _check_markdown(markdown)
    rows = _check_csv((hostile_run / "lb" / "leaderboard.csv").read_text(encoding="utf-8"))
    assert {row["model"] for row in rows} >= {"'" + FORMULA, "'" + DDE, FORGED}
    assert {row["run"] for row in rows} == {"'=run"}  # A7: the run folder's name
    assert json.loads((hostile_run / "lb" / "leaderboard.json").read_text(encoding="utf-8"))["rows"]  # strict JSON


def test_compare_csv_and_markdown_neutralise_names(hostile_run):
    assert main(["compare", "=run", "--models", FORMULA, DDE, "--out", "cmp", "--no-figure"]) == 0
    _check_markdown((hostile_run / "cmp" / "comparison.md").read_text(encoding="utf-8"))
    rows = _check_csv((hostile_run / "cmp" / "comparison.csv").read_text(encoding="utf-8"))
    assert {(row["model_a"], row["model_b"], row["run_a"]) for row in rows} == {("'" + FORMULA, "'" + DDE, "'=run")}


def test_compare_of_two_runs_names_each_side_safely(hostile_run, questions):
    assert _score(hostile_run, questions, [SCRIPT], "other") == 0
    assert main(["compare", "=run", "other", "--models", FORGED, SCRIPT, "--out", "cmp2", "--no-figure"]) == 0
    _check_markdown((hostile_run / "cmp2" / "comparison.md").read_text(encoding="utf-8"))


@pytest.mark.figures
def test_mathtext_names_are_drawn_as_text(tmp_path, monkeypatch, questions, capsys):
    # B17, B18: a "$...$" name was parsed as mathtext and the command failed with a ParseFatalException
    monkeypatch.chdir(tmp_path)
    assert _score(tmp_path, questions, [MATH, BROKEN_MATH], "rep", "--figures") == 0, capsys.readouterr().err
    assert (tmp_path / "rep" / "cities.png").read_bytes().startswith(b"\x89PNG")
    assert main(["leaderboard", "rep", "--out", "lb", "--figures"]) == 0, capsys.readouterr().err
    assert main(["compare", "rep", "--models", MATH, BROKEN_MATH, "--out", "cmp", "--figures"]) == 0, (
        capsys.readouterr().err
    )
    for png in (tmp_path / "lb" / "leaderboard.png", tmp_path / "cmp" / "comparison.png"):
        assert png.read_bytes().startswith(b"\x89PNG")


def test_nfc_and_nfd_names_of_two_runs_are_one_model(tmp_path, monkeypatch, questions, capsys):
    # B22: runA holds modèle composed, runB decomposed, both on the same questions: two rows printed the same
    monkeypatch.chdir(tmp_path)
    assert _score(tmp_path, questions, ["mod\u00e8le"], "runA") == 0
    assert _score(tmp_path, questions, ["mode\u0300le"], "runB") == 0
    capsys.readouterr()
    assert main(["leaderboard", "runA", "runB", "--out", "lb", "--no-figure"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "model 'mod\u00e8le' has two results for route: in runA and in runB" in error[0]
    # compare pairs the two spellings as the one model both runs hold
    assert main(["compare", "runA", "runB", "--out", "cmp", "--no-figure"]) == 0
    record = json.loads((tmp_path / "cmp" / "comparison.json").read_text(encoding="utf-8"))
    assert {(row["model_a"], row["model_b"]) for row in record["comparisons"]} == {("mod\u00e8le", "mode\u0300le")}
    assert record["unpaired"] == []


def test_look_alike_names_are_refused_naming_both(tmp_path, monkeypatch, questions, capsys):
    # B23: gpt-4o and gpt-4о (Cyrillic о) gave two rows that look the same
    monkeypatch.chdir(tmp_path)
    assert _score(tmp_path, questions, ["gpt-4o"], "runA") == 0
    assert _score(tmp_path, questions, ["gpt-4\u043e"], "runB") == 0
    capsys.readouterr()
    assert main(["leaderboard", "runA", "runB", "--out", "lb", "--no-figure"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1, error
    assert "models 'gpt-4o' and 'gpt-4\u043e'" in error[0] and "'gpt-4\\u043e'" in error[0], error[0]
    # names that only differ in case are two names a reader tells apart: ranked side by side
    assert _score(tmp_path, questions, ["GPT-4o"], "runC") == 0
    assert main(["leaderboard", "runA", "runC", "--out", "lb", "--no-figure"]) == 0


def test_a_hostile_mode_folder_stays_in_its_header_cell(tmp_path):
    # an eval run's (task, mode) come from its folder names: a mode folder "full|x<newline># H" is a name too
    from benchmarks.comparisons import comparison_markdown
    from benchmarks.leaderboards import leaderboard_markdown
    from reasonmap.comparisons import compare_runs
    from reasonmap.leaderboard import build_leaderboard
    from tests.reasonmap.run_folders import route_rows, write_eval_run

    rows = route_rows("m", {"q0": (1, 15.0, 0, 0.0), "q1": (0, 0.0, 1, 30.0)})
    run = write_eval_run(tmp_path / "e", {("route", "full|x\n# H <b>"): rows})
    _check_markdown(leaderboard_markdown(build_leaderboard([run])))
    _check_markdown(comparison_markdown(compare_runs(run, run, resamples=200, permutations=10)))


@pytest.mark.parametrize("name", HOSTILE)
def test_results_resolution_and_diagnosis_tables_hold_the_name_in_one_cell(name):
    # eval's results.md (B: `eval --name $'a|b\n# H1'`), a pixel sweep's resolution.md and diagnose's summary.md
    from reasonmap.eval import results_markdown
    from reasonmap.pixel_sweep import resolution_markdown
    from vision.diagnose import Diagnosis
    from vision.diagnosis_report import summarize, summary_markdown

    metrics = dict.fromkeys(("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long"), 0.5)
    row = {"task": "route", "mode": "full", "model": name, "metrics": {**metrics, "map_score_long": 10.0}}
    settings = {"name": name, "endpoint": "http://127.0.0.1:9/v1?a=<b>", "temperature": 0.0}
    record = {"results": [{**row, "n": 4, "n_invalid": 0, "n_skipped_no_map": 0}], "config": {"settings": settings}}
    _check_markdown(results_markdown(record))
    point = {"pixel_budget": 1000, "value": 0.5, "n": 4, "low": 0.25, "high": 0.75}
    curve = {"model": name, "task": "route", "metric": "acc", "title": "Acc.", "points": [point]}
    _check_markdown(resolution_markdown({"budgets": [1000], "curves": [curve]}))
    diagnosis = Diagnosis("q1", name, "short", "correct", "correct", {}, name)  # the city too
    _check_markdown(summary_markdown(summarize([diagnosis])))


@pytest.mark.parametrize("task", ["plus", "probe", "mapqa"])
def test_the_other_tasks_reports_and_leaderboards_hold_each_name_in_one_cell(task, tmp_path, monkeypatch):
    # the same names as every other task's models: its table.md, and a leaderboard of its run (Markdown and CSV)
    from benchmarks.tasks import get_task
    from tests.benchmarks.test_common import FIXTURES, _questions

    monkeypatch.chdir(tmp_path)
    loaded, record = _questions(task), get_task(task)
    questions = FIXTURES.get(task, tmp_path / "q.jsonl")
    if task not in FIXTURES:
        write_jsonl(questions, list(loaded.questions.values()))
    rows = [
        {"id": prompt.id, "model": model, "question": prompt.kind, "response": "yes", "tokens": 3}
        for model in HOSTILE
        for question in loaded.questions.values()
        for prompt in record.prompts(question)
    ]
    write_jsonl(tmp_path / "p.jsonl", rows)
    command = ["score", "--questions", str(questions), "--predictions", "p.jsonl", "--out", "s.jsonl"]
    assert main([*command, "--report", "=run", "--quiet"]) == 0
    _check_markdown((tmp_path / "=run" / "table.md").read_text(encoding="utf-8"))
    assert main(["leaderboard", "=run", "--out", "board", "--quiet"]) == 0
    _check_markdown((tmp_path / "board" / "leaderboard.md").read_text(encoding="utf-8"))
    board = _check_csv((tmp_path / "board" / "leaderboard.csv").read_text(encoding="utf-8"))
    assert len({row["model"] for row in board}) == len(HOSTILE)  # no name merged into another or split
