"""Work done once per test session: the OCR memo (tests/ocr_once.py) and folders made once (tests/once.py)."""

from __future__ import annotations

import numpy
import pytest

from tests.ocr_once import MIN_PIXELS, remembering
from tests.once import made_once, session_folder
from vision.ocr import OcrResult, OcrSettings, TextBox


def _counting():
    calls = []

    def ocr_array(image, settings=None, *, engine=None, progress=False):
        calls.append((int(image[0, 0, 0]), settings))
        box = TextBox(f"Station {len(calls)}", 0.9876, ((1.0, 2.0), (30.0, 2.0), (30.0, 12.0), (1.0, 12.0)))
        return OcrResult((box,), image.shape[1], image.shape[0], 1.0, 0.5, "rapidocr", "cpu", False, {"level": 1})

    return ocr_array, calls


def _map(value: int) -> numpy.ndarray:
    return numpy.full((1000, 1000, 3), value, numpy.uint8)  # 1,000,000 pixels: map-sized


def test_a_map_read_again_with_the_same_settings_is_read_once(tmp_path):
    ocr_array, calls = _counting()
    remembered = remembering(ocr_array, tmp_path)
    first = remembered(_map(7))
    assert remembered(_map(7)) == first and len(calls) == 1
    assert remembered(_map(7), OcrSettings(rotations="none")).texts[0].text == "Station 2"
    assert remembered(_map(8)).texts[0].text == "Station 3"
    assert len(calls) == 3 and len(list(tmp_path.glob("*.json"))) == 3


def test_another_worker_reads_the_first_ones_result_from_the_folder(tmp_path):
    ocr_array, calls = _counting()
    first = remembering(ocr_array, tmp_path)(_map(7))
    other_worker, other_calls = _counting()
    assert remembering(other_worker, tmp_path)(_map(7)) == first
    assert (len(calls), other_calls) == (1, [])


def test_small_images_and_foreign_engines_are_read_every_time(tmp_path):
    ocr_array, calls = _counting()
    remembered = remembering(ocr_array, tmp_path)
    small = numpy.full((MIN_PIXELS // 1000 - 1, 1000, 3), 7, numpy.uint8)
    remembered(small)
    remembered(small)

    class OwnEngine:
        name, version, device = "rapidocr", "", "cpu"

    remembered(_map(7), engine=OwnEngine())
    remembered(_map(7), engine=OwnEngine())
    assert len(calls) == 4 and not list(tmp_path.glob("*.json"))


def test_a_folder_made_once_is_made_by_the_first_to_ask_and_read_by_the_others(tmp_path_factory):
    made = []

    def make(folder):
        made.append(folder)
        (folder / "result.txt").write_text("made", encoding="utf-8")

    first = made_once(tmp_path_factory, "made-by-one", make)
    again = made_once(tmp_path_factory, "made-by-one", make)  # another module's fixture, or another worker
    assert first == again == session_folder(tmp_path_factory) / "made-once" / "made-by-one"
    assert made == [first] and (again / "result.txt").read_text(encoding="utf-8") == "made"


def test_a_failed_making_is_made_again_by_the_next_to_ask(tmp_path_factory):
    def fail(folder):
        (folder / "half.txt").write_text("half", encoding="utf-8")
        raise AssertionError("the notebook failed")

    with pytest.raises(AssertionError, match="the notebook failed"):
        made_once(tmp_path_factory, "failed-once", fail)
    folder = made_once(tmp_path_factory, "failed-once", lambda folder: (folder / "whole.txt").touch())
    assert [path.name for path in folder.iterdir()] == ["whole.txt"]
