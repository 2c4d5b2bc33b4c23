"""Where the tests find the benchmark's real maps (``../shared/data/maps``), when the workplace has them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import SHARED_MAPS as MAPS


def real_map(name: str) -> Path:
    """The path of ``<country>__<city>.png``; the test is skipped when the real maps are absent."""
    path = MAPS / f"{name}.png"
    if not path.is_file():
        pytest.skip(f"real map {path} not present (set REASONMAP_SHARED_DATA)")
    return path
