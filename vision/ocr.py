"""Reading every label of a transit map: tiles, a working scale, rotated passes, duplicates merged.

OCR engines shrink big inputs until small labels vanish, so a map is read in
overlapping tiles at a working scale chosen from the height of its labels
(measured on sample crops): big maps with big lettering are read smaller,
which is what keeps a 278-megapixel map fast. Text is detected tile by tile,
and the quads found twice where tiles overlap are merged before each label is
recognised once (recognition is most of the time). Slanted labels (Rome's
Line C stands at 45°) are read again in a pass rotated to make them level,
which leaves alone the labels the level pass read well. Results are cached by
image content and settings, so a second run is instant.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchmarks.provenance import file_sha256
from graphkit.choices import check_choice
from vision.engines import Engine, EngineConfig, Recogniser, open_engine
from vision.errors import InvalidCacheDir
from vision.images import read_rgb
from vision.ocr_geometry import Quad, _is_cut, _map_quad, _rotation, _same_places, _shapes, _suppress, _tiles

__all__ = [
    "TextBox",
    "OcrSettings",
    "OcrResult",
    "read_map_texts",
    "ocr_array",
    "default_cache_dir",
    "check_cache_dir",
]

CACHE_FORMAT = 4  # raise when reading changes, so old results are not reused
ROTATIONS = ("auto", "all", "none")


@dataclass(frozen=True, slots=True)
class TextBox:
    """A text line read on the map, in the original image's pixel coordinates.

    Attributes
    ----------
    text : str
        What the recogniser read.
    score : float
        The recogniser's confidence, 0 to 1.
    quad : tuple of four (x, y)
        The line's corners, clockwise from its top left as the detector gave them.
    """

    text: str
    score: float
    quad: Quad

    @property
    def box(self) -> tuple[float, float, float, float]:
        xs = [x for x, _ in self.quad]
        ys = [y for _, y in self.quad]
        return min(xs), min(ys), max(xs), max(ys)

    @property
    def height(self) -> float:
        """The text line's height: the quad's shorter side."""
        (x0, y0), (x1, y1), (x2, y2) = self.quad[:3]
        return min(math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1))

    @property
    def angle(self) -> float:
        """The slant of the quad's longer side in degrees, in (-90, 90]; 0 is level."""
        (x0, y0), (x1, y1), (x2, y2) = self.quad[:3]
        first, second = (x1 - x0, y1 - y0), (x2 - x1, y2 - y1)
        dx, dy = first if math.hypot(*first) >= math.hypot(*second) else second
        angle = math.degrees(math.atan2(dy, dx))
        return angle - 180 if angle > 90 else angle + 180 if angle <= -90 else angle

    def to_dict(self) -> dict[str, Any]:
        quad = [[round(x, 1), round(y, 1)] for x, y in self.quad]
        return {"text": self.text, "score": round(self.score, 4), "quad": quad}


@dataclass(frozen=True, slots=True)
class OcrSettings:
    """How a map is read.

    Attributes
    ----------
    engine, device, det_model_dir, rec_model_dir
        See :class:`vision.engines.EngineConfig`.
    tile, overlap : int
        Tile side and overlap in working-scale pixels; a label narrower than
        ``overlap`` always lies whole in some tile.
    scale : float or None
        The working scale; ``None`` picks it so labels are about ``text_height`` px high (never enlarging).
    rotations : {"auto", "all", "none"}
        ``"auto"`` re-reads the regions where slanted labels were found, level;
        ``"all"`` re-reads the whole map at +45° and -45°.
    min_score : float
        Readings below this recognition score are dropped.
    threads : int or None
        CPU threads a model runs on (see :class:`vision.engines.EngineConfig`); the readings do not depend on
        it (nor does the cache key).
    """

    engine: str = "rapidocr"
    device: Literal["auto", "cpu", "cuda"] = "auto"
    tile: int = 1280
    overlap: int = 320
    scale: float | None = None
    text_height: float = 30.0
    rotations: Literal["auto", "all", "none"] = "auto"
    min_score: float = 0.5
    det_model_dir: str | None = None
    rec_model_dir: str | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        check_choice(self.rotations, ROTATIONS, what="rotations")
        if not 256 <= self.tile <= 4096 or not 0 <= self.overlap < self.tile // 2:
            raise ValueError(f"tile must be 256..4096 px and overlap under half of it, got {self.tile}, {self.overlap}")
        if self.scale is not None and not 0.05 <= self.scale <= 4:
            raise ValueError(f"scale must be between 0.05 and 4, got {self.scale}")
        self.engine_config()  # checks engine and device

    def engine_config(self) -> EngineConfig:
        return EngineConfig(
            self.engine, self.device, self.tile, self.det_model_dir, self.rec_model_dir, threads=self.threads
        )


