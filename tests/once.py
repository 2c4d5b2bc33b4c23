"""Work done once per test session and shared by the session's pytest-xdist workers (test-only helpers).

With ``pytest -n auto`` each worker builds its own session and module fixtures: a module whose tests are
split between two workers runs its module fixture twice (a notebook run, a map's OCR). What is made here goes
to a folder all the session's workers share, under a file lock, so a second worker waits for the first one's
result instead of making it again. The folder is the parent of a worker's temporary folder: pytest-xdist gives
each worker ``<the session's basetemp>/popen-<worker>`` (xdist/workermanage.py:337-341, pytest-xdist 3.8.0);
without xdist it is the session's own temporary folder. Either way each session starts with a new one, so
nothing is carried from one run to the next.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this test session shares."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (made if missing); another holder waits."""
    try:
        import fcntl
    except ImportError:  # no POSIX locks: workers may do the work twice, each in its own way
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` filled by ``make(folder)`` once in the session, whichever worker asks first.

    ``make`` raising (a failed assertion) leaves no result: the next worker to ask makes it again, and
    fails in its own tests too.
    """
    shared = session_folder(tmp_path_factory) / "made-once"
    shared.mkdir(exist_ok=True)
    folder, done = shared / name, shared / f"{name}.done"
    with locked(shared / f"{name}.lock"):
        if not done.is_file():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder
