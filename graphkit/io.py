"""Writing what graphkit computes: reference routes as JSON Lines; the one atomic writer.

Files are written atomically (a temporary file renamed into place), so an
interrupted run never leaves a torn file behind, and a rerun removes what a
killed one left; see :func:`atomic_writer` for symlinks, devices and ``-``.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay, overlay_path_for
from graphkit.routes import DEFAULT_MAX_ROUTES, reference_routes
from graphkit.segments import Segment

if TYPE_CHECKING:
    from graphkit.executors import Executor
    from graphkit.synth import SyntheticNetwork

__all__ = [
    "atomic_writer",
    "remove_stale_parts",
    "part_pattern",
    "write_references",
    "reference_lines",
    "reference_block",
    "reference_texts",
    "ReferenceJob",
    "write_network",
]

# pairs per job handed to an executor: big enough to hide the hand-over, small enough to spread
_PAIRS_PER_JOB = 100_000
# via stops of the segments whose JSON is cached before the cache starts afresh (a city's are far fewer)
_CACHED_STOPS = 10_000_000


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


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def reference_lines(
    graph: TransitGraph, *, max_routes: int = DEFAULT_MAX_ROUTES, sources: Iterable[str] | None = None
) -> Iterator[str]:
    """One JSON text per ordered station pair (the ``references`` record), without newline.

    ``sources`` limits the departures (see :func:`graphkit.routes.reference_routes`).

    Segments are shared between many pairs, so each is serialized once, as is each station's name.
    The cache of segments is bounded (a long line's segments hold thousands of stops each).
    """
    cache: dict[int, str] = {}
    keep: list[Segment] = []  # holds the segments alive so their ids stay unique
    held = 0

    def segments_json(segments: tuple[Segment, ...]) -> str:
        nonlocal held
        parts = []
        for segment in segments:
            found = cache.get(id(segment))
            if found is None:
                if held > _CACHED_STOPS:
                    cache.clear()
                    keep.clear()
                    held = 0
                found = cache[id(segment)] = _dump(segment.to_dict())
                keep.append(segment)
                held += len(segment.via_stops) + 1
            parts.append(found)
        return ", ".join(parts)

    names = {station: _dump(station) for station in graph.stations}
    head = f'{{"city": {_dump(graph.city)}, "station_1": '
    for found in reference_routes(graph, max_routes=max_routes, sources=sources):
        routes = found.routes
        if len(routes) == 1:  # the usual case, spelled out for speed
            text = f'"route_1": [{segments_json(routes[0].segments)}]'
        else:
            text = ", ".join(
                f'"route_{number}": [{segments_json(route.segments)}]' for number, route in enumerate(routes, start=1)
            )
        yield (
            f'{head}{names[found.source]}, "station_2": {names[found.target]}, '
            f'"question_transfer_count": {found.transfers}, "routes": {{{text}}}}}'
        )


def write_references(
    path: str | Path,
    graphs: Iterable[TransitGraph],
    *,
    max_routes: int = DEFAULT_MAX_ROUTES,
    progress: bool = True,
    executor: Executor | None = None,
) -> int:
    """Write the references of every ordered station pair of ``graphs`` to a JSON Lines file.

    Returns the number of records. With ``progress``, a bar on stderr counts
    pairs. With an ``executor`` (see :mod:`graphkit.executors`), blocks of
    departures are computed by its workers; the file is the same byte for byte.
    """
    graphs = list(graphs)
    # The graphs outlive the sweep: exempt them from the collector, which would
    # otherwise re-scan them again and again while millions of routes come and go.
    gc.freeze()
    try:
        if executor is None:
            texts = (
                (graph.city, 1, f"{line}\n")
                for graph in graphs
                for line in reference_lines(graph, max_routes=max_routes)
            )
        else:
            texts = reference_texts(graphs, executor, max_routes=max_routes)
        return _write(path, graphs, texts, progress=progress)
    finally:
        gc.unfreeze()


def reference_texts(
    graphs: Iterable[TransitGraph], executor: Executor, *, max_routes: int = DEFAULT_MAX_ROUTES
) -> Iterator[tuple[str, int, str]]:
    """``(city, pairs, JSON Lines text)`` of blocks of departures computed on ``executor``, in order."""
    jobs = (
        ReferenceJob(graph.given_metro, graph.overlay, graph.stations[first : first + step], max_routes)
        for graph in graphs
        for step in [max(1, _PAIRS_PER_JOB // max(1, len(graph.stations)))]
        for first in range(0, len(graph.stations), step)
    )
    return executor.map(reference_block, jobs)


@dataclass(frozen=True, slots=True)
class ReferenceJob:
    """A block of departures of one network: what a worker needs to write their references."""

    metro: MetroData
    overlay: Overlay
    sources: tuple[str, ...]
    max_routes: int


# the network a worker compiled last: the blocks of one network come to a worker one after another
_compiled: dict[tuple[MetroData, Overlay], TransitGraph] = {}


def reference_block(job: ReferenceJob) -> tuple[str, int, str]:
    """The city, the number of pairs and the JSON Lines text of a block of departures (run by a worker)."""
    key = (job.metro, job.overlay)
    graph = _compiled.get(key)
    if graph is None:
        _compiled.clear()
        graph = _compiled[key] = compile_graph(job.metro, job.overlay)
    lines = list(reference_lines(graph, max_routes=job.max_routes, sources=job.sources))
    return job.metro.city, len(lines), "".join(f"{line}\n" for line in lines)


def write_network(network: SyntheticNetwork, path: str | Path) -> tuple[Path, ...]:
    """Write a synthetic network's Metro Data to ``path`` and its overlay (if any) beside it, atomically.

    Returns the files written.
    """
    target = Path(path)
    with atomic_writer(target) as stream:
        stream.write(network.metro_json)
    if network.overlay_json is None:
        return (target,)
    overlay = overlay_path_for(target)
    with atomic_writer(overlay) as stream:
        stream.write(network.overlay_json)
    return (target, overlay)


def _write(
    path: str | Path, graphs: list[TransitGraph], texts: Iterable[tuple[str, int, str]], *, progress: bool
) -> int:
    total = sum(len(graph.stations) * (len(graph.stations) - 1) for graph in graphs)
    count = shown = 0
    bar = _progress(total, enabled=progress)
    with atomic_writer(path) as stream:
        for city, pairs, text in texts:
            stream.write(text)
            count += pairs
            if count - shown >= 2048:
                bar.set_description(city or "pairs", refresh=False)
                bar.update(count - shown)
                shown = count
        bar.update(count - shown)
    bar.close()
    return count


def _progress(total: int, *, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="pair", disable=not enabled, unit_scale=True, dynamic_ncols=True)
