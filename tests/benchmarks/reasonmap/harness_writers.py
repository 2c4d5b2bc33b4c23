"""Fixture writers: other harnesses' prediction files, built field by field as each harness's own writer builds them.

Each writer names the harness's file, version and lines it follows. None of
their code is copied: the fields, their order and their nesting are rebuilt
here from what that code does. (Inspect logs are written by Inspect itself in
``tests/reasonmap/test_inspect_tasks.py``.)
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

LMMS_EVAL_VERSIONS = ("0.3", "0.4", "0.7")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lmms_eval_row(
    version: str,
    doc_id: int,
    doc: Mapping[str, Any],
    answers: Sequence[str],
    *,
    prompt: str = "<prompt>",
    target: Any = "",
    metrics: Mapping[str, Any] | None = None,
    output_tokens: int | None = None,
) -> dict[str, Any]:
    """One ``--log_samples`` row of EvolvingLMMs-Lab/lmms-eval for a generation task with ``repeats=len(answers)``.

    The row the evaluator builds (``lmms_eval/evaluator.py``, the ``example`` dict: v0.3.0 lines 513–531,
    v0.4 lines 576–593, v0.7 lines 974–991): ``doc_id``, ``doc`` (its non-image fields), ``target``,
    ``arguments`` (the request's serialisable args: prompt, generation kwargs, doc_id, task, split),
    ``resps`` (one list per request: every repeat), ``filtered_resps`` (the default ``take_first``
    filter: the first answer), ``doc_hash``; v0.3 adds ``prompt_hash`` and ``target_hash``, v0.7
    ``token_counts`` (one ``TokenCounts.to_dict()`` per request, ``lmms_eval/api/instance.py``); then
    the task's metric values. Then the evaluation tracker's ``save_results_samples``
    (``lmms_eval/loggers/evaluation_tracker.py``: v0.3.0 lines 262–287, v0.4 lines 262–285,
    v0.7 lines 261–298) adds ``input`` (the prompt) and: v0.3 turns ``arguments`` into
    ``{position: key}`` of the generation kwargs; v0.4 drops ``resps`` when it equals
    ``filtered_resps`` (or its first entry), then ``arguments`` and ``doc``; v0.7 first unwraps
    a single request (``resps`` becomes the list of answers, ``filtered_resps`` the plain
    string), drops ``resps`` when it equals that, then ``arguments`` and ``doc``.
    """
    generation = {"max_new_tokens": 4096, "temperature": 0, "do_sample": False}
    sample: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": dict(doc),
        "target": target,
        "arguments": [prompt, generation, doc_id, "reasonmap", "test"],
        "resps": [list(answers)],
        "filtered_resps": [answers[0]],
    }
    if version == "0.7":
        counts = {"input_tokens": 812} | ({"output_tokens": output_tokens} if output_tokens is not None else {})
        sample["token_counts"] = [counts]
    sample["doc_hash"] = _hash(json.dumps(dict(doc), indent=2, ensure_ascii=False))
    if version == "0.3":
        sample["prompt_hash"] = _hash(prompt)
        sample["target_hash"] = _hash(str(target))
    sample.update(metrics or {})
    # the evaluation tracker
    sample["input"] = sample["arguments"][0]
    if version == "0.3":
        sample["arguments"] = dict(enumerate(sample["arguments"][1]))
    elif version == "0.4":
        if sample["filtered_resps"] in (sample["resps"][0], sample["resps"]):
            sample.pop("resps")
    else:
        if len(sample["resps"]) == 1:
            sample["resps"] = sample["resps"][0]
        if len(sample["filtered_resps"]) == 1:
            sample["filtered_resps"] = sample["filtered_resps"][0]
        if sample["resps"] == sample["filtered_resps"] or (
            len(sample["resps"]) == 1 and sample["resps"][0] == sample["filtered_resps"]
        ):
            sample.pop("resps")
    sample["target"] = str(sample["target"])
    if version != "0.3":
        sample.pop("arguments")
        sample.pop("doc")
    return sample


def write_lmms_eval_log(folder: Path, model: str, task: str, rows: Sequence[Mapping[str, Any]]) -> Path:
    """The tracker's file: ``<output>/<model_name_sanitized>/<date_id>_samples_<task>.jsonl``, one
    ``json.dumps(sample, ensure_ascii=False)`` line each (evaluation_tracker.py v0.7 lines 254–298)."""
    path = folder / model / f"20260101_120000_samples_{task}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


#: The ReasonMap-Plus data set's columns in VLMEvalKit's sheet: ``reasonmap_plus.py`` (commit e8e78f05) reads
#: ``index``, ``question``, ``answer``, ``type`` and ``difficulty_city`` (lines 126–218), ``image`` being dropped
#: by ``inference.py`` (lines 282–283); the rest are the hub record's fields.
PLUS_SHEET_COLUMNS = ("index", "question", "answer", "type", "difficulty_city", "country", "city", "prediction")


def write_vlmevalkit_sheet(path: Path, rows: Sequence[Sequence[Any]], columns: Sequence[str] = PLUS_SHEET_COLUMNS):
    """A prediction sheet as open-compass/VLMEvalKit writes it (commit e8e78f05).

    ``vlmeval/inference.py`` lines 272–285: the data set's frame, ``prediction`` set, ``image``
    popped, then ``dump`` (``vlmeval/smp/file.py`` lines 149–187) by the suffix that
    ``get_pred_file_path`` (lines 208–219, ``{model}_{dataset}``, ``PRED_FORMAT``) gives:
    ``.xlsx`` by ``DataFrame.to_excel(index=False)`` (one header row; here with openpyxl, as
    xlsxwriter is not installed), ``.tsv`` by ``to_csv(sep='\\t', index=False, encoding='utf-8',
    quoting=csv.QUOTE_ALL)``, ``.json`` by ``json.dump(to_dict('records'), indent=4,
    ensure_ascii=False)``.
    """
    suffix = path.suffix
    if suffix == ".xlsx":
        import openpyxl

        book = openpyxl.Workbook()
        book.active.append(list(columns))
        for row in rows:
            book.active.append(list(row))
        book.save(path)
    elif suffix in (".tsv", ".csv"):
        with open(path, "w", encoding="utf-8", newline="") as stream:
            writer = csv.writer(stream, delimiter="\t" if suffix == ".tsv" else ",", quoting=csv.QUOTE_ALL)
            writer.writerow(columns)
            writer.writerows(["" if cell is None else cell for cell in row] for row in rows)
    else:
        records = [dict(zip(columns, row)) for row in rows]
        path.write_text(json.dumps(records, indent=4, ensure_ascii=False), encoding="utf-8")
    return path
