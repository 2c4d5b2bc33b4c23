"""Predictions from other harnesses: lmms-eval sample logs and VLMEvalKit sheets, written here from their formats.

Inspect eval logs are read in ``tests/reasonmap/test_inspect_tasks.py``,
where a real Inspect run writes one.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from baselines.answers import render_answer
from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.harnesses import SOURCES, read_harness_predictions, read_lmms_eval, read_vlmevalkit
from graphkit import city_graph
from reasonmap.evaluate import evaluate_files

OFFICIAL = Path(__file__).parent / "fixtures" / "official_sample.jsonl"
REFUSAL = "Sorry, I cannot read this map."


@pytest.fixture(scope="module")
def questions():
    return generate_questions(city_graph("rome"), seed=1, per_city=3)


def _answer(question, kind):
    return render_answer(question.routes[0], kind, question.long_template if kind == "long" else None)


def _lmms_line(doc_id, doc, response, **extra):
    # the fields of an lmms-eval `--log_samples` line: doc, target, arguments, resps (one list per request),
    # filtered_resps, hashes and the task's metric values
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "",
        "arguments": [["<prompt>", {"max_new_tokens": 1024}]],
        "resps": [[response]],
        "filtered_resps": [response],
        "doc_hash": "0" * 64,
        "prompt_hash": "1" * 64,
        "target_hash": "2" * 64,
        **extra,
    }


def _write_lines(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_lmms_eval_logs_map_ids_kinds_and_the_model_from_where_lmms_eval_puts_them(tmp_path, questions):
    first, second, third = questions
    path = _write_lines(
        tmp_path / "qwen2_vl" / "20250601_120000_samples_reasonmap_long.jsonl",
        [
            _lmms_line(0, {"id": first.id, "city": "rome"}, _answer(first, "long")),
            _lmms_line(1, {"id": second.id}, REFUSAL),
            {"doc_id": 2, "doc": {"id": third.id}, "resps": []},
        ],
    )
    predictions, problems = read_lmms_eval(path)
    assert [(p.id, p.model, p.question) for p in predictions] == [
        (first.id, "qwen2_vl", "long"),
        (second.id, "qwen2_vl", "long"),
    ]
    assert predictions[1].response == REFUSAL
    assert [problem.line for problem in problems] == [3] and "resps" in problems[0].message


def test_lmms_eval_doc_ids_are_positions_in_the_public_data_set(tmp_path):
    # no id in the logged doc: doc_id is the record's position, the id the official loader gives it
    path = _write_lines(tmp_path / "m" / "samples_reasonmap.jsonl", [_lmms_line(4, {"city": "beijing"}, "x")])
    with_kind, problems = read_lmms_eval(path, kind="short", model="named")
    assert problems == [] and [(p.id, p.model, p.question) for p in with_kind] == [("4", "named", "short")]
    without_kind, problems = read_lmms_eval(path)
    assert without_kind == [] and "--kind" in problems[0].message


def test_scoring_an_lmms_eval_log_gives_the_toolkits_figures(tmp_path, questions):
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    first, second, third = questions
    lines = [_lmms_line(i, {"id": q.id}, _answer(q, "short")) for i, q in enumerate((first, second))]
    lines.append(_lmms_line(2, {"id": third.id}, REFUSAL))
    log = _write_lines(tmp_path / "llava" / "samples_reasonmap_short.jsonl", lines)
    result = evaluate_files(q_path, log, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "r", source="lmms-eval")
    assert [(v.id, v.correct, v.failure) for v in result.verdicts] == [
        (first.id, 1, None),
        (second.id, 1, None),
        (third.id, 0, "refusal"),
    ]
    figures = result.summary["models"]["llava"]
    assert figures["accuracy_short"] == round(2 / 3, 6) and figures["n_short"] == 3 and figures["n_long"] == 0


def _sheet_rows(questions):
    first, second, third = questions
    # VLMEvalKit's columns: the data set's `index`, `question`, `answer`, then the model's `prediction`
    return [
        ["index", "question", "answer", "kind", "prediction"],
        [first.id, first.question_short, "", "short", _answer(first, "short")],
        [second.id, second.question_long, "", "long", _answer(second, "long")],
        [third.id, third.question_short, "", "short", None],
        [None, "no index", "", "short", "Route Name: x"],
    ]


def test_vlmevalkit_xlsx_sheets_are_read_row_by_row(tmp_path, questions):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in _sheet_rows(questions):
        book.active.append(row)
    path = tmp_path / "GPT4o_ReasonMap.xlsx"
    book.save(path)
    predictions, problems = read_vlmevalkit(path)
    first, second, third = questions
    assert [(p.id, p.model, p.question) for p in predictions] == [
        (first.id, "GPT4o_ReasonMap", "short"),
        (second.id, "GPT4o_ReasonMap", "long"),
        (third.id, "GPT4o_ReasonMap", "short"),
    ]
    assert predictions[2].response == ""  # an empty cell is an invalid answer, not a lost one
    assert [problem.line for problem in problems] == [5] and "index" in problems[0].message


def test_vlmevalkit_tsv_sheets_take_the_kind_from_the_option(tmp_path, questions):
    rows = [["index", "question", "answer", "prediction"]]
    rows += [[q.id, q.question_short, "", _answer(q, "short")] for q in questions]
    path = tmp_path / "Qwen_ReasonMap.tsv"
    with open(path, "w", encoding="utf-8", newline="") as stream:  # multi-line cells quoted, as pandas writes them
        csv.writer(stream, delimiter="\t").writerows(rows)
    predictions, problems = read_harness_predictions(path, "vlmevalkit", model="qwen", kind="short")
    assert problems == [] and [p.id for p in predictions] == [q.id for q in questions]
    assert [p.response for p in predictions] == [_answer(q, "short") for q in questions]
    assert {p.model for p in predictions} == {"qwen"}
    _, problems = read_harness_predictions(path, "vlmevalkit")
    assert len(problems) == 3 and all("--kind" in problem.message for problem in problems)


def test_a_sheet_without_predictions_and_unknown_sources_are_refused(tmp_path):
    path = tmp_path / "m_d.csv"
    path.write_text("index,question\n1,q\n", encoding="utf-8")
    with pytest.raises(InvalidRecord, match="prediction"):
        read_vlmevalkit(path)
    with pytest.raises(ValueError, match="source must be one of"):
        read_harness_predictions(path, "helm")
    assert SOURCES == ("jsonl", "lmms-eval", "vlmevalkit", "inspect")