@dataclass(frozen=True, slots=True)
class OcrResult:
    """Every text line read on one map.

    Attributes
    ----------
    texts : tuple of TextBox
        The lines read, merged across tiles and passes.
    width, height : int
        The image's size in pixels.
    scale : float
        The working scale the image was read at (1.0: as it is).
    seconds : float
        How long the reading took (the original run's, for a cached result).
    engine, device : str
        The OCR engine and the device it ran on.
    cached : bool
        Whether the result came from the cache.
    passes : dict of str to int
        Lines found by each pass (``level``, ``rotated+30``, ...), before merging.
    """

    texts: tuple[TextBox, ...]
    width: int
    height: int
    scale: float
    seconds: float
    engine: str
    device: str
    cached: bool = False
    passes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "scale": self.scale,
            "seconds": round(self.seconds, 3),
            "engine": self.engine,
            "device": self.device,
            "passes": self.passes,
            "texts": [text.to_dict() for text in self.texts],
        }

    @classmethod
    def from_dict(cls, record: dict[str, Any], *, cached: bool = False) -> OcrResult:
        texts = tuple(
            TextBox(item["text"], float(item["score"]), tuple((float(x), float(y)) for x, y in item["quad"]))
            for item in record["texts"]
        )
        return cls(
            texts,
            int(record["width"]),
            int(record["height"]),
            float(record["scale"]),
            float(record["seconds"]),
            record["engine"],
            record["device"],
            cached,
            dict(record.get("passes", {})),
        )


def default_cache_dir() -> Path:
    """The OCR cache folder when none is given.

    Returns
    -------
    Path
        ``$REASONMAP_CACHE/ocr``, else ``~/.cache/reasonmap/ocr``.
    """
    root = os.environ.get("REASONMAP_CACHE")
    return Path(root) / "ocr" if root else Path.home() / ".cache" / "reasonmap" / "ocr"


def check_cache_dir(cache_dir: str | Path | None = None) -> Path:
    """The OCR cache folder (default :func:`default_cache_dir`), checked before any OCR runs.

    It may not exist yet (it is made when the first result is kept), but it
    may not be a file, nor lie under one: the OCR would run and its result be
    thrown away at the end.

    Parameters
    ----------
    cache_dir : str or Path, optional
        The folder; ``None``: :func:`default_cache_dir`.

    Returns
    -------
    Path
        The folder, as a path.

    Raises
    ------
    InvalidCacheDir
        The path is a file, or a file stands where one of its parent folders should be.
    """
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        where = "it is a file" if existing == folder else f"{existing} is a file"
        raise InvalidCacheDir(
            f"{folder}: cannot be the OCR cache folder: {where} (give a folder, or turn the cache off)"
        )
    return folder


def _tiled_area(size: tuple[int, int], settings: OcrSettings) -> int:
    """The pixels the tiles of a ``size`` (width, height) image hold: more than its own, as the tiles overlap
    (what a progress bar counts, tile by tile, to end at its total)."""
    return sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in _tiles(*size, settings.tile, settings.overlap))


# -- reading -------------------------------------------------------------------


