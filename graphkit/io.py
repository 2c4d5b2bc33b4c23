"""Writing what graphkit computes: reference routes as JSON Lines.

Files are written atomically (a temporary file renamed into place), so an
interrupted run never leaves a torn file behind.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from graphkit.graph import TransitGraph
from graphkit.routes import DEFAULT_MAX_ROUTES, reference_routes
from graphkit.segments import Segment

__all__ = ["atomic_writer", "write_references", "reference_lines"]


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False) -> Iterator[IO]:
    """Open ``path`` for writing UTF-8 text (or bytes); it appears only once the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        opened = os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="\n")
        with opened as stream:
            yield stream
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes files private; ours are ordinary outputs
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def reference_lines(graph: TransitGraph, *, max_routes: int = DEFAULT_MAX_ROUTES) -> Iterator[str]:
    """One JSON text per ordered station pair (the ``references`` record), without newline.

    Segments are shared between many pairs, so each is serialized once.
    """
    cache: dict[int, str] = {}
    keep: list[Segment] = []  # holds the segments alive so their ids stay unique

    def segment_json(segment: Segment) -> str:
        found = cache.get(id(segment))
        if found is None:
            found = cache[id(segment)] = _dump(segment.to_dict())
            keep.append(segment)
        return found

    city = _dump(graph.city)
    for found in reference_routes(graph, max_routes=max_routes):
        routes = ", ".join(
            f'"route_{number}": [{", ".join(segment_json(s) for s in route.segments)}]'
            for number, route in enumerate(found.routes, start=1)
        )
        yield (
            f'{{"city": {city}, "station_1": {_dump(found.source)}, "station_2": {_dump(found.target)}, '
            f'"question_transfer_count": {found.transfers}, "routes": {{{routes}}}}}'
        )


def write_references(
    path: str | Path,
    graphs: Iterable[TransitGraph],
    *,
    max_routes: int = DEFAULT_MAX_ROUTES,
    progress: bool = True,
) -> int:
    """Write the references of every ordered station pair of ``graphs`` to a JSON Lines file.

    Returns the number of records. With ``progress``, a bar on stderr counts
    pairs.
    """
    graphs = list(graphs)
    # The graphs outlive the sweep: exempt them from the collector, which would
    # otherwise re-scan them again and again while millions of routes come and go.
    gc.freeze()
    try:
        return _write(path, graphs, max_routes=max_routes, progress=progress)
    finally:
        gc.unfreeze()


def _write(path: str | Path, graphs: list[TransitGraph], *, max_routes: int, progress: bool) -> int:
    total = sum(len(graph.stations) * (len(graph.stations) - 1) for graph in graphs)
    count = 0
    bar = _progress(total, enabled=progress)
    with atomic_writer(path) as stream:
        for graph in graphs:
            bar.set_description(graph.city or "pairs")
            for line in reference_lines(graph, max_routes=max_routes):
                stream.write(line)
                stream.write("\n")
                count += 1
                if count % 2048 == 0:
                    bar.update(2048)
        bar.update(count % 2048)
    bar.close()
    return count


def _progress(total: int, *, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="pair", disable=not enabled, unit_scale=True, dynamic_ncols=True)
