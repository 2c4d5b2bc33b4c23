"""OCR: tiling, merging, rotated passes, image safety, the cache, and recall on rendered and real maps."""

from __future__ import annotations

import json
import math

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from graphkit.cities import city_graph
from tests.vision.fonts import needs_cjk_font
from tests.vision.maps import real_map
from vision.engines import EngineConfig, cuda_available, open_engine
from vision.errors import EngineUnavailable, ImageTooLarge, InvalidImage
from vision.grounding import ground_stations
from vision.images import read_rgb
from vision.ocr import OcrSettings, TextBox, _merge, ocr_array, read_map_texts
from vision.ocr_geometry import _spans
from vision.render import render_map


@pytest.fixture(scope="module")
def engine():
    return open_engine(EngineConfig())


def _latin_font(size: int):
    from vision.fonts import load_font

    return load_font("latin", size)


def _text_image(words: list[tuple[str, tuple[int, int], int]], size=(900, 500)) -> numpy.ndarray:
    """White canvas with black words at positions, each at an angle (degrees, counter-clockwise)."""
    canvas = Image.new("RGB", size, "white")
    font = _latin_font(28)
    for text, (x, y), angle in words:
        left, top, right, bottom = font.getbbox(text)
        patch = Image.new("L", (right + 8, bottom + 8), 0)
        ImageDraw.Draw(patch).text((4, 4), text, font=font, fill=255)
        patch = patch.rotate(angle, expand=True, resample=Image.BICUBIC)
        canvas.paste(Image.new("RGB", patch.size, "black"), (x, y), patch)
    return numpy.asarray(canvas)