def _windows(image, settings: OcrSettings, progress):
    """Each tile of ``image`` worth reading (not one flat colour), with its bounds."""
    height, width = image.shape[:2]
    for x0, y0, x1, y1 in _tiles(width, height, settings.tile, settings.overlap):
        window = image[y0:y1, x0:x1]
        progress.update((x1 - x0) * (y1 - y0))
        if int(window.max()) - int(window.min()) >= 40:  # one flat colour: nothing to read
            yield window, (x0, y0, x1, y1)


def _read_tiled(
    engine: Engine, image, settings: OcrSettings, progress, known: list[Quad] | None = None
) -> list[tuple[TextBox, bool]]:
    """Read an array tile by tile; each box comes with whether it touches a cut tile edge.

    An engine that recognises apart (:class:`vision.engines.Recogniser`) only detects on the tiles: the quads
    found twice where tiles overlap are merged first, and each label is recognised once, from ``image``; a
    quad that is one of the ``known`` labels (read well before, in ``image``'s frame) is not recognised again.
    """
    height, width = image.shape[:2]
    if not isinstance(engine, Recogniser):  # detected and recognised tile by tile
        found = []
        for window, tile in _windows(image, settings, progress):
            for reading in engine.read(window):
                if reading.score >= settings.min_score and reading.text.strip():
                    quad = tuple((x + tile[0], y + tile[1]) for x, y in reading.quad)
                    found.append(
                        (TextBox(reading.text.strip(), reading.score, quad), _is_cut(reading.quad, tile, width, height))
                    )
        return found
    quads: list[Quad] = []
    cuts: list[bool] = []
    for window, tile in _windows(image, settings, progress):
        for quad in engine.detect(window):
            quads.append(tuple((x + tile[0], y + tile[1]) for x, y in quad))
            cuts.append(_is_cut(quad, tile, width, height))
    shapes = _shapes(quads)
    areas = [shape.area for shape in shapes]
    kept = _suppress(shapes, sorted(range(len(quads)), key=lambda i: (cuts[i], -areas[i], i)))
    if known:
        same = _same_places(shapes, _shapes(known))
        kept = [(index, covered) for index, covered in kept if not same[index]]
    found: list[tuple[TextBox, bool]] = []
    again: list[int] = []  # what a keeper covered, read when the keeper itself reads as nothing
    for (index, covered), (text, score) in zip(kept, engine.recognise(image, [quads[i] for i, _ in kept])):
        if score >= settings.min_score and text.strip():
            found.append((TextBox(text.strip(), score, quads[index]), cuts[index]))
        else:
            again.extend(covered)
    for index, (text, score) in zip(again, engine.recognise(image, [quads[i] for i in again])):
        if score >= settings.min_score and text.strip():
            found.append((TextBox(text.strip(), score, quads[index]), cuts[index]))
    return found


def _read_rotated(engine, image, matrix, strip, settings, progress, known: list[Quad]) -> list[tuple[TextBox, bool]]:
    """Read one strip (x0, y0, x1, y1) of the working image as turned by ``matrix``; boxes mapped back.

    Only the strip is warped, so levelling a few slanted labels costs their area, not the map's. ``known``:
    labels the level pass read well (in the working image), which the strip does not recognise again.
    """
    import cv2
    import numpy

    x0, y0, x1, y1 = strip
    shifted = numpy.array(matrix, dtype=numpy.float64)
    shifted[:, 2] -= (x0, y0)
    turned = cv2.warpAffine(image, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(255, 255, 255))
    back = cv2.invertAffineTransform(shifted)
    return [
        (TextBox(box.text, box.score, _map_quad(box.quad, back)), cut)
        for box, cut in _read_tiled(engine, turned, settings, progress, [_map_quad(quad, shifted) for quad in known])
    ]


