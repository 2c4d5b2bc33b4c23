"""Reading and writing JSON Lines files, for every task.

Reading never stops at a bad record: it is reported (file, line, what is
wrong) and skipped, and every good record is kept. Writing is atomic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from benchmarks.errors import InvalidRecord
from graphkit.files import atomic_writer

__all__ = [
    "Problem",
    "Note",
    "PartialRun",
    "MAX_LINE_BYTES",
    "open_regular",
    "decode_line",
    "numbered_lines",
    "read_jsonl",
    "write_jsonl",
    "first_record",
    "unique_by_id",
    "read_jsonl_lines",
    "first_answers",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Problem:
    """A record that was skipped, and why.

    Attributes
    ----------
    path : str
        The file.
    line : int
        Its line (0 when the record came from no line).
    message : str
        What is wrong.

    Examples
    --------
    >>> str(Problem("questions.jsonl", 3, "missing field 'id'"))
    "questions.jsonl:3: missing field 'id'"
    """

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class Note(Problem):
    """Not a skipped record: how a whole file was read, for the user to check (``line`` 0).

    Attributes
    ----------
    path : str
        The file.
    line : int
        0.
    message : str
        What to check.
    """

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True, slots=True)
class PartialRun(Note):
    """A note that the file holds the finished part of a run that did not end: its ``status``, ``samples`` read.

    The report records it (``summary["partial"]``), and ``compare`` and ``leaderboard`` refuse the run unless told.

    Attributes
    ----------
    path, line, message
        As :class:`Note`.
    source : str
        The harness whose log it is (``inspect``).
    status : str
        How the run ended (``cancelled``, ``error``).
    samples : int
        The finished samples read.
    """

    source: str = ""
    status: str = ""
    samples: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "log": Path(self.path).name, "status": self.status, "samples": self.samples}


#: The longest line read (bytes); a longer one is reported and skipped, so no line can exhaust memory.
MAX_LINE_BYTES = 64 << 20
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# how many lines :func:`first_record` looks through for one that decodes
_FIRST_LINES = 100
# lines of write_jsonl handed to the file at once
_LINES_WRITTEN_AT_ONCE = 1024
#: what a file that is not text starts with: such a file is refused in one line, not read as bad lines
_BINARY_KINDS = (
    (b"\x89PNG\r\n", "a PNG image"),  # the first line ends inside its signature
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (an Inspect .eval log or an .xlsx sheet? see --from)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"PAR1", "a parquet file"),
)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def open_regular(path: str | Path, what: str = "JSON Lines") -> BinaryIO:
    """``path`` opened for binary reading if it is a regular file (:func:`graphkit.reading.open_regular`).

    Parameters
    ----------
    path : str or Path
        The file.
    what : str, optional
        The kind of file, for the message.

    Returns
    -------
    BinaryIO
        The open file.

    Raises
    ------
    InvalidRecord
        It is missing, unreadable, a folder, a FIFO or a device; the message names it.
    """
    from graphkit.reading import open_regular as open_file

    return open_file(path, what=what, error=InvalidRecord)


def _lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a lone surrogate (``"\\ud800"``), which no UTF-8 file can hold."""
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(key) or _lone_surrogate(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_lone_surrogate(item) for item in value)
    return False


# json.loads without its Python layers (json.decoder's JSONDecoder.decode and raw_decode, CPython 3.11): the
# C scanner from the first non-blank character, then nothing but blanks to the end. What it refuses goes
# through json.loads, for its message
_SCAN_ONCE = json.JSONDecoder().scan_once
_BLANKS = json.decoder.WHITESPACE.match
_NOT_SCANNED = object()


def _scanned(text: str) -> Any:
    """``json.loads(text)`` for a text that holds one JSON value, else ``_NOT_SCANNED`` (nothing raised)."""
    try:
        value, end = _SCAN_ONCE(text, _BLANKS(text, 0).end())
    except (StopIteration, ValueError, RecursionError):
        return _NOT_SCANNED
    if end != len(text) and _BLANKS(text, end).end() != len(text):
        return _NOT_SCANNED
    return value


