"""VLMEvalKit prediction sheets, read row by row and within bounds: ``.xlsx``, ``.tsv``/``.csv`` and ``.json``.

VLMEvalKit writes a sheet with its ``dump`` (``vlmeval/smp/file.py``): ``.xlsx``
through pandas and xlsxwriter, ``.tsv``/``.csv`` with pandas' ``to_csv`` (UTF-8,
every cell quoted), ``.json`` as one list of row objects (``to_dict('records')``).
A row that cannot be read (a cell that is not UTF-8 text, a cell over
:data:`MAX_CELL_CHARS`, a torn quote) is reported and skipped; the other rows
are kept. A file that cannot be read at all, or is larger than a prediction
sheet can be (:data:`MAX_SHEET_ROWS` rows, :data:`MAX_SHEET_BYTES` bytes
unpacked), raises; an ``.xlsx`` is read no further than row :data:`MAX_SHEET_ROWS` + 1,
whatever row numbers its XML declares. A formula cell of an ``.xlsx`` is read as the value the
file keeps for it, else as the formula's text (an answer that begins with ``=``), never as empty.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import MAX_LINE_BYTES, Problem, open_regular
from graphkit.extras import install_hint

__all__ = ["MAX_SHEET_ROWS", "MAX_SHEET_BYTES", "MAX_CELL_CHARS", "Sheet", "read_sheet", "sheet_columns", "sheet_model"]

#: The most rows read: the largest sheet the benchmarks give (two answers to each of a few thousand questions,
#: with repeats) is far below it, and a compressed sheet of millions of rows is refused before it is materialised.
MAX_SHEET_ROWS = 100_000
#: The most bytes a sheet holds once unpacked (an ``.xlsx`` is a zip archive; a ``.json`` is read whole).
MAX_SHEET_BYTES = 1 << 30
#: The longest cell read (an ``.xlsx`` cell holds at most 32,767 characters; ``.tsv`` exists for longer answers).
MAX_CELL_CHARS = MAX_LINE_BYTES

#: ``(header, [(row number, {column: cell})], problems)``
Sheet = tuple[list[str], list[tuple[int, dict[str, Any]]], list[Problem]]


def _column(name: Any) -> str:
    # Excel's "CSV UTF-8" starts with a byte-order mark, which would otherwise stick to the first column's name
    return "" if name is None else str(name).lstrip("\ufeff").strip()


def _too_many(path: Path) -> InvalidRecord:
    return InvalidRecord(f"{path}: more than {MAX_SHEET_ROWS:,} rows: not a prediction sheet this toolkit reads")


def _scan_sheets(archive: zipfile.ZipFile) -> tuple[int, bool]:
    """How many ``<row`` elements the worksheets' XML holds, and whether a cell holds a formula (``<f>``);
    read in blocks, never whole."""
    count, formulas = 0, False
    for entry in archive.infolist():
        if not entry.filename.startswith("xl/worksheets/"):
            continue
        with archive.open(entry) as stream:
            tail = b""
            while block := stream.read(1 << 20):
                data = tail + block
                count += data.count(b"<row ") + data.count(b"<row>")
                formulas = formulas or b"<f>" in data or b"<f " in data
                tail = data[-4:]  # shorter than a tag: one cut between blocks is counted once, in the next
    return count, formulas


def _sheet_rows(book: Any, path: Path) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``(row number, cells)`` of the first worksheet, gaps included, up to row :data:`MAX_SHEET_ROWS` + 1.

    The bound is passed to openpyxl, which otherwise fills a gap before a far row (``r="100000000"``)
    with one empty row per number: work set by the coordinates a file declares, not by what it holds.
    """
    if not book.worksheets:
        raise InvalidRecord(f"{path}: the workbook holds no worksheet")
    last = MAX_SHEET_ROWS + 1
    rows = book.worksheets[0].iter_rows(max_row=last + 1, values_only=True)
    for number, row in enumerate(rows, start=1):
        if number > last:
            raise InvalidRecord(
                f"{path}: a row numbered past {last:,}: a prediction sheet holds at most {MAX_SHEET_ROWS:,} rows"
                " and its header (not read further)"
            )
        yield number, row


def _formula_texts(handle: BinaryIO, path: Path, numbers: set[int]) -> dict[int, tuple[Any, ...]]:
    """The cells of rows ``numbers`` as written, a formula as its text (``=1+1``): a second read, made only
    for a sheet that holds formulas."""
    import openpyxl

    handle.seek(0)
    book = openpyxl.load_workbook(handle, read_only=True, data_only=False)
    try:
        return {number: row for number, row in _sheet_rows(book, path) if number in numbers}
    finally:
        book.close()


