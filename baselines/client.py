"""A resumable client for OpenAI-compatible chat endpoints (vLLM, SGLang, llama.cpp server, hosted APIs).

``run_requests`` sends each :class:`~baselines.requests.Request` to
``POST {endpoint}/chat/completions`` and appends one prediction row per
request to a JSON Lines file the scorer reads. Standard library only.

The endpoint is the base URL a user would give an OpenAI SDK, such as
``http://host:8000/v1``; a bare ``http://host:8000`` means ``/v1`` there, and a
full ``.../chat/completions`` URL is used as it is. The key comes from
``OPENAI_API_KEY`` (or ``api_key=``) and is sent as ``Authorization: Bearer``;
it is never printed, written, or part of an error message (server texts that
echo it are redacted).

Failures and retries
    See :mod:`baselines.chat`: transient failures are retried with backoff,
    then (like other 4xx) recorded as an *error row* (``response`` ``""``,
    scored as invalid, the reason in ``error``); a wrong key, URL or model
    (401, 403, 404) or an unreachable endpoint stops the run instead.

Resuming
    Each finished request is appended as one complete line (one ``os.write``
    on an ``O_APPEND`` descriptor, then ``fsync``), by the main thread only. A
    new run reads the file first (in blocks, each line capped at 64 MiB),
    drops a torn last line (cut before its end, or not JSON) left by a killed
    run, keeps and ends a whole last row that lacks only its newline, and
    skips every request whose
    ``(id, question, model, repeat)`` is already there (``repeat`` absent is 0;
    ``repeats=K`` asks each request K times, one row per answer, and resumes
    each answer on its own), error rows included: error
    rows are final unless ``retry_errors=True`` (``--retry-errors``), which
    removes them (atomically rewriting the file) and asks again. A row of
    another prompt mode under the same key is refused, and so is a change of
    the settings that decide the answers (endpoint, model, name, temperature,
    max_tokens), recorded per model name in ``<out>.settings.json`` (a file
    without one, from older versions, resumes as before). At most
    ``concurrency`` requests are in flight, so a run killed at any moment
    repeats at most that many calls. An advisory lock refuses a second run on
    the same file (POSIX only).

Rows are written in completion order; scoring does not depend on it. An
output that is ``-`` (standard output), under ``/dev/`` or not a regular file
(a FIFO) is written straight through: nothing is resumed or recorded beside it.
A run that stops before its first row removes the file it created.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import queue
import stat
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baselines.chat import Backoff, ChatSession, Outcome, ask, chat_url, shown_url
from baselines.errors import ClientError, EndpointRefused, EndpointUnreachable, OutputFileError
from baselines.map_images import encoded_request
from baselines.requests import Request
from benchmarks.jsonl import MAX_LINE_BYTES
from graphkit.files import atomic_writer

try:
    import fcntl
except ImportError:  # Windows: no advisory lock, the rest works
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ClientError",
    "EndpointRefused",
    "EndpointUnreachable",
    "OutputFileError",
    "Backoff",
    "RunSummary",
    "chat_url",
    "run_requests",
    "check_repeats",
]


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run did: ``total`` requests, ``done_before`` already in the file (``errors_before`` of them
    error rows only), ``done_now`` rows written (``errors`` of them error rows), in ``seconds``.

    Examples
    --------
    >>> summary = RunSummary(total=24, done_before=0, done_now=24, errors=24, seconds=1.0)
    >>> summary.answered, summary.all_failed
    (0, True)
    >>> RunSummary(total=24, done_before=3, done_now=21, errors=21, seconds=1.0).all_failed
    False
    """

    total: int
    done_before: int
    done_now: int
    errors: int
    seconds: float
    errors_before: int = 0

    @property
    def answered(self) -> int:
        """Requests answered by the model in this run (rows written that are not error rows)."""
        return self.done_now - self.errors

    @property
    def answered_before(self) -> int:
        """Requests that already had an answer (not only an error row) in the file."""
        return self.done_before - self.errors_before

    @property
    def all_failed(self) -> bool:
        """There were requests, and not one of them has an answer, from this run or an earlier one."""
        return self.total > 0 and self.answered == 0 and self.answered_before == 0

    def __str__(self) -> str:
        left = self.total - self.done_before - self.done_now
        return (
            f"{self.done_now} answered now ({self.errors} errors), {self.done_before} done before, "
            f"{left} left, of {self.total} requests in {self.seconds:.1f} s"
        )


