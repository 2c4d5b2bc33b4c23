"""Map images named in requests: small request files, encoded once per map when sent, checked, old files kept."""

from __future__ import annotations

import base64
import io
import json
import random
import struct
import zlib

import pytest

from baselines import map_images
from baselines.map_images import encoded_request, image_data_url, map_image_part
from baselines.prompts import build_requests
from baselines.requests import Request
from benchmarks.reasonmap.generate import generate_questions
from graphkit import city_graph


@pytest.fixture(scope="module")
def rome_questions():
    return generate_questions(city_graph("rome"), seed=2, per_city=4)


@pytest.fixture
def rome_map(tmp_path):
    from PIL import Image

    # noise, so that the PNG is large: an embedded copy would show in the request file's size
    Image.frombytes("RGB", (300, 200), random.Random(0).randbytes(300 * 200 * 3)).save(tmp_path / "rome.png")
    return tmp_path


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_a_full_request_file_names_its_map_and_stays_the_size_of_a_text_only_one(rome_map, rome_questions):
    full = build_requests(rome_questions, mode="full", maps=rome_map)
    text = build_requests(rome_questions, mode="text-only")
    full_bytes = sum(len(json.dumps(r.to_dict())) for r in full)
    text_bytes = sum(len(json.dumps(r.to_dict())) for r in text)
    assert (rome_map / "rome.png").stat().st_size > 100_000
    assert full_bytes < text_bytes + 400 * len(full)  # a path, a checksum and two numbers per request
    named = full[0].messages[0]["content"][0]
    assert named["type"] == "map_image"
    assert named["map_image"]["path"] == str((rome_map / "rome.png").resolve())
    assert len(named["map_image"]["sha256"]) == 64 and named["map_image"]["pixel_budget"] == 4_000_000
    assert Request.from_dict(json.loads(json.dumps(full[0].to_dict()))) == full[0]


def test_the_map_is_encoded_when_sent_once_per_map(rome_map, rome_questions, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from PIL import Image

    encodings = []
    encode = map_images._encode

    def counted(*args):
        encodings.append(args)
        return encode(*args)

    monkeypatch.setattr(map_images, "_encode", counted)
    requests = build_requests(rome_questions, mode="full", maps=rome_map, pixel_budget=20_000)
    with ThreadPoolExecutor(4) as pool:  # as the client sends them: several at once
        sent = list(pool.map(encoded_request, requests))
    assert len(requests) == 2 * len(rome_questions) and len(encodings) == 1
    image_part, text_part = sent[0].messages[0]["content"]
    assert text_part == {"type": "text", "text": rome_questions[0].question_short}
    with Image.open(io.BytesIO(base64.b64decode(image_part["image_url"]["url"].split(",", 1)[1]))) as image:
        assert image.size[0] * image.size[1] <= 20_000 and abs(image.size[0] / image.size[1] - 1.5) < 0.02
    assert (sent[0].id, sent[0].question, sent[0].mode, sent[0].meta) == (
        requests[0].id,
        requests[0].question,
        "full",
        requests[0].meta,
    )


def test_a_request_with_an_embedded_image_is_sent_as_it_is(rome_map, rome_questions):
    old = Request("q1", "short", "full", ({"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "text", "text": "Route?"},
    ]},))  # fmt: skip
    assert encoded_request(old) is old
    text = build_requests(rome_questions[:1], mode="text-only")[0]
    assert encoded_request(text) is text


def test_a_map_changed_or_removed_since_the_request_was_written_is_refused(rome_map, rome_questions):
    from PIL import Image

    (request, *_) = build_requests(rome_questions[:1], mode="full", maps=rome_map)
    Image.new("RGB", (30, 20), (1, 2, 3)).save(rome_map / "rome.png")
    with pytest.raises(ValueError, match=r"rome.png: the map image changed since the request was written"):
        encoded_request(request)
    (rome_map / "rome.png").unlink()
    with pytest.raises(ValueError, match=r"rome.png: the request's map image cannot be read"):
        encoded_request(request)


def test_our_pixel_limit_applies_not_pillows_default(tmp_path, monkeypatch):
    """The 278 MP Kuala Lumpur map is over Pillow's default limit (179 MP) and under ours (300 MP): scaled down
    here, Pillow's limit at 1,000 pixels and ours at 10,000."""
    from PIL import Image

    Image.new("RGB", (80, 60), (9, 9, 9)).save(tmp_path / "kl.png")  # 4,800 pixels
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000)
    part = map_image_part(tmp_path / "kl.png", pixel_budget=1_200, pixel_limit=10_000)
    url = image_data_url(part["map_image"]["path"], pixel_budget=1_200, pixel_limit=10_000)
    with pytest.raises(ValueError, match=r"kl.png: 80x60 = 4,800 pixels exceeds the limit of 4,000"):
        map_image_part(tmp_path / "kl.png", pixel_limit=4_000)
    assert Image.MAX_IMAGE_PIXELS == 1_000  # Pillow's own setting is left as it was
    monkeypatch.undo()
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as image:
        assert image.size == (40, 30)


def test_a_png_with_a_broken_chunk_is_one_error_and_skipped_where_maps_may_be_missing(tmp_path, rome_questions):
    rows = b"".join(b"\x00" + bytes([200, 30, 30]) * 8 for _ in range(8))
    data = zlib.compress(rows)
    header = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data[:10])
    (tmp_path / "rome.png").write_bytes(png + _chunk(b"ID\x00T", data[10:]) + _chunk(b"IEND", b""))
    with pytest.raises(ValueError, match=r"rome.png: not a readable image \(broken PNG file"):
        map_image_part(tmp_path / "rome.png")
    with pytest.raises(ValueError, match=r"rome.png: not a readable image \(broken PNG file"):
        image_data_url(str(tmp_path / "rome.png"))
    missing: list[str] = []
    assert build_requests(rome_questions[:2], mode="full", maps=tmp_path, missing_maps=missing) == []
    assert len(missing) == 2 and all("not a readable image" in line and "skipped" in line for line in missing)


def test_a_malformed_map_image_part_is_named():
    request = Request("q1", "short", "full", ({"role": "user", "content": [{"type": "map_image", "map_image": 3}]},))
    with pytest.raises(ValueError, match="a map_image content part must name its image's path"):
        map_images.encoded_request(request)


def test_the_client_sends_the_named_map_as_a_data_url(rome_map, rome_questions, tmp_path):
    from baselines.chat import Backoff
    from baselines.client import run_requests
    from tests.baselines.chat_server import ChatServer

    requests = build_requests(rome_questions[:1], mode="full", maps=rome_map, pixel_budget=20_000)
    with ChatServer() as server:
        options = {
            "model": "m",
            "progress": False,
            "api_key": "",
            "timeout": 5.0,
            "backoff": Backoff(base=0.01, cap=0.05),
        }
        summary = run_requests(requests, endpoint=server.url, out=tmp_path / "p.jsonl", **options)
        (image_part, text_part), _ = [call.body["messages"][0]["content"] for call in server.calls]
    assert summary.done_now == 2 and text_part["type"] == "text"
    assert image_part["type"] == "image_url" and image_part["image_url"]["url"].startswith("data:image/png;base64,")
