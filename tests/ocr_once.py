"""OCR of one map image with one set of settings, done once per test session (test-only helper).

Several tests read the same map with the same settings (the real Miami map in the OCR tests and the OCR
benchmark's test; Rome's rendered map in the ``ocr`` and ``diagnose`` command tests), and OCR of a map is most
of the slow suite's time. :func:`remembering` wraps :func:`vision.ocr.ocr_array` so that a map-sized image
(at least :data:`MIN_PIXELS`) read again with the same pixels, settings and engine gets the result of its first
reading: kept in the process, and as JSON in a folder the session's xdist workers share, written under a file
lock so that a second worker waits for the first reading instead of doing it again (the folder and the lock:
tests/once.py). Each session starts with an empty folder, so nothing is carried from one run to the next, and
changes to the OCR code are always read afresh.

What is not remembered: small images (the OCR unit tests' own canvases, progress-bar and tiling tests), and
readings by an engine that is not one of :mod:`vision.engines` (a test's own). An engine left to ``ocr_array``
(``engine=None``) is the one its settings name, which the key holds. The file cache of
:func:`vision.ocr.read_map_texts` sits above ``ocr_array`` and is unchanged, so the tests of that cache (cached
flags, entries written) see what they always saw.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.once import locked

MIN_PIXELS = 1_000_000  # a rendered or real map; the OCR unit tests draw canvases under half of this


def _key(image, settings, engine) -> str | None:
    import numpy

    if not isinstance(image, numpy.ndarray) or image.ndim < 2 or image.shape[0] * image.shape[1] < MIN_PIXELS:
        return None
    if engine is not None and type(engine).__module__ != "vision.engines":
        return None  # a test's own engine
    which = (
        None if engine is None else [type(engine).__name__, engine.name, getattr(engine, "version", ""), engine.device]
    )
    digest = hashlib.sha256(numpy.ascontiguousarray(image).tobytes())
    described = [digest.hexdigest(), image.shape, str(image.dtype), asdict(settings), which]
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:32]


def remembering(ocr_array: Callable[..., Any], folder: Path) -> Callable[..., Any]:
    """``ocr_array`` that reads each map-sized (image, settings, engine) once, keeping results in ``folder``."""
    from vision.ocr import OcrResult, OcrSettings

    kept: dict[str, Any] = {}

    def remembered(image, settings: OcrSettings | None = None, *args, **options):
        settings = OcrSettings() if settings is None else settings  # ocr_array's own default
        key = _key(image, settings, options.get("engine"))
        if key is None:
            return ocr_array(image, settings, *args, **options)
        if key not in kept:
            entry = folder / f"{key}.json"
            with locked(folder / f"{key}.lock"):
                if entry.is_file():
                    kept[key] = OcrResult.from_dict(json.loads(entry.read_text(encoding="utf-8")))
                else:
                    kept[key] = ocr_array(image, settings, *args, **options)
                    part = entry.with_suffix(".part")
                    part.write_text(json.dumps(kept[key].to_dict(), ensure_ascii=False), encoding="utf-8")
                    part.replace(entry)
        return kept[key]

    return remembered
