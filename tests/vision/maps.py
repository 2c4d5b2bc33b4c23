"""Where the tests find the benchmark's real maps (``../shared/data/maps``), when the workplace has them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(os.environ.get("REASONMAP_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
MAPS = SHARED_DATA / "maps"


def real_map(name: str) -> Path:
    """The path of ``<country>__<city>.png``; the test is skipped when the real maps are absent."""
    path = MAPS / f"{name}.png"
    if not path.is_file():
        pytest.skip(f"real map {path} not present (set REASONMAP_SHARED_DATA)")
    return path
