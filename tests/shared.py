"""Where the tests find the workplace's shared data: the benchmark's real maps and Metro Data, when present.

The copy lies beside the checkout (``../shared/data``), or beside a folder above it (a worktree in a folder of
worktrees: the nearest), or where ``$REASONMAP_SHARED_DATA`` says; tests that
need it skip cleanly without it. The speed benchmarks that read the shared data (``benchmarks/speed/ocr.py``,
``benchmarks/speed/gtfs.py``) find it themselves: the tests import the benchmark runners
(``tests/benchmarks/speed/``), never the other way round, as no package imports the tests.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SHARED_DATA", "SHARED_MAPS"]


def _shared_data(checkout: Path) -> Path:
    if "REASONMAP_SHARED_DATA" in os.environ:
        return Path(os.environ["REASONMAP_SHARED_DATA"])
    for folder in checkout.parents:
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    return checkout.parent / "shared" / "data"


SHARED_DATA = _shared_data(Path(__file__).resolve().parents[1])
SHARED_MAPS = SHARED_DATA / "maps"
