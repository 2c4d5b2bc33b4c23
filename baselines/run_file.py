"""The prediction file of a run: scanned, checked, repaired, locked, appended to and made durable.

The main-thread side of :mod:`baselines.client` (see its docstring for the
resuming rules). :func:`resume` opens the file for a run: it reads the rows
already there in blocks (each line capped), drops a torn last line, ends a
whole last row that lacks only its newline, checks the settings record
beside the file and the rows' prompt modes, prunes error rows when asked
to, and holds an advisory lock (POSIX only). :func:`append` writes one
complete line with one ``os.write`` on the ``O_APPEND`` descriptor, then
``fsync``. A stream (:func:`is_stream`) is written straight through.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baselines.errors import OutputFileError
from benchmarks.jsonl import MAX_LINE_BYTES
from graphkit.files import atomic_writer

try:
    import fcntl
except ImportError:  # Windows: no advisory lock, the rest works
    fcntl = None  # type: ignore[assignment]

__all__ = ["Resumed", "append", "is_stream", "resume", "settings_path"]


@dataclass(frozen=True, slots=True)
class _Existing:
    """What a prediction file already holds: its sound length in bytes, each row's key, error flag and place
    (offset, length), the bytes of a torn last line, and whether the last row lacks only its newline."""

    length: int
    rows: tuple[tuple[tuple[str, str, str, int], bool, int, int], ...]  # key: id, question, model, repeat
    torn: int
    modes: tuple[str | None, ...] = ()  # each row's prompt mode (None when it has none)
    unended: bool = False


def _lines(fd: int, limit: int) -> Iterator[tuple[int, int, bytes | None, bool]]:
    """``(start, end, line, ended)`` of each line of ``fd``, read in blocks; ``line`` is ``None`` for a line over
    ``limit`` bytes (never held whole: a 2 GB line costs one block of memory)."""
    size = os.fstat(fd).st_size
    offset = start = 0
    buffer = b""  # the current line so far (dropped once it is too long)
    too_long = False
    while offset < size and (block := os.pread(fd, min(size - offset, 1 << 22), offset)):
        position = 0
        while (end := block.find(b"\n", position)) >= 0:
            line = None if too_long else buffer + block[position : end + 1]
            yield start, offset + end + 1, None if line is None or len(line) > limit else line, True
            start, buffer, too_long, position = offset + end + 1, b"", False, end + 1
        if not too_long:
            buffer += block[position:]
            too_long = len(buffer) > limit
            buffer = b"" if too_long else buffer
        offset += len(block)
    if buffer or too_long:
        yield start, offset, None if too_long else buffer, False


def _scan(fd: int, label: str, limit: int) -> _Existing:
    """Rows of a prediction file (each line at most ``limit`` bytes); a torn last line is left out, a bad line
    before it is an error."""
    rows = []
    modes = []
    length = number = 0
    unended = False
    size = os.fstat(fd).st_size
    for start, end, line, ended in _lines(fd, limit):
        number += 1
        if line is not None and not line.strip():
            length = end if ended else length
            continue
        try:
            if line is None:
                raise ValueError(f"longer than {limit:,} bytes")
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("not a JSON object")
            key = (str(row["id"]), row["question"], row["model"], row.get("repeat", 0))
            _check_key(row)
        except (ValueError, KeyError, RecursionError) as error:
            if end >= size:
                break  # the last line is not a row: torn
            if isinstance(error, KeyError):
                what = f"missing field {error}"
            elif isinstance(error, RecursionError):
                what = "not a prediction row (nested too deeply)"
            else:
                what = f"not a prediction row ({error})"
            raise OutputFileError(
                f"{label}: line {number}: {what}; the file cannot be resumed until this line is fixed or removed"
            ) from None
        rows.append((key, bool(row.get("error")), start, end - start))
        modes.append(row.get("mode"))
        length = end
        unended = not ended  # a whole row that lacks only its newline is kept
    return _Existing(length, tuple(rows), size - length, tuple(modes), unended)


def _check_key(row: dict[str, Any]) -> None:
    """``ValueError`` naming the field when the row's key (id, question, model, repeat) or mode is of the wrong
    type."""
    identifier = row["id"]
    if isinstance(identifier, bool) or not isinstance(identifier, str | int):
        raise ValueError(f"field 'id' must be a string, got {identifier!r:.60}")
    repeat = row.get("repeat", 0)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise ValueError(f"field 'repeat' must be a non-negative integer, got {repeat!r:.60}")
    for name in ("question", "model", "mode"):
        value = row.get(name)
        if not isinstance(value, str) and (name != "mode" or value is not None):
            raise ValueError(f"field {name!r} must be a string, got {value!r:.60}")


# What decides the answers, with its option's name: a resumed file must have been written with the same.
_SETTINGS = (
    ("endpoint", "--endpoint"),
    ("model", "--model"),
    ("name", "--name"),
    ("temperature", "--temperature"),
    ("max_tokens", "--max-tokens"),
)


def settings_path(out: Path) -> Path:
    """The settings record beside the prediction file ``out``.

    Parameters
    ----------
    out
        The prediction file.

    Returns
    -------
    Path
        ``<out>.settings.json``.
    """
    return out.with_name(out.name + ".settings.json")


def _check_settings(out: Path, settings: dict[str, Any], resumed: bool) -> dict[str, Any] | None:
    """The settings record of ``out`` with this run's entry, ``None`` when it needs no rewrite.

    The record holds each model name's settings; when ``resumed`` (``out`` holds rows of this name), a
    recorded value that differs from this run's is refused, naming the option.
    """
    path = settings_path(out)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        runs = record["runs"]
        if not isinstance(runs, dict) or not all(isinstance(value, dict) for value in runs.values()):
            raise ValueError("'runs' must map model names to settings")
    except FileNotFoundError:
        runs = {}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise OutputFileError(
            f"{path}: not the settings of a prediction file ({error}); remove it, or use another --out"
        ) from None
    before = runs.get(settings["name"])
    if resumed and before is not None:
        for field, flag in _SETTINGS:
            if before.get(field) != settings[field]:
                raise OutputFileError(
                    f"{out} was written with {flag} {_shown(before.get(field))}, not {_shown(settings[field])};"
                    f" use another --out or remove {out} and {path}"
                )
    if before == settings:
        return None
    return {"runs": {**runs, settings["name"]: settings}}


def _shown(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _check_modes(out: Path, existing: _Existing, model: str, wanted: dict[tuple[str, str], str]) -> None:
    """Refuse a run whose requests' mode differs from that of rows of ``model`` under the same key."""
    for (key, _, _, _), mode in zip(existing.rows, existing.modes, strict=True):
        if key[2] != model or not mode or not wanted.get(key[:2]) or wanted[key[:2]] == mode:
            continue
        raise OutputFileError(f"{out} holds {mode} answers of {model}; write {wanted[key[:2]]} answers to another file")