def _with_formulas(
    rows: list[tuple[int, dict[str, Any]]], header: list[str], written: dict[int, tuple[Any, ...]]
) -> list[tuple[int, dict[str, Any]]]:
    """A formula cell without a kept value is read as its formula's text, never as an empty cell.

    A spreadsheet writer stores an answer that begins with ``=`` as a formula (openpyxl keeps no
    value; xlsxwriter keeps 0). A kept value is read, as pandas (and so VLMEvalKit) reads it.
    """
    mended = []
    for number, row in rows:
        texts = dict(zip(header, written.get(number, ())))
        found = {
            name: texts[name] if cell is None and isinstance(texts.get(name), str) else cell
            for name, cell in row.items()
        }
        mended.append((number, found))
    return mended


def _openpyxl(path: Path) -> Any:
    try:
        import openpyxl
    except ImportError:
        raise InvalidRecord(f"{path}: reading .xlsx needs openpyxl ({install_hint('xlsx')})") from None
    return openpyxl


def _archive(path: Path, handle: BinaryIO) -> zipfile.ZipFile:
    """The ``.xlsx`` archive, refused when it unpacks to more than :data:`MAX_SHEET_BYTES`."""
    archive = zipfile.ZipFile(handle)
    unpacked = sum(entry.file_size for entry in archive.infolist())
    if unpacked > MAX_SHEET_BYTES:
        raise InvalidRecord(f"{path}: {unpacked:,} bytes unpacked, over the {MAX_SHEET_BYTES:,} a sheet may hold")
    return archive


def _xlsx_header(path: Path, handle: BinaryIO) -> list[str]:
    openpyxl = _openpyxl(path)
    try:
        _archive(path, handle)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as error:
        raise InvalidRecord(f"{path}: not a readable .xlsx file ({error})") from None
    try:
        handle.seek(0)
        book = openpyxl.load_workbook(handle, read_only=True, data_only=True)
        try:
            first = next(_sheet_rows(book, path), (1, ()))[1]
        finally:
            book.close()
    except InvalidRecord:
        raise
    except Exception as error:  # as _xlsx: the zip, openpyxl and the XML parser raise many kinds
        raise InvalidRecord(f"{path}: not a readable .xlsx file ({type(error).__name__}: {error})") from None
    return [_column(cell) for cell in first]


def _xlsx(path: Path, handle: BinaryIO) -> Sheet:
    openpyxl = _openpyxl(path)
    try:
        archive = _archive(path, handle)
        # counted in the raw XML first: parsing a compressed sheet of millions of rows takes minutes
        count, formulas = _scan_sheets(archive)
        if count > MAX_SHEET_ROWS + 1:
            raise _too_many(path)
    except InvalidRecord:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as error:
        raise InvalidRecord(f"{path}: not a readable .xlsx file ({error})") from None
    handle.seek(0)
    header: list[str] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        book = openpyxl.load_workbook(handle, read_only=True, data_only=True)
        try:
            for number, row in _sheet_rows(book, path):
                if number == 1:
                    header = [_column(cell) for cell in row]
                elif any(cell is not None for cell in row):
                    if len(rows) == MAX_SHEET_ROWS:
                        raise _too_many(path)
                    rows.append((number, dict(zip(header, row))))
        finally:
            book.close()
        if formulas:
            empty = {number for number, row in rows if None in row.values()}
            rows = _with_formulas(rows, header, _formula_texts(handle, path, empty) if empty else {})
    except InvalidRecord:
        raise
    except Exception as error:  # openpyxl and the XML parser raise many kinds on a broken or truncated part
        raise InvalidRecord(f"{path}: not a readable .xlsx file ({type(error).__name__}: {error})") from None
    return header, rows, []


class _BoundedLines:
    """The stream's lines; one longer than a cell may be is cut short, never held whole.

    The cut piece is closed with a quote and a line end, so that the csv reader ends
    its record there (and does not run on into the next rows); ``cut`` says it happened.
    """

    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream = stream
        self.cut = False

    def __iter__(self) -> Iterator[str]:
        while line := self.stream.readline(MAX_CELL_CHARS + 1):
            if len(line) > MAX_CELL_CHARS and not line.endswith("\n"):
                while (rest := self.stream.readline(MAX_CELL_CHARS)) and not rest.endswith("\n"):
                    pass  # the rest of an over-long line, dropped
                self.cut = True
                line = line[:MAX_CELL_CHARS] + '"\n'
            yield line


