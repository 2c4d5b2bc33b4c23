"""Prompt modes: text-only, full (images under a pixel budget), alias."""

from __future__ import annotations

import base64
import io
import json

import pytest

from baselines.alias import alias_graph, alias_mapping, aliased, unalias_text
from baselines.answers import render_answer
from baselines.map_images import encoded_request
from baselines.prompts import MODES, build_requests, image_data_url
from baselines.requests import Request
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.scoring import score_answer
from graphkit import city_graph, shortest_route


@pytest.fixture(scope="module")
def rome_questions():
    return generate_questions(city_graph("rome"), seed=2, per_city=4)


def test_text_only_is_the_question_alone(rome_questions):
    requests = build_requests(rome_questions, mode="text-only")
    assert len(requests) == 2 * len(rome_questions)
    first = requests[0]
    assert first.messages == ({"role": "user", "content": rome_questions[0].question_short},)
    assert Request.from_dict(first.to_dict()) == first


def test_full_mode_sends_the_map_downscaled_under_the_budget(tmp_path, rome_questions):
    from PIL import Image

    Image.new("RGB", (400, 300), (200, 30, 30)).save(tmp_path / "rome.png")
    requests = build_requests(rome_questions[:1], mode="full", maps=tmp_path, pixel_budget=30_000)
    image_part, text_part = encoded_request(requests[0]).messages[0]["content"]
    assert text_part == {"type": "text", "text": rome_questions[0].question_short}
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as sent:
        assert sent.size[0] * sent.size[1] <= 30_000 and abs(sent.size[0] / sent.size[1] - 4 / 3) < 0.02
    small = image_data_url(str(tmp_path / "rome.png"), pixel_budget=10**9)
    with Image.open(io.BytesIO(base64.b64decode(small.split(",", 1)[1]))) as sent:
        assert sent.size == (400, 300)


def test_full_mode_errors_name_what_is_missing_or_too_big(tmp_path, rome_questions):
    with pytest.raises(ValueError, match="maps"):
        build_requests(rome_questions, mode="full")
    with pytest.raises(FileNotFoundError, match="rome"):
        build_requests(rome_questions, mode="full", maps=tmp_path)
    from PIL import Image

    Image.new("RGB", (100, 100)).save(tmp_path / "big.png")
    with pytest.raises(ValueError, match="exceeds the limit"):
        image_data_url(str(tmp_path / "big.png"), pixel_limit=5_000)
    (tmp_path / "junk.png").write_bytes(b"not an image")
    with pytest.raises(ValueError, match="not a readable image"):
        image_data_url(str(tmp_path / "junk.png"))
    with pytest.raises(ValueError, match="text-only"):
        build_requests(rome_questions, mode="telepathy")
    assert set(MODES) == {"full", "text-only", "symbolic", "alias"}


@pytest.mark.parametrize("strategy", ["romanize", "borrow"])
def test_aliases_are_unique_english_and_consistent(strategy):
    graph = city_graph("beijing")
    mapping = alias_mapping(graph, strategy)
    assert len(set(mapping.values())) == len(mapping)
    assert all(alias.isascii() for alias in mapping.values())
    assert not set(mapping.values()) & set(graph.stations)
    renamed = alias_graph(graph, mapping)
    assert len(renamed.stations) == len(graph.stations) and all(name.isascii() for name in renamed.stations)
    question = generate_questions(graph, seed=5, per_city=6)[-1]
    renamed_question, renamed_graph, _ = aliased(question, graph, strategy)
    assert renamed_question.station_1 == mapping.get(question.station_1, question.station_1)
    # the reference in aliases is the renamed graph's own best route, and scores as correct there
    best = shortest_route(renamed_graph, renamed_question.station_1, renamed_question.station_2)
    assert best.segments == renamed_question.routes[0]
    answer = parse_answer(render_answer(best.segments, "short"), kind="short")
    assert score_answer(answer, renamed_question, renamed_graph, kind="short").correct == 1
    # and turned back into the original names, it scores on the original question
    original = parse_answer(unalias_text(render_answer(best.segments, "short"), mapping), kind="short")
    assert score_answer(original, question, graph, kind="short").correct == 1


