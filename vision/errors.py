"""Exceptions raised by the vision package.

Each names the file (or record) and what was wrong with it.
"""

from __future__ import annotations

__all__ = [
    "VisionError",
    "InvalidImage",
    "ImageTooLarge",
    "EngineUnavailable",
    "InvalidTruth",
    "InvalidCacheDir",
    "MissingGlyphs",
]


class VisionError(Exception):
    """Base class of every error the vision package raises."""


class InvalidImage(VisionError, ValueError):
    """A file that is not a readable image."""


class ImageTooLarge(InvalidImage):
    """An image with more pixels than the limit: the caller's, or what the available memory allows."""


class EngineUnavailable(VisionError, RuntimeError):
    """An OCR engine or device that is not installed, or whose models are missing."""


class InvalidTruth(VisionError, ValueError):
    """A ``*.truth.json`` (or map evidence) file that does not follow its format."""


class InvalidCacheDir(VisionError, ValueError):
    """An OCR cache folder that is a file (or lies under one): refused before any OCR runs."""


class MissingGlyphs(VisionError, ValueError):
    """A name to draw holds characters its label font has no glyph for (they would show as boxes)."""
