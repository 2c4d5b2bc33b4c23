"""Hugging Face datasets: question sets in the public data set's schema, written and read back with ``datasets``."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.generate import generate_set
from benchmarks.reasonmap.hub import COLUMNS, to_hf_dataset, write_hf_dataset
from benchmarks.reasonmap.public_dataset import export_figures, load_public_dataset
from graphkit import city_graph

# ``datasets`` (with pandas and pyarrow) takes seconds to import: the tests that call it import it themselves
pytestmark = pytest.mark.skipif(importlib.util.find_spec("datasets") is None, reason="the [hf] extra is absent")

OFFICIAL = Path(__file__).parent / "fixtures" / "official_sample.jsonl"


def _png(width, height):
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def questions():
    return generate_set([city_graph("rome"), city_graph("beijing")], seed=3, per_city=4)


def _write(questions, out):
    maps = {"rome": _png(8, 6)}
    return write_hf_dataset(
        questions,
        out,
        metro_text=lambda q: json.dumps({"Line A": ["X", "Y"]}) if q.city == "rome" else None,
        figure=lambda q: maps.get(q.city),
    )


def test_the_folder_loads_with_datasets_in_the_public_schema(tmp_path, questions):
    import datasets

    assert _write(questions, tmp_path / "set") == len(questions)
    loaded = datasets.load_from_disk(str(tmp_path / "set"))
    assert tuple(loaded.column_names) == COLUMNS
    assert isinstance(loaded.features["figure"], datasets.Image)
    rows = list(loaded)
    assert [row["id"] for row in rows] == [q.id for q in questions]
    rome = next(row for row in rows if row["city"] == "rome")
    beijing = next(row for row in rows if row["city"] == "beijing")
    assert rome["figure"].size == (8, 6) and beijing["figure"] is None
    assert json.loads(rome["json"]) == {"Line A": ["X", "Y"]} and beijing["json"] is None
    # routes: route_1 … route_N for the most references of any question, None past a question's own
    most = max(len(q.routes) for q in questions)
    assert all(sorted(row["routes"]) == sorted(f"route_{n}" for n in range(1, most + 1)) for row in rows)
    for row, question in zip(rows, questions):
        present = [name for name, route in row["routes"].items() if route is not None]
        assert len(present) == len(question.routes)
        assert row["routes"]["route_1"][0]["route_name"] == question.routes[0][0].route_name


def test_the_questions_come_back_as_they_went(tmp_path, questions):
    _write(questions, tmp_path / "set")
    found = load_public_dataset(tmp_path / "set")
    assert found.problems == ()
    assert [q.to_dict() for q in found.questions] == [q.to_dict() for q in questions]
    assert set(found.metro) == {"rome"} and found.metro["rome"].line_names == ("Line A",)


def test_same_questions_same_bytes(tmp_path, questions):
    def digest(folder):
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}

    _write(questions, tmp_path / "a")
    _write(questions, tmp_path / "b")
    _write(questions, tmp_path / "b")  # written over: replaced whole
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert not (tmp_path / "b.partial").exists()


def _official_records():
    records = []
    for line in OFFICIAL.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "station_1" in record:
            # as on the hub: Metro Data as JSON text, routes a struct, the map base64 text
            if isinstance(record["json"], dict):
                record["json"] = json.dumps(record["json"], ensure_ascii=False)
            records.append(record)
    return records


def test_the_official_set_reads_through_datasets_as_from_its_files(tmp_path):
    import datasets

    records = _official_records()
    dataset = datasets.Dataset.from_list(records)
    from_dataset = load_public_dataset(dataset)
    expected = [{**q.to_dict(), "id": str(i)} for i, q in enumerate(load_public_dataset(OFFICIAL).questions)]
    assert [q.to_dict() for q in from_dataset.questions] == expected
    assert set(from_dataset.metro) == {"rome", "beijing"}
    dataset.save_to_disk(str(tmp_path / "official"))
    assert [q.to_dict() for q in load_public_dataset(tmp_path / "official").questions] == expected
    written, problems = export_figures(tmp_path / "official", tmp_path / "maps")
    assert [p.name for p in written] == ["china__beijing.png", "italy__rome.png"] and problems == []


def test_image_figures_are_exported_as_their_bytes(tmp_path, questions):
    _write(questions, tmp_path / "set")
    written, problems = export_figures(tmp_path / "set", tmp_path / "maps")
    assert [p.name for p in written] == ["italy__rome.png"] and problems == []
    assert written[0].read_bytes() == _png(8, 6)


def test_a_folder_of_several_splits_names_them(tmp_path, questions):
    import datasets

    dataset = to_hf_dataset(questions, metro_text=lambda q: None, figure=lambda q: None)
    datasets.DatasetDict({"train": dataset, "validation": dataset}).save_to_disk(str(tmp_path / "splits"))
    with pytest.raises(InvalidRecord, match="train, validation"):
        load_public_dataset(tmp_path / "splits")
    assert len(load_public_dataset(tmp_path / "splits" / "validation").questions) == len(questions)
    datasets.DatasetDict({"test": dataset}).save_to_disk(str(tmp_path / "one"))
    assert len(load_public_dataset(tmp_path / "one").questions) == len(questions)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidRecord, match="not a dataset folder"):
        load_public_dataset(tmp_path / "empty")