def _delimited(path: Path, handle: BinaryIO, delimiter: str) -> Sheet:
    # undecodable bytes become lone surrogates, so that the row holding them, not the sheet, is refused
    stream = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="surrogateescape", newline="")
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_CELL_CHARS)
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    label = str(path)
    try:
        lines = _BoundedLines(stream)
        reader = csv.reader(lines, delimiter=delimiter)
        header = _header(reader, lines, path)
        while True:
            number = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as error:
                lines.cut = False
                problems.append(Problem(label, number, f"not a readable row ({error})"))
                continue
            if lines.cut:
                lines.cut = False
                problems.append(
                    Problem(label, number, f"not a readable row (a line over {MAX_CELL_CHARS:,} characters)")
                )
                continue
            if not any(row):
                continue
            bad = next((name for name, cell in zip(header, row) if not cell.isascii() and _undecoded(cell)), None)
            if bad is not None:
                problems.append(Problem(label, number, f"column {bad!r} is not UTF-8 text"))
                continue
            if len(rows) == MAX_SHEET_ROWS:
                raise _too_many(path)
            rows.append((number, dict(zip(header, row))))
    except OSError as error:
        raise InvalidRecord(f"{path}: cannot read the prediction sheet ({error})") from None
    finally:
        csv.field_size_limit(limit)
    return header, rows, problems


def _header(reader: Any, lines: _BoundedLines, path: Path) -> list[str]:
    try:
        header = [_column(name) for name in next(reader, [])]
    except csv.Error as error:
        raise InvalidRecord(f"{path}: cannot read the header row ({error})") from None
    if lines.cut:
        raise InvalidRecord(f"{path}: the header row is over {MAX_CELL_CHARS:,} characters")
    return header


def _delimited_header(path: Path, handle: BinaryIO, delimiter: str) -> list[str]:
    stream = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="surrogateescape", newline="")
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_CELL_CHARS)
    try:
        lines = _BoundedLines(stream)
        return _header(csv.reader(lines, delimiter=delimiter), lines, path)
    except OSError as error:
        raise InvalidRecord(f"{path}: cannot read the prediction sheet ({error})") from None
    finally:
        csv.field_size_limit(limit)


def _undecoded(text: str) -> bool:
    return any("\udc80" <= character <= "\udcff" for character in text)


def _json(path: Path, handle: BinaryIO) -> Sheet:
    data = handle.read(MAX_SHEET_BYTES + 1)
    if len(data) > MAX_SHEET_BYTES:
        raise InvalidRecord(f"{path}: larger than the {MAX_SHEET_BYTES:,} bytes a prediction sheet may hold")
    try:
        records = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise InvalidRecord(f"{path}: not a JSON prediction sheet ({type(error).__name__}: {error})") from None
    if not isinstance(records, list):
        raise InvalidRecord(f"{path}: a JSON prediction sheet is a list of rows, got {type(records).__name__}")
    if len(records) > MAX_SHEET_ROWS:
        raise _too_many(path)
    header: list[str] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            problems.append(Problem(str(path), number, "a row must be a JSON object"))
            continue
        record = {_column(name): cell for name, cell in record.items()}
        header.extend(name for name in record if name not in header)
        rows.append((number, record))
    return header, rows, problems


def read_sheet(path: str | Path) -> Sheet:
    """The header, the non-blank rows (numbered as the file numbers them) and the rows skipped, of a sheet.

    ``.xlsx`` is read from its first worksheet, ``.json`` as a list of rows,
    ``.tsv`` as tab-separated and anything else as comma-separated text.

    Parameters
    ----------
    path : str or Path
        The sheet.

    Returns
    -------
    header : list of str
        The column names.
    rows : list of (int, dict)
        Each non-blank row with its number.
    problems : list of Problem
        The rows skipped.

    Raises
    ------
    InvalidRecord
        The file is missing or not a regular file, cannot be read at all, or is over the bounds.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    with open_regular(path, "prediction sheet") as handle:
        if suffix == ".xlsx":
            return _xlsx(path, handle)
        if suffix == ".json":
            return _json(path, handle)
        return _delimited(path, handle, "\t" if suffix == ".tsv" else ",")


def sheet_columns(path: str | Path) -> list[str]:
    """A sheet's column names, read without its rows (a ``.json`` sheet, a list of rows, is read whole).

    What tells one data set's sheet from another's before the sheet is read (:func:`read_sheet`).

    Parameters
    ----------
    path : str or Path
        The sheet.

    Returns
    -------
    list of str
        The column names, as :func:`read_sheet` gives them.

    Raises
    ------
    InvalidRecord
        The file is missing or not a regular file, or its header cannot be read.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        return read_sheet(path)[0]
    with open_regular(path, "prediction sheet") as handle:
        if suffix == ".xlsx":
            return _xlsx_header(path, handle)
        return _delimited_header(path, handle, "\t" if suffix == ".tsv" else ",")


def sheet_model(path: str | Path) -> str:
    """The model of a VLMEvalKit sheet ``<model>_<dataset>``: the stem without its ReasonMap data set's name.

    Parameters
    ----------
    path : str or Path
        The sheet's file.

    Returns
    -------
    str
        The model's name.

    Examples
    --------
    >>> sheet_model("out/Qwen2.5-VL-7B_ReasonMap-Plus.xlsx"), sheet_model("answers.tsv")
    ('Qwen2.5-VL-7B', 'answers')
    """
    stem = Path(path).stem
    head, found, _ = stem.rpartition("_ReasonMap")
    return head if found and head else stem
