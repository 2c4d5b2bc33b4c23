"""Where batch work runs: in this process, on a local process pool, or on a Ray cluster.

Every batch job of the toolkit (references, synthetic sets, rendering, OCR of
many maps, diagnosis, scoring) is a function mapped over work items. An
:class:`Executor` maps it and hands the results back **in the order of the
items**, whichever executor runs them, so outputs are byte-identical. Items
are submitted a few at a time per worker, so a job of millions of items
holds only a window of them and their results in memory.

- ``local`` (the default): a pool of ``workers`` processes started the
  platform's way (forked on Linux; where they are spawned, a script must
  guard its entry point with ``if __name__ == "__main__":``); one worker
  runs in this process. A worker ends itself once this process is gone
  (killed, even with SIGKILL), so no worker outlives its command. Workers
  ignore Ctrl-C (SIGINT) and end at SIGTERM without a word (not with this
  process's handlers, which they would otherwise inherit): an interrupted
  command says so in its one line, and leaving the ``with`` block on an
  interrupt ends the workers at once instead of waiting for their work.
- ``ray``: tasks on a Ray cluster, ``ray.init(address)`` (a fresh local one
  without an address). Ray is imported only here, and only when asked for.
  An address where nothing answers fails within :data:`RAY_CONNECT_TIMEOUT`
  seconds, naming ``--ray-address``.

The mapped function must be picklable (a module-level function) and so must
the items and results.

Examples
--------
>>> with open_executor("local", workers=1) as executor:
...     list(executor.map(abs, [-2, 1, -3]))
[2, 1, 3]
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, Protocol, TypeVar

from graphkit.choices import check_choice
from graphkit.errors import shorten
from graphkit.extras import install_hint

__all__ = [
    "EXECUTORS",
    "ExecutorKind",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "open_executor",
    "RAY_INSTALL",
    "RAY_CONNECT_TIMEOUT",
]

ExecutorKind = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorKind, ...] = ("local", "ray")
RAY_INSTALL = install_hint("ray")
# items in flight per worker: enough to keep every worker busy, few enough to bound memory
_AHEAD = 2
#: Seconds to wait for a Ray cluster's address to answer before giving up.
RAY_CONNECT_TIMEOUT = 10.0
# how often a pool worker looks whether the process that started it is still there
_PARENT_POLL = 0.5
# what a command is interrupted by: held while the workers are started, so that none runs the command's
# handlers (inherited as the worker is forked) before it has its own
_INTERRUPTS = frozenset({signal.SIGINT, signal.SIGTERM})

Item = TypeVar("Item")
Result = TypeVar("Result")


class Executor(Protocol):
    """Maps a function over items, results in item order."""

    kind: ExecutorKind
    workers: int

    def map(self, function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


def _ordered(submit: Callable[[Any], Any], collect: Callable[[Any], Any], items: Iterable, ahead: int) -> Iterator:
    """Submit up to ``ahead`` items before collecting the oldest: results in item order, a bounded window."""
    pending: deque = deque()
    for item in items:
        pending.append(submit(item))
        if len(pending) >= ahead:
            yield collect(pending.popleft())
    while pending:
        yield collect(pending.popleft())


class LocalExecutor:
    """A pool of ``workers`` processes on this machine (default: one per CPU); one worker runs inline.

    Parameters
    ----------
    workers : int, optional
        The processes of the pool, started at the first :meth:`map` of two items or more.

    Raises
    ------
    ValueError
        ``workers`` is not a positive integer.
    """

    kind: ExecutorKind = "local"

    def __init__(self, workers: int | None = None):
        self.workers = _workers(workers, os.cpu_count() or 1)
        self._pool = None

    def map(self, function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
        if self.workers == 1:
            return map(function, items)
        items = iter(items)
        first = list(itertools.islice(items, 2))
        if len(first) < 2:  # one job: a pool would only add its start-up
            return map(function, first)
        items = itertools.chain(first, items)
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.workers, initializer=_start_worker, initargs=(os.getpid(),))
        pool = self._pool

        def submit(item: Any) -> Any:
            with _interrupts_held():  # a submission may fork workers (all at the first, where they are forked)
                return pool.submit(function, item)

        return _ordered(submit, lambda future: future.result(), items, self._ahead)

    @property
    def _ahead(self) -> int:
        return _AHEAD * self.workers

    def close(self, *, interrupted: bool = False) -> None:
        """End the pool: wait for the work begun, or, ``interrupted``, end the workers at once."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        if interrupted:
            # ProcessPoolExecutor ends its workers only by waiting for them (Python 3.14 adds terminate_workers);
            # its `_processes` (pid -> Process, CPython 3.9 to 3.14) are the workers to end
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    process.terminate()
        # waited for even when interrupted (the workers are ended, so it is quick): a pool's thread left to the
        # interpreter's exit could print a traceback after the command's one line
        pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        # Ctrl-C, SIGTERM (raised as an exception by the command line), exit: the work is not wanted any more
        self.close(interrupted=kind is not None and not issubclass(kind, Exception))


