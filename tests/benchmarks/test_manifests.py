"""Manifests: written last, they tell a folder of one complete run from a torn or mixed one."""

from __future__ import annotations

import hashlib
import json
import os

from benchmarks.manifests import MANIFEST, begin_outputs, check_manifest, manifest_beside, vouches_for, write_manifest


def test_the_manifest_lists_each_file_with_its_size_and_checksum(tmp_path):
    (tmp_path / "report").mkdir()
    (tmp_path / "scored.jsonl").write_bytes(b'{"id": "1"}\n')
    (tmp_path / "report" / "table.md").write_bytes(b"| a |\n")
    manifest = write_manifest(
        tmp_path / "report" / MANIFEST, [tmp_path / "scored.jsonl", tmp_path / "report" / "table.md"], "score"
    )
    record = json.loads(manifest.read_text(encoding="utf-8"))
    assert record == {
        "command": "score",
        "complete": True,
        "files": [
            {"name": "../scored.jsonl", "size": 12, "sha256": hashlib.sha256(b'{"id": "1"}\n').hexdigest()},
            {"name": "table.md", "size": 6, "sha256": hashlib.sha256(b"| a |\n").hexdigest()},
        ],
    }
    assert check_manifest(tmp_path / "report") == []


def test_a_folder_without_a_manifest_is_not_a_complete_run(tmp_path):
    assert check_manifest(tmp_path) == ["no manifest.json: not a complete run"]


def test_a_begun_run_is_incomplete_until_its_manifest_is_written(tmp_path):
    (tmp_path / "a.jsonl").write_text("old\n", encoding="utf-8")
    write_manifest(tmp_path / MANIFEST, [tmp_path / "a.jsonl"], "demo")
    begin_outputs(tmp_path / MANIFEST, "demo")
    (tmp_path / "a.jsonl").write_text("new\n", encoding="utf-8")  # then killed
    assert check_manifest(tmp_path) == [f"{tmp_path / MANIFEST}: the run of demo that wrote it did not finish"]
    assert "did not finish" in vouches_for(tmp_path / "a.jsonl")


def test_a_file_changed_or_removed_after_the_run_is_named(tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text("row\n", encoding="utf-8")
    write_manifest(tmp_path / MANIFEST, [tmp_path / "a.jsonl", tmp_path / "b.jsonl"], "demo")
    assert vouches_for(tmp_path / "a.jsonl") is None
    (tmp_path / "a.jsonl").write_text("wor\n", encoding="utf-8")  # same size, other bytes
    (tmp_path / "b.jsonl").unlink()
    assert check_manifest(tmp_path) == [
        "a.jsonl: changed since the run wrote it (checksum differs)",
        "b.jsonl: missing",
    ]
    assert vouches_for(tmp_path / "a.jsonl").startswith("changed since the run wrote it (checksum differs), after ")


def test_a_file_no_manifest_knows_is_not_doubted(tmp_path):
    (tmp_path / "q.jsonl").write_text("{}\n", encoding="utf-8")
    assert vouches_for(tmp_path / "q.jsonl") is None


def test_streamed_outputs_have_no_manifest(tmp_path):
    assert manifest_beside("-") is None
    assert manifest_beside("/dev/null") is None
    assert manifest_beside(tmp_path / "d.jsonl") == tmp_path / "d.manifest.json"
    assert begin_outputs(None, "diagnose") is None and write_manifest(None, [], "diagnose") is None


def test_same_files_same_manifest_bytes(tmp_path):
    (tmp_path / "a.jsonl").write_text("row\n", encoding="utf-8")
    first = write_manifest(tmp_path / MANIFEST, [tmp_path / "a.jsonl"], "score").read_bytes()
    second = write_manifest(tmp_path / MANIFEST, [tmp_path / "a.jsonl"], "score").read_bytes()
    assert first == second


def test_files_in_subfolders_are_vouched_for_by_the_nearest_manifest_above(tmp_path):
    nested = tmp_path / "route" / "full" / "predictions.jsonl"
    nested.parent.mkdir(parents=True)
    nested.write_bytes(b"{}\n")
    other = tmp_path / "route" / "full" / "notes.txt"
    other.write_bytes(b"mine\n")
    begin_outputs(tmp_path / MANIFEST, "eval", covers=("*/*/*.jsonl",))
    assert vouches_for(nested) == (
        f"{tmp_path / MANIFEST} says the run that wrote it did not finish; its files may mix two runs"
    )
    assert vouches_for(other) is None  # the run does not write it
    write_manifest(tmp_path / MANIFEST, [nested], "eval")
    assert vouches_for(nested) is None
    nested.write_bytes(b"{}\n{}\n")
    assert vouches_for(nested) == f"changed since the run wrote it (size 6, not 3), after {tmp_path / MANIFEST}"
    (tmp_path / "route" / MANIFEST).write_text('{"command": "score", "complete": true, "files": []}\n')
    assert vouches_for(nested) is None  # the nearest folder holding a manifest knows it not


def test_a_manifest_more_than_four_folders_up_is_not_looked_at(tmp_path):
    deep = tmp_path / "a" / "b" / "c" / "d" / "e.jsonl"
    deep.parent.mkdir(parents=True)
    deep.write_bytes(b"{}\n")
    begin_outputs(tmp_path / MANIFEST, "eval", covers=("*",))
    assert vouches_for(deep) is None
    begin_outputs(tmp_path / "a" / MANIFEST, "eval", covers=("*",))
    assert vouches_for(deep) is not None


def test_a_fifo_put_in_a_listed_files_place_is_named_not_read(tmp_path):
    scored = tmp_path / "scored.jsonl"
    scored.write_bytes(b"")
    write_manifest(tmp_path / MANIFEST, [scored], "score")
    scored.unlink()
    os.mkfifo(scored)  # the same size, 0: only its kind tells it apart, and reading it would never end
    assert check_manifest(tmp_path) == ["scored.jsonl: not a regular file any more"]