def _slanted_strips(boxes: list[TextBox], width: int, height: int, *, everything: bool = False):
    """For each turn (±45°) that levels some labels: its matrix and the strips, in the turned frame, to read.

    A strip covers labels read at a slant, a little beyond their ends so that
    words the level pass missed beside them are read too.
    """
    from shapely import box as rectangle
    from shapely import unary_union

    plans = []
    for degrees in (45, -45):
        matrix, (turned_width, turned_height) = _rotation(width, height, degrees)
        if everything:
            plans.append((degrees, matrix, [(0, 0, turned_width, turned_height)]))
            continue
        shapes = []
        for found in boxes:
            # image y grows downward: a label rising to the right has a negative angle and is levelled by
            # OpenCV's negative (clockwise) turn
            if not (20 <= abs(found.angle) <= 70 and len(found.text) >= 2 and (found.angle < 0) == (degrees < 0)):
                continue
            xs, ys = zip(*_map_quad(found.quad, matrix))
            # a slanted fragment may be one word of a long name: reach as far again along the line
            along, across = max(3 * found.height, max(xs) - min(xs)), 1.0 * found.height
            shapes.append(rectangle(min(xs) - along, min(ys) - across, max(xs) + along, max(ys) + across))
        if not shapes:
            continue
        merged = unary_union(shapes)
        strips = sorted(
            (max(0, int(a)), max(0, int(b)), min(turned_width, int(c) + 1), min(turned_height, int(d) + 1))
            for a, b, c, d in (part.bounds for part in getattr(merged, "geoms", [merged]))
        )
        plans.append((degrees, matrix, strips))
    return plans


def _merge(found: list[tuple[TextBox, bool]]) -> list[TextBox]:
    """One box per label: where boxes overlap, a whole, confident, longer reading wins."""
    order = sorted(
        range(len(found)),
        key=lambda i: (found[i][1], found[i][0].score < 0.8, -len(found[i][0].text), -found[i][0].score, i),
    )
    boxes = [found[i][0] for i, _ in _suppress(_shapes([box.quad for box, _ in found]), order)]
    return sorted(boxes, key=lambda b: (round(b.box[1]), round(b.box[0]), b.text))


