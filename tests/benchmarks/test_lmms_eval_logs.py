"""lmms-eval per-sample logs read as raw rows at the benchmarks root, before any task maps them.

The rows are built by ``tests/benchmarks/reasonmap/harness_writers.lmms_eval_row``, which follows
EvolvingLMMs-Lab/lmms-eval's evaluator and evaluation tracker for versions 0.3, 0.4 and 0.7 (its
docstring names the files and lines); the expected values are read off those rows by hand.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.lmms_eval_logs import LmmsEvalRow, logged_task, read_lmms_eval_rows

from .reasonmap.harness_writers import LMMS_EVAL_VERSIONS, lmms_eval_row, write_lmms_eval_log

DOC = {"id": "q7", "kind": "short", "city": "rome"}


@pytest.mark.parametrize("version", LMMS_EVAL_VERSIONS)
def test_every_version_gives_its_responses_position_prompt_and_tokens(tmp_path, version):
    row = lmms_eval_row(version, 3, DOC, ["A", "B"], prompt="Go from X to Y.", output_tokens=12)
    path = write_lmms_eval_log(tmp_path, "m", "reasonmap_short", [row])
    [(line, read)], problems = read_lmms_eval_rows(path)
    assert (line, problems) == (1, [])
    assert read.responses("w") == ["A", "B"] and read.position("w") == 3 and read.prompts == ("Go from X to Y.",)
    assert read.doc == (DOC if version == "0.3" else {})  # 0.4 and later drop the document
    assert read.tokens == (12 if version == "0.7" else None)  # 0.7 logs token_counts
    assert logged_task(path) == "reasonmap_short"


def test_a_line_that_is_no_object_is_reported_and_the_rest_kept(tmp_path):
    path = tmp_path / "20260101_samples_t.jsonl"
    path.write_text('[1]\n{"doc_id": 0, "filtered_resps": "x"}\n{torn\n', encoding="utf-8")
    rows, problems = read_lmms_eval_rows(path)
    assert [line for line, _ in rows] == [2] and [problem.line for problem in problems] == [1, 3]
    assert problems[0].message == "a sample must be a JSON object"


def test_faulty_fields_are_refused_only_when_asked_for():
    row = LmmsEvalRow({"doc_id": -1, "resps": [[1]], "token_counts": [{"output_tokens": True}]})
    assert row.tokens is None and row.doc == {} and row.prompts == ()
    with pytest.raises(InvalidRecord, match=r"^f:2: field 'resps' must hold the response text$"):
        row.responses("f:2")
    with pytest.raises(InvalidRecord, match=r"^f:2: field 'doc_id' must be a position .*got -1$"):
        row.position("f:2")
    with pytest.raises(InvalidRecord, match="no response"):
        LmmsEvalRow(json.loads('{"resps": [], "filtered_resps": null}')).responses("f:3")
