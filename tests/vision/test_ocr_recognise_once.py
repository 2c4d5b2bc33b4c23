"""Each label is recognised once: the quads detected twice where tiles overlap are merged before recognition,
and the rotated strips leave alone the labels the level pass read well."""

from __future__ import annotations

import numpy
import pytest
from PIL import Image, ImageDraw

from vision.engines import EngineConfig, Reading, Recogniser, open_engine
from vision.ocr import OcrSettings, _read_tiled, ocr_array
from vision.ocr_geometry import _same_places, _shapes


class _Progress:
    def update(self, pixels: int) -> None:
        pass


def _square(x0: float, y0: float, x1: float, y1: float):
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


class _Scripted:
    """An engine with scripted quads and readings: ``detect`` finds ``quads`` in every window, ``recognise``
    reads each quad by ``texts`` (unknown quads read as nothing) and keeps what it was asked."""

    name, device = "scripted", "cpu"

    def __init__(self, quads, texts):
        self.quads, self.texts, self.asked = quads, texts, []

    def read(self, image) -> list[Reading]:
        raise AssertionError("an engine that recognises apart is never asked to read a whole tile")

    def detect(self, image):
        return list(self.quads)

    def recognise(self, image, quads):
        self.asked.extend(quads)
        return [self.texts.get(quad, ("", 0.0)) for quad in quads]


def _canvas(width: int = 400, height: int = 120) -> numpy.ndarray:
    image = numpy.full((height, width, 3), 255, numpy.uint8)
    image[50:60, 10:300] = 0  # not one flat colour, so the tile is read
    return image


def test_the_scripted_engine_is_a_recogniser_and_the_real_one_too():
    assert isinstance(_Scripted([], {}), Recogniser)
    assert isinstance(open_engine(EngineConfig()), Recogniser)


def test_a_merged_quad_that_reads_as_nothing_gives_way_to_the_quads_it_covered():
    # one quad across two words covers both (each lies wholly in it); it reads as nothing, so the two words
    # it stood for are recognised in its stead
    whole, left, right = _square(10, 40, 300, 70), _square(12, 42, 140, 68), _square(160, 42, 298, 68)
    engine = _Scripted([whole, left, right], {left: ("Termini", 0.99), right: ("Castro", 0.97)})
    found = ocr_array(_canvas(), OcrSettings(rotations="none"), engine=engine)
    assert sorted(box.text for box in found.texts) == ["Castro", "Termini"]
    assert engine.asked == [whole, left, right]  # the whole first (the larger), then what it covered


def test_a_quad_in_the_place_of_a_label_read_before_is_not_recognised():
    # 0..100 against 2..100: intersection 98 x 20 over union 100 x 20 = 0.98; 150..250 against 190..290:
    # 60 x 20 over 140 x 20 = 0.43, another place
    seen, new = _square(0, 40, 100, 60), _square(150, 40, 250, 60)
    engine = _Scripted([seen, new], {seen: ("Lepanto", 0.99), new: ("Cipro", 0.99)})
    known = [_square(2, 40, 100, 60), _square(190, 40, 290, 60)]
    found = _read_tiled(engine, _canvas(), OcrSettings(), _Progress(), known)
    assert [box.text for box, _ in found] == ["Cipro"] and engine.asked == [new]


def test_same_places_is_intersection_over_union_from_0_7():
    # 10x10 squares: shifted by 1 both ways, 81 / 119 = 0.68; stretched by half a pixel, 100 / 105 = 0.95
    base = _shapes([_square(0, 0, 10, 10)])
    others = _shapes([_square(1, 1, 11, 11)])
    assert _same_places(base, others) == [False]
    assert _same_places(base, _shapes([_square(0, 0, 10.5, 10)])) == [True]
    assert _same_places(base, []) == [False]


@pytest.fixture(scope="module")
def engine():
    return open_engine(EngineConfig())


def test_words_in_the_overlap_of_two_tiles_are_recognised_once(engine, monkeypatch):
    from vision.fonts import load_font

    # tiles of 512 overlapping by 200 over 1100 px: 0-500, 300-800, 600-1100; Lepanto and Ottaviano lie
    # whole in two tiles each, so reading tile by tile recognised them twice (6 crops for 4 words)
    canvas = Image.new("RGB", (1100, 300), "white")
    draw = ImageDraw.Draw(canvas)
    font = load_font("latin", 28)
    for text, x in (("Flaminio", 20), ("Lepanto", 330), ("Ottaviano", 620), ("Cipro", 900)):
        draw.text((x, 130), text, font=font, fill="black")
    recognised = []
    inner = engine._engine.recognize_txt
    monkeypatch.setattr(engine._engine, "recognize_txt", lambda crops: recognised.extend(crops) or inner(crops))
    found = ocr_array(numpy.asarray(canvas), OcrSettings(tile=512, overlap=200, rotations="none"), engine=engine)
    assert sorted(box.text for box in found.texts) == ["Cipro", "Flaminio", "Lepanto", "Ottaviano"]
    assert len(recognised) == 4


def test_the_rapidocr_engine_keeps_its_memory_arena_between_tiles(engine):
    # rapidocr's config.yaml turns onnxruntime's CPU arena off (EngineConfig.onnxruntime.enable_cpu_mem_arena:
    # false); each tile's detection then allocated its buffers afresh
    assert engine._engine.cfg.EngineConfig.onnxruntime.enable_cpu_mem_arena is True