# -- the prediction file (main thread) ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Existing:
    """What a prediction file already holds: its sound length in bytes, each row's key, error flag and place
    (offset, length), the bytes of a torn last line, and whether the last row lacks only its newline."""

    length: int
    rows: tuple[tuple[tuple[str, str, str, int], bool, int, int], ...]  # key: id, question, model, repeat
    torn: int
    modes: tuple[str | None, ...] = ()  # each row's prompt mode (None when it has none)
    unended: bool = False


def _lines(fd: int) -> Iterator[tuple[int, int, bytes | None, bool]]:
    """``(start, end, line, ended)`` of each line of ``fd``, read in blocks; ``line`` is ``None`` for a line over
    :data:`~benchmarks.jsonl.MAX_LINE_BYTES` (never held whole: a 2 GB line costs one block of memory)."""
    size = os.fstat(fd).st_size
    offset = start = 0
    buffer = b""  # the current line so far (dropped once it is too long)
    too_long = False
    while offset < size and (block := os.pread(fd, min(size - offset, 1 << 22), offset)):
        position = 0
        while (end := block.find(b"\n", position)) >= 0:
            line = None if too_long else buffer + block[position : end + 1]
            yield start, offset + end + 1, None if line is None or len(line) > MAX_LINE_BYTES else line, True
            start, buffer, too_long, position = offset + end + 1, b"", False, end + 1
        if not too_long:
            buffer += block[position:]
            too_long = len(buffer) > MAX_LINE_BYTES
            buffer = b"" if too_long else buffer
        offset += len(block)
    if buffer or too_long:
        yield start, offset, None if too_long else buffer, False


def _scan(fd: int, label: str) -> _Existing:
    """Rows of a prediction file; a torn last line is left out, a bad line before it is an error."""
    rows = []
    modes = []
    length = number = 0
    unended = False
    size = os.fstat(fd).st_size
    for start, end, line, ended in _lines(fd):
        number += 1
        if line is not None and not line.strip():
            length = end if ended else length
            continue
        try:
            if line is None:
                raise ValueError(f"longer than {MAX_LINE_BYTES:,} bytes")
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


def _settings_path(out: Path) -> Path:
    return out.with_name(out.name + ".settings.json")


