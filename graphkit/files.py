"""Writing files atomically: a file appears whole or not at all, and a rerun removes what a killed one left.

The one writer of every output of the toolkit (see :func:`atomic_writer` for
symlinks, devices and ``-``), the one check that a path built from a record's
fields stays in its folder (:func:`file_in`), and the one lock that keeps a
second writer out of an output folder (:func:`folder_lock`). Light on purpose:
it imports nothing beyond the standard library, so that modules which only
read and write records do not pay for the graph libraries.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: the pid and host in the lock file are the only guard
    fcntl = None  # type: ignore[assignment]

__all__ = ["atomic_writer", "remove_stale_parts", "part_pattern", "file_in", "folder_lock", "FolderLocked", "LOCK"]

_STANDARD = {"-": "stdout", "/dev/stdout": "stdout", "/dev/stderr": "stderr"}
#: The lock file of an output folder: the pid and host of the run writing there.
LOCK = ".reasonmap.lock"
# the longest file name most file systems take (bytes), and what a temporary adds to it: dots, pid, token, .part
_NAME_MAX = 255
_PART_EXTRA = len(".") + len(".") + 10 + len(".") + 8 + len(".part")


def file_in(folder: str | Path, name: str) -> Path:
    """``folder / name`` for a ``name`` built from a record's fields, which must stay one file in ``folder``.

    Parameters
    ----------
    folder : str or Path
        The folder.
    name : str
        The file's name.

    Returns
    -------
    Path
        The file inside ``folder``.

    Raises
    ------
    ValueError
        ``name`` is empty, ``.`` or ``..``, holds a path separator or a NUL, or is too long to be a file name.

    Examples
    --------
    >>> file_in("maps", "italy__rome.png").as_posix()
    'maps/italy__rome.png'
    >>> file_in("maps", "../../x__rome.png")
    Traceback (most recent call last):
    ...
    ValueError: '../../x__rome.png' is not a file name inside maps (it holds a path separator)
    """
    why = None
    if name in ("", ".", ".."):
        why = "it is empty or a dot" if name in ("", ".") else "it is '..'"
    elif "/" in name or (os.sep != "/" and os.sep in name) or (os.altsep and os.altsep in name):
        why = "it holds a path separator"
    elif "\0" in name:
        why = "it holds a NUL character"
    elif len(os.fsencode(name)) > _NAME_MAX:
        why = f"it is longer than {_NAME_MAX} bytes"
    if why is not None:
        shown = name if len(name) <= 80 else name[:77] + "..."
        raise ValueError(f"{shown!r} is not a file name inside {folder} ({why})")
    return Path(folder) / name


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False) -> Iterator[IO]:
    """Open ``path`` for writing UTF-8 text (or bytes); a file appears only once the block succeeds.

    A regular file is written to a temporary ``.NAME.<pid>.<token>.part`` beside it and renamed
    into place, so an interrupted run never leaves a torn file; the temporaries of dead processes
    are removed first. A symlink is followed: its target is replaced, the link stays. ``-`` and
    ``/dev/stdout`` are standard output (``/dev/stderr`` its error stream), and a FIFO or a device
    (``/dev/null``) is written straight through, never replaced by a file.

    Parameters
    ----------
    path : str or Path
        The file to write.
    binary : bool, optional
        Write bytes instead of UTF-8 text.

    Yields
    ------
    file object
        The stream to write to.

    Raises
    ------
    OSError
        The target cannot be written; a full disk says ``PATH: no space left on device``, a file over the
        size limit ``PATH: file too large ...`` (see :data:`_WRITE_ERRORS`).
    """
    if str(path) in _STANDARD:  # the process's own stream, whatever it is (a file opened with >> too)
        stream = getattr(sys, _STANDARD[str(path)])
        stream = stream.buffer if binary else stream
        with _naming_path(path):
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
        with _naming_path(path), _open(Path(path), os.O_WRONLY, binary) as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))  # write a symlink's target, keep the link
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(target)
    temporary, handle = _create_part(target)
    try:
        with _naming_path(path), _open_fd(handle, binary) as stream:
            yield stream
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _part_stem(name: str) -> str:
    """``name``, or for a name too long to carry a temporary's suffix, its start and a digest of it."""
    if len(os.fsencode(name)) + _PART_EXTRA <= _NAME_MAX:
        return name
    digest = "~" + hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    start = name
    while len(os.fsencode(start + digest)) + _PART_EXTRA > _NAME_MAX:
        start = start[:-1]
    return start + digest


