"""Where the tests find the workplace's shared data: the benchmark's real maps and Metro Data, when present.

The copy lies beside the checkout (``../shared/data``) or where ``$REASONMAP_SHARED_DATA`` says; tests that
need it skip cleanly without it. The speed benchmarks keep their own copy of this path: tests import no
benchmark runner.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SHARED_DATA", "SHARED_MAPS"]

SHARED_DATA = Path(os.environ.get("REASONMAP_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
SHARED_MAPS = SHARED_DATA / "maps"