def _open_locked(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputFileError(f"{path}: another run is writing to this file") from None
    return fd


def is_stream(out: Path) -> bool:
    """Whether ``out`` is written straight through, never read back nor resumed.

    Parameters
    ----------
    out
        The output path.

    Returns
    -------
    bool
        ``True`` for ``-`` (standard output), a path under ``/dev/`` (``/dev/stdout``, ``/dev/null``), or anything
        that is not a regular file (a FIFO, a device).
    """
    if str(out) == "-" or str(out).startswith("/dev/"):
        return True
    try:
        return not stat.S_ISREG(os.stat(out).st_mode)
    except FileNotFoundError:
        return False


def _open_stream(out: Path) -> int:
    try:
        if str(out) != "-":
            return os.open(out, os.O_WRONLY | os.O_APPEND)
        sys.stdout.flush()
        try:
            fd = sys.stdout.fileno()
        except io.UnsupportedOperation:  # replaced by a harness: the process's own
            fd = 1
        return os.dup(fd)
    except OSError as error:
        name = "standard output" if str(out) == "-" else out
        raise OSError(f"{name}: cannot be written ({error.strerror})") from None


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # not supported (Windows): the rename or create is durable enough there
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _prepare(
    out: Path, settings: dict[str, Any], wanted: dict[tuple[str, str], str], *, retry_errors: bool, limit: int
) -> tuple[int, set[tuple[str, str, int]], set[tuple[str, str, int]], int]:
    """Open ``out`` for appending after checking, repairing and, with ``retry_errors``, pruning it.

    ``settings`` are the run's (see :data:`_SETTINGS`; ``name`` is the model's
    name in the rows), ``wanted`` each request's mode by key. Returns the
    locked descriptor, the keys ``(id, question, repeat)`` already done for the
    model, those of them with an answer (not only error rows), and the bytes of
    a torn last line that were dropped.
    """
    model = settings["name"]
    out.parent.mkdir(parents=True, exist_ok=True)
    created = not out.exists()
    fd = _open_locked(out)
    try:
        existing = _scan(fd, str(out), limit)
        # refused before anything changes: the file is left as it was
        _check_modes(out, existing, model, wanted)
        record = _check_settings(out, settings, any(key[2] == model for key, _, _, _ in existing.rows))
        if record is not None:
            with atomic_writer(settings_path(out)) as stream:
                stream.write(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        if existing.torn:
            os.ftruncate(fd, existing.length)
            os.fsync(fd)
        elif existing.unended:  # a whole last row without its newline: kept, and ended
            append(fd, b"\n", str(out))
        elif created:
            _fsync_dir(out)
        answered = {key for key, is_error, _, _ in existing.rows if not is_error}
        drop = {
            key
            for key, is_error, _, _ in existing.rows
            if retry_errors and is_error and key[2] == model and key[:2] in wanted and key not in answered
        }
        if drop:
            with atomic_writer(out, binary=True) as stream:
                for key, _, start, length in existing.rows:
                    if key not in drop:
                        line = os.pread(fd, length, start)
                        stream.write(line if line.endswith(b"\n") else line + b"\n")
            os.close(fd)
            fd = _open_locked(out)  # the rename replaced the file: lock the new one
    except BaseException:
        os.close(fd)
        raise
    done = {(key[0], key[1], key[3]) for key, _, _, _ in existing.rows if key[2] == model and key not in drop}
    return fd, done, {(key[0], key[1], key[3]) for key in answered if key[2] == model}, existing.torn


def append(fd: int, data: bytes, label: str, *, durable: bool = True) -> None:
    """Write one complete line, by one ``os.write`` on the ``O_APPEND`` descriptor, then make it durable.

    Parameters
    ----------
    fd
        The descriptor, opened with ``O_APPEND``.
    data
        The line, with its newline.
    label
        The file's name in errors.
    durable
        ``fsync`` after writing (not on a pipe or a device, which cannot be synced).

    Raises
    ------
    OSError
        A full disk is named: ``LABEL: no space left on device``.
    """
    try:
        written = os.write(fd, data)
        while written < len(data):  # a short write (disk nearly full): finish the line, still in append mode
            written += os.write(fd, data[written:])
        if durable:
            os.fsync(fd)
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        full = OSError(f"{label}: no space left on device")
        full.errno = errno.ENOSPC
        raise full from None


@dataclass(frozen=True, slots=True)
class Resumed:
    """The prediction file opened for a run: its descriptor, the keys ``(id, question, repeat)`` the model already
    has rows for (``done``) and answers for (``answered``), whether the file is a stream (a pipe or a device,
    written straight through), and whether this run created it and its settings record (removed again when the
    run stops before its first row).

    Attributes
    ----------
    fd : int
        The file's descriptor, open for appending.
    done, answered : frozenset of (str, str, int)
        The keys with a row, and with an answer.
    stream : bool
        The file is a pipe or a device.
    created, settings_created : bool
        This run created the file, and its settings record.
    """

    fd: int
    done: frozenset[tuple[str, str, int]]
    answered: frozenset[tuple[str, str, int]]
    stream: bool
    created: bool
    settings_created: bool


def resume(
    out: Path,
    settings: dict[str, Any],
    modes: dict[tuple[str, str], str],
    *,
    retry_errors: bool,
    limit: int = MAX_LINE_BYTES,
) -> Resumed:
    """Open ``out`` for a run: checked, repaired and pruned (:func:`_prepare`), or a stream as it is.

    Parameters
    ----------
    out
        The prediction file (JSON Lines), or a stream (:func:`is_stream`).
    settings
        The settings that decide the answers (``endpoint``, ``model``, ``name``, ``temperature``,
        ``max_tokens``), checked against and recorded in the settings record beside ``out``.
    modes
        Each request's prompt mode by its key ``(id, question)``.
    retry_errors
        Remove the model's error rows of these requests, so that they are asked again.
    limit
        The longest line read, in bytes.

    Returns
    -------
    Resumed
        The locked descriptor, opened for appending, and what the file already holds.

    Raises
    ------
    OutputFileError
        ``out`` has a bad row before its last line, rows of another mode, other settings, or another run
        holds it.
    """
    stream = is_stream(out)
    # lexists: a symbolic link already there (even a dangling one) is the user's, never removed below
    created = not stream and not os.path.lexists(out)
    settings_created = not stream and not os.path.lexists(settings_path(out))
    if stream:  # written straight through: nothing to resume, no record beside it
        fd, done, answered, torn = _open_stream(out), set(), set(), 0
    else:
        fd, done, answered, torn = _prepare(out, settings, modes, retry_errors=retry_errors, limit=limit)
    if torn:  # said even with --quiet: answers are asked again
        print(f"{out}: dropped a torn last line ({torn} bytes) left by an interrupted run", file=sys.stderr)
    return Resumed(fd, frozenset(done), frozenset(answered), stream, created, settings_created)