def decode_line(line: bytes) -> tuple[Any, str | None]:
    """One JSON Lines line decoded: ``(value, None)``, or ``(None, why not)``; never raises.

    Parameters
    ----------
    line : bytes
        The line (its newline may be there).

    Returns
    -------
    value : Any
        The JSON value (``None`` when the line is bad).
    why : str or None
        Why the line is bad.

    Examples
    --------
    >>> decode_line(b'{"a": 1}')
    ({'a': 1}, None)
    >>> decode_line(b'{"a": "\\xe9"}')[1]
    'not UTF-8 (invalid continuation byte at byte 8)'
    >>> decode_line(b'{"a": "\\\\ud800"}')[1]
    'holds an unpaired surrogate escape (U+D800 to U+DFFF), which is not text'
    >>> decode_line(b"[" * 100_000)[1]
    'nested too deeply to read'
    >>> decode_line(b'{"response": "' + b"{" * 300 + b'"}')[1] is None  # brackets in a string are text
    True
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 ({error.reason} at byte {error.start + 1})"
    value = _scanned(text)
    if value is not _NOT_SCANNED:
        if _SURROGATE_ESCAPE.search(line) and _lone_surrogate(value):
            return None, "holds an unpaired surrogate escape (U+D800 to U+DFFF), which is not text"
        return value, None
    try:  # what the scanner refused, read again for json.loads's message
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"not valid JSON ({error.msg} at column {error.colno})"
    except RecursionError:  # the decoder recurses once per level: deep input ends here, not in a crash
        return None, "nested too deeply to read"
    if _SURROGATE_ESCAPE.search(line) and _lone_surrogate(value):
        return None, "holds an unpaired surrogate escape (U+D800 to U+DFFF), which is not text"
    return value, None


def numbered_lines(handle: BinaryIO, label: str) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, bytes)`` of every line; ``None`` for a line over :data:`MAX_LINE_BYTES` (skipped whole).

    Parameters
    ----------
    handle : BinaryIO
        The open file.
    label : str
        The file's name, for messages.

    Yields
    ------
    number : int
        The line's number, from 1.
    line : bytes or None
        The line.
    """
    number = 0
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if number == 1:
            kind = next((kind for magic, kind in _BINARY_KINDS if line.startswith(magic)), None)
            if kind is not None:
                raise InvalidRecord(f"{label}: is {kind}, not JSON Lines")
            if line.startswith(_UTF16_BOMS) or (len(line) > 1 and b"\x00" in line[:2]):
                raise InvalidRecord(f"{label}: is UTF-16 text; save it as UTF-8")
            line = line.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                pass
            yield number, None
            continue
        yield number, line


def read_jsonl(path: str | Path, parse: Callable[..., T]) -> tuple[list[T], list[Problem]]:
    """Parse every line of a JSON Lines file with ``parse(obj, where=...)``.

    Blank lines are ignored, and a UTF-8 byte-order mark is accepted.

    Parameters
    ----------
    path : str or Path
        The JSON Lines file.
    parse : callable
        ``parse(obj, where=...)``: one parsed JSON value to a record; it raises
        :class:`~benchmarks.errors.InvalidRecord` (naming ``where``) for a bad one.

    Returns
    -------
    records : list
        The good records, in file order.
    problems : list of Problem
        The lines skipped (bad bytes, bad JSON, invalid records), each with its true line number.

    Raises
    ------
    InvalidRecord
        The file cannot be read at all (missing, a folder, a pipe or device, UTF-16).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "rows.jsonl"
    >>> write_jsonl(path, [{"id": "a"}, {"id": "b"}])
    2
    >>> with path.open("a") as stream:
    ...     _ = stream.write("{not json\\n")
    >>> records, problems = read_jsonl(path, lambda obj, where: obj["id"])
    >>> records, [problem.line for problem in problems]
    (['a', 'b'], [3])
    >>> folder.cleanup()
    """
    numbered, problems = read_jsonl_lines(path, parse)
    return [record for _, record in numbered], problems


def read_jsonl_lines(path: str | Path, parse: Callable[..., T]) -> tuple[list[tuple[int, T]], list[Problem]]:
    """:func:`read_jsonl`, each good record with its line number (``(line, record)``), so that what is found
    wrong with records later (a repeated id: :func:`unique_by_id`) names their lines too.

    Parameters
    ----------
    path : str or Path
        The JSON Lines file.
    parse : callable
        As :func:`read_jsonl`.

    Returns
    -------
    records : list of (int, record)
        The good records with their line numbers.
    problems : list of Problem
        The lines skipped.

    Raises
    ------
    InvalidRecord
        The file cannot be read at all (missing, a folder, a pipe or device, UTF-16).
    """
    label = str(path)
    records: list[tuple[int, T]] = []
    problems: list[Problem] = []
    with open_regular(path) as handle:
        for number, line in numbered_lines(handle, label):
            if line is None:
                problems.append(Problem(label, number, f"longer than {MAX_LINE_BYTES:,} bytes"))
                continue
            if not line.strip():
                continue
            obj, why = decode_line(line)
            if why is not None:
                problems.append(Problem(label, number, why))
                continue
            try:
                records.append((number, parse(obj, where=f"{label}:{number}")))
            except InvalidRecord as error:
                problems.append(Problem(label, number, str(error).removeprefix(f"{label}:{number}: ")))
    return records, problems


