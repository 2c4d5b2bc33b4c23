"""Maps for the tests: the benchmark's real maps (``../shared/data/maps``), when the workplace has them, and the
embedded cities drawn by the renderer, once per session."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from tests.shared import SHARED_MAPS as MAPS


def real_map(name: str) -> Path:
    """The path of ``<country>__<city>.png``; the test is skipped when the real maps are absent."""
    path = MAPS / f"{name}.png"
    if not path.is_file():
        pytest.skip(f"real map {path} not present (set REASONMAP_SHARED_DATA)")
    return path


@lru_cache(maxsize=8)
def rendered_city(city: str, seed: int = 0, palette: str = "normal"):
    """The embedded ``city`` drawn by :func:`vision.render.render_map`, once per session (a large city takes
    seconds): shared by every test that draws it so, which reads it and never changes its image or truth.

    That the renderer draws the same bytes again for a seed is tested by drawing it again
    (tests/vision/test_render.py).
    """
    from graphkit.cities import city_graph
    from vision.render import render_map

    return render_map(city_graph(city), seed=seed, palette=palette)