class RayExecutor:
    """Ray tasks, one CPU each, on the cluster at ``address`` (or a local one of ``workers`` CPUs).

    :meth:`close` ends what this executor began (it stops the local instance it
    started, or disconnects from the cluster it joined); when Ray was already
    initialized in this process, it leaves it as it was.

    Parameters
    ----------
    workers : int, optional
        Tasks in flight at once, and the CPUs of a local instance (default: every CPU there is).
    address : str, optional
        The cluster to join (``auto``, ``ray://host:10001``); none starts a local instance.

    Raises
    ------
    ValueError
        Ray is not installed (the message says how to install it), or nothing answers at ``address``.
    """

    kind: ExecutorKind = "ray"

    def __init__(self, workers: int | None = None, *, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise ValueError(f"--executor ray needs Ray, which is not installed: {RAY_INSTALL}") from None
        self._ray = ray
        self._started = False
        if address:  # Ray would retry an address where nothing answers for minutes
            _check_reachable(address)
        if not ray.is_initialized():
            ray.init(
                address=address,
                num_cpus=None if address else _workers(workers, os.cpu_count() or 1),
                include_dashboard=False,
                log_to_driver=False,
                # a local cluster's workers import the toolkit as this process does (a checkout included);
                # a remote cluster's nodes have it installed (or get it from the job's runtime_env)
                runtime_env=None if address else {"env_vars": {"PYTHONPATH": os.pathsep.join(_import_path())}},
            )
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = _workers(workers, cpus) if workers is not None else max(1, cpus)

    def map(self, function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
        remote = self._ray.remote(num_cpus=1)(_apply)
        return _ordered(lambda item: remote.remote(function, item), self._ray.get, items, _AHEAD * self.workers)

    def close(self) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
        self._started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back in this thread (and in the processes it forks) for the block; a signal that
    came meanwhile is handled once the block is left."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks (and no fork)
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _start_worker(parent: int) -> None:
    """In a pool worker, first: Ctrl-C is the command's to handle (the terminal sends it to every process of
    the group), SIGTERM ends the worker as the system does (no handler of the command's, which would print a
    traceback), and the worker ends once ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)  # held while the pool forked this worker
    _end_with_parent(parent)


def _end_with_parent(parent: int) -> None:
    """In a pool worker: exit as soon as ``parent`` is gone (its pool cannot end a worker it did not outlive)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def _check_reachable(address: str) -> None:
    """Refuse a ``host:port`` (or ``ray://host:port``) where nothing accepts a connection, within the deadline.

    Ray itself retries an unreachable cluster for minutes; ``auto`` and other forms are left to it.
    """
    rest = address.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_TIMEOUT):
            pass
    except (OSError, OverflowError, ValueError) as error:
        raise ValueError(
            f"--ray-address {shorten(address)}: no Ray cluster answers there ({shorten(str(error))});"
            " check the address, or leave --ray-address out to start a local cluster"
        ) from None


def _apply(function: Callable[[Item], Result], item: Item) -> Result:
    """One task: Ray wraps only Python functions, so built-ins and callables ride through this one."""
    return function(item)


def _import_path() -> list[str]:
    """The folders this process imports from that a worker needs too: the current folder and PYTHONPATH."""
    found = [os.getcwd(), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return list(dict.fromkeys(found))


def _workers(workers: int | None, default: int) -> int:
    if workers is None:
        return default
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {shorten(repr(workers))}")
    return workers


def open_executor(kind: str = "local", *, workers: int | None = None, address: str | None = None) -> Executor:
    """The executor named ``kind`` (one of :data:`EXECUTORS`); use it in a ``with`` block.

    Parameters
    ----------
    kind : {"local", "ray"}
    workers : int, optional
        Processes of the local pool, or Ray tasks in flight at once (default: every CPU there is).
    address : str, optional
        ``ray`` only: the cluster to join (``auto``, ``ray://host:10001``); none starts a local one.

    Returns
    -------
    Executor
        A :class:`LocalExecutor` (its pool started at the first ``map``) or a :class:`RayExecutor` (Ray
        joined or started); leaving its ``with`` block ends what it began.

    Raises
    ------
    ValueError
        An unknown kind, an address for the local executor, or Ray asked for but not installed
        (the message says how to install it).
    """
    check_choice(kind, EXECUTORS, what="executor")
    if kind == "local":
        if address is not None:
            raise ValueError("--ray-address needs --executor ray")
        return LocalExecutor(workers)
    return RayExecutor(workers, address=address)
