"""Reading images: the pixel limit follows the available memory and refuses before decoding; transparency."""

from __future__ import annotations

import struct
import zlib

import numpy
import pytest
from PIL import Image

from vision import images
from vision.errors import ImageTooLarge
from vision.images import DEFAULT_PIXEL_LIMIT, available_memory, image_size, memory_pixel_limit, read_rgb

SIDE = 17_000  # the bomb: 289,000,000 pixels, 867 MB as RGB, in a file of a few tens of KB


def write_blank_png(path, width: int, height: int) -> None:
    """A 1-bit greyscale PNG of zeros, compressed row by row: the file is made without holding the image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = bytes(1 + (width + 7) // 8)  # filter byte 0, then the row's bits
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    path = tmp_path_factory.mktemp("bomb") / "huge.png"
    write_blank_png(path, SIDE, SIDE)
    return path


@pytest.fixture
def no_decoding(monkeypatch):
    """Fail the test if anything decodes the pixels."""
    import cv2

    def refuse(*args, **kwargs):
        raise AssertionError("the image was decoded")

    monkeypatch.setattr(cv2, "imdecode", refuse)
    monkeypatch.setattr(Image.Image, "load", refuse)


def test_the_bomb_is_small_on_disk_and_pillow_reads_its_size(bomb):
    assert bomb.stat().st_size < 100_000
    assert image_size(bomb, pixel_limit=SIDE * SIDE) == (SIDE, SIDE)


def test_the_bomb_is_refused_from_its_header_when_memory_is_short(bomb, monkeypatch, no_decoding):
    monkeypatch.setattr(images, "available_memory", lambda: 2**30)
    # 1 GiB = 1,073,741,824 bytes at 9 bytes a pixel: 119,304,647 pixels
    message = (
        f"{bomb}: 17000x17000 = 289,000,000 pixels exceeds the limit of 119,304,647"
        " (what 1.0 GiB of available memory allows at 9 bytes a pixel;"
    )
    for read in (image_size, read_rgb):
        with pytest.raises(ImageTooLarge) as refused:
            read(bomb)
        assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_with_memory_to_spare_the_fixed_limit_applies(bomb, monkeypatch, no_decoding):
    monkeypatch.setattr(images, "available_memory", lambda: 64 * 2**30)
    assert image_size(bomb) == (SIDE, SIDE)  # 289,000,000 <= 300,000,000
    monkeypatch.setattr(images, "available_memory", lambda: None)  # unknown memory: the fixed limit
    assert image_size(bomb) == (SIDE, SIDE)


def test_an_explicit_limit_overrides_the_memory(bomb, monkeypatch, no_decoding):
    monkeypatch.setattr(images, "available_memory", lambda: 2**20)
    assert image_size(bomb, pixel_limit=289_000_000) == (SIDE, SIDE)
    with pytest.raises(ImageTooLarge, match=r"exceeds the limit of 288,999,999 \(the limit given;"):
        image_size(bomb, pixel_limit=288_999_999)


def test_a_small_image_is_read_when_memory_allows_it(tmp_path, monkeypatch):
    path = tmp_path / "small.png"
    Image.new("RGB", (300, 200), (10, 20, 30)).save(path)
    monkeypatch.setattr(images, "available_memory", lambda: 9 * 60_000)  # exactly 60,000 pixels
    assert read_rgb(path).shape == (200, 300, 3)
    monkeypatch.setattr(images, "available_memory", lambda: 9 * 60_000 - 1)
    with pytest.raises(ImageTooLarge, match="60,000 pixels exceeds the limit of 59,999"):
        read_rgb(path)


@pytest.mark.parametrize(
    ("memory", "limit"),
    [(0, 0), (8, 0), (9, 1), (900_000_000, 100_000_000), (9 * 300_000_000, 300_000_000), (10**12, 300_000_000)],
)
def test_memory_pixel_limit_is_memory_over_nine_bytes_capped_by_the_fixed_limit(memory, limit):
    assert memory_pixel_limit(memory) == limit


def test_available_memory_reads_memavailable_then_falls_back(tmp_path, monkeypatch):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       4000 kB\nMemFree:  10 kB\nMemAvailable:    1000 kB\n", encoding="ascii")
    assert available_memory(meminfo) == 1_024_000
    pages = {"SC_PHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}
    monkeypatch.setattr(images.os, "sysconf", lambda name: pages[name])
    assert available_memory(tmp_path / "missing") == 4_096_000
    meminfo.write_text("MemTotal: 4000 kB\n", encoding="ascii")  # an old kernel: no MemAvailable
    assert available_memory(meminfo) == 4_096_000

    def no_sysconf(name):
        raise ValueError(name)

    monkeypatch.setattr(images.os, "sysconf", no_sysconf)
    assert available_memory(tmp_path / "missing") is None
    monkeypatch.setattr(images, "available_memory", lambda: None)
    assert memory_pixel_limit() == DEFAULT_PIXEL_LIMIT


def test_half_transparent_pixels_are_blended_onto_white_in_every_band(tmp_path):
    path = tmp_path / "tall.png"
    pixels = numpy.zeros((2100, 3, 4), dtype=numpy.uint8)  # taller than two bands of 1,024 rows
    pixels[:] = (200, 100, 0, 128)
    pixels[-1] = (0, 0, 0, 0)
    Image.fromarray(pixels, "RGBA").save(path)
    rgb = read_rgb(path)
    # (colour * 128 + 255 * 127 + 127) // 255: 200 -> 227, 100 -> 177, 0 -> 127; clear pixels are white
    assert rgb.shape == (2100, 3, 3) and rgb.dtype == numpy.uint8
    assert (rgb[:-1] == (227, 177, 127)).all() and (rgb[-1] == 255).all()


def test_opaque_bands_keep_their_colours_and_others_are_still_blended(tmp_path):
    # rows 0..1023 opaque (the first band: reordered only), the second band has one half-transparent pixel
    path = tmp_path / "mixed.png"
    pixels = numpy.zeros((1100, 2, 4), dtype=numpy.uint8)
    pixels[:] = (10, 20, 30, 255)
    pixels[1050, 1] = (200, 100, 0, 128)
    Image.fromarray(pixels, "RGBA").save(path)
    rgb = read_rgb(path)
    expected = numpy.zeros((1100, 2, 3), dtype=numpy.uint8)
    expected[:] = (10, 20, 30)  # opaque: (c * 255 + 0 + 127) // 255 is c
    expected[1050, 1] = (227, 177, 127)  # as worked out in the test above
    assert numpy.array_equal(rgb, expected)
