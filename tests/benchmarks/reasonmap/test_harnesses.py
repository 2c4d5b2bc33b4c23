"""Predictions from other harnesses: lmms-eval sample logs and VLMEvalKit sheets, written here from their formats.

The files of each version are built by :mod:`harness_writers`, field by field from the harnesses' own writer code.

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
from benchmarks.jsonl import Note, write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.harnesses import (
    SOURCES,
    read_harness_predictions,
    read_lmms_eval,
    read_vlmevalkit,
)
from graphkit import city_graph
from reasonmap.convert import convert_predictions
from reasonmap.score_files import ScoreSettings, evaluate_files, explain_files

from .harness_writers import LMMS_EVAL_VERSIONS, lmms_eval_row, write_lmms_eval_log, write_vlmevalkit_sheet

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
    assert [problem.line for problem in problems] == [0, 3] and "resps" in problems[1].message
    assert "2 rows by their logged document's id" in problems[0].message  # a note: how rows were matched


def test_lmms_eval_doc_ids_are_positions_in_the_public_data_set(tmp_path):
    # no id in the logged doc: doc_id is the record's position, the id the official loader gives it
    path = _write_lines(tmp_path / "m" / "samples_reasonmap.jsonl", [_lmms_line(4, {"city": "beijing"}, "x")])
    with_kind, problems = read_lmms_eval(path, kind="short", model="named")
    assert [(p.id, p.model, p.question) for p in with_kind] == [("4", "named", "short")]
    assert [type(problem) for problem in problems] == [Note] and "public data set's ids" in problems[0].message
    without_kind, problems = read_lmms_eval(path)
    assert without_kind == [] and "--kind" in problems[-1].message


def test_scoring_an_lmms_eval_log_gives_the_toolkits_figures(tmp_path, questions):
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    first, second, third = questions
    lines = [_lmms_line(i, {"id": q.id}, _answer(q, "short")) for i, q in enumerate((first, second))]
    lines.append(_lmms_line(2, {"id": third.id}, REFUSAL))
    log = _write_lines(tmp_path / "llava" / "samples_reasonmap_short.jsonl", lines)
    result = evaluate_files(
        q_path,
        log,
        out=tmp_path / "scored.jsonl",
        report_dir=tmp_path / "r",
        settings=ScoreSettings(source="lmms-eval"),
    )
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
        (first.id, "GPT4o", "short"),  # VLMEvalKit names a sheet <model>_<dataset>
        (second.id, "GPT4o", "long"),
        (third.id, "GPT4o", "short"),
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


def test_each_task_reads_the_harnesses_its_record_names(tmp_path, plus_questions):
    from benchmarks.tasks import get_task, source_names

    # route reads every harness's files, plus VLMEvalKit sheets beside its own rows, the others their own rows
    assert tuple(get_task("route").readers) == SOURCES == source_names()
    assert [tuple(get_task(name).readers) for name in ("plus", "mapqa", "probe")] == [
        ("jsonl", "vlmevalkit"),
        ("jsonl",),
        ("jsonl",),
    ]
    (tmp_path / "p.jsonl").write_text("", encoding="utf-8")
    refused = r"^plus prediction source must be one of \['jsonl', 'vlmevalkit'\], got 'inspect'$"
    with pytest.raises(ValueError, match=refused):
        evaluate_files(
            plus_questions,
            tmp_path / "p.jsonl",
            out=tmp_path / "s.jsonl",
            report_dir=tmp_path / "r",
            settings=ScoreSettings(source="inspect"),
        )
    assert not (tmp_path / "r").exists()  # refused before anything was read or written


# -- lmms-eval, every version since 0.3 -------------------------------------------------------


def _prompt(question, kind="short"):
    # what a task's doc_to_text sends (lmms-eval logs it as `input`): the question, wrapped
    return f"<image>\n{question.text(kind)}\nAnswer in the format above."


def _toolkit_doc(question):
    # what a task built from the toolkit's question file iterates: the record's fields
    return {"id": question.id, "city": question.city, "question_short": question.question_short}


@pytest.mark.parametrize("version", LMMS_EVAL_VERSIONS)
def test_lmms_eval_logs_of_every_version_score_against_the_question_file(tmp_path, questions, version):
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    rows = [
        lmms_eval_row(
            version, position, _toolkit_doc(q), [_answer(q, "short") if position < 2 else REFUSAL], prompt=_prompt(q)
        )
        for position, q in enumerate(questions)
    ]
    log = write_lmms_eval_log(tmp_path, "qwen2_vl", "reasonmap_short", rows)
    kept = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert ("doc" in kept, "arguments" in kept) == ((True, True) if version == "0.3" else (False, False))
    result = evaluate_files(
        q_path, log, out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="lmms-eval")
    )
    assert [(v.id, v.model, v.question, v.correct) for v in result.verdicts] == [
        (questions[0].id, "qwen2_vl", "short", 1),
        (questions[1].id, "qwen2_vl", "short", 1),
        (questions[2].id, "qwen2_vl", "short", 0),
    ]
    how = "by their logged document's id" if version == "0.3" else "by doc_id as a position (0 to 2)"
    assert len(result.notes) == 1 and how in result.notes[0] and result.problems == ()
    assert "3 rows checked against their questions' text and stations" in result.notes[0]


@pytest.mark.parametrize("version", LMMS_EVAL_VERSIONS)
def test_lmms_eval_repeats_are_each_kept_as_a_repeat(tmp_path, questions, version):
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    rows = [
        lmms_eval_row(
            version,
            n,
            {"id": q.id},
            [_answer(q, "long"), REFUSAL, _answer(q, "long")],
            output_tokens=40,
            prompt=_prompt(q, "long"),
        )
        for n, q in enumerate(questions)
    ]
    log = write_lmms_eval_log(tmp_path, "llava", "reasonmap_long", rows)
    predictions, _ = read_harness_predictions(log, "lmms-eval", positions=[q.id for q in questions])
    assert [(p.id, p.repeat) for p in predictions[:3]] == [(questions[0].id, r) for r in range(3)]
    assert [p.response for p in predictions[:3]] == [_answer(questions[0], "long"), REFUSAL, predictions[0].response]
    # token_counts (0.7) are the first answer's
    assert [p.tokens for p in predictions[:3]] == ([40, None, None] if version == "0.7" else [None] * 3)
    result = evaluate_files(
        q_path, log, out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="lmms-eval")
    )
    assert len(result.verdicts) == 9 and result.problems == ()
    assert [v.repeat for v in result.verdicts[:3]] == [0, 1, 2]
    # the headline is the mean over every repeat: 2 of 3 answers to each question are right
    assert result.summary["models"]["llava"]["accuracy_long"] == round(6 / 9, 6)
    # each request 2 right of 3: pass@1 2/3; pass@2 = 1 - C(1,2)/C(3,2) = 1 (every pair holds a right one)
    repeats = result.summary["models"]["llava"]["repeats"]
    assert repeats["pass_at_k"] == {"1": round(2 / 3, 6), "2": 1.0, "3": 1.0} and repeats["consistency"] == 0.0
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row.get("repeat", 0) for row in scored[:3]] == [0, 1, 2]


def test_lmms_eval_07_writes_one_answer_as_a_plain_string_with_token_counts(tmp_path, questions):
    row = lmms_eval_row("0.7", 0, {}, ["Route Name: Line A"], output_tokens=57)
    assert row["filtered_resps"] == "Route Name: Line A" and "resps" not in row and "doc" not in row
    log = write_lmms_eval_log(tmp_path, "m", "reasonmap_short", [row])
    (prediction,), problems = read_lmms_eval(log, positions=["q-a", "q-b"])
    assert (prediction.id, prediction.response, prediction.tokens) == ("q-a", "Route Name: Line A", 57)
    assert [type(problem) for problem in problems] == [Note]


def test_lmms_eval_positions_past_the_question_file_are_refused_with_the_reason(tmp_path, questions):
    rows = [lmms_eval_row("0.4", n, {}, ["x"]) for n in (0, 1, 5)]
    log = write_lmms_eval_log(tmp_path, "m", "reasonmap_short", rows)
    with pytest.raises(InvalidRecord, match=r"doc_id 5 names question 6, but the question file holds 3"):
        read_lmms_eval(log, positions=[q.id for q in questions])


def test_predictions_matches_lmms_eval_positions_to_the_question_file_given(tmp_path, questions):
    q_path = tmp_path / "questions.jsonl"
    write_jsonl(q_path, questions)
    row = lmms_eval_row("0.7", 1, {}, ["x"], prompt=_prompt(questions[1]))
    log = write_lmms_eval_log(tmp_path, "m", "reasonmap_short", [row])
    count, problems = convert_predictions(log, "lmms-eval", tmp_path / "p.jsonl", questions=q_path)
    row = json.loads((tmp_path / "p.jsonl").read_text(encoding="utf-8"))
    assert count == 1 and row["id"] == questions[1].id and "question file (3 questions)" in problems[0].message


# -- VLMEvalKit's ReasonMap-Plus sheets ---------------------------------------------------------

# hub records of ReasonMap-Plus (ids: their positions), answers as the hub keeps them
PLUS_HUB = [
    {"type": "TorF1", "question": "Are Termini and Jonio on one line?", "answer": 0},
    {"type": "TorF2", "question": "Is a transfer needed?", "answer": 1},
    {"type": "Counting1", "question": "How many lines? A. 1 B. 2 C. 3 D. 4", "answer": 2},
    {"type": "Counting1", "question": "How many transfers? A. 0 B. 1 C. 2 D. 3", "answer": 3},
    {"type": "Counting2", "question": "How many stops?", "answer": 3},
]
# the model's answers; VLMEvalKit's rule reads the first as no answer (not "no"), the fourth as A (the article)
PLUS_ANSWERS = ["No, they are not on one line.", "Yes", "The answer is C.", "It takes a transfer here; D.", "3"]


@pytest.fixture
def plus_questions(tmp_path):
    path = tmp_path / "plus.jsonl"
    common = {"country": "italy", "city": "rome", "station_1": "Termini", "station_2": "Jonio"}
    extra = {"difficulty_city": "easy", "city_line_count": 3, "city_transfer_count": 2}
    path.write_text("".join(json.dumps({**common, **r, **extra}) + "\n" for r in PLUS_HUB), encoding="utf-8")
    return path


def _plus_sheet(tmp_path, suffix):
    rows = [
        [n, r["question"], r["answer"], r["type"], "easy", "italy", "rome", answer]
        for n, (r, answer) in enumerate(zip(PLUS_HUB, PLUS_ANSWERS))
    ]
    return write_vlmevalkit_sheet(tmp_path / f"GPT-4o_ReasonMap-Plus{suffix}", rows)


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv", ".json"])
def test_vlmevalkit_plus_sheets_score_as_plus_answers_in_every_pred_format(tmp_path, plus_questions, suffix):
    if suffix == ".xlsx":
        pytest.importorskip("openpyxl")
    sheet = _plus_sheet(tmp_path, suffix)
    result = evaluate_files(
        plus_questions,
        sheet,
        out=tmp_path / "s.jsonl",
        report_dir=tmp_path / "r",
        settings=ScoreSettings(source="vlmevalkit"),
    )
    assert result.task == "plus" and result.problems == ()
    assert [(v.id, v.model, v.correct) for v in result.verdicts] == [(str(n), "GPT-4o", 1) for n in range(5)]
    count, problems = convert_predictions(sheet, "vlmevalkit", tmp_path / "p.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    assert count == 5 and problems == [] and [r["question"] for r in rows] == [r["type"] for r in PLUS_HUB]
    again = evaluate_files(plus_questions, tmp_path / "p.jsonl", out=tmp_path / "t.jsonl", report_dir=tmp_path / "q")
    assert [v.correct for v in again.verdicts] == [1] * 5


def test_the_vlmevalkit_variant_reads_answers_as_vlmevalkit_does(tmp_path, plus_questions):
    sheet = _plus_sheet(tmp_path, ".tsv")
    compared = explain_files(
        plus_questions,
        sheet,
        out=tmp_path / "s.jsonl",
        report_dir=tmp_path / "r",
        variants=("paper", "vlmevalkit"),
        settings=ScoreSettings(source="vlmevalkit"),
    )
    vlmevalkit = compared.evaluations["vlmevalkit"].verdicts
    # "No, ..." is no answer to it; "a transfer" is option A; the rest as the paper's reading
    assert [(v.correct, v.chosen) for v in vlmevalkit] == [(0, None), (1, "yes"), (1, "C"), (0, "A"), (1, 3)]
    types = compared.explanation["models"]["GPT-4o"]
    assert types["TorF1"]["causes"]["extraction"]["verdicts"] == 1
    assert types["Counting1"]["difference"]["accuracy"] == -50.0


# -- sheets that are partly or wholly unreadable ------------------------------------------------


def _route_csv(tmp_path, name, questions, cells, *, bom=False, encoding="utf-8"):
    header = "index,kind,prediction\n"
    body = "".join(f'{q.id},short,"{cell}"\n' for q, cell in zip(questions, cells))
    path = tmp_path / name
    path.write_bytes(("\ufeff" if bom else "").encode() + (header + body).encode(encoding, "surrogateescape"))
    return path


def test_one_bad_cell_in_a_csv_loses_that_row_only(tmp_path, questions):
    answers = [_answer(q, "short") for q in questions]
    long = _route_csv(tmp_path, "long.csv", questions, [answers[0], "<think>" + "x" * 200_000, answers[2]])
    predictions, problems = read_vlmevalkit(long, model="m")
    assert [p.id for p in predictions] == [q.id for q in questions]  # 200,000 characters are a cell, not an error
    raw = _route_csv(tmp_path, "latin1.csv", questions, ["one line", "caf\udce9", "one line"])
    predictions, problems = read_vlmevalkit(raw, model="m")
    assert [p.id for p in predictions] == [questions[0].id, questions[2].id]
    assert [(problem.line, problem.message) for problem in problems] == [(3, "column 'prediction' is not UTF-8 text")]


def test_a_byte_order_mark_does_not_hide_the_first_column(tmp_path, questions):
    path = _route_csv(tmp_path, "bom.csv", questions, [_answer(q, "short") for q in questions], bom=True)
    predictions, problems = read_vlmevalkit(path, model="m")
    assert problems == [] and [p.id for p in predictions] == [q.id for q in questions]


def test_a_cell_over_the_bound_is_reported_and_the_rows_after_it_kept(tmp_path, questions, monkeypatch):
    from benchmarks import sheets

    monkeypatch.setattr(sheets, "MAX_CELL_CHARS", 1_000)
    path = _route_csv(tmp_path, "huge.csv", questions, ["a", "b" * 5_000, "c"])
    predictions, problems = read_vlmevalkit(path, model="m")
    assert [p.response for p in predictions] == ["a", "c"]
    assert [problem.line for problem in problems] == [3] and "not a readable row" in problems[0].message


def test_corrupt_xlsx_sheets_are_refused_in_one_line(tmp_path, questions):
    pytest.importorskip("openpyxl")
    import zipfile

    good = tmp_path / "m_ReasonMap.xlsx"
    write_vlmevalkit_sheet(good, [[q.id, "short", "x"] for q in questions], columns=("index", "kind", "prediction"))
    with zipfile.ZipFile(good) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    for name, change in (("truncated", lambda data: data[: len(data) // 2]), ("missing", None)):
        broken = tmp_path / f"{name}.xlsx"
        with zipfile.ZipFile(broken, "w") as archive:
            for part, data in parts.items():
                if part == "xl/worksheets/sheet1.xml":
                    if change is None:
                        continue
                    data = change(data)
                archive.writestr(part, data)
        refused = rf"{name}\.xlsx: (not a readable \.xlsx file|the workbook holds no worksheet)"
        with pytest.raises(InvalidRecord, match=refused):
            read_vlmevalkit(broken, model="m")


def test_a_sheet_of_more_rows_than_any_prediction_sheet_is_refused(tmp_path, questions, monkeypatch):
    pytest.importorskip("openpyxl")
    from benchmarks import sheets

    monkeypatch.setattr(sheets, "MAX_SHEET_ROWS", 2)
    columns = ("index", "kind", "prediction")
    for suffix in (".xlsx", ".tsv", ".json"):
        path = write_vlmevalkit_sheet(tmp_path / f"m{suffix}", [[q.id, "short", "x"] for q in questions], columns)
        with pytest.raises(InvalidRecord, match="more than 2 rows"):
            read_vlmevalkit(path)
    # an .xlsx is refused from a count of its raw rows, before any is parsed
    import openpyxl

    monkeypatch.setattr(openpyxl, "load_workbook", lambda *args, **kwargs: pytest.fail("parsed"))
    with pytest.raises(InvalidRecord, match="more than 2 rows"):
        read_vlmevalkit(tmp_path / "m.xlsx")


def test_fifos_are_refused_not_waited_on(tmp_path):
    import importlib.util
    import os
    import sys

    from benchmarks.dataset_records import dataset_rows

    fifo = tmp_path / "log.eval"
    os.mkfifo(fifo)
    if importlib.util.find_spec("inspect_ai") is None:
        pytest.skip("the [inspect] extra is absent")
    imported = "inspect_ai" in sys.modules
    with pytest.raises(InvalidRecord, match="FIFO"):
        read_harness_predictions(fifo, "inspect", kind="short")
    with pytest.raises(InvalidRecord, match="FIFO"):
        read_harness_predictions(fifo, "vlmevalkit", kind="short")
    assert imported or "inspect_ai" not in sys.modules  # refused before Inspect (a heavy import) was imported
    if importlib.util.find_spec("datasets") is None:
        pytest.skip("the [hf] extra is absent")
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "state.json").write_text("{}", encoding="utf-8")
    os.mkfifo(folder / "data-00000-of-00001.arrow")
    with pytest.raises(InvalidRecord, match="data-00000-of-00001.arrow: not a regular file"):
        next(dataset_rows(folder))