def test_english_cities_need_no_alias():
    assert alias_mapping(city_graph("rome")) == {}
    with pytest.raises(ValueError, match="romanize"):
        alias_mapping(city_graph("rome"), "translate")


def test_a_city_whose_overlay_splits_a_repeated_name_keeps_its_stations_when_aliased():
    # New York's R lists 36 St twice; the overlay makes it two stations, which stay two
    graph = city_graph("new_york")
    renamed = alias_graph(graph, alias_mapping(graph))
    assert renamed.stations == graph.stations
    assert renamed.lines_at("36 St Station@M") == ("M", "R") and renamed.lines_at("36 St Station@D") == ("D", "N", "R")


def test_a_request_whose_meta_or_mode_is_not_what_it_should_be_is_skipped_with_its_line(tmp_path):
    from benchmarks.jsonl import read_jsonl

    good = {"id": "q1", "question": "short", "mode": "text-only", "messages": [{"role": "user", "content": "Route?"}]}
    lines = [good, {**good, "id": "q2", "meta": 1}, {**good, "id": "q3", "meta": "x"}]
    lines += [{**good, "id": "q4", "meta": None}]
    lines += [{**good, "id": "q5", "mode": ["text-only"]}, {key: value for key, value in good.items() if key != "mode"}]
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    requests, problems = read_jsonl(path, Request.from_dict)
    assert [(request.id, request.mode, request.meta) for request in requests] == [
        ("q1", "text-only", {}),
        ("q4", "text-only", {}),
        ("q1", "", {}),
    ]
    assert [(problem.line, "'meta'" in problem.message) for problem in problems[:2]] == [(2, True), (3, True)]
    assert problems[2].line == 5 and "'mode'" in problems[2].message and len(problems) == 3


def test_a_map_path_leading_out_of_the_maps_folder_is_never_sent(tmp_path):
    from PIL import Image

    from baselines.prompts import build_requests
    from benchmarks.mapqa.records import MapQuestion
    from benchmarks.tasks import get_task

    (tmp_path / "maps").mkdir()
    Image.new("RGB", (4, 4)).save(tmp_path / "secret.png")  # beside the maps folder, not in it
    Image.new("RGB", (4, 4)).save(tmp_path / "maps" / "ok.png")
    record = {"question": "Which?", "options": ["a", "b"], "answer": "A", "type": "single", "level": 1}
    record |= {"category": "metro", "language": "en"}
    questions = [
        MapQuestion.from_dict({**record, "id": "in", "image": "ok.png"}),
        MapQuestion.from_dict({**record, "id": "out", "image": "../secret.png"}),
    ]
    missing: list[str] = []
    requests = build_requests(
        questions, mode="full", task=get_task("mapqa"), maps=tmp_path / "maps", missing_maps=missing
    )
    assert [request.id for request in requests] == ["in"]
    assert len(missing) == 1 and "'out'" in missing[0] and "outside the maps folder" in missing[0]


@pytest.mark.parametrize(("city", "country"), [("../secret", "italy"), ("rome", "../../secret"), ("/tmp/x", "y")])
def test_a_city_map_named_by_fields_leading_out_of_the_maps_folder_is_not_found(tmp_path, city, country):
    from types import SimpleNamespace

    from PIL import Image

    from baselines.prompts import find_map

    (tmp_path / "a" / "maps").mkdir(parents=True)
    for where in (tmp_path / "a" / "secret.png", tmp_path / "secret.png", tmp_path / "a" / "secret__rome.png"):
        Image.new("RGB", (4, 4)).save(where)
    with pytest.raises(FileNotFoundError, match="is not a file name inside"):
        find_map(tmp_path / "a" / "maps", SimpleNamespace(city=city, country=country))