def part_pattern(target: Path) -> re.Pattern[str]:
    """The names of ``target``'s temporaries: ``.NAME.<pid>.part`` or ``.NAME.<pid>.<token>.part``.

    For a name too long to take the suffix within 255 bytes, ``NAME`` is its start and a digest of it.

    Parameters
    ----------
    target : Path
        The file written.

    Returns
    -------
    re.Pattern
        Matches a temporary's whole name; its group 1 is the writer's pid.

    Examples
    --------
    >>> part_pattern(Path("out/scored.jsonl")).fullmatch(".scored.jsonl.4242.9f3a.part")[1]
    '4242'
    """
    return re.compile(rf"\.{re.escape(_part_stem(target.name))}\.(\d+)(?:\.[0-9a-f]+)?\.part")


def remove_stale_parts(target: str | Path) -> tuple[Path, ...]:
    """Remove the temporaries of ``target`` left by processes that no longer run; returns those removed.

    A temporary whose process is alive (or may be: another user's) is another writer's, and kept.

    Parameters
    ----------
    target : str or Path
        The file whose temporaries are looked for beside it.

    Returns
    -------
    tuple of Path
        The temporaries removed.
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
        temporary = target.with_name(f".{_part_stem(target.name)}.{os.getpid()}.{secrets.token_hex(4)}.part")
        try:  # mode 0o666 less the umask: the output's ordinary permissions
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def _open(target: Path, flags: int, binary: bool) -> IO:
    return _open_fd(os.open(target, flags), binary)


def _open_fd(handle: int, binary: bool) -> IO:
    return os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="\n")


#: Errors of writing (not of opening: those name their file already), as the one line that names the file says them.
_WRITE_ERRORS = {
    **({errno.EDQUOT: "disk quota exceeded"} if hasattr(errno, "EDQUOT") else {}),  # not on every system
    errno.ENOSPC: "no space left on device",
    errno.EFBIG: "file too large (over the file-size limit: `ulimit -f`, or the file system's)",
    errno.EIO: "input/output error",
}


@contextlib.contextmanager
def _naming_path(path: str | Path) -> Iterator[None]:
    """A full disk, a file over the size limit or a quota (:data:`_WRITE_ERRORS`) as one line naming the file.

    The error keeps its class and ``errno`` (a ``BrokenPipeError`` is still one); only its message changes.
    """
    try:
        yield
    except OSError as error:
        why = _WRITE_ERRORS.get(error.errno) if error.errno is not None else None
        if why is None or error.filename is not None or str(error) == f"{path}: {why}":
            raise
        named = type(error)(f"{path}: {why}")
        named.errno = error.errno
        raise named from None


class FolderLocked(OSError):
    """Another live run writes to the output folder; the message names its pid and host."""


def _holder(handle: int) -> dict:
    os.lseek(handle, 0, os.SEEK_SET)
    try:
        found = json.loads(os.read(handle, 4096).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _refuse(folder: Path, holder: dict) -> FolderLocked:
    who = f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}"
    return FolderLocked(
        f"{folder}: another run ({who}) is writing to this folder; wait for it to end"
        f" (if it is gone, remove {folder / LOCK})"
    )


@contextlib.contextmanager
def folder_lock(folder: str | Path, command: str) -> Iterator[Path]:
    """Hold ``folder``'s lock (:data:`LOCK`, holding this process's pid and host) for the block.

    A second run is refused while the first is alive, whatever its options. A lock left by a
    process that no longer runs on this host is taken over; one held on another host is
    refused (its process cannot be seen from here). On this host the kernel's lock on the file
    (``flock``) decides, so a pid reused by another process does not keep a stale lock alive.

    Parameters
    ----------
    folder : str or Path
        The folder (made when missing).
    command : str
        The command that holds it, written into the lock for the message a second run gets.

    Yields
    ------
    Path
        The lock file.

    Raises
    ------
    FolderLocked
        Another live run holds the lock; the message names its pid and host and the lock file.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    host = socket.gethostname()
    while True:
        handle = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise _refuse(folder, _holder(handle)) from None
                try:
                    same = os.path.samestat(os.fstat(handle), os.stat(path, follow_symlinks=False))
                except FileNotFoundError:
                    same = False
                if not same:  # the holder removed the file as we opened it: lock the one now there
                    os.close(handle)
                    continue
            holder = _holder(handle)
            pid = holder.get("pid")
            elsewhere = holder.get("host") not in (None, host)
            if elsewhere or (fcntl is None and isinstance(pid, int) and pid != os.getpid() and _alive(pid)):
                raise _refuse(folder, holder)
            record = json.dumps({"pid": os.getpid(), "host": host, "command": command}).encode("utf-8")
            os.ftruncate(handle, 0)
            os.pwrite(handle, record + b"\n", 0)
            os.fsync(handle)
        except BaseException:
            os.close(handle)
            raise
        break
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # while still locked, so no one takes over a file about to vanish
        os.close(handle)
