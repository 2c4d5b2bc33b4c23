"""Map QA records: the schema, its validation, and a loader that reports and skips bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.mapqa.io import image_path, is_mapqa_file, load_questions, read_predictions
from benchmarks.mapqa.records import LEVELS, QUESTION_TYPES, MapPrediction, MapQuestion

FIXTURES = Path(__file__).resolve().parent / "fixtures"
QUESTIONS = FIXTURES / "questions.jsonl"
GOOD = {
    "id": "q1",
    "image": "maps/metro.png",
    "question": "Which lines serve the left edge?",
    "options": ["Red", "Blue", "Green"],
    "answer": ["C", "A"],
    "type": "multiple",
    "level": 2,
    "category": "metro",
    "language": "en",
}


def test_the_fixture_set_covers_every_type_level_and_two_languages():
    questions, problems = load_questions(QUESTIONS)
    assert problems == [] and len(questions) == 8
    assert {q.type for q in questions.values()} == set(QUESTION_TYPES)
    assert {q.level for q in questions.values()} == set(LEVELS)
    assert {q.language for q in questions.values()} == {"en", "zh"}
    for question in questions.values():
        assert image_path(question, FIXTURES).is_file()
        assert MapQuestion.from_dict(json.loads(json.dumps(question.to_dict()))) == question


@pytest.mark.parametrize(
    ("kind", "given", "read"),
    [
        ("single", "b", ("B",)),
        ("single", ["C"], ("C",)),
        ("multiple", ["C", "A"], ("A", "C")),
        ("multiple", "c, a", ("A", "C")),
        ("multiple", "AC", ("A", "C")),
        ("sorting", "B > A > C", ("B", "A", "C")),
        ("sorting", ["c", "b", "a"], ("C", "B", "A")),
    ],
)
def test_answers_are_read_in_any_case_and_form_and_kept_canonical(kind, given, read):
    question = MapQuestion.from_dict({**GOOD, "type": kind, "answer": given})
    assert question.answer == read
    written = question.to_dict()["answer"]
    assert written == (read[0] if kind == "single" else list(read))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": None}, "'id'"),
        ({"id": True}, "'id'"),
        ({"image": ""}, "'image'"),
        ({"question": 3}, "'question'"),
        ({"options": ["only one"]}, "2 to 26"),
        ({"options": [f"o{i}" for i in range(27)]}, "2 to 26"),
        ({"options": ["Red", ""]}, "'options'"),
        ({"options": "Red, Blue"}, "'options'"),
        ({"answer": ["D"]}, "'D', not one of the options"),
        ({"answer": 2}, "option letters"),
        ({"answer": "A then maybe C"}, "option letters"),
        ({"answer": []}, "names no option"),
        ({"answer": ["A", "A"]}, "repeats"),
        ({"type": "single", "answer": "A, B"}, "one letter"),
        ({"type": "sorting", "answer": "B > A"}, "order all 3 options"),
        ({"type": "true/false"}, "'type'"),
        ({"level": 4}, "'level'"),
        ({"level": "2"}, "'level'"),
        ({"level": True}, "'level'"),
        ({"level": []}, "'level'"),  # not hashable: checked before `in LEVELS`
        ({"level": {"n": 2}}, "'level'"),
        ({"category": None}, "'category'"),
        ({"language": " "}, "'language'"),
    ],
)
def test_invalid_records_name_the_field_at_fault(change, message):
    record = {key: value for key, value in {**GOOD, **change}.items() if value is not None}
    with pytest.raises(InvalidRecord, match=message):
        MapQuestion.from_dict(record, where="q.jsonl:7")
    with pytest.raises(InvalidRecord, match=r"^q\.jsonl:7: "):
        MapQuestion.from_dict(record, where="q.jsonl:7")


@pytest.mark.parametrize("missing", sorted(GOOD))
def test_every_schema_field_is_required(missing):
    record = {key: value for key, value in GOOD.items() if key != missing}
    with pytest.raises(InvalidRecord, match=f"'{missing}'"):
        MapQuestion.from_dict(record)


def test_the_loader_skips_and_reports_bad_records_and_keeps_every_good_one(tmp_path):
    good = QUESTIONS.read_text(encoding="utf-8").splitlines()
    lines = [
        good[0],
        "{not json",
        "",
        json.dumps({**GOOD, "level": 9}),
        good[1],
        json.dumps([1, 2]),
        good[0],  # its id again
        good[2],
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    questions, problems = load_questions(path)
    assert list(questions) == ["m01", "m02", "m03"]
    messages = [str(problem) for problem in problems]
    assert messages[0].startswith(f"{path}:2: not valid JSON")
    assert messages[1].startswith(f"{path}:4: ") and "'level'" in messages[1]
    assert messages[2].startswith(f"{path}:6: ") and "JSON object" in messages[2]
    assert "'m01' appears twice" in messages[3]
    assert len(problems) == 4


def test_an_unreadable_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(InvalidRecord, match="nowhere.jsonl"):
        load_questions(tmp_path / "nowhere.jsonl")


def test_images_are_relative_to_the_given_folder_unless_absolute(tmp_path):
    question = MapQuestion.from_dict(GOOD)
    assert image_path(question, tmp_path) == tmp_path / "maps" / "metro.png"
    absolute = MapQuestion.from_dict({**GOOD, "image": str(tmp_path / "x.png")})
    assert image_path(absolute, "/elsewhere") == tmp_path / "x.png"


def test_map_question_files_are_told_from_reasonmap_and_plus_files(tmp_path):
    assert is_mapqa_file(QUESTIONS)
    reasonmap = Path(__file__).resolve().parents[1] / "reasonmap" / "fixtures" / "official_sample.jsonl"
    assert not is_mapqa_file(reasonmap)
    plus = tmp_path / "plus.jsonl"
    plus.write_text(json.dumps({"id": "p", "type": "Counting1", "options": {"A": 1}}) + "\n", encoding="utf-8")
    assert not is_mapqa_file(plus)


def test_prediction_rows_are_read_as_the_client_writes_them(tmp_path):
    rows = [
        {"id": "m01", "model": "m", "question": "mapqa", "response": "A", "tokens": 3, "usage": {}, "error": None},
        {"id": 7, "model": "m", "response": None, "error": "HTTP 400"},
        {"id": "m02", "model": "m", "response": "B", "tokens": -1},
        {"id": "m03", "response": "B"},
    ]
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    predictions, problems = read_predictions(path)
    assert predictions == [MapPrediction("m01", "m", "A", 3), MapPrediction("7", "m", "", None)]
    assert ["'tokens'" in str(problems[0]), "'model'" in str(problems[1])] == [True, True]
