"""A resumable client for OpenAI-compatible chat endpoints (vLLM, SGLang, llama.cpp server, hosted APIs).

``run_requests`` sends each :class:`~baselines.requests.Request` to
``POST {endpoint}/chat/completions`` and appends one prediction row per
request to a JSON Lines file the scorer reads. Standard library only. Each row holds
``id, model, question, mode, response, tokens`` (completion tokens), ``reasoning`` (``reasoning_content`` or
``reasoning`` as returned), ``usage`` (as returned), ``finish_reason``, ``error`` (``None`` unless the request
failed), ``attempts`` and ``latency_s`` (of the last attempt).

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

import math
import os
import queue
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baselines.chat import Backoff, ChatSession, Outcome, ask, chat_url, shown_url
from baselines.errors import ClientError, EndpointRefused, EndpointUnreachable, OutputFileError
from baselines.map_images import encoded_request
from baselines.requests import Request
from baselines.run_file import Resumed, append, resume, settings_path
from baselines.run_options import check_options, check_repeats, checked_key
from benchmarks.jsonl import MAX_LINE_BYTES

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

    Attributes
    ----------
    total : int
        The requests of the run.
    done_before, errors_before : int
        The rows already in the file, and how many of those were error rows.
    done_now, errors : int
        The rows written by this run, and how many of those are error rows.
    seconds : float
        How long it took.

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


# -- the run ------------------------------------------------------------------------------------------------------


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
    """
    started = time.monotonic()
    asking = _Asking(endpoint, model, max_tokens, temperature, timeout, max_retries, api_key, name)
    run = _checked_run(requests, asking, out=out, concurrency=concurrency, repeats=repeats, force_repeats=force_repeats)
    return _ask_missing(run, started, retry_errors=retry_errors, backoff=backoff, progress=progress)


@dataclass(frozen=True, slots=True)
class _Asking:
    """How every request of a run is asked, as given (the ``run_requests`` options of the same names): checked by
    :func:`_checked_run`."""

    endpoint: str
    model: str
    max_tokens: int | None
    temperature: float | None
    timeout: float
    max_retries: int
    api_key: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class _Run:
    """A run's checked inputs: the chat URL, the key to send, the requests and each one's mode by key, the output
    path, the model's name in the rows (``label``), the settings that decide the answers, and the options."""

    url: str
    api_key: str
    requests: tuple[Request, ...]
    modes: dict[tuple[str, str], str]
    out: Path
    label: str
    settings: dict[str, Any]
    model: str
    max_tokens: int | None
    temperature: float | None
    timeout: float
    max_retries: int
    repeats: int
    concurrency: int

    @property
    def total(self) -> int:
        """The answers the run is to hold: ``repeats`` of each request."""
        return len(self.requests) * self.repeats


def _checked_run(
    requests: Iterable[Request],
    asking: _Asking,
    *,
    out: str | Path,
    concurrency: int,
    repeats: int,
    force_repeats: bool,
) -> _Run:
    """Check the options (:func:`check_options`, :func:`check_repeats`), the key and the requests, in that order,
    before anything is asked or written."""
    check_options(
        model=asking.model,
        concurrency=concurrency,
        max_tokens=asking.max_tokens,
        timeout=asking.timeout,
        max_retries=asking.max_retries,
        temperature=asking.temperature,
    )
    check_repeats(repeats, asking.temperature, force=force_repeats)
    url = chat_url(asking.endpoint)
    key = checked_key(asking.api_key)
    listed = tuple(requests)
    modes = _request_modes(listed)
    label = asking.name or asking.model
    settings = {
        "endpoint": shown_url(url),
        "model": asking.model,
        "name": label,
        "temperature": asking.temperature,
        "max_tokens": asking.max_tokens,
    }
    return _Run(
        url,
        key,
        listed,
        modes,
        Path(out),
        label,
        settings,
        asking.model,
        asking.max_tokens,
        asking.temperature,
        asking.timeout,
        asking.max_retries,
        repeats,
        concurrency,
    )


def _ask_missing(
    run: _Run, started: float, *, retry_errors: bool, backoff: Backoff | None, progress: bool | str
) -> RunSummary:
    """Resume ``run.out`` (dropping its error rows with ``retry_errors``), ask the answers it lacks, and say what
    was done since ``started``."""
    resumed = resume(run.out, run.settings, run.modes, retry_errors=retry_errors, limit=MAX_LINE_BYTES)
    todo = _todo(run.requests, run.repeats, resumed.done)
    session = _session(run, backoff, progress)
    label = progress if isinstance(progress, str) else run.label
    bar = _progress_bar(run.total, run.total - len(todo), label, bool(progress))
    written, errors = _ask_all(session, todo, run.out, resumed, bar, run.concurrency)
    return _summary(run, resumed, len(todo), written, errors, started)


def _todo(
    requests: Sequence[Request], repeats: int, done: frozenset[tuple[str, str, int]]
) -> list[tuple[Request, int]]:
    """The (request, repeat) pairs not yet done, round by round: a run cut short holds one answer of every request
    before a second of any."""
    return [
        (request, repeat)
        for repeat in range(repeats)
        for request in requests
        if (request.id, request.question, repeat) not in done
    ]


def _session(run: _Run, backoff: Backoff | None, progress: bool | str) -> ChatSession:
    """What every worker of the run shares: where and how to ask, the retry waits and the stop signal."""
    return ChatSession(
        url=run.url,
        model=run.model,
        max_tokens=run.max_tokens,
        temperature=run.temperature,
        timeout=float(run.timeout),
        max_retries=run.max_retries,
        backoff=backoff if backoff is not None else Backoff(),
        api_key=run.api_key,
        stop=threading.Event(),
        label=run.label,
        on_retry=_RetryNotice(sys.stderr) if progress else None,
    )


def _summary(run: _Run, resumed: Resumed, todo: int, written: int, errors: int, started: float) -> RunSummary:
    """What the run did, ``todo`` of its answers having been left to ask."""
    asked = {(id, question, repeat) for id, question in run.modes for repeat in range(run.repeats)}
    return RunSummary(
        total=run.total,
        done_before=run.total - todo,
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
    resumed: Resumed,
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
                settings_path(out).unlink(missing_ok=True)
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
        append(fd, outcome.line, **writing)
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
