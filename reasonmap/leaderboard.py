"""``reasonmap leaderboard RUN...``: one table of models × (task, mode) across runs, ranked, with intervals.

Every run folder (``eval`` or ``score``; :mod:`reasonmap.runs`) gives its
(task, mode) parts; the table (:mod:`benchmarks.leaderboards`) has one row per
model and, per (task, mode), the task's headline metrics (route: the paper's
Table 2 columns) with the 95% interval each summary records
(``models[m]["intervals"][metric]``); a run whose summary has none shows the
point alone, and a footnote says so. Ranks that the intervals cannot separate
are tied (see :func:`benchmarks.leaderboards.tiered_ranks`). ``cluster``
picks which intervals: a summary records both (``intervals_by_cluster``:
questions resampled, or maps then questions); a summary written before that
gives its ``intervals`` where its ``interval_method`` is of that clustering.

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


def _clustered(summary: Mapping[str, Any], row: Mapping[str, Any], cluster: str) -> Mapping[str, Any]:
    """A model row with the intervals of ``cluster`` as its ``intervals`` (none when its summary has none)."""
    by_cluster = row.get("intervals_by_cluster")
    if isinstance(by_cluster, Mapping):
        found = by_cluster.get(cluster)
    else:  # a summary of one clustering: questions unless it says otherwise
        method = summary.get("interval_method")
        recorded = method.get("cluster", "question") if isinstance(method, Mapping) else "question"
        found = row.get("intervals") if recorded == cluster else None
    kept = {key: value for key, value in row.items() if key not in ("intervals", "intervals_by_cluster")}
    return {**kept, "intervals": found} if isinstance(found, Mapping) and found else kept


def build_leaderboard(
    runs: Sequence[str | Path], *, join: bool = False, rank_by: str | None = None, cluster: str = "question"
) -> dict[str, Any]:
    """The leaderboard record of ``runs``: columns, one row per model (ranked), and the notes.

    ``rank_by`` is ``TASK[/MODE]/METRIC`` (``route/full/weighted_accuracy_long``); by default the
    first column's first metric. ``cluster`` (``question`` or ``map``) picks the intervals shown and ranked.

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
            cells[key] = (part, _clustered(part.summary, row, cluster))
    try:
        table = leaderboard_table(
            _columns(parts), {key: (part.run, row) for key, (part, row) in cells.items()}, rank_by=rank_by
        )
    except ValueError as error:
        raise RunError(str(error)) from None
    without = sorted(
        {
            part.run
            for part in parts
            if not any(
                "intervals" in _clustered(part.summary, row, cluster) for row in part.summary.get("models", {}).values()
            )
        }
    )
    method = next(
        (part.summary["interval_method"] for part in parts if isinstance(part.summary.get("interval_method"), dict)),
        None,
    )
    if method is not None and method.get("cluster", "question") != cluster:
        from benchmarks.intervals import interval_method

        method = interval_method(
            resamples=method.get("resamples", 2000), seed=method.get("seed", 0), level=method.get("level", 0.95),
            cluster=cluster,
        )  # fmt: skip
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