def _line_encoder() -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False)`` as one function for many values: the C encoder that
    ``JSONEncoder.encode`` makes for each value (json.encoder, CPython 3.11), made once here."""
    encoder = json.JSONEncoder(ensure_ascii=False)
    make = json.encoder.c_make_encoder
    if make is None:  # an interpreter without json's C part
        return encoder.encode
    chunks = make(
        {}, encoder.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, encoder.allow_nan
    )
    return lambda value: "".join(chunks(value, 0))


def write_jsonl(path: str | Path, records: Iterable[Any]) -> int:
    """Write records (objects with ``to_dict`` or plain dicts) atomically, one per line; returns the count.

    Each line is ``json.dumps(record, ensure_ascii=False)`` (one encoder for them all, lines written a block
    at a time).

    Parameters
    ----------
    path : str or Path
        The file to write (replaced whole, or left as it was when writing fails).
    records : iterable
        Objects with ``to_dict``, or JSON-ready mappings.

    Returns
    -------
    int
        The records written.
    """
    count = 0
    encode = _line_encoder()
    with atomic_writer(path) as stream:
        lines: list[str] = []
        for record in records:
            lines.append(encode(record.to_dict() if hasattr(record, "to_dict") else record))
            if len(lines) == _LINES_WRITTEN_AT_ONCE:
                stream.write("\n".join(lines) + "\n")
                count += len(lines)
                lines.clear()
        if lines:
            stream.write("\n".join(lines) + "\n")
            count += len(lines)
    return count


def first_record(path: str | Path) -> Any:
    """The first record of a JSON Lines file that decodes (of its first 100 lines), to tell what kind of file it is.

    ``None`` for parquet files, unreadable or irregular files, bad lines and empty files:
    telling the kind is not the place to report them (the loader does).

    Parameters
    ----------
    path : str or Path
        A question or prediction file.

    Returns
    -------
    Any
        The first record, or ``None``.
    """
    path = Path(path)
    if path.suffix == ".parquet":
        return None
    try:
        with open_regular(path) as handle:
            for number, line in numbered_lines(handle, str(path)):
                if number > _FIRST_LINES:
                    break
                if line is not None and line.strip():
                    value, why = decode_line(line)
                    if why is None:  # a bad first line must not make the file read as another task's
                        return value
    except InvalidRecord:
        return None
    return None


def unique_by_id(
    records: Iterable[T], path: str | Path, *, lines: Sequence[int] | None = None
) -> tuple[dict[str, T], list[Problem]]:
    """Records by their ``id``; a repeated id is reported and the first record kept.

    ``lines`` gives each record's line (:func:`read_jsonl_lines`): a repeat is then reported at its own line,
    naming the first's; without it (records of a table, not of lines) at line 0.

    Parameters
    ----------
    records : iterable
        Records with an ``id``.
    path : str or Path
        Their file, for the problems.
    lines : sequence of int, optional
        Each record's line in the file.

    Returns
    -------
    records : dict
        Each id to its first record, in order.
    problems : list of Problem
        One per repeated id.

    Examples
    --------
    >>> from types import SimpleNamespace as Record
    >>> unique, problems = unique_by_id([Record(id="a"), Record(id="b"), Record(id="a")], "q.jsonl", lines=[1, 2, 4])
    >>> list(unique), [str(problem) for problem in problems]
    (['a', 'b'], ["q.jsonl:4: question id 'a' appears twice (first on line 1); the first is used"])
    """
    unique: dict[str, T] = {}
    first: dict[str, int] = {}
    problems: list[Problem] = []
    for index, record in enumerate(records):
        line = lines[index] if lines is not None else 0
        if record.id in unique:
            where = f" (first on line {first[record.id]})" if lines is not None else ""
            message = f"question id {record.id!r} appears twice{where}; the first is used"
            problems.append(Problem(str(path), line, message))
            continue
        unique[record.id] = record
        first[record.id] = line
    return unique, problems


def first_answers(
    predictions: Iterable[T], key: Callable[[T], Hashable], path: str | Path
) -> tuple[list[T], list[str]]:
    """Predictions with repeats dropped: a model's second answer to one question is reported, the first counts.

    Parameters
    ----------
    predictions : iterable
        Predictions (with ``model`` and ``id``).
    key : callable
        What makes two predictions one answer (the task's ``answer_key``).
    path : str or Path
        Their file, for the messages.

    Returns
    -------
    predictions : list
        The first answer of each key, in order.
    problems : list of str
        One line per answer dropped.
    """
    seen: set[Hashable] = set()
    kept: list[T] = []
    problems: list[str] = []
    for prediction in predictions:
        found = key(prediction)
        if found in seen:
            problems.append(f"{path}: {prediction.model} answered {prediction.id} again; the first answer counts")
            continue
        seen.add(found)
        kept.append(prediction)
    return kept, problems