def _check_settings(out: Path, settings: dict[str, Any], resumed: bool) -> dict[str, Any] | None:
    """The settings record of ``out`` with this run's entry, ``None`` when it needs no rewrite.

    The record holds each model name's settings; when ``resumed`` (``out`` holds rows of this name), a
    recorded value that differs from this run's is refused, naming the option.
    """
    path = _settings_path(out)
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
    """``out`` is written straight through, never read back nor resumed: ``-`` (standard output), a path under
    ``/dev/`` (``/dev/stdout``, ``/dev/null``), or anything that is not a regular file (a FIFO, a device)."""
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
    out: Path, settings: dict[str, Any], wanted: dict[tuple[str, str], str], *, retry_errors: bool
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
        existing = _scan(fd, str(out))
        # refused before anything changes: the file is left as it was
        _check_modes(out, existing, model, wanted)
        record = _check_settings(out, settings, any(key[2] == model for key, _, _, _ in existing.rows))
        if record is not None:
            with atomic_writer(_settings_path(out)) as stream:
                stream.write(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        if existing.torn:
            os.ftruncate(fd, existing.length)
            os.fsync(fd)
        elif existing.unended:  # a whole last row without its newline: kept, and ended
            _append(fd, b"\n", str(out))
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


def _append(fd: int, data: bytes, label: str, *, durable: bool = True) -> None:
    """One complete line, written by one ``os.write`` on the ``O_APPEND`` descriptor, then made durable (not on a
    pipe or a device, which cannot be synced); a full disk is named: ``LABEL: no space left on device``."""
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


# -- the run ------------------------------------------------------------------------------------------------------


#: the bounds of the options (inclusive): each is checked before anything is asked or written
MAX_CONCURRENCY = 10_000
MAX_TIMEOUT = 86_400.0  # one day: longer than any model takes, and time.monotonic() + it stays finite
MAX_TEMPERATURE = 100.0
MAX_RETRIES = 1_000
MAX_REPEATS = 1_000


def check_options(
    *, model: str, concurrency: int, max_tokens: int | None, timeout: float, max_retries: int, temperature: float | None
) -> None:
    """Refuse an option no endpoint could take (before anything is asked or written): every number finite,
    in its range (:data:`MAX_CONCURRENCY`, :data:`MAX_TIMEOUT`, :data:`MAX_TEMPERATURE`, :data:`MAX_RETRIES`).

    Raises
    ------
    ValueError
        Naming the option and the value.

    Examples
    --------
    >>> check_options(model="m", concurrency=4, max_tokens=None, timeout=float("inf"), max_retries=6, temperature=0)
    Traceback (most recent call last):
    ...
    ValueError: timeout: expected a number of seconds > 0 and <= 86400, got inf
    """

    def whole(value: Any, low: int, high: float = math.inf) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    def number(value: Any, high: float) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= high

    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"model: expected the model name the endpoint serves, got {model!r}")
    if not whole(concurrency, 1, MAX_CONCURRENCY):
        raise ValueError(f"concurrency: expected an integer >= 1 and <= {MAX_CONCURRENCY:,}, got {concurrency!r}")
    if max_tokens is not None and not whole(max_tokens, 1):
        raise ValueError(f"max_tokens: expected an integer >= 1 or None, got {max_tokens!r}")
    if not whole(max_retries, 0, MAX_RETRIES):
        raise ValueError(f"max_retries: expected an integer >= 0 and <= {MAX_RETRIES:,}, got {max_retries!r}")
    if not number(timeout, MAX_TIMEOUT) or not timeout > 0:
        raise ValueError(f"timeout: expected a number of seconds > 0 and <= {MAX_TIMEOUT:g}, got {timeout!r}")
    if temperature is not None and not number(temperature, MAX_TEMPERATURE):
        raise ValueError(f"temperature: expected a number >= 0 and <= {MAX_TEMPERATURE:g} or None, got {temperature!r}")


