"""OCR engines behind one small interface: PP-OCR through rapidocr (bundled ONNX models) or PaddleOCR.

No engine ever downloads weights: rapidocr's wheel carries its models, and the
PaddleOCR backend only loads model directories the user names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from graphkit.choices import check_choice
from graphkit.extras import install_hint
from vision.errors import EngineUnavailable

__all__ = [
    "ENGINES",
    "DEVICES",
    "Reading",
    "Engine",
    "Recogniser",
    "EngineConfig",
    "open_engine",
    "cuda_available",
]

ENGINES = ("rapidocr", "paddleocr")
DEVICES = ("auto", "cpu", "cuda")
Device = Literal["auto", "cpu", "cuda"]


@dataclass(frozen=True, slots=True)
class Reading:
    """One text line an engine read.

    Parameters
    ----------
    quad : tuple of (float, float)
        Its four corners (x, y) in the input array's pixels.
    text : str
        The text read.
    score : float
        The engine's recognition confidence.
    """

    quad: tuple[tuple[float, float], ...]
    text: str
    score: float


class Engine(Protocol):
    name: str
    device: str

    def read(self, image) -> list[Reading]:
        """Detect and recognise text in a BGR ``uint8`` array."""

    def detect(self, image) -> list[tuple[tuple[float, float], ...]]:
        """Detect text-line quads only: the quads :meth:`read` would recognise."""


@runtime_checkable
class Recogniser(Protocol):
    """An engine that also recognises apart from detecting, so a map's tiles are detected and each label found
    is recognised once, even where tiles overlap."""

    def recognise(self, image, quads) -> list[tuple[str, float]]:
        """The text and score of each quad of a BGR ``uint8`` array, in order (every reading, however low)."""


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Which engine, on which device.

    Parameters
    ----------
    engine : {"rapidocr", "paddleocr"}
        The engine (:data:`ENGINES`).
    device : {"auto", "cpu", "cuda"}
        Where it runs; ``"auto"`` uses CUDA when onnxruntime has it.
    tile : int
        The longest side (pixels) the detector is given at once.
    det_model_dir, rec_model_dir : str, optional
        PaddleOCR's local detection and recognition model folders (required by that engine, unused by rapidocr).
    threads : int, optional
        The CPU threads rapidocr's onnxruntime runs a model on (``None``: its default, every core).

    Raises
    ------
    ValueError
        An engine or device not in :data:`ENGINES` / :data:`DEVICES`, or ``threads`` outside 1 to the CPU cores.
    """

    engine: str = "rapidocr"
    device: Device = "auto"
    tile: int = 1280
    det_model_dir: str | None = None
    rec_model_dir: str | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        check_choice(self.engine, ENGINES, what="engine")
        check_choice(self.device, DEVICES, what="device")
        if self.threads is not None and not 1 <= self.threads <= (os.cpu_count() or 1):
            raise ValueError(f"threads must be 1..{os.cpu_count() or 1} (the CPU cores), got {self.threads}")


def cuda_available() -> bool:
    """Whether onnxruntime was installed with its CUDA provider (``pip install onnxruntime-gpu``).

    Returns
    -------
    bool
        True when onnxruntime imports and lists ``CUDAExecutionProvider``; False otherwise, also without onnxruntime.
    """
    try:
        import onnxruntime
    except ImportError:
        return False
    return "CUDAExecutionProvider" in onnxruntime.get_available_providers()


def _quad(points) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in points)


