"""Run folders built by hand for ``compare`` and ``leaderboard``: what ``score --report`` and ``eval --out`` leave.

A score report: ``DIR/report/summary.json`` with ``DIR/scored.jsonl``, which the report's manifest names
(``../scored.jsonl``), as ``score`` writes them. An eval run: ``DIR/eval.json`` and, per (task, mode),
``DIR/<task>/<mode>/scored.jsonl`` with ``DIR/<task>/<mode>/report/summary.json``. The summaries' model rows
hold what the fixture says (the headline metrics and, when given, ``intervals``); the scored rows are what
paired comparisons read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

QUESTIONS_SHA = "a" * 64
OTHER_SHA = "b" * 64
ROUTE_KEYS = ("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long")


def route_rows(model: str, answers: Mapping[str, tuple[int, float, int, float]], weight: float = 1.0) -> list[dict]:
    """Scored route rows: per question id, (short correct, short map score, long correct, long map score)."""
    rows = []
    for id, (short, short_score, long, long_score) in answers.items():
        for kind, correct, score in (("short", short, short_score), ("long", long, long_score)):
            rows.append(
                {"id": id, "model": model, "question": kind, "correct": correct, "map_score": score, "weight": weight}
            )
    return rows


def _mean(rows: Sequence[Mapping[str, Any]], kind: str, field: str) -> float | None:
    chosen = [row for row in rows if row["question"] == kind]
    total = sum(row["weight"] for row in chosen)
    return round(sum(row["weight"] * row[field] for row in chosen) / total, 6) if total else None


def route_summary_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The summary's model rows of scored route rows (weighted means, as the route report computes them)."""
    models: dict[str, dict[str, Any]] = {}
    for model in sorted({row["model"] for row in rows}):
        mine = [row for row in rows if row["model"] == model]
        models[model] = {"n": len(mine), "n_invalid": 0}
        for kind in ("short", "long"):
            models[model][f"weighted_accuracy_{kind}"] = _mean(mine, kind, "correct")
            models[model][f"map_score_{kind}"] = _mean(mine, kind, "map_score")
    return models


def _summary(models: Mapping[str, Any], sha: str, weighting: str, variant: str = "paper") -> dict[str, Any]:
    return {
        "weighting": weighting,
        "variant": variant,
        "models": dict(models),
        "inputs": {"questions": {"file": "questions.jsonl", "sha256": sha}, "predictions": {"file": "p.jsonl"}},
    }


def _write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def write_score_report(
    folder: Path,
    rows: Sequence[Mapping[str, Any]],
    *,
    models: Mapping[str, Any] | None = None,
    sha: str = QUESTIONS_SHA,
    weighting: str = "paper",
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """``score --out DIR/scored.jsonl --report DIR/report``; returns the report folder. ``extra``: more
    top-level summary fields (``clusters``, say), recorded in the manifest as score records them."""
    _write_rows(folder / "scored.jsonl", rows)
    report = folder / "report"
    report.mkdir(parents=True, exist_ok=True)
    summary = {**_summary(models if models is not None else route_summary_rows(rows), sha, weighting), **(extra or {})}
    (report / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    # as score's manifest lists them: name, size and SHA-256 (leaderboard checks the summary against it)
    files = [_entry(report, name) for name in ("../scored.jsonl", "summary.json")]
    manifest = {"command": "score", "complete": True, "files": files}
    (report / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return report


def _entry(folder: Path, name: str) -> dict[str, Any]:
    data = (folder / name).read_bytes()
    return {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def write_eval_run(
    folder: Path,
    parts: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    *,
    models: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
    sha: str = QUESTIONS_SHA,
    pixel_budget: int = 4_000_000,
) -> Path:
    """``eval --out DIR`` with the scored rows of each (task, mode); returns ``DIR``."""
    tasks = list(dict.fromkeys(task for task, _ in parts))
    modes = list(dict.fromkeys(mode for _, mode in parts))
    settings = {"tasks": tasks, "modes": modes, "pixel_budget": pixel_budget, "textualization": "lines"}
    settings["alias_strategy"] = "pinyin"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "eval.json").write_text(json.dumps({"settings": settings}), encoding="utf-8")
    for (task, mode), rows in parts.items():
        _write_rows(folder / task / mode / "scored.jsonl", rows)
        given = (models or {}).get((task, mode))
        summary = _summary(given if given is not None else route_summary_rows(rows), sha, "paper")
        report = folder / task / mode / "report"
        report.mkdir(parents=True, exist_ok=True)
        (report / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return folder
