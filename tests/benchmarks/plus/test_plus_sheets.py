"""One reading of VLMEvalKit's ReasonMap-Plus sheets serves scoring and ``reasonmap predictions``.

The sheets are ``.json`` prediction sheets as VLMEvalKit's ``dump`` writes them (a list of row objects,
``to_dict('records')``; see :mod:`benchmarks.sheets`). Before the two readers became one,
``reasonmap predictions`` read a sheet its own way; each test below is a case where the two differed,
now read the way the scorer reads it. The expected rows are written out by hand.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.plus.loading import read_plus_sheet
from reasonmap.convert import convert_predictions

COMMON = {"country": "italy", "city": "rome", "station_1": "Termini", "station_2": "Jonio"}
EXTRA = {"difficulty_city": "easy", "city_line_count": 3, "city_transfer_count": 2}
HUB = [
    {"type": "TorF1", "question": "Are Termini and Jonio on one line?", "answer": 0},
    {"type": "Counting2", "question": "How many stops?", "answer": 3},
]


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "plus.jsonl"
    path.write_text("".join(json.dumps({**COMMON, **r, **EXTRA}) + "\n" for r in HUB), encoding="utf-8")
    return path


def _sheet(tmp_path, rows, name="m_ReasonMap-Plus.json"):
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _row(index, kind, prediction, **cells):
    return {
        "index": index,
        "question": HUB[index]["question"] if isinstance(index, int) else "",
        "type": kind,
        "city": "rome",
        "prediction": prediction,
        **cells,
    }


def _convert(tmp_path, sheet, **options):
    count, problems = convert_predictions(sheet, "vlmevalkit", tmp_path / "p.jsonl", **options)
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    return count, rows, [(problem.line, problem.message) for problem in problems]


def test_an_id_cell_is_read_without_its_spaces(tmp_path, questions):
    sheet = _sheet(tmp_path, [_row(0, "TorF1", "no", id=" 0 ")])
    count, rows, problems = _convert(tmp_path, sheet, questions=questions)
    assert rows == [{"id": "0", "model": "m", "question": "TorF1", "response": "no", "tokens": None}]
    assert [p.id for p in read_plus_sheet(sheet, questions={})[0]] == ["0"]


def test_a_type_that_is_no_plus_type_is_read_as_none(tmp_path):
    # before: written as "TorF9", a row the toolkit's own reader then refuses ("a plus type")
    count, rows, problems = _convert(tmp_path, _sheet(tmp_path, [_row(1, "TorF9", "3"), _row(0, "TorF1", "no")]))
    assert [row["question"] for row in rows] == [None, "TorF1"] and problems == []


def test_an_empty_or_true_false_id_cell_is_a_bad_row(tmp_path):
    # before: the scorer read an empty .tsv cell as the id "" and a JSON true as the id "True"
    sheet = tmp_path / "m_ReasonMap-Plus.tsv"
    sheet.write_text("index\ttype\tprediction\n\tTorF1\tyes\n1\tCounting2\t3\n", encoding="utf-8")
    predictions, problems = read_plus_sheet(sheet)
    assert [p.id for p in predictions] == ["1"]
    assert [(p.line, p.message) for p in problems] == [(2, "field 'index' must be a question id, got ''")]
    predictions, problems = read_plus_sheet(_sheet(tmp_path, [_row(1, "Counting2", "3", id=True)]))
    assert predictions == [] and [p.message for p in problems] == ["field 'id' must be a question id, got True"]


def test_a_header_without_rows_needs_no_prediction_column(tmp_path):
    sheet = tmp_path / "m_ReasonMap-Plus.tsv"
    sheet.write_text("index\tquestion\ttype\tcity\n", encoding="utf-8")
    assert _convert(tmp_path, sheet) == (0, [], [])
    sheet.write_text("index\tquestion\ttype\tcity\n0\tq\tTorF1\trome\n", encoding="utf-8")
    with pytest.raises(InvalidRecord, match=r"no 'prediction' column"):
        _convert(tmp_path, sheet)


def test_a_row_that_cannot_be_read_is_skipped_unchecked(tmp_path, questions):
    # the row names question 0 but was made from another (its question cell): before, the sheet was refused
    bad = {**_row(0, "TorF1", ["no"]), "question": "How many stops?"}
    count, rows, problems = _convert(tmp_path, _sheet(tmp_path, [bad, _row(1, "Counting2", "3")]), questions=questions)
    assert [row["id"] for row in rows] == ["1"]
    assert problems == [(1, "field 'response' must be a string, got list")]


def test_bad_cells_are_named_as_the_scorer_names_them(tmp_path):
    rows = [_row(0, "TorF1", True), {**_row(1, "Counting2", "3"), "index": None}, _row(1, "Counting2", "3")]
    count, written, problems = _convert(tmp_path, _sheet(tmp_path, rows))
    assert count == 1  # the good row (with none, nothing is written: see below)
    assert problems == [
        (1, "field 'response' must be a string, got bool"),
        (2, "field 'index' must be a question id, got None"),
    ]
    assert [(p.line, p.message) for p in read_plus_sheet(_sheet(tmp_path, rows))[1]] == problems


def test_the_plus_task_claims_only_its_own_sheets(tmp_path):
    from benchmarks.tasks import get_task

    claims = get_task("plus").claims
    plus, route, both = (tmp_path / f"{name}.tsv" for name in ("plus", "route", "both"))
    plus.write_text("index\ttype\tprediction\n", encoding="utf-8")
    route.write_text("index\tkind\tprediction\n", encoding="utf-8")
    both.write_text("index\ttype\tkind\tprediction\n", encoding="utf-8")
    assert [claims(path, "vlmevalkit") for path in (plus, route, both)] == [True, False, False]
    assert not claims(plus, "lmms-eval") and not claims(tmp_path / "missing.tsv", "vlmevalkit")


@pytest.mark.parametrize(
    "columns", ["index\tkind\tprediction\n0\tshort\tx\n", "index\ttype\tprediction\n0\tTorF1\tx\n"]
)
def test_each_sheet_is_read_once(tmp_path, monkeypatch, columns):
    # before: a route sheet was read whole twice (once to find it is no plus sheet)
    from benchmarks import sheets
    from benchmarks.plus import loading
    from benchmarks.reasonmap import harnesses

    calls = []

    def counted(path):
        calls.append(path)
        return sheets.read_sheet(path)

    monkeypatch.setattr(loading, "read_sheet", counted)
    monkeypatch.setattr(harnesses, "read_sheet", counted)
    sheet = tmp_path / "m_ReasonMap.tsv"
    sheet.write_text(columns, encoding="utf-8")
    count, rows, problems = _convert(tmp_path, sheet)
    assert count == 1 and len(calls) == 1


def test_a_sheet_is_refused_against_another_tasks_questions(tmp_path, questions):
    # a plus sheet with route questions, a route sheet with plus questions: no row could be checked
    route = tmp_path / "route.jsonl"
    route.write_text(json.dumps({"id": "rome-0000", "city": "rome", "question_short": "q"}) + "\n", encoding="utf-8")
    plus_sheet = _sheet(tmp_path, [_row(0, "TorF1", "no")])
    with pytest.raises(InvalidRecord, match=r"read as plus predictions, but --questions .*route.jsonl holds route"):
        convert_predictions(plus_sheet, "vlmevalkit", tmp_path / "p.jsonl", questions=route)
    route_sheet = _sheet(tmp_path, [{"index": "rome-0000", "kind": "short", "prediction": "x"}], "m_ReasonMap.json")
    with pytest.raises(InvalidRecord, match=r"read as route predictions, but --questions .*plus.jsonl holds plus"):
        convert_predictions(route_sheet, "vlmevalkit", tmp_path / "p.jsonl", questions=questions)
    assert not (tmp_path / "p.jsonl").exists()


def test_a_sheet_whose_every_row_is_skipped_writes_nothing(tmp_path):
    # an empty prediction file with exit 0 looked like a run that asked nothing
    sheet = _sheet(tmp_path, ["a", "b"])
    with pytest.raises(InvalidRecord, match=r"^nothing written: every row was skipped \(2; the first: .*:1: a row"):
        convert_predictions(sheet, "vlmevalkit", tmp_path / "p.jsonl")
    assert not (tmp_path / "p.jsonl").exists()
    assert _convert(tmp_path, _sheet(tmp_path, []))[0] == 0  # a sheet of no rows: an empty file, as before
