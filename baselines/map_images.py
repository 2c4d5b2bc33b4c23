"""Map images in requests: named in the request file, encoded when the request is sent.

A ``full``-mode request names its map with one content part,
``{"type": "map_image", "map_image": {"path", "sha256", "pixel_budget",
"pixel_limit"}}``, so that a request file stays the size of a text-only
one. :func:`encoded_request` turns such parts into the PNG data URL an
OpenAI-compatible endpoint takes (``image_url``), once per map and budget
(the result is cached), after checking the file is still the one the request
was written for. Requests with an embedded ``image_url`` (request files of
older versions) pass through unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from baselines.requests import Request

__all__ = [
    "DEFAULT_PIXEL_BUDGET",
    "DEFAULT_PIXEL_LIMIT",
    "MAP_IMAGE",
    "image_data_url",
    "map_image_part",
    "encoded_content",
    "encoded_request",
]

# About what hosted models accept for one image before they shrink it themselves.
DEFAULT_PIXEL_BUDGET = 4_000_000
# Refuse to decode images above this size (decompression bombs); the benchmark's largest map has 278 MP.
DEFAULT_PIXEL_LIMIT = 300_000_000
#: the content part type that names a map image
MAP_IMAGE = "map_image"

# Pillow's decompression-bomb limit is one global, and its default (179 MP) is below ours: it is lifted only under
# this lock, where ours applies instead. One map is encoded at a time, so threads asking for the same map wait for
# its one encoding instead of repeating it.
_PILLOW = threading.Lock()


@contextmanager
def _our_limit() -> Iterator[None]:
    from PIL import Image

    with _PILLOW:
        previous, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
        try:
            yield
        finally:
            Image.MAX_IMAGE_PIXELS = previous


def _open_checked(path: str, pixel_limit: int) -> Any:
    """The image at ``path``, refused over ``pixel_limit`` pixels (call under :func:`_our_limit`)."""
    from PIL import Image

    image = Image.open(path)
    width, height = image.size
    if width * height > pixel_limit:
        image.close()
        raise ValueError(
            f"{path}: {width}x{height} = {width * height:,} pixels exceeds the limit of {pixel_limit:,}"
            " (raise pixel_limit to allow it)"
        )
    return image


# what Pillow raises for a file it cannot read: OSError for most, SyntaxError for a broken PNG chunk,
# ValueError and struct errors (a subclass of Exception only) for some truncated headers
_UNREADABLE: tuple[type[BaseException], ...] = (OSError, SyntaxError, ValueError, EOFError)


def map_image_part(
    path: str | os.PathLike[str], *, pixel_budget: int = DEFAULT_PIXEL_BUDGET, pixel_limit: int = DEFAULT_PIXEL_LIMIT
) -> dict[str, Any]:
    """The content part naming the map at ``path``: its absolute path, SHA-256 and the budgets.

    The file is checked without decoding its pixels: its size against ``pixel_limit``, its PNG chunks
    (Pillow's ``verify``).

    Parameters
    ----------
    path : str or PathLike
        The map image.
    pixel_budget : int, optional
        The most pixels sent (the image is downscaled when it is sent).
    pixel_limit : int, optional
        The most pixels decoded.

    Returns
    -------
    dict
        The content part: its type, the file's absolute path and SHA-256, and the two budgets.

    Raises
    ------
    ValueError
        The file is not a readable image, or it has more than ``pixel_limit`` pixels.
    """
    where = os.path.abspath(path)
    stat = os.stat(where)
    return {
        "type": MAP_IMAGE,
        MAP_IMAGE: {
            "path": where,
            "sha256": _checked_digest(where, stat.st_mtime_ns, stat.st_size, pixel_limit),
            "pixel_budget": pixel_budget,
            "pixel_limit": pixel_limit,
        },
    }


@lru_cache(maxsize=256)
def _checked_digest(path: str, mtime_ns: int, size: int, pixel_limit: int) -> str:
    """The file's SHA-256 once it reads as an image within ``pixel_limit`` (cached per file version)."""
    with _our_limit():
        try:
            with _open_checked(path, pixel_limit) as image:
                image.verify()
        except ValueError as error:
            if str(error).startswith(f"{path}: "):  # ours: the pixel limit
                raise
            raise ValueError(f"{path}: not a readable image ({error})") from None
        except _UNREADABLE as error:
            raise ValueError(f"{path}: not a readable image ({error})") from None
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_ENCODED: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_ENCODED_KEPT = 32
# held while a map is encoded: the threads that ask for the same map meanwhile wait, then take it from the cache
_ENCODING = threading.Lock()


def image_data_url(
    path: str, *, pixel_budget: int = DEFAULT_PIXEL_BUDGET, pixel_limit: int = DEFAULT_PIXEL_LIMIT
) -> str:
    """A PNG data URL of the image at ``path``, downscaled under ``pixel_budget`` pixels.

    Maps larger than ``pixel_budget`` are downscaled, keeping their aspect ratio, by the factor that brings
    them just under the budget (Lanczos filter); smaller maps are sent as they are. The last 32 encodings are
    kept (by file version and budget): each map is encoded once, however many threads ask for it.

    Parameters
    ----------
    path : str
        The map image.
    pixel_budget : int, optional
        The most pixels sent.
    pixel_limit : int, optional
        The most pixels decoded.

    Returns
    -------
    str
        ``data:image/png;base64,...``.

    Raises
    ------
    ValueError
        The file is not a readable image, or it has more than ``pixel_limit`` pixels.
    """
    try:
        stat = os.stat(path)
    except OSError as error:
        raise ValueError(f"{path}: not a readable image ({error.strerror})") from None
    key = (path, stat.st_mtime_ns, stat.st_size, pixel_budget, pixel_limit)
    with _ENCODING:
        if key in _ENCODED:
            _ENCODED.move_to_end(key)
            return _ENCODED[key]
        url = _ENCODED[key] = _encode(path, pixel_budget, pixel_limit)
        if len(_ENCODED) > _ENCODED_KEPT:
            _ENCODED.popitem(last=False)
        return url


def _encode(path: str, pixel_budget: int, pixel_limit: int) -> str:
    with _our_limit():
        try:
            with _open_checked(path, pixel_limit) as probe:
                image = _downscaled(probe, pixel_budget)
        except ValueError as error:
            if str(error).startswith(f"{path}: "):
                raise
            raise ValueError(f"{path}: not a readable image ({error})") from None
        except _UNREADABLE as error:
            raise ValueError(f"{path}: not a readable image ({error})") from None
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _downscaled(image: Any, pixel_budget: int) -> Any:
    """``image`` in RGB, downscaled under ``pixel_budget`` pixels (before the conversion where the mode allows:
    a 278 MP map is not copied whole)."""
    from PIL import Image

    width, height = image.size
    if width * height <= pixel_budget:
        return image.convert("RGB")
    if image.mode not in ("RGB", "RGBA", "L", "LA"):  # palette and bilevel images resize badly as they are
        image = image.convert("RGB")
    scale = (pixel_budget / (width * height)) ** 0.5
    size = (max(1, int(width * scale)), max(1, int(height * scale)))
    return image.resize(size, Image.LANCZOS, reducing_gap=3.0).convert("RGB")


def _encoded_part(part: dict[str, Any]) -> dict[str, Any]:
    named = part.get(MAP_IMAGE)
    if not isinstance(named, dict) or not isinstance(named.get("path"), str):
        raise ValueError(f"a {MAP_IMAGE} content part must name its image's path, got {named!r:.200}")
    path = named["path"]
    try:
        stat = os.stat(path)
    except OSError as error:
        raise ValueError(f"{path}: the request's map image cannot be read ({error.strerror})") from None
    pixel_budget = int(named.get("pixel_budget", DEFAULT_PIXEL_BUDGET))
    pixel_limit = int(named.get("pixel_limit", DEFAULT_PIXEL_LIMIT))
    if "sha256" in named and _checked_digest(path, stat.st_mtime_ns, stat.st_size, pixel_limit) != named["sha256"]:
        raise ValueError(f"{path}: the map image changed since the request was written (its sha256 differs)")
    url = image_data_url(path, pixel_budget=pixel_budget, pixel_limit=pixel_limit)
    return {"type": "image_url", "image_url": {"url": url}}


def encoded_content(content: Any) -> Any:
    """A message content with every map-image part replaced by its data-URL image part.

    Parameters
    ----------
    content : Any
        A message's content (text, or a list of parts).

    Returns
    -------
    Any
        The content as sent.

    Raises
    ------
    ValueError
        As :func:`encoded_request`.
    """
    if isinstance(content, str) or not isinstance(content, list):
        return content
    return [
        _encoded_part(part) if isinstance(part, dict) and part.get("type") == MAP_IMAGE else part for part in content
    ]


def encoded_request(request: Request) -> Request:
    """``request`` as it is sent: its map images encoded (see the module notes); ``request`` when it names none.

    Parameters
    ----------
    request : Request
        A request whose messages may name map images (:func:`map_image_part`).

    Returns
    -------
    Request
        The request with each map as a PNG data URL.

    Raises
    ------
    ValueError
        A named map is missing, unreadable, over its pixel limit, or not the file the request was written for.
    """
    messages = tuple(
        {**message, "content": encoded_content(message.get("content"))}
        if isinstance(message.get("content"), list)
        else message
        for message in request.messages
    )
    if messages == request.messages:
        return request
    return Request(request.id, request.question, request.mode, messages, request.meta)
