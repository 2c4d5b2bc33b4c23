"""Reading map images safely: an explicit pixel limit, transparency flattened onto white.

Real transit maps run from half a megapixel to hundreds (Kuala Lumpur's is
278 MP); the limit guards against decompression bombs and is the caller's to
raise.
"""

from __future__ import annotations

from pathlib import Path

from vision.errors import ImageTooLarge, InvalidImage

__all__ = ["DEFAULT_PIXEL_LIMIT", "image_size", "read_rgb"]

DEFAULT_PIXEL_LIMIT = 300_000_000


def image_size(path: str | Path, *, pixel_limit: int = DEFAULT_PIXEL_LIMIT) -> tuple[int, int]:
    """``(width, height)`` read from the file's header, checked against ``pixel_limit``.

    Raises
    ------
    InvalidImage
        The file is missing or not an image Pillow can read.
    ImageTooLarge
        It has more than ``pixel_limit`` pixels (nothing is decoded).
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
    if width * height > pixel_limit:
        raise ImageTooLarge(
            f"{path}: {width}x{height} = {width * height:,} pixels exceeds the limit of {pixel_limit:,}"
            " (raise it with --pixel-limit or pixel_limit= if you trust the file)"
        )
    return width, height


def read_rgb(path: str | Path, *, pixel_limit: int = DEFAULT_PIXEL_LIMIT):
    """The image as an H×W×3 ``uint8`` RGB array; transparent pixels become white.

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
    if image is None:
        raise InvalidImage(f"{path}: the image data is corrupt or truncated")
    if image.dtype != numpy.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(1, int(image.max())))
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.shape[2] == 4:
        # maps with a transparent background hide black under it: flatten onto white
        alpha = image[:, :, 3:4].astype(numpy.uint16)
        colour = image[:, :, :3].astype(numpy.uint16)
        flat = (colour * alpha + 255 * (255 - alpha) + 127) // 255
        return cv2.cvtColor(flat.astype(numpy.uint8), cv2.COLOR_BGR2RGB)
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB, dst=image)  # in place: no second full-size copy