def check_repeats(repeats: int, temperature: float | None, *, force: bool = False) -> None:
    """Refuse ``repeats`` out of 1..:data:`MAX_REPEATS`, and more than one at temperature 0 (greedy decoding
    gives one answer K times) unless ``force`` (a server that samples at temperature 0 anyway). An unset
    temperature is the server's default, which samples on most servers: allowed.

    Raises
    ------
    ValueError
        Naming the option and the value.

    Examples
    --------
    >>> check_repeats(4, 0.7), check_repeats(4, None), check_repeats(4, 0, force=True)
    (None, None, None)
    >>> check_repeats(4, 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: repeats: 4 answers at temperature 0 would be one answer 4 times; sample (...) or force them ...
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats: expected an integer >= 1 and <= {MAX_REPEATS:,}, got {repeats!r}")
    if repeats > 1 and temperature == 0 and not force:
        raise ValueError(
            f"repeats: {repeats} answers at temperature 0 would be one answer {repeats} times;"
            " sample (a temperature > 0) or force them (--force-repeats)"
        )


def _checked_key(api_key: str | None) -> str:
    """The key to send: ``api_key`` or ``OPENAI_API_KEY``, without surrounding whitespace (a key read from a
    file ends in a newline); ``ValueError``, not showing it, when it holds a character no header may carry."""
    source = "api_key"
    if api_key is None:
        source, api_key = "OPENAI_API_KEY", os.environ.get("OPENAI_API_KEY", "")
    api_key = api_key.strip()
    if any(ord(character) < 32 or 127 <= ord(character) < 160 for character in api_key):
        raise ValueError(f"{source} holds a control character")
    if any(ord(character) > 255 for character in api_key):
        raise ValueError(f"{source} holds a character an HTTP header cannot carry")
    return api_key


def run_requests(
    requests: Iterable[Request],
    *,
    endpoint: str,
    model: str,
    out: str | Path,
    concurrency: int = 4,
    max_tokens: int | None = None,
    timeout: float = 60.0,
    max_retries: int = 6,
    temperature: float | None = None,
    progress: bool | str = True,
    api_key: str | None = None,
    retry_errors: bool = False,
    backoff: Backoff | None = None,
    name: str | None = None,
    repeats: int = 1,
    force_repeats: bool = False,
) -> RunSummary:
    """Ask ``model`` at ``endpoint`` every request not yet answered in ``out``, appending one row each
    (``repeats`` rows each, numbered by their ``repeat``).

    Parameters
    ----------
    requests
        The requests; their keys ``(id, question)`` must be unique.
    endpoint
        The OpenAI-compatible base URL, e.g. ``http://host:8000/v1`` (see :func:`chat_url`).
    model
        The model name sent to the endpoint and written in each row (unless ``name`` is given).
    out
        The prediction file (JSON Lines), created or resumed; it may hold rows of other models.
    concurrency
        Requests in flight at once.
    max_tokens, temperature
        Sent when given; otherwise the server's defaults apply.
    timeout
        Seconds one attempt may take in all (connect, wait, read).
    max_retries
        Retries of a request after its first attempt.
    progress
        Show a progress bar (and notes) on stderr; a string is the bar's label (default: the model's name).
    api_key
        The key; ``None`` reads ``OPENAI_API_KEY`` (no ``Authorization`` header when unset).
    retry_errors
        Ask again the requests whose row in ``out`` is an error row (those rows are removed first).
    backoff
        The retry waits (default :class:`Backoff()`).
    name
        The model's name in the rows (default ``model``): tags two runs of one model apart.
    repeats, force_repeats
        Ask each request this many times (see :func:`check_repeats`: more than one at temperature 0 only
        with ``force_repeats``). Each answer is resumed on its own: a rerun asks only the
        ``(request, repeat)`` pairs missing from ``out``, one round of every request before the next.

    Returns
    -------
    RunSummary

    Raises
    ------
    ValueError
        An option is invalid, a request has no id, or two requests share a key.
    OutputFileError
        ``out`` has a bad row before its last line, or another run holds it.
    EndpointRefused
        The endpoint answered 401, 403 or 404; rows finished so far are kept.
    EndpointUnreachable
        The endpoint could not be reached after every retry; rows finished so far are kept.

    Each row holds ``id, model, question, mode, response, tokens`` (completion
    tokens), ``reasoning`` (``reasoning_content`` or ``reasoning`` as returned),
    ``usage`` (as returned), ``finish_reason``, ``error`` (``None`` unless the
    request failed), ``attempts`` and ``latency_s`` (of the last attempt).
    """
    started = time.monotonic()
    check_options(
        model=model,
        concurrency=concurrency,
        max_tokens=max_tokens,
        timeout=timeout,
        max_retries=max_retries,
        temperature=temperature,
    )
    check_repeats(repeats, temperature, force=force_repeats)
    url = chat_url(endpoint)
    api_key = _checked_key(api_key)
    requests = list(requests)
    modes = _request_modes(requests)
    out = Path(out)
    label = name or model
    settings = {
        "endpoint": shown_url(url),
        "model": model,
        "name": label,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    resumed = _resume(out, settings, modes, retry_errors=retry_errors)
    # round by round: a run cut short holds one answer of every request before a second of any
    todo = [
        (request, repeat)
        for repeat in range(repeats)
        for request in requests
        if (request.id, request.question, repeat) not in resumed.done
    ]
    total = len(requests) * repeats
    session = ChatSession(
        url=url,
        model=model,
        max_tokens=max_tokens,
        temperature=temperature,
        timeout=float(timeout),
        max_retries=max_retries,
        backoff=backoff if backoff is not None else Backoff(),
        api_key=api_key,
        stop=threading.Event(),
        label=label,
        on_retry=_RetryNotice(sys.stderr) if progress else None,
    )
    bar = _progress_bar(total, total - len(todo), progress if isinstance(progress, str) else label, bool(progress))
    written, errors = _ask_all(session, todo, out, resumed, bar, concurrency)
    asked = {(id, question, repeat) for id, question in modes for repeat in range(repeats)}
    return RunSummary(
        total=total,
        done_before=total - len(todo),
        done_now=written,
        errors=errors,
        seconds=round(time.monotonic() - started, 3),
        errors_before=len((asked & resumed.done) - resumed.answered),
    )


def _request_modes(requests: Sequence[Any]) -> dict[tuple[str, str], str]:
    """Each request's prompt mode by its key ``(id, question)``, after checking that every item is a
    :class:`Request` with an id and that no two share a key.

    Raises
    ------
    ValueError
        Naming the first bad request by its place.
    """
    modes: dict[tuple[str, str], str] = {}
    for number, request in enumerate(requests, start=1):
        if not isinstance(request, Request):
            raise ValueError(f"requests[{number - 1}]: expected a Request, got {type(request).__name__}")
        if not isinstance(request.id, str) or not request.id.strip():
            raise ValueError(f"requests[{number - 1}]: the id must be a non-empty string, got {request.id!r:.80}")
        if request.key in modes:
            raise ValueError(
                f"requests[{number - 1}]: duplicate request id={request.id!r}, question={request.question!r}"
            )
        modes[request.key] = request.mode
    return modes


@dataclass(frozen=True, slots=True)
class _Resumed:
    """The prediction file opened for a run: its descriptor, the keys ``(id, question, repeat)`` the model already
    has rows for (``done``) and answers for (``answered``), whether the file is a stream (a pipe or a device,
    written straight through), and whether this run created it and its settings record (removed again when the
    run stops before its first row)."""

    fd: int
    done: frozenset[tuple[str, str, int]]
    answered: frozenset[tuple[str, str, int]]
    stream: bool
    created: bool
    settings_created: bool


def _resume(out: Path, settings: dict[str, Any], modes: dict[tuple[str, str], str], *, retry_errors: bool) -> _Resumed:
    """Open ``out`` for the run: checked, repaired and pruned (:func:`_prepare`), or a stream as it is."""
    stream = is_stream(out)
    # lexists: a symbolic link already there (even a dangling one) is the user's, never removed below
    created = not stream and not os.path.lexists(out)
    settings_created = not stream and not os.path.lexists(_settings_path(out))
    if stream:  # written straight through: nothing to resume, no record beside it
        fd, done, answered, torn = _open_stream(out), set(), set(), 0
    else:
        fd, done, answered, torn = _prepare(out, settings, modes, retry_errors=retry_errors)
    if torn:  # said even with --quiet: answers are asked again
        print(f"{out}: dropped a torn last line ({torn} bytes) left by an interrupted run", file=sys.stderr)
    return _Resumed(fd, frozenset(done), frozenset(answered), stream, created, settings_created)


class _RetryNotice:
    """Says on ``stream`` that requests are being retried, and why: the first retry of each reason at once, then
    at most one line every :attr:`every` seconds (a server that is down makes every request retry)."""

    every = 10.0

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.seen: set[str] = set()
        self.last = -math.inf
        self.quiet = 0

    def __call__(self, message: str) -> None:
        from tqdm import tqdm

        reason = message.rpartition("; retry ")[0]
        with self.lock:
            now = time.monotonic()
            if reason in self.seen and now - self.last < self.every:
                self.quiet += 1
                return
            more = f" ({self.quiet} more retries since the last line)" if self.quiet else ""
            self.seen.add(reason)
            self.last, self.quiet = now, 0
            tqdm.write(f"retrying: {message}{more}", file=self.stream)


def _progress_bar(total: int, initial: int, label: str, shown: bool) -> Any:
    """The run's progress bar on stderr (disabled unless ``shown``)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit="req",
        desc=label,
        disable=not shown,
        dynamic_ncols=True,
        file=sys.stderr,
    )


