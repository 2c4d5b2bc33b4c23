"""The public data set's files: JSON Lines and parquet in its schema, figures, bad records."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.public_dataset import export_figures, load_public_dataset
from graphkit import compile_graph, shortest_routes

SAMPLE = Path(__file__).parent / "fixtures" / "official_sample.jsonl"


def test_good_records_are_kept_and_bad_ones_reported():
    found = load_public_dataset(SAMPLE)
    assert [q.city for q in found.questions] == ["rome", "rome", "beijing"]
    assert [q.id for q in found.questions] == ["0", "1", "4"]
    lines = {problem.line: problem.message for problem in found.problems}
    assert set(lines) == {2, 3}
    assert "station_1" in lines[2] and "JSON" in lines[3]


def test_templates_difficulties_and_padded_routes_are_read():
    first, second, third = load_public_dataset(SAMPLE).questions
    assert first.long_template == "via_stops" and second.long_template == "via_count"
    assert third.difficulty_city == "hard" and third.difficulty_question in {"easy", "middle", "hard"}
    assert len(third.routes) >= 1  # the padding None route is dropped


def test_the_records_metro_data_scores_like_the_embedded_one():
    found = load_public_dataset(SAMPLE)
    assert set(found.metro) == {"rome", "beijing"}
    graph = compile_graph(found.metro["rome"])
    question = found.questions[1]
    assert shortest_routes(graph, question.station_1, question.station_2).transfers == question.question_transfer_count


def test_parquet_files_read_the_same(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = []
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "station_1" in record:
            record["json"] = (
                json.dumps(record["json"], ensure_ascii=False) if isinstance(record["json"], dict) else record["json"]
            )
            record["routes"] = json.dumps(record["routes"], ensure_ascii=False)
            rows.append(record)
    path = tmp_path / "validation.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    from_parquet = load_public_dataset(path)
    assert [q.to_dict() for q in from_parquet.questions] == [
        {**q.to_dict(), "id": str(i)} for i, q in enumerate(load_public_dataset(SAMPLE).questions)
    ]


def test_figures_are_exported_once_per_city_as_png(tmp_path):
    written, problems = export_figures(SAMPLE, tmp_path)
    assert [path.name for path in written] == ["china__beijing.png", "italy__rome.png"]
    assert all(path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for path in written)
    assert problems == []


def test_unreadable_files_are_clear_errors(tmp_path):
    with pytest.raises(InvalidRecord, match="no such file"):
        load_public_dataset(tmp_path / "missing.jsonl")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    pytest.importorskip("pyarrow")
    with pytest.raises(InvalidRecord, match="parquet"):
        load_public_dataset(broken)


@pytest.mark.parametrize(
    ("field", "value"),
    [("country", "../../../escaped"), ("country", "/tmp/outside/abs"), ("city", "../../outside/deep/x")],
)
def test_a_figure_whose_record_names_a_path_outside_the_folder_is_a_problem_and_not_written(tmp_path, field, value):
    records = []
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):  # the sample's deliberately bad line
            records.append(json.loads(line))
    for record in records:
        record[field] = value
    hostile = tmp_path / "in" / "hostile.jsonl"
    hostile.parent.mkdir()
    hostile.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    maps = tmp_path / "run" / "maps"
    before = {path for path in tmp_path.rglob("*")}
    written, problems = export_figures(hostile, maps)
    assert all(path.parent == maps for path in written)
    assert {path for path in tmp_path.rglob("*") if path.is_file()} - before == set(written)
    assert problems and all("is not a file name inside" in problem.message for problem in problems)
