"""Scoring ReasonMap-Plus files end to end: what ``reasonmap score`` runs for plus question files.

A question file is a plus file when its first record has a ``type`` among
the plus types; the hub's own records (no id, integer answers) are read as
they are (:mod:`~benchmarks.plus.official`). Predictions are ``{id, model, question, response, tokens}``
rows, as for route questions, where ``question`` is the type's name or left
out. Bad records are reported and skipped; predictions that match no
question, that name another type, or that repeat a model's answer to one
question are reported too (the first answer counts). Plus scoring needs no
graph: the answers are in the records. Variant ``official`` reads each answer
the way the public ``main_plus.py`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.jsonl import Problem, first_answers, first_record, read_jsonl, unique_by_id, write_jsonl
from benchmarks.plus.questions import PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.plus.report import summarize_plus, write_plus_report
from benchmarks.plus.scoring import score_plus_predictions
from benchmarks.provenance import file_sha256
from benchmarks.reasonmap.evaluate import Evaluation

__all__ = ["is_plus_file", "load_plus_questions", "evaluate_plus_files", "compare_plus"]


def _first(path: str | Path) -> Any:
    """The first record of a JSON Lines or parquet file (``None`` when there is none or it cannot be read)."""
    if Path(path).suffix != ".parquet":
        return first_record(path)
    from benchmarks.errors import InvalidRecord
    from benchmarks.reasonmap.official import official_records

    try:
        return next((record for _, record in official_records(path)), None)
    except InvalidRecord:
        return None


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines or parquet file is a plus question (a plus ``type``)."""
    first = _first(path)
    return isinstance(first, dict) and first.get("type") in PLUS_TYPES


def load_plus_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used).

    A file of the hub's records (see :func:`~benchmarks.plus.official.is_hub_record`)
    is read as it is, its ids being the records' positions.
    """
    from benchmarks.plus.official import is_hub_record, load_hub_plus

    if is_hub_record(_first(path)):
        return load_hub_plus(path)
    questions, problems = read_jsonl(path, PlusQuestion.from_dict)
    unique, repeated = unique_by_id(questions, path)
    return unique, problems + repeated


def _answer_key(prediction: PlusPrediction) -> tuple[str, str]:
    return (prediction.id, prediction.model)


def evaluate_plus_files(
    questions_path: str | Path,
    predictions_path: str | Path,
    *,
    out: str | Path,
    report_dir: str | Path,
    weighting: str = "city",
    variant: str = "paper",
) -> Evaluation:
    """Score a predictions file against a plus questions file; write scored rows and the report.

    ``weighting`` names a scheme of :mod:`~benchmarks.reasonmap.weighting`;
    plus questions are weighted by map difficulty whatever it is, except
    ``none`` (see :func:`~benchmarks.plus.scoring.plus_weight`).
    The returned evaluation's verdicts are :class:`~benchmarks.plus.scoring.PlusVerdict`.
    ``variant`` ``official`` reads answers as the public ``main_plus.py`` does; any other variant
    name (they differ only for route questions) uses the toolkit's reader.
    """
    questions, question_problems = load_plus_questions(questions_path)
    predictions, prediction_problems = read_jsonl(predictions_path, PlusPrediction.from_dict)
    kept, repeated = first_answers(predictions, _answer_key, predictions_path)
    problems = [str(problem) for problem in question_problems + prediction_problems] + repeated
    verdicts, skipped = score_plus_predictions(questions, kept, weighting=weighting)
    if variant == "official":
        from benchmarks.plus.official import official_plus_verdict

        # the same rows, weights and skips; only the reading of each answer differs
        by_key = {(p.id, p.model): p for p in kept}
        verdicts = [official_plus_verdict(by_key[(v.id, v.model)], questions[v.id], v.weight) for v in verdicts]
    problems.extend(f"{predictions_path}: {reason}" for reason in skipped)
    write_jsonl(out, verdicts)
    summary = summarize_plus(
        verdicts,
        weighting=weighting,
        # file names, not paths: the same inputs give the same summary wherever they lie
        inputs={
            "questions": {"file": Path(questions_path).name, "sha256": file_sha256(questions_path)},
            "predictions": {"file": Path(predictions_path).name, "sha256": file_sha256(predictions_path)},
        },
        problems=problems,
    )
    summary["variant"] = variant
    files = write_plus_report(report_dir, summary)
    return Evaluation(tuple(verdicts), summary, tuple(problems), tuple(files))


def compare_plus(evaluations: Mapping[str, Evaluation], variants: Sequence[str]) -> tuple[dict[str, Any], str]:
    """Two variants' plus accuracy per model and type, and the answers whose verdict differs.

    The one cause of a difference is the answer extraction (``extraction``): the variants
    differ in nothing else. Returns the comparison record and its markdown.
    """
    first, second = variants
    rows: dict[str, dict[str, list[float]]] = {}
    for index, variant in enumerate((first, second)):
        for verdict in evaluations[variant].verdicts:
            tally = rows.setdefault(verdict.model, {}).setdefault(verdict.type, [0, 0.0, 0.0, 0.0, 0])
            if index == 0:
                tally[0] += 1
                tally[1] += verdict.weight
                tally[2] += verdict.weight * verdict.correct
            else:
                tally[3] += verdict.weight * verdict.correct
    flips: dict[tuple[str, str], int] = {}
    for a, b in zip(evaluations[first].verdicts, evaluations[second].verdicts):
        if a.correct != b.correct:
            flips[(a.model, a.type)] = flips.get((a.model, a.type), 0) + 1
    models: dict[str, Any] = {}
    lines = [
        f"ReasonMap-Plus, variants `{first}` and `{second}` (weighted accuracy in %; cause: `extraction`).",
        "",
        f"| Model | Type | n | Acc. {first} | Acc. {second} | Δ | Verdicts flipped |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for model in sorted(rows):
        models[model] = {}
        for kind in PLUS_TYPES:
            if kind not in rows[model]:
                continue
            n, weight, correct_a, correct_b, _ = rows[model][kind]
            a, b = 100 * correct_a / (weight or 1), 100 * correct_b / (weight or 1)
            flipped = flips.get((model, kind), 0)
            models[model][kind] = {
                "n": n,
                first: {"accuracy": round(a, 4)},
                second: {"accuracy": round(b, 4)},
                "difference": {"accuracy": round(b - a, 4)},
                "causes": {"extraction": {"verdicts": flipped, "accuracy_points": round(b - a, 4)}},
            }
            lines.append(f"| {model} | {kind} | {n} | {a:.2f} | {b:.2f} | {b - a:+.2f} | {flipped} |")
    record = {
        "question_set": "plus",
        "variants": [first, second],
        "causes": {"extraction": "how the answer is read from the response"},
        "models": models,
    }
    return record, "\n".join(lines) + "\n"
