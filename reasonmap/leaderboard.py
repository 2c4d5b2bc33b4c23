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
model with two results for one (task, mode) is always refused. Model names
are joined in Unicode NFC (``modèle`` composed in one run and decomposed in
another is one model), and two names that still look alike
(:func:`graphkit.names.lookalike_key`: ``gpt-4o`` and ``gpt-4о`` with a
Cyrillic ``о``) are refused, naming both. A summary edited since its run's
manifest was written, or whose figures are not finite numbers in the metric's
range, is refused naming the run and the field; a part that did not finish or
scored part of a log is refused unless ``allow_partial``, then marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import same_name
from benchmarks.leaderboards import (
    check_figures,
    leaderboard_csv,
    leaderboard_markdown,
    leaderboard_table,
    plot_leaderboard,
)
from reasonmap.runs import RunError, RunPart, difference, read_run, refuse_incomplete, write_record

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


def _model_cells(parts: Sequence[RunPart]) -> dict[tuple[str, str, str | None], tuple[RunPart, Mapping[str, Any]]]:
    """Each (model, task, mode)'s part and summary row, names in NFC; figures checked; clashes refused."""
    from graphkit.names import lookalike_key

    cells: dict[tuple[str, str, str | None], tuple[RunPart, Mapping[str, Any]]] = {}
    looks: dict[str, str] = {}
    for part in parts:
        for given, row in part.summary.get("models", {}).items():
            model = same_name(given)
            try:
                check_figures(row, part.task, where=f"{part.run} {part.label}: summary.json model {given!r}")
            except ValueError as error:
                raise RunError(str(error)) from None
            other = looks.setdefault(lookalike_key(model), model)
            if other != model:
                raise RunError(
                    f"models {other!r} and {model!r} ({part.run} {part.label}) look alike but are different"
                    f" names ({ascii(other)} and {ascii(model)}); rename one so that a reader can tell them apart"
                )
            key = (model, part.task, part.mode)
            if key in cells:
                raise RunError(
                    f"model {model!r} has two results for {part.label}: in {cells[key][0].run} and in {part.run}"
                )
            cells[key] = (part, row)
    return cells


def _joined(parts: Sequence[RunPart], join: bool) -> list[str]:
    """How each part differs from its task's first part (questions, settings); refused unless ``join``."""
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
    return joined


def _interval_method(parts: Sequence[RunPart], cluster: str) -> dict[str, Any] | None:
    """The first part's recorded interval method, for ``cluster`` (``None``: no part records one)."""
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
    return method


def build_leaderboard(
    runs: Sequence[str | Path],
    *,
    join: bool = False,
    rank_by: str | None = None,
    allow_partial: bool = False,
    cluster: str = "question",
) -> dict[str, Any]:
    """The leaderboard record of ``runs``: columns, one row per model (ranked), and the notes.

    ``rank_by`` is ``TASK[/MODE]/METRIC`` (``route/full/weighted_accuracy_long``); by default the
    first column's first metric. ``cluster`` (``question`` or ``map``) picks the intervals shown and ranked.
    ``allow_partial`` ranks parts that did not finish or scored part of a log
    (:attr:`reasonmap.runs.RunPart.incomplete`), their cells marked; without it they are refused.

    Raises
    ------
    RunError
        A folder that is no run, parts of one task that differ (unless ``join``), one model with two
        results for one (task, mode), two model names that look alike, a summary edited since its run or
        holding a figure that is not a finite number in its range, an incomplete part (unless
        ``allow_partial``), or an unknown ``rank_by``.

    Parameters
    ----------
    runs : sequence of str or Path
        The run folders (``eval --out`` or ``score --report``).
    join : bool, optional
        Rank parts of one task that differ (questions, settings) over what they share, noted.
    rank_by : str, optional
        The column and metric that ranks the models.
    allow_partial : bool, optional
        Also rank parts that did not finish.
    cluster : {"question", "map"}, optional
        The unit the intervals resample.

    Returns
    -------
    dict
        The leaderboard record: :func:`benchmarks.leaderboards.leaderboard_table`'s, with the runs, those
        without intervals and the interval method (JSON-ready).
    """
    if not runs:
        raise RunError("leaderboard needs at least one run folder")
    parts = [part for run in runs for part in read_run(run)]
    partial = refuse_incomplete(parts, allow=allow_partial, command="rank")
    joined = _joined(parts, join)
    cells = {key: (part, _clustered(part.summary, row, cluster)) for key, (part, row) in _model_cells(parts).items()}
    try:
        table = leaderboard_table(
            _columns(parts), {key: (part.run, row) for key, (part, row) in cells.items()}, rank_by=rank_by
        )
    except ValueError as error:
        raise RunError(str(error)) from None
    _mark_partial(table, cells)
    without = sorted(
        {
            part.run
            for part in parts
            if not any(
                "intervals" in _clustered(part.summary, row, cluster) for row in part.summary.get("models", {}).values()
            )
        }
    )
    method = _interval_method(parts, cluster)
    return {
        "runs": [str(run) for run in runs],
        **table,
        "runs_without_intervals": without,
        "interval_method": method,
        "joined": joined,
        "partial": partial,
    }


def _mark_partial(
    table: Mapping[str, Any], cells: Mapping[tuple[str, str, str | None], tuple[RunPart, Mapping[str, Any]]]
) -> None:
    """Mark each cell whose part is incomplete with why (``cell["partial"]``), for the tables to show."""
    for row in table["rows"]:
        for column in table["columns"]:
            found = cells.get((row["model"], column["task"], column["mode"]))
            if found is None or found[0].incomplete is None:
                continue
            label = column["task"] if column["mode"] is None else f"{column['task']}/{column['mode']}"
            for metric in column["metrics"]:
                row["cells"][f"{label}/{metric}"]["partial"] = found[0].incomplete


def write_leaderboard(out: str | Path, record: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write :data:`LEADERBOARD_FILES` into ``out`` (each atomically; the manifest last); returns the paths.

    Parameters
    ----------
    out : str or Path
        The folder to write into.
    record : mapping
        The record, as :func:`build_leaderboard` returns it.
    figures : bool, optional
        Also draw its figure (PNG and PDF); without it, figures an earlier run wrote there are removed.

    Returns
    -------
    list of Path
        The files written, the manifest last.
    """
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