class _RapidOCR:
    name = "rapidocr"

    def __init__(self, config: EngineConfig):
        try:
            import rapidocr
            from rapidocr import RapidOCR
        except ImportError as error:
            raise EngineUnavailable(f"rapidocr is not installed ({error}): pip install rapidocr onnxruntime") from None
        use_cuda = config.device == "cuda" or (config.device == "auto" and cuda_available())
        if config.device == "cuda" and not cuda_available():
            raise EngineUnavailable(
                "device 'cuda' asked for, but onnxruntime has no CUDA provider: pip install onnxruntime-gpu"
            )
        self.device = "cuda" if use_cuda else "cpu"
        self.version = getattr(rapidocr, "__version__", "")
        params = {
            "Global.log_level": "critical",
            "Global.use_cls": False,  # map labels are never upside down; the rotated passes handle slants
            "Global.max_side_len": max(2000, config.tile),
            "Det.limit_type": "max",
            "Det.limit_side_len": config.tile,
            "EngineConfig.onnxruntime.use_cuda": use_cuda,
            # onnxruntime keeps the memory of one tile's detection for the next instead of allocating it again:
            # 7% less CPU on Rome, about a fifth over the 11 real maps, for about 150 MB more (rapidocr's
            # default is off)
            "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
        }
        if config.threads is not None:
            params["EngineConfig.onnxruntime.intra_op_num_threads"] = config.threads
        try:
            self._engine = RapidOCR(params=params)
        except Exception as error:  # rapidocr raises bare exceptions for missing models and bad providers
            raise EngineUnavailable(f"rapidocr could not start ({type(error).__name__}: {error})") from None

    def read(self, image) -> list[Reading]:
        # explicit flags each call: rapidocr keeps the last call's flags (a detect-only call would stick)
        result = self._engine(image, use_det=True, use_cls=False, use_rec=True)
        if getattr(result, "txts", None) is None:  # nothing detected: rapidocr returns a detection-only output
            return []
        found = zip(result.boxes, result.txts, result.scores)
        return [Reading(_quad(box), text, float(score)) for box, text, score in found]

    def detect(self, image) -> list[tuple[tuple[float, float], ...]]:
        result = self._engine(image, use_det=True, use_cls=False, use_rec=False)
        boxes = getattr(result, "boxes", None)
        return [] if boxes is None else [_quad(box) for box in boxes]

    def recognise(self, image, quads) -> list[tuple[str, float]]:
        # each quad straightened into a crop as read() does it (rapidocr.utils.process_img.get_rotate_crop_image),
        # all of a map's crops recognised in one call: its recogniser sorts them by width into batches
        import numpy
        from rapidocr.utils.process_img import get_rotate_crop_image

        if not quads:
            return []
        crops = [get_rotate_crop_image(image, numpy.array(quad, dtype=numpy.float32)) for quad in quads]
        result = self._engine.recognize_txt(crops)
        return [(str(text), float(score)) for text, score in zip(result.txts, result.scores)]


class _PaddleOCR:
    name = "paddleocr"

    def __init__(self, config: EngineConfig):
        if not config.det_model_dir or not config.rec_model_dir:
            raise EngineUnavailable(
                "the paddleocr engine needs local models: pass det_model_dir and rec_model_dir"
                " (--det-model-dir, --rec-model-dir); nothing is downloaded"
            )
        for label, folder in (("det_model_dir", config.det_model_dir), ("rec_model_dir", config.rec_model_dir)):
            if not Path(folder).is_dir():
                raise EngineUnavailable(f"paddleocr {label} {folder!r} is not a folder")
        try:
            import paddleocr
            from paddleocr import PaddleOCR
        except ImportError as error:
            raise EngineUnavailable(
                f"paddleocr is not installed ({error}): {install_hint('paddle', 'paddlepaddle')}"
            ) from None
        self.device = "gpu:0" if config.device == "cuda" else "cpu" if config.device == "cpu" else None
        self.version = getattr(paddleocr, "__version__", "")
        options = {"device": self.device} if self.device else {}
        self._engine = PaddleOCR(
            text_detection_model_dir=config.det_model_dir,
            text_recognition_model_dir=config.rec_model_dir,
            use_doc_orientation_classify=False,
            use_doc_unwarping=False,
            use_textline_orientation=False,
            **options,
        )
        self.device = self.device or "auto"

    def read(self, image) -> list[Reading]:
        readings = []
        for page in self._engine.predict(image):
            for quad, text, score in zip(page["rec_polys"], page["rec_texts"], page["rec_scores"]):
                readings.append(Reading(_quad(quad), str(text), float(score)))
        return readings

    def detect(self, image) -> list[tuple[tuple[float, float], ...]]:
        return [reading.quad for reading in self.read(image)]


@lru_cache(maxsize=4)
def open_engine(config: EngineConfig) -> Engine:
    """Start the configured engine.

    Engines are kept per configuration: loading the models is the slow part of reading a small map.

    Parameters
    ----------
    config : EngineConfig
        Which engine, on which device.

    Returns
    -------
    Engine
        The started engine (the same object for an equal configuration, among the last four).

    Raises
    ------
    EngineUnavailable
        The engine, its models or the device asked for are not installed; the message says what to install.
    """
    return _RapidOCR(config) if config.engine == "rapidocr" else _PaddleOCR(config)