@given(st.integers(1, 20000), st.integers(256, 2048), st.data())
def test_spans_cover_the_length_with_at_least_the_overlap(length, tile, data):
    overlap = data.draw(st.integers(0, tile // 2 - 1))
    spans = _spans(length, tile, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == length
    assert all(end - start <= tile for start, end in spans)
    assert all(a_end - b_start >= min(overlap, length) for (_, a_end), (b_start, _) in zip(spans, spans[1:]))


def test_text_box_geometry():
    level = TextBox("Termini", 1.0, ((10, 10), (110, 10), (110, 30), (10, 30)))
    assert level.box == (10, 10, 110, 30) and level.height == 20 and level.angle == 0
    c, s = math.cos(math.radians(45)), math.sin(math.radians(45))
    rising = TextBox(
        "Torre Gaia", 1.0, ((0, 0), (100 * c, -100 * s), (100 * c + 20 * s, -100 * s + 20 * c), (20 * s, 20 * c))
    )
    assert rising.angle == pytest.approx(-45) and rising.height == pytest.approx(20)


def test_merge_keeps_one_reading_per_label_and_prefers_the_whole_one():
    whole = TextBox("Conca d'Oro", 0.99, ((0, 0), (120, 0), (120, 20), (0, 20)))
    cut = TextBox("Conca d", 0.99, ((0, 0), (70, 0), (70, 20), (0, 20)))
    other = TextBox("Libia", 0.98, ((0, 40), (50, 40), (50, 60), (0, 60)))
    assert [b.text for b in _merge([(cut, True), (whole, False), (other, False)])] == ["Conca d'Oro", "Libia"]


def test_reads_level_and_slanted_words(engine):
    image = _text_image([("Colosseo", (40, 40), 0), ("Alessandrino", (400, 150), 45), ("Bologna", (40, 300), 0)])
    found = ocr_array(image, OcrSettings(), engine=engine)
    texts = {box.text for box in found.texts}
    assert {"Colosseo", "Bologna", "Alessandrino"} <= texts
    slanted = next(box for box in found.texts if box.text == "Alessandrino")
    assert abs(abs(slanted.angle) - 45) < 10
    assert found.width == 900 and found.height == 500


@pytest.mark.slow
def test_tiles_do_not_lose_or_double_words(engine):
    words = [(f"Station {i}", (60 + 260 * (i % 6), 40 + 90 * (i // 6)), 0) for i in range(36)]
    image = _text_image(words, size=(1700, 600))
    small_tiles = ocr_array(image, OcrSettings(tile=512, overlap=200, rotations="none"), engine=engine)
    texts = [box.text for box in small_tiles.texts]
    assert sorted(set(texts)) == sorted(f"Station {i}" for i in range(36))
    assert len(texts) == 36


@pytest.mark.slow
def test_reading_a_file_is_cached_by_content_and_settings(tmp_path, engine):
    path = tmp_path / "words.png"
    Image.fromarray(_text_image([("Flaminio", (50, 50), 0)])).save(path)
    first = read_map_texts(path, cache_dir=tmp_path / "cache")
    again = read_map_texts(path, cache_dir=tmp_path / "cache")
    assert not first.cached and again.cached
    assert again.texts == first.texts
    other = read_map_texts(path, OcrSettings(rotations="none"), cache_dir=tmp_path / "cache")
    assert not other.cached
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2
    read_map_texts(path, use_cache=False, cache_dir=tmp_path / "nowhere")
    assert not (tmp_path / "nowhere").exists()


def test_a_damaged_cache_entry_is_recomputed(tmp_path):
    path = tmp_path / "words.png"
    Image.fromarray(_text_image([("Flaminio", (50, 50), 0)])).save(path)
    read_map_texts(path, cache_dir=tmp_path)
    (entry,) = tmp_path.glob("*.json")
    entry.write_text("{not json", encoding="utf-8")
    again = read_map_texts(path, cache_dir=tmp_path)
    assert not again.cached and "Flaminio" in {box.text for box in again.texts}
    assert json.loads(entry.read_text(encoding="utf-8"))["texts"]


def test_transparent_pixels_read_as_white(tmp_path):
    path = tmp_path / "clear.png"
    Image.new("RGBA", (8, 8), (0, 0, 0, 0)).save(path)
    assert (read_rgb(path) == 255).all()


def test_bad_images_are_refused_with_their_path(tmp_path):
    text = tmp_path / "notes.png"
    text.write_text("not an image", encoding="utf-8")
    with pytest.raises(InvalidImage, match="notes.png"):
        read_rgb(text)
    with pytest.raises(InvalidImage, match="missing.png"):
        read_rgb(tmp_path / "missing.png")
    truncated = tmp_path / "truncated.png"
    Image.new("RGB", (400, 400), "red").save(tmp_path / "whole.png")
    truncated.write_bytes((tmp_path / "whole.png").read_bytes()[:200])
    with pytest.raises(InvalidImage, match="truncated.png"):
        read_rgb(truncated)


def test_the_pixel_limit_refuses_before_decoding(tmp_path):
    path = tmp_path / "big.png"
    Image.new("RGB", (300, 200), "white").save(path)
    with pytest.raises(ImageTooLarge, match="60,000 pixels exceeds the limit of 50,000"):
        read_map_texts(path, pixel_limit=50_000, use_cache=False)
    assert read_rgb(path, pixel_limit=60_000).shape == (200, 300, 3)


def test_unavailable_engines_say_what_to_install():
    with pytest.raises(EngineUnavailable, match="det_model_dir"):
        open_engine(EngineConfig(engine="paddleocr"))
    with pytest.raises(ValueError, match="engine must be one of"):
        EngineConfig(engine="tesseract")
    with pytest.raises(ValueError, match="rotations must be one of"):
        OcrSettings(rotations="sideways")
    if not cuda_available():
        with pytest.raises(EngineUnavailable, match="onnxruntime-gpu"):
            open_engine(EngineConfig(device="cuda"))


@pytest.mark.slow
@pytest.mark.parametrize(("city", "rotate"), [("geneva", False), pytest.param("hefei", True, marks=needs_cjk_font)])
def test_recall_on_rendered_maps(city, rotate, engine):
    graph = city_graph(city)
    rendered = render_map(graph, seed=3, rotate_labels=rotate)
    found = ocr_array(numpy.asarray(rendered.image), engine=engine)
    grounding = ground_stations(found.texts, graph.stations)
    assert grounding.recall >= 0.97, [name for name, s in grounding.stations.items() if not s.found]
    truth = rendered.truth["stations"]
    for name, sighting in grounding.stations.items():
        if sighting.found:  # found where it was drawn
            x0, y0, x1, y1 = truth[name]["label_box"]
            px, py = sighting.point
            assert x0 - 30 <= px <= x1 + 30 and y0 - 30 <= py <= y1 + 30, name


@pytest.mark.slow
@pytest.mark.parametrize(("name", "city"), [("america__miami", "miami"), ("italy__rome", "rome")])
def test_recall_on_real_maps(name, city, tmp_path):
    graph = city_graph(city)
    found = read_map_texts(real_map(name), cache_dir=tmp_path)
    grounding = ground_stations(found.texts, graph.stations)
    assert grounding.recall >= 0.9, [n for n, s in grounding.stations.items() if not s.found]
    if city == "rome":  # Line C's labels stand at 45°
        line_c = graph.lines["Line C"].stations
        assert sum(grounding.stations[s].found for s in line_c) >= 0.9 * len(line_c)


def test_detecting_alone_does_not_stop_later_reads(engine):
    image = _text_image([("Rockville", (40, 40), 0)])[:, :, ::-1].copy()
    assert engine.detect(image)
    assert [reading.text for reading in engine.read(image)] == ["Rockville"]


def test_a_tile_with_lines_but_no_text_reads_nothing(engine):
    image = numpy.full((300, 300, 3), 255, numpy.uint8)
    image[140:160, :] = (200, 30, 30)
    assert ocr_array(image, engine=engine).texts == ()


def test_slanted_labels_are_levelled_by_their_strips():
    from vision.ocr import _slanted_strips
    from vision.ocr_geometry import _map_quad

    c, s = math.cos(math.radians(45)), math.sin(math.radians(45))
    for sign in (1, -1):  # rising and falling to the right
        quad = (
            (100, 300),
            (100 + 200 * c, 300 - sign * 200 * s),
            (100 + 200 * c + 20 * s, 300 - sign * 200 * s + 20 * c),
            (100 + 20 * s, 300 + 20 * c),
        )
        label = TextBox("Torrenova", 1.0, quad)
        ((degrees, matrix, strips),) = _slanted_strips([label], 600, 600)
        assert abs(TextBox("", 1.0, _map_quad(quad, matrix)).angle) < 3
        ((x0, y0, x1, y1),) = strips
        xs, ys = zip(*_map_quad(quad, matrix))
        assert x0 <= min(xs) and max(xs) <= x1 and y0 <= min(ys) and max(ys) <= y1


def test_stations_split_from_a_shared_name_are_grounded_by_the_name_their_label_shows():
    from tests.networks import SPLIT, SPLIT_OVERLAY, graph_of

    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    texts = [TextBox("Hub", 0.99, ((10, 10), (40, 10), (40, 24), (10, 24)))]
    bare = ground_stations(texts, graph.stations)
    assert not bare.stations["Hub@Red"].found  # "Hub@Red" is no label a map shows
    found = ground_stations(texts, graph.stations, shown={s: graph.display_name(s) for s in graph.stations})
    assert found.stations["Hub@Red"].found and found.stations["Hub@Blue"].found
    assert found.stations["Hub@Red"].text == "Hub" and not found.stations["R1"].found


def test_a_reading_that_names_one_station_is_not_lent_to_another():
    """职教城东站 read exactly belongs to 职教城东站; 职教城站 takes its own (misread) label, not that one."""
    texts = [
        TextBox("职教城东站", 1.0, ((100, 100), (200, 100), (200, 120), (100, 120))),
        TextBox("职教城立站", 0.95, ((0, 0), (80, 0), (80, 20), (0, 20))),
    ]
    found = ground_stations(texts, ["职教城站", "职教城东站"])
    assert found.stations["职教城东站"].text == "职教城东站"
    assert found.stations["职教城站"].text != "职教城东站"


def test_a_cache_dir_that_is_a_file_is_refused_before_reading(tmp_path):
    from vision.errors import InvalidCacheDir

    taken = tmp_path / "cache"
    taken.write_text("", encoding="utf-8")
    missing_map = tmp_path / "missing.png"  # refused for the cache before the map is even looked at
    with pytest.raises(InvalidCacheDir, match="cache: cannot be the OCR cache folder: it is a file"):
        read_map_texts(missing_map, cache_dir=taken)
    with pytest.raises(InvalidCacheDir, match=f"{taken} is a file"):
        read_map_texts(missing_map, cache_dir=taken / "a" / "b")
    with pytest.raises(InvalidImage, match="missing.png"):  # without the cache, the cache folder is not looked at
        read_map_texts(missing_map, cache_dir=taken, use_cache=False)


def test_each_ocr_pass_has_a_labelled_bar_that_ends_at_its_total(engine, monkeypatch):
    import tqdm

    closed = {}

    class Recorded(tqdm.tqdm):
        def close(self):  # tqdm may close a bar twice: kept once
            closed.setdefault(id(self), (self.desc, self.n, self.total))
            super().close()

    monkeypatch.setattr(tqdm, "tqdm", Recorded)
    image = _text_image([("Colosseo", (40, 40), 0), ("Alessandrino", (400, 150), 45)])
    ocr_array(image, OcrSettings(tile=512, overlap=200), engine=engine, progress=True)
    bars = list(closed.values())
    assert bars[0][0] == "OCR" and len(bars) >= 2  # the level pass, then each turn that levels a label
    assert all(desc.startswith("OCR") for desc, _, _ in bars) and len({desc for desc, _, _ in bars}) == len(bars)
    assert all(n == total and total > 0 for _, n, total in bars)
    assert bars[0][2] > image.shape[0] * image.shape[1]  # overlapping tiles: more than the image's pixels
