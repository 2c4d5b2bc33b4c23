"""``reasonmap leaderboard RUN...``: one table of models × (task, mode) across runs, ranked, with intervals.

Every run folder (``eval`` or ``score``; :mod:`reasonmap.runs`) gives its
(task, mode) parts; the table (:mod:`benchmarks.leaderboards`) has one row per
model and, per (task, mode), the task's headline metrics (route: the paper's
Table 2 columns) with the 95% interval each summary records
(``models[m]["intervals"][metric]``); a run whose summary has none shows the
point alone, and a footnote says so. Ranks that the intervals cannot separate
are tied (see :func:`benchmarks.leaderboards.tiered_ranks`).

Parts of one task over different question sets (the checksums the summaries
record) or settings are refused, naming the difference, unless ``join``; one
model with two results for one (task, mode) is always refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.leaderboards import leaderboard_csv, leaderboard_markdown, leaderboard_table, plot_leaderboard
from reasonmap.runs import RunError, RunPart, difference, read_run, write_record

__all__ = ["build_leaderboard", "write_leaderboard"]

LEADERBOARD_FILES = ("leaderboard.md", "leaderboard.json", "leaderboard.csv", "leaderboard.png", "leaderboard.pdf")


def _columns(parts: Sequence[RunPart]) -> list[tuple[str, str | None]]:
    return list(dict.fromkeys((part.task, part.mode) for part in parts))


def build_leaderboard(runs: Sequence[str | Path], *, join: bool = False, rank_by: str | None = None) -> dict[str, Any]:
    """The leaderboard record of ``runs``: columns, one row per model (ranked), and the notes.

    ``rank_by`` is ``TASK[/MODE]/METRIC`` (``route/full/weighted_accuracy_long``); by default the
    first column's first metric.

    Raises
    ------
    RunError
        A folder that is no run, parts of one task that differ (unless ``join``), one model with two
        results for one (task, mode), or an unknown ``rank_by``.
    """
    if not runs:
        raise RunError("leaderboard needs at least one run folder")
    parts = [part for run in runs for part in read_run(run)]
    joined = []
    first_of: dict[str, RunPart] = {}
    for part in parts:
        reference = first_of.setdefault(part.task, part)
        why = difference(reference, part)
        if why is None:
            continue
        if not join:
            raise RunError(
                f"{reference.run} {reference.label} and {part.run} {part.label}: {why};"
                " pass --join to put them in one table"
            )
        joined.append(f"{reference.run} {reference.label} and {part.run} {part.label}: {why}")
    cells: dict[tuple[str, str, str | None], tuple[RunPart, Mapping[str, Any]]] = {}
    for part in parts:
        for model, row in part.summary.get("models", {}).items():
            key = (model, part.task, part.mode)
            if key in cells:
                raise RunError(
                    f"model {model!r} has two results for {part.label}: in {cells[key][0].run} and in {part.run}"
                )
            cells[key] = (part, row)
    try:
        table = leaderboard_table(
            _columns(parts), {key: (part.run, row) for key, (part, row) in cells.items()}, rank_by=rank_by
        )
    except ValueError as error:
        raise RunError(str(error)) from None
    without = sorted(
        {part.run for part in parts if not any("intervals" in row for row in part.summary.get("models", {}).values())}
    )
    method = next(
        (part.summary["interval_method"] for part in parts if isinstance(part.summary.get("interval_method"), dict)),
        None,
    )
    return {
        "runs": [str(run) for run in runs],
        **table,
        "runs_without_intervals": without,
        "interval_method": method,
        "joined": joined,
    }


def write_leaderboard(out: str | Path, record: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write :data:`LEADERBOARD_FILES` into ``out`` (each atomically; the manifest last); returns the paths."""
    return write_record(
        out,
        "leaderboard",
        "leaderboard",
        record,
        markdown=leaderboard_markdown,
        csv=leaderboard_csv,
        plot=plot_leaderboard,
        figures=figures,
    )
