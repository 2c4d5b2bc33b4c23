"""VLMEvalKit's ``.xlsx`` sheets read within what the file holds, and formula cells never read as empty answers.

The sheets are written here with openpyxl 3.1 (``Workbook.save``), then their worksheet XML is edited the way
the hostile report (campaign 4, D36 and D41) edited it: a far row number, a formula with or without a kept value.
openpyxl writes a formula cell as ``<c r="B2"><f>1+1</f><v /></c>`` (no kept value), which is what
``ReadOnlyWorksheet._cells_by_row`` (``openpyxl/worksheet/_read_only.py``, 3.1.5, lines 62–100) reads back as
``None`` with ``data_only=True``; the same function fills every missing row number before a far row with an
empty row, unless ``max_row`` stops it first.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from benchmarks import sheets
from benchmarks.errors import InvalidRecord
from benchmarks.sheets import read_sheet

openpyxl = pytest.importorskip("openpyxl")

SHEET = "xl/worksheets/sheet1.xml"


def _book(path: Path, rows: list[list[object]]) -> Path:
    book = openpyxl.Workbook()
    book.active.append(["index", "kind", "prediction"])
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def _edit(path: Path, change) -> Path:
    """Rewrite the worksheet's XML with ``change(text)``, every other part kept byte for byte."""
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    parts[SHEET] = change(parts[SHEET].decode("utf-8")).encode("utf-8")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def _far_row(number: int):
    def change(text: str) -> str:
        text = re.sub(r"<dimension [^>]*/>", "", text)  # no declared size, as in D36
        row = f'<row r="{number}"><c r="A{number}" t="inlineStr"><is><t>far</t></is></c></row>'
        return text.replace("</sheetData>", row + "</sheetData>")

    return change


def test_a_row_numbered_100_000_000_is_refused_without_walking_the_gap(tmp_path):
    # D36: ten rows, then one numbered 100,000,000; openpyxl would yield 99,999,989 empty rows first
    path = _edit(_book(tmp_path / "gap.xlsx", [[n, "short", "x"] for n in range(10)]), _far_row(100_000_000))
    assert path.stat().st_size < 10_000
    with pytest.raises(InvalidRecord, match=r"gap\.xlsx: a row numbered past 100,001: .*at most 100,000 rows"):
        read_sheet(path)


def test_the_last_row_a_sheet_may_hold_is_read_and_the_next_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sheets, "MAX_SHEET_ROWS", 50)
    # the header and 50 rows: row 51 is the last one read
    kept = _edit(_book(tmp_path / "kept.xlsx", [[0, "short", "x"]]), _far_row(51))
    header, rows, problems = read_sheet(kept)
    assert [number for number, _ in rows] == [2, 51] and rows[1][1]["index"] == "far" and not problems
    refused = _edit(_book(tmp_path / "refused.xlsx", [[0, "short", "x"]]), _far_row(52))
    with pytest.raises(InvalidRecord, match="a row numbered past 51"):
        read_sheet(refused)


def test_a_formula_without_a_kept_value_is_read_as_its_text(tmp_path):
    # D41: openpyxl (like xlsxwriter) stores an answer that begins with "=" as a formula
    path = _book(tmp_path / "f.xlsx", [[0, "short", "=1+1"], [1, "short", "Route Name: Line A"]])
    _, rows, problems = read_sheet(path)
    assert [row["prediction"] for _, row in rows] == ["=1+1", "Route Name: Line A"] and not problems


def test_a_formula_with_a_kept_value_is_read_as_that_value(tmp_path):
    # a spreadsheet program keeps the computed value beside the formula; pandas (and VLMEvalKit) read that value
    path = _book(tmp_path / "v.xlsx", [[0, "short", "=1+1"], [1, "short", "=SUM(1,2)"]])
    _edit(path, lambda text: text.replace("<f>1+1</f><v />", "<f>1+1</f><v>2</v>"))
    _, rows, _ = read_sheet(path)
    assert [row["prediction"] for _, row in rows] == [2, "=SUM(1,2)"]


def test_the_vlmevalkit_reader_scores_a_formula_answer_as_written(tmp_path):
    from benchmarks.reasonmap.harnesses import read_vlmevalkit

    path = _book(tmp_path / "m_ReasonMap.xlsx", [["rome-0000", "short", "=Route Name: Line A"]])
    (prediction,), problems = read_vlmevalkit(path)
    assert prediction.response == "=Route Name: Line A" and not problems


def test_the_columns_are_read_without_the_rows(tmp_path):
    book = _book(tmp_path / "m.xlsx", [[0, "short", "x"]])
    assert sheets.sheet_columns(book) == read_sheet(book)[0] == ["index", "kind", "prediction"]
    tsv = tmp_path / "m.tsv"
    tsv.write_text('\ufeffindex\t"type"\tprediction\n0\tTorF1\t"torn\n', encoding="utf-8")  # a torn row after
    assert sheets.sheet_columns(tsv) == ["index", "type", "prediction"]
    with pytest.raises(InvalidRecord, match="not a readable .xlsx file"):
        sheets.sheet_columns(tsv.rename(tmp_path / "not.xlsx"))
