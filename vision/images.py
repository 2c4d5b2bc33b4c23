"""Reading map images safely: a pixel limit that follows the memory at hand, transparency flattened onto white.

Real transit maps run from half a megapixel to hundreds (Kuala Lumpur's is
278 MP), and a PNG of a few kilobytes can declare 17,000 × 17,000 pixels
(2 GB once decoded). So an image is measured from its header before anything
is decoded, and refused when it has more pixels than the limit: by default
what the available memory allows (:func:`memory_pixel_limit`), at most
:data:`DEFAULT_PIXEL_LIMIT`; a caller who trusts the file passes its own limit
(``pixel_limit=``, ``--pixel-limit``), which is then used as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

from vision.errors import ImageTooLarge, InvalidImage

__all__ = [
    "BYTES_PER_PIXEL",
    "DEFAULT_PIXEL_LIMIT",
    "available_memory",
    "image_size",
    "memory_pixel_limit",
    "read_rgb",
]

DEFAULT_PIXEL_LIMIT = 300_000_000
# Reading a map for OCR holds three RGB copies at its peak: the decoded image (a transparent map's BGRA
# decode is 4 bytes, flattened band by band into it), the engine's BGR working copy, and one more for the
# rotated strips, tiles and allocator slack.
BYTES_PER_PIXEL = 3 * 3
_BAND_ROWS = 1024


def available_memory(meminfo: str | Path = "/proc/meminfo") -> int | None:
    """Bytes of memory available to a new allocation, or ``None`` when the system does not say.

    Linux's ``MemAvailable`` (free memory plus what the kernel can reclaim);
    elsewhere, or when it cannot be read, the physical memory.

    Parameters
    ----------
    meminfo : str or Path, optional
        Linux's memory report.

    Returns
    -------
    int or None
        Bytes.

    Examples
    --------
    >>> memory = available_memory()
    >>> memory is None or memory > 0
    True
    """
    try:
        with open(meminfo, encoding="ascii") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name == "MemAvailable" and value.split() and value.split()[0].isdigit():
                    return int(value.split()[0]) * 1024  # the file's "kB" are KiB
    except (OSError, UnicodeDecodeError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows) or no such name
        return None


def memory_pixel_limit(memory: int | None = None) -> int:
    """The most pixels an image may have to be read in ``memory`` bytes (default: :func:`available_memory`).

    ``memory // BYTES_PER_PIXEL``, never more than :data:`DEFAULT_PIXEL_LIMIT`
    (which is also the limit when the memory is unknown).

    Parameters
    ----------
    memory : int, optional
        Bytes.

    Returns
    -------
    int
        Pixels.

    Examples
    --------
    >>> memory_pixel_limit(900_000_000)
    100000000
    >>> memory_pixel_limit(64 * 2**30) == DEFAULT_PIXEL_LIMIT
    True
    """
    if memory is None:
        memory = available_memory()
    if memory is None:
        return DEFAULT_PIXEL_LIMIT
    return max(0, min(DEFAULT_PIXEL_LIMIT, memory // BYTES_PER_PIXEL))


def image_size(path: str | Path, *, pixel_limit: int | None = None) -> tuple[int, int]:
    """``(width, height)`` read from the file's header, checked against the pixel limit.

    Parameters
    ----------
    path : str or Path
    pixel_limit : int, optional
        The most pixels allowed; ``None`` (default): :func:`memory_pixel_limit`, from the memory
        available now. A number given is used as it is, whatever the memory.

    Returns
    -------
    (int, int)
        The width and height.

    Raises
    ------
    InvalidImage
        The file is missing or not an image Pillow can read.
    ImageTooLarge
        It has more pixels than the limit (nothing is decoded).
    """
    from PIL import Image, UnidentifiedImageError

    # our own limit replaces Pillow's global guard, which would warn or refuse below it
    previous, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
    try:
        with Image.open(path) as probe:
            width, height = probe.size
    except (OSError, UnidentifiedImageError) as error:
        raise InvalidImage(f"{path}: not a readable image ({error})") from None
    finally:
        Image.MAX_IMAGE_PIXELS = previous
    if pixel_limit is None:
        memory = available_memory()
        limit = memory_pixel_limit(memory)
        why = (
            f"what {memory / 2**30:.1f} GiB of available memory allows at {BYTES_PER_PIXEL} bytes a pixel"
            if memory is not None and limit < DEFAULT_PIXEL_LIMIT
            else "the default"
        )
    else:
        limit, why = pixel_limit, "the limit given"
    if width * height > limit:
        raise ImageTooLarge(
            f"{path}: {width}x{height} = {width * height:,} pixels exceeds the limit of {limit:,} ({why};"
            " raise it with --pixel-limit or pixel_limit= if you trust the file and have the memory)"
        )
    return width, height


def read_rgb(path: str | Path, *, pixel_limit: int | None = None):
    """The image as an H×W×3 ``uint8`` RGB array; transparent pixels become white.

    ``pixel_limit`` is checked before anything is decoded, as :func:`image_size` does.

    Parameters
    ----------
    path : str or Path
        The image.
    pixel_limit : int, optional
        The most pixels allowed (default: as :func:`image_size`).

    Returns
    -------
    numpy.ndarray
        The pixels, ``H×W×3`` ``uint8``.

    Raises
    ------
    InvalidImage, ImageTooLarge
        As :func:`image_size`; also a file whose header reads but whose data is corrupt.
    """
    import cv2
    import numpy

    image_size(path, pixel_limit=pixel_limit)
    data = numpy.fromfile(str(path), dtype=numpy.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    del data
    if image is None:
        raise InvalidImage(f"{path}: the image data is corrupt or truncated")
    if image.dtype != numpy.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(1, int(image.max())))
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.shape[2] == 4:
        # maps with a transparent background hide black under it: flatten onto white, a band of rows at a
        # time, so the 16-bit arithmetic never holds more than a band; an opaque band (every real map's, all of
        # it) is only reordered, BGRA to RGB, in one pass
        flat = numpy.empty((*image.shape[:2], 3), dtype=numpy.uint8)
        for top in range(0, image.shape[0], _BAND_ROWS):
            band, out = image[top : top + _BAND_ROWS], flat[top : top + _BAND_ROWS]
            if cv2.minMaxLoc(band[:, :, 3])[0] == 255:  # (c * 255 + 127) // 255 is c
                cv2.cvtColor(band, cv2.COLOR_BGRA2RGB, dst=out)
                continue
            alpha = band[:, :, 3:4].astype(numpy.uint16)
            colour = band[:, :, :3].astype(numpy.uint16)
            out[:] = (colour * alpha + 255 * (255 - alpha) + 127) // 255
            cv2.cvtColor(out, cv2.COLOR_BGR2RGB, dst=out)
        del image
        return flat
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB, dst=image)  # in place: no second full-size copy
