"""The OCR's thread count: checked, handed to rapidocr's onnxruntime, and no part of what is read."""

from __future__ import annotations

import argparse
import os

import pytest

from benchmarks.speed.ocr import _threads
from vision.engines import EngineConfig
from vision.ocr import OcrSettings, _cache_key


class _Engine:
    name, version, device = "rapidocr", "3.0", "cpu"


def test_threads_must_be_between_one_and_the_cores():
    assert EngineConfig(threads=1).threads == 1
    for wrong in (0, -1, (os.cpu_count() or 1) + 1):
        with pytest.raises(ValueError, match="threads must be 1.."):
            EngineConfig(threads=wrong)
    with pytest.raises(ValueError, match="threads must be 1.."):
        OcrSettings(threads=0)


def test_the_settings_hand_their_threads_to_the_engine():
    assert OcrSettings(threads=1).engine_config() == EngineConfig(threads=1)
    assert OcrSettings().engine_config().threads is None


def test_the_cache_key_does_not_depend_on_the_threads():
    # the same map read on one core or on all is the same reading: one cache entry
    assert _cache_key("abc", OcrSettings(threads=1), _Engine()) == _cache_key("abc", OcrSettings(), _Engine())
    assert _cache_key("abc", OcrSettings(tile=1024), _Engine()) != _cache_key("abc", OcrSettings(), _Engine())


def test_the_benchmark_reads_thread_counts_as_one_and_all():
    assert _threads("1,all") == [1, None]
    for wrong in ("0", "many", f"{(os.cpu_count() or 1) + 1}"):
        with pytest.raises(argparse.ArgumentTypeError, match="--threads"):
            _threads(wrong)