def _ask_all(
    session: ChatSession,
    todo: list[tuple[Request, int]],
    out: Path,
    resumed: _Resumed,
    bar: Any,
    concurrency: int,
) -> tuple[int, int]:
    """Ask every (request, repeat) of ``todo``, appending each answer to ``out``; the rows written and the error
    rows among them. The descriptor is closed and the bar ended however it stops; a run that stops before its
    first row leaves no file it created behind."""
    counts = [0, 0]  # rows written, error rows among them
    try:
        _pump(session, todo, resumed.fd, bar, concurrency, counts, label=str(out), durable=not resumed.stream)
    except BaseException:
        if resumed.created and not counts[0]:
            out.unlink(missing_ok=True)
            if resumed.settings_created:
                _settings_path(out).unlink(missing_ok=True)
        raise
    finally:
        session.stop.set()
        bar.close()
        os.close(resumed.fd)
    written, errors = counts
    return written, errors


def _pump(
    session: ChatSession,
    todo: list[tuple[Request, int]],
    fd: int,
    bar: Any,
    concurrency: int,
    counts: list[int],
    **writing: Any,
) -> None:
    """Keep ``concurrency`` (request, repeat) pairs in flight in daemon threads; write each answer as it comes
    back, counting rows and error rows in ``counts`` (kept when this raises)."""
    work: queue.SimpleQueue[tuple[Request, int] | None] = queue.SimpleQueue()
    results: queue.SimpleQueue[Outcome | BaseException] = queue.SimpleQueue()

    def worker() -> None:
        while (item := work.get()) is not None:
            request, repeat = item
            try:
                results.put(ask(session, encoded_request(request), repeat))  # map images named in the file
            except BaseException as error:  # a bug: hand it to the main thread rather than lose it
                results.put(error)

    pending = iter(todo)
    in_flight = 0
    workers = min(concurrency, len(todo))
    for _ in range(workers):
        threading.Thread(target=worker, name="chat-client", daemon=True).start()
        work.put(next(pending))
        in_flight += 1
    bar.set_postfix(errors=0)

    def write(outcome: Outcome) -> None:
        _append(fd, outcome.line, **writing)
        counts[0] += 1
        counts[1] += bool(outcome.row["error"])
        bar.set_postfix(errors=counts[1], refresh=False)
        bar.update(1)

    try:
        while in_flight:
            outcome = results.get()
            in_flight -= 1
            if isinstance(outcome, BaseException):
                _raise_redacted(outcome, session)
            if outcome.kind == "fatal":
                message = f"{shown_url(session.url)}: {outcome.message} (check the endpoint, model and key)"
                raise EndpointRefused(session.redact(message))
            if outcome.kind == "unreachable":
                raise EndpointUnreachable(session.redact(f"{shown_url(session.url)}: {outcome.message}"))
            if outcome.kind == "row":
                write(outcome)
            # the next request starts only once this answer is on disk: a kill repeats at most `concurrency` calls
            item = next(pending, None)
            if item is not None:
                work.put(item)
                in_flight += 1
    except BaseException:
        session.stop.set()
        while True:  # keep what already came back
            try:
                outcome = results.get_nowait()
            except queue.Empty:
                break
            if isinstance(outcome, Outcome) and outcome.kind == "row":
                write(outcome)
        raise
    finally:
        for _ in range(workers):  # one per thread started, not per unit of concurrency
            work.put(None)


def _raise_redacted(error: BaseException, session: ChatSession) -> None:
    """Raise a worker's ``error`` as it is, or, when its text holds the key, a copy of it without the key."""
    text = str(error)
    shown = session.redact(text)
    if shown == text:
        raise error
    try:
        copy = type(error)(shown)
    except Exception:  # a type built otherwise (UnicodeError and the like)
        copy = None
    if copy is None or str(copy) != shown:
        copy = ClientError(f"{type(error).__name__}: {shown}")
    raise copy from None  # not chained: the original's text would be shown with it
