"""A marker for tests that draw Chinese labels: they need a CJK font from the system (CI installs one)."""

from __future__ import annotations

import pytest

from vision.errors import EngineUnavailable
from vision.fonts import find_font


def has_cjk_font() -> bool:
    try:
        find_font("cjk")
    except EngineUnavailable:
        return False
    return True


needs_cjk_font = pytest.mark.skipif(not has_cjk_font(), reason="no CJK font (apt-get install fonts-noto-cjk)")