def _working_scale(engine: Engine, image, settings: OcrSettings) -> float:
    """A scale that makes typical labels about ``settings.text_height`` px high, measured on sample crops.

    ``image`` is RGB; only the crops are turned into the engine's BGR.
    """
    import cv2

    if settings.scale is not None:
        return settings.scale
    height, width = image.shape[:2]
    if width * height <= 16_000_000:
        return 1.0
    side = settings.tile
    heights: list[float] = []
    for fx in (0.25, 0.5, 0.75):
        for fy in (0.25, 0.5, 0.75):
            x0 = int(min(max(0, fx * width - side / 2), width - side))
            y0 = int(min(max(0, fy * height - side / 2), height - side))
            crop = cv2.cvtColor(image[y0 : y0 + side, x0 : x0 + side], cv2.COLOR_RGB2BGR)
            for quad in engine.detect(crop):
                heights.append(TextBox("", 1.0, quad).height)
    if len(heights) < 10:
        return 1.0
    heights.sort()
    typical = heights[len(heights) // 4]  # the smaller labels set the scale
    return round(min(1.0, max(0.1, settings.text_height / typical)), 3)


def ocr_array(image, settings: OcrSettings = OcrSettings(), *, engine: Engine | None = None, progress: bool = False):
    """Read an RGB ``uint8`` array; see :func:`read_map_texts` (which adds the file cache).

    Parameters
    ----------
    image : numpy.ndarray
        The map, ``height × width × 3``, RGB.
    settings : OcrSettings
        Engine, device, tiling, scale and rotated passes.
    engine : Engine, optional
        An engine already open (one per worker); ``None`` opens the settings' one.
    progress : bool
        Show a progress bar per pass on standard error.

    Returns
    -------
    OcrResult
        The lines read, in the image's own pixel coordinates; ``cached`` is ``False``.
    """
    import cv2
    from tqdm import tqdm

    started = time.perf_counter()
    engine = engine or open_engine(settings.engine_config())
    height, width = image.shape[:2]
    scale = _working_scale(engine, image, settings)
    working = image
    if scale != 1.0:  # scaled before anything else is copied: a 278 MP map is held once at full size
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        working = cv2.resize(image, size, interpolation=interpolation)
    bgr = cv2.cvtColor(working, cv2.COLOR_RGB2BGR)
    del working
    work_height, work_width = bgr.shape[:2]

    def bar(desc: str, areas: list[tuple[int, int]]):
        total = sum(_tiled_area(area, settings) for area in areas)
        return tqdm(total=total, unit="px", unit_scale=True, desc=desc, file=sys.stderr, disable=not progress)

    with bar("OCR", [(work_width, work_height)]) as level_bar:
        found = _read_tiled(engine, bgr, settings, level_bar)
    passes = {"level": len(found)}
    if settings.rotations != "none":
        level = [box for box, _ in found]
        well_read = [box.quad for box, cut in found if box.score >= 0.8 and not cut]
        for degrees, matrix, strips in _slanted_strips(
            level, work_width, work_height, everything=settings.rotations == "all"
        ):
            with bar(f"OCR {degrees:+d}°", [(x1 - x0, y1 - y0) for x0, y0, x1, y1 in strips]) as turned_bar:
                extra = [
                    box
                    for strip in strips
                    for box in _read_rotated(engine, bgr, matrix, strip, settings, turned_bar, well_read)
                ]
            passes[f"rotated{degrees:+d}"] = len(extra)
            found.extend(extra)
    # rounded as the cache stores them, so a cached result equals a fresh one
    merged = [
        TextBox(b.text, round(b.score, 4), tuple((round(x / scale, 1), round(y / scale, 1)) for x, y in b.quad))
        for b in _merge(found)
    ]
    return OcrResult(
        tuple(merged), width, height, scale, time.perf_counter() - started, engine.name, engine.device, False, passes
    )


def _cache_key(digest: str, settings: OcrSettings, engine: Engine) -> str:
    import hashlib

    read = asdict(settings)
    del read["threads"]  # how many threads read the map changes nothing read
    described = {
        "format": CACHE_FORMAT,
        "image": digest,
        "settings": read,
        "engine": [engine.name, getattr(engine, "version", ""), engine.device],
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:32]


def read_map_texts(
    path: str | Path,
    settings: OcrSettings = OcrSettings(),
    *,
    pixel_limit: int | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    progress: bool = False,
) -> OcrResult:
    """Every text line on the map image at ``path``.

    Parameters
    ----------
    path : str or Path
        A PNG, JPEG or other image Pillow and OpenCV read.
    settings : OcrSettings
    pixel_limit : int, optional
        Images with more pixels are refused before decoding (a decompression-bomb guard); ``None``:
        what the available memory allows (see :func:`vision.images.image_size`).
    cache_dir : path, optional
        Where results are kept, by image content and settings (default :func:`default_cache_dir`).
    use_cache : bool
        ``False`` neither reads nor writes the cache.
    progress : bool
        Show a progress bar on standard error.

    Returns
    -------
    OcrResult
        The lines read (``cached`` says whether they came from the cache).

    Raises
    ------
    InvalidImage, ImageTooLarge
        The file is not a readable image, or is over ``pixel_limit``.
    InvalidCacheDir
        ``cache_dir`` is a file (checked before anything is read).
    EngineUnavailable
        The engine or device is not installed.
    """
    from graphkit.files import atomic_writer
    from vision.images import image_size

    folder = check_cache_dir(cache_dir) if use_cache else None
    image_size(path, pixel_limit=pixel_limit)
    engine = open_engine(settings.engine_config())
    cache_file = None
    if folder is not None:
        cache_file = folder / f"{_cache_key(file_sha256(path), settings, engine)}.json"
        if cache_file.is_file():
            try:
                return OcrResult.from_dict(json.loads(cache_file.read_text(encoding="utf-8")), cached=True)
            except (ValueError, KeyError, TypeError):
                pass  # a damaged cache entry is simply recomputed
    result = ocr_array(read_rgb(path, pixel_limit=pixel_limit), settings, engine=engine, progress=progress)
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(cache_file) as handle:
            json.dump(result.to_dict(), handle, ensure_ascii=False, sort_keys=True)
    return result
