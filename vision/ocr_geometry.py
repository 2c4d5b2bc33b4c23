"""The geometry under :mod:`vision.ocr`: tiles of an image, rotations, and which text boxes stand in one place.

Pure functions over pixel coordinates and shapely shapes; the OCR reads with them (its private helpers, kept
apart so that the reading itself stays short).
"""

from __future__ import annotations

import math

Quad = tuple[tuple[float, float], ...]

__all__: list[str] = []


def _spans(length: int, tile: int, overlap: int) -> list[tuple[int, int]]:
    """As few windows of at most ``tile`` px as cover ``length``, evenly spread, overlapping by ``overlap`` or more.

    Examples
    --------
    >>> _spans(2006, 1280, 320)
    [(0, 1163), (843, 2006)]
    """
    if length <= tile:
        return [(0, length)]
    count = math.ceil((length - overlap) / (tile - overlap))
    size = math.ceil((length + (count - 1) * overlap) / count)
    starts = [round(i * (length - size) / (count - 1)) for i in range(count)]
    return [(start, start + size) for start in starts]


def _tiles(width: int, height: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    return [(x0, y0, x1, y1) for y0, y1 in _spans(height, tile, overlap) for x0, x1 in _spans(width, tile, overlap)]


def _rotation(width: int, height: int, degrees: float):
    """The affine map rotating a ``width``×``height`` image by ``degrees`` onto a canvas that holds all of it."""
    import cv2

    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_width, new_height = int(math.ceil(height * sin + width * cos)), int(math.ceil(height * cos + width * sin))
    matrix[0, 2] += new_width / 2 - width / 2
    matrix[1, 2] += new_height / 2 - height / 2
    return matrix, (new_width, new_height)


def _map_quad(quad: Quad, matrix) -> Quad:
    return tuple(
        (matrix[0][0] * x + matrix[0][1] * y + matrix[0][2], matrix[1][0] * x + matrix[1][1] * y + matrix[1][2])
        for x, y in quad
    )


def _is_cut(quad: Quad, tile: tuple[int, int, int, int], width: int, height: int) -> bool:
    """Whether a quad read in ``tile`` (in the tile's own pixels) touches one of its edges that cuts the image."""
    x0, y0, x1, y1 = tile
    xs = [x for x, _ in quad]
    ys = [y for _, y in quad]
    return (
        (x0 > 0 and min(xs) <= 2)
        or (y0 > 0 and min(ys) <= 2)
        or (x1 < width and max(xs) >= x1 - x0 - 3)
        or (y1 < height and max(ys) >= y1 - y0 - 3)
    )


def _shapes(quads: list[Quad]) -> list:
    from shapely import Polygon

    return [Polygon(quad).buffer(0) for quad in quads]


def _suppress(shapes: list, order: list[int]) -> list[tuple[int, list[int]]]:
    """Greedily, in ``order``: each shape kept, with the later ones it covers (more than half of the smaller
    shape's area overlaps it), which are dropped."""
    from shapely import STRtree

    tree = STRtree(shapes) if shapes else None
    kept: list[tuple[int, list[int]]] = []
    taken = [False] * len(shapes)
    for index in order:
        if taken[index]:
            continue
        covered: list[int] = []
        shape = shapes[index]
        for other in tree.query(shape):
            if other == index or taken[other]:
                continue
            smaller = min(shape.area, shapes[other].area)
            if smaller > 0 and shape.intersection(shapes[other]).area / smaller > 0.5:
                taken[other] = True
                covered.append(int(other))
        taken[index] = True
        kept.append((index, covered))
    return kept


def _same_places(shapes: list, others: list) -> list[bool]:
    """For each shape, whether it is in the place of one of ``others``: their intersection is at least 0.7 of
    their union (the same label, read from the same pixels)."""
    from shapely import STRtree

    tree = STRtree(others) if others else None
    same = [False] * len(shapes)
    for index, shape in enumerate(shapes):
        for other in [] if tree is None else tree.query(shape):
            union = shape.union(others[other]).area
            if union > 0 and shape.intersection(others[other]).area / union >= 0.7:
                same[index] = True
                break
    return same
