"""Writing files atomically: a file appears whole or not at all, and a rerun removes what a killed one left.

The one writer of every output of the toolkit (see :func:`atomic_writer` for
symlinks, devices and ``-``). Light on purpose: it imports nothing beyond the
standard library, so that modules which only read and write records do not
pay for the graph libraries.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_writer", "remove_stale_parts", "part_pattern"]

_STANDARD = {"-": "stdout", "/dev/stdout": "stdout", "/dev/stderr": "stderr"}


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False) -> Iterator[IO]:
    """Open ``path`` for writing UTF-8 text (or bytes); a file appears only once the block succeeds.

    A regular file is written to a temporary ``.NAME.<pid>.<token>.part`` beside it and renamed
    into place, so an interrupted run never leaves a torn file; the temporaries of dead processes
    are removed first. A symlink is followed: its target is replaced, the link stays. ``-`` and
    ``/dev/stdout`` are standard output (``/dev/stderr`` its error stream), and a FIFO or a device
    (``/dev/null``) is written straight through, never replaced by a file.

    Raises
    ------
    OSError
        The target cannot be written; a full disk says ``PATH: no space left on device``.
    """
    if str(path) in _STANDARD:  # the process's own stream, whatever it is (a file opened with >> too)
        stream = getattr(sys, _STANDARD[str(path)])
        stream = stream.buffer if binary else stream
        with _naming_full_disk(path):
            yield stream
            stream.flush()
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path}: is a folder, not a file")
    if mode is not None and not stat.S_ISREG(mode):  # a FIFO or a device: stream into it
        # opened by the name given: a /dev/fd/N link resolves to a name that cannot be opened anew
        with _naming_full_disk(path), _open(Path(path), os.O_WRONLY, binary) as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))  # write a symlink's target, keep the link
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(target)
    temporary, handle = _create_part(target)
    try:
        with _naming_full_disk(path), _open_fd(handle, binary) as stream:
            yield stream
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def part_pattern(target: Path) -> re.Pattern[str]:
    """The names of ``target``'s temporaries: ``.NAME.<pid>.part`` or ``.NAME.<pid>.<token>.part``."""
    return re.compile(rf"\.{re.escape(target.name)}\.(\d+)(?:\.[0-9a-f]+)?\.part")


def remove_stale_parts(target: str | Path) -> tuple[Path, ...]:
    """Remove the temporaries of ``target`` left by processes that no longer run; returns those removed.

    A temporary whose process is alive (or may be: another user's) is another writer's, and kept.
    """
    target = Path(target)
    pattern = part_pattern(target)
    removed = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(target.parent):
            found = pattern.fullmatch(entry.name)
            if found is None or _alive(int(found.group(1))):
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return tuple(removed)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's process, or a number no process has: not ours to judge
    return True


def _create_part(target: Path) -> tuple[Path, int]:
    while True:
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        try:  # mode 0o666 less the umask: the output's ordinary permissions
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def _open(target: Path, flags: int, binary: bool) -> IO:
    return _open_fd(os.open(target, flags), binary)


def _open_fd(handle: int, binary: bool) -> IO:
    return os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="\n")


@contextlib.contextmanager
def _naming_full_disk(path: str | Path) -> Iterator[None]:
    """A full disk (``ENOSPC``) as one line that names the file being written."""
    try:
        yield
    except OSError as error:
        if error.errno != errno.ENOSPC or str(error) == f"{path}: no space left on device":
            raise
        full = OSError(f"{path}: no space left on device")
        full.errno = errno.ENOSPC
        raise full from None
