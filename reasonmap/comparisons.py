"""``reasonmap compare A B``: paired comparisons of two runs, two models of a run, or two modes of a run.

For every (task, mode) the two sides share, each metric the task compares
(:func:`benchmarks.metrics.compared`) is computed over the questions both sides answered:
both values, the difference B − A with a paired-bootstrap interval (the
questions resampled with both sides together, the weighting inside each
resample; one draw per comparison, so a question's short and long answers
move together) and a p-value (exact McNemar for correctness, a paired
sign-flip permutation test for scores; :mod:`benchmarks.paired`), and how many
questions each side lacked. Two sides over different question files or
settings are refused (:func:`reasonmap.runs.difference`) unless ``join``; a
side from a run that did not finish or scored part of a log is refused unless
``allow_partial``, then marked. The models both runs hold are matched by their
Unicode NFC form.
With ``cluster="map"`` the resampling has two stages, maps then questions
within them; each question's map is what its run's summary records under
``clusters`` (a summary written before it has none: rescore the run).

Written to ``out``: ``comparison.md``, ``comparison.json``, ``comparison.csv``
and ``comparison.png`` (with ``.pdf``): the differences with their intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cells import same_name
from benchmarks.comparisons import compare_scored, comparison_csv, comparison_markdown, plot_comparison
from reasonmap.runs import RunError, RunPart, difference, read_run, read_scored, refuse_incomplete, write_record

__all__ = ["Side", "pair_sides", "compare_runs", "write_comparison"]

COMPARISON_FILES = ("comparison.md", "comparison.json", "comparison.csv", "comparison.png", "comparison.pdf")


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a model's answers in one part of a run.

    Attributes
    ----------
    part : RunPart
        The part of the run.
    model : str
        The model.
    """

    part: RunPart
    model: str


def _one_model_each(first: RunPart, second: RunPart) -> list[tuple[str, str]]:
    """The models both parts hold (matched in NFC, each side's own spelling kept), or the one model of each."""
    theirs = {same_name(model): model for model in second.models}
    common = [(model, theirs[same_name(model)]) for model in first.models if same_name(model) in theirs]
    if common:
        return common
    if len(first.models) == 1 and len(second.models) == 1:  # two runs of two models: compare them
        return [(first.models[0], second.models[0])]
    return []


def pair_sides(
    parts_a: Sequence[RunPart],
    parts_b: Sequence[RunPart],
    *,
    models: tuple[str, str] | None = None,
    modes: tuple[str, str] | None = None,
) -> list[tuple[Side, Side]]:
    """The comparisons of two runs' parts: matched by task and mode (``modes``: mode A against mode B),
    then by model (``models``: model A against model B; else the models both have, or the one of each).

    Parameters
    ----------
    parts_a, parts_b : sequence of RunPart
        The two runs' parts (one run twice to compare within it).
    models : (str, str), optional
        Model A against model B.
    modes : (str, str), optional
        Mode A against mode B.

    Returns
    -------
    list of (Side, Side)
        The pairs, A first.

    Raises
    ------
    RunError
        Nothing pairs; the message says what each side holds.
    """
    pairs: list[tuple[RunPart, RunPart]] = []
    for first in parts_a:
        if modes is not None and first.mode != modes[0]:
            continue
        wanted = modes[1] if modes is not None else first.mode
        matches = [part for part in parts_b if part.task == first.task and part.mode == wanted]
        if not matches and modes is None:  # a score report records no mode: it pairs with the task's only part
            same_task = [part for part in parts_b if part.task == first.task]
            if len(same_task) == 1 and sum(part.task == first.task for part in parts_a) == 1:
                matches = same_task
        pairs.extend((first, second) for second in matches)
    if not pairs:
        held = ", ".join(part.label for part in parts_a) or "nothing"
        other = ", ".join(part.label for part in parts_b) or "nothing"
        wanted = f" in modes {modes[0]} and {modes[1]}" if modes else ""
        raise RunError(f"nothing to compare{wanted}: A holds {held}; B holds {other}")
    sides = []
    for first, second in pairs:
        if models is not None:
            for model, part in zip(models, (first, second), strict=True):
                if model not in part.models:
                    raise RunError(
                        f"{part.run}: no model {model!r} in {part.label} (it holds {', '.join(part.models)})"
                    )
            named = [models]
        else:
            named = _one_model_each(first, second)
            if not named:
                raise RunError(
                    f"{first.label}: the two sides share no model (A: {', '.join(first.models)};"
                    f" B: {', '.join(second.models)}); name them with --models A B"
                )
        sides.extend((Side(first, a), Side(second, b)) for a, b in named)
    return sides


def _unpaired(sides: Sequence[tuple[Side, Side]]) -> list[str]:
    """The models of each paired part that no comparison took (a model only one run has)."""
    taken: dict[tuple[int, int], tuple[RunPart, RunPart, set[str], set[str]]] = {}
    for first, second in sides:
        key = (id(first.part), id(second.part))
        entry = taken.setdefault(key, (first.part, second.part, set(), set()))
        entry[2].add(first.model)
        entry[3].add(second.model)
    found = []
    for first, second, left, right in taken.values():
        found += [f"A {first.label}: {model}" for model in first.models if model not in left]
        found += [f"B {second.label}: {model}" for model in second.models if model not in right]
    return list(dict.fromkeys(found))


def _rows(part: RunPart, cache: dict[Path, list[Mapping[str, Any]]], problems: list[str]) -> list[Mapping[str, Any]]:
    if part.scored is None:
        raise RunError(f"{part.run}: {part.label} has no scored rows to pair (scored.jsonl, or the file `score --out`)")
    if part.scored not in cache:
        rows, bad = read_scored(part.scored)
        cache[part.scored] = rows
        problems.extend(bad)
    return cache[part.scored]


def _compare_pair(
    first: Side,
    second: Side,
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    *,
    resamples: int,
    permutations: int,
    seed: int,
    level: float,
    cluster: str = "question",
) -> list[dict[str, Any]]:
    given = dict(resamples=resamples, permutations=permutations, seed=seed, level=level)
    if cluster == "map":
        given["maps"] = {**_maps_of(first.part), **_maps_of(second.part)}
    where = {
        "task": first.part.task,
        "mode_a": first.part.mode,
        "mode_b": second.part.mode,
        "run_a": first.part.run,
        "run_b": second.part.run,
        "model_a": first.model,
        "model_b": second.model,
        **({"partial_a": first.part.incomplete} if first.part.incomplete else {}),
        **({"partial_b": second.part.incomplete} if second.part.incomplete else {}),
    }
    rows = compare_scored(rows_a, rows_b, task=first.part.task, model_a=first.model, model_b=second.model, **given)
    return [{**where, **row} for row in rows]


def _maps_of(part: RunPart) -> dict[str, str]:
    """Each question's map, as the part's summary records its clusters.

    Raises
    ------
    RunError
        The summary records none (written before ``--cluster``).
    """
    clusters = part.summary.get("clusters")
    if not isinstance(clusters, Mapping) or not clusters:
        raise RunError(
            f"{part.run} {part.label}: its summary records no map of each question (`clusters`), which --cluster map"
            " needs; score it again with this version"
        )
    return {str(id): str(name) for name, ids in clusters.items() if isinstance(ids, list) for id in ids}


def check_resampling(resamples: int, seed: int) -> None:
    """Refuse a number of resamples or a seed the bootstrap cannot honour, naming the option and its bounds.

    Raises
    ------
    RunError
        ``resamples`` outside :data:`benchmarks.intervals.RESAMPLE_RANGE`, or ``seed`` outside
        :data:`benchmarks.intervals.SEED_RANGE`.
    """
    from benchmarks.intervals import RESAMPLE_RANGE, SEED_RANGE

    low, high = RESAMPLE_RANGE
    if not low <= resamples <= high:
        raise RunError(
            f"--resamples {resamples}: must be from {low:,} to {high:,} (below {low} the 95% interval's ends rest on"
            " fewer than five resamples each)"
        )
    if not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
        raise RunError(f"--seed {seed}: must be an integer from {SEED_RANGE[0]} to 2**64 - 1")


def compare_runs(
    a: str | Path,
    b: str | Path | None = None,
    *,
    models: tuple[str, str] | None = None,
    modes: tuple[str, str] | None = None,
    join: bool = False,
    allow_partial: bool = False,
    resamples: int = 2000,
    permutations: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
    cluster: str = "question",
) -> dict[str, Any]:
    """The paired comparison of run ``a`` with run ``b`` (``b`` ``None``: two models or two modes of ``a``).

    ``cluster`` is ``question`` (questions resampled) or ``map`` (maps, then questions within them).
    ``allow_partial`` compares sides from runs that did not finish or scored part of a log, marked
    ``partial_a`` / ``partial_b``; without it they are refused.

    Raises
    ------
    RunError
        A folder that is no run, nothing to pair, two sides over different questions or
        settings (unless ``join``), an incomplete side (unless ``allow_partial``), resamples or a seed out of
        bounds (:func:`check_resampling`), or maps asked of a run that records none; one line naming it.

    Parameters
    ----------
    a, b : str or Path
        The run folders (``eval --out`` or ``score --report``); ``b`` None compares within ``a``.
    models : (str, str), optional
        The model of each side (by default the runs' one model each, or every model both ran).
    modes : (str, str), optional
        The prompt mode of each side, within one run.
    join : bool, optional
        Compare sides over different questions or settings over what they share, noted.
    allow_partial : bool, optional
        Also compare sides that did not finish.
    resamples : int, optional
        Paired bootstrap resamples for each interval.
    permutations : int, optional
        Sign flips drawn for a score's permutation test.
    seed : int, optional
        Seeds the resamples and the permutations.
    level : float, optional
        The intervals' confidence level.
    cluster : {"question", "map"}, optional
        The unit resampled.

    Returns
    -------
    dict
        The comparison record: ``a``, ``b``, ``method``, the ``comparisons`` rows (one per pair of sides and
        headline metric, as :func:`benchmarks.compare_scored` gives them) and what was joined, partial,
        unpaired or skipped (JSON-ready).
    """
    _check_compare(b, models, modes, resamples, permutations, seed, cluster)
    parts_a = read_run(a)
    parts_b = parts_a if b is None else read_run(b)
    sides = pair_sides(parts_a, parts_b, models=models, modes=modes)
    used = list({id(part): part for side in sides for part in (side[0].part, side[1].part)}.values())
    partial = refuse_incomplete(used, allow=allow_partial, command="compare")
    differences = _differences(sides, join)
    given = dict(resamples=resamples, permutations=permutations, seed=seed, level=level, cluster=cluster)
    rows, problems = _compared_rows(sides, given)
    return {
        "a": str(a),
        "b": str(a if b is None else b),
        "models": list(models) if models else None,
        "modes": list(modes) if modes else None,
        "joined": sorted(set(differences)),
        "partial": partial,
        "unpaired": _unpaired(sides) if models is None else [],
        "method": _method(**given),
        "comparisons": rows,
        "skipped_records": problems,
    }


def _check_compare(
    b: str | Path | None,
    models: tuple[str, str] | None,
    modes: tuple[str, str] | None,
    resamples: int,
    permutations: int,
    seed: int,
    cluster: str,
) -> None:
    """Refuse :func:`compare_runs`'s arguments out of bounds, one line naming the option."""
    from benchmarks.intervals import CLUSTERS

    if b is None and models is None and modes is None:
        raise RunError("compare needs two runs, or one run with --models A B or --modes A,B")
    check_resampling(resamples, seed)
    if permutations < 1 or cluster not in CLUSTERS:
        raise RunError(f"--permutations {permutations} (at least 1) or --cluster {cluster!r} ({', '.join(CLUSTERS)})")


def _differences(sides: Sequence[tuple[Side, Side]], join: bool) -> list[str]:
    """Why each pair of ``sides`` is over different questions or settings; refused unless ``join``."""
    differences = []
    for first, second in sides:
        why = difference(first.part, second.part)
        if why is None:
            continue
        if not join:
            raise RunError(
                f"{first.part.run} {first.part.label} and {second.part.run} {second.part.label}: {why};"
                " pass --join to compare over the questions both answered"
            )
        differences.append(f"{first.part.label} and {second.part.label}: {why}")
    return differences


def _compared_rows(sides: Sequence[tuple[Side, Side]], given: Mapping[str, Any]) -> tuple[list[Any], list[str]]:
    """The comparison rows of every pair of ``sides`` and the records skipped reading them."""
    cache: dict[Path, list[Mapping[str, Any]]] = {}
    problems: list[str] = []
    rows = []
    for first, second in sides:
        rows_a, rows_b = _rows(first.part, cache, problems), _rows(second.part, cache, problems)
        rows.extend(_compare_pair(first, second, rows_a, rows_b, **given))
    return rows, problems


def _method(*, resamples: int, permutations: int, seed: int, level: float, cluster: str) -> dict[str, Any]:
    """The comparison record's ``method``: how the intervals and the tests were drawn."""
    from benchmarks.intervals import interval_method

    return {
        "interval": f"paired {interval_method(cluster=cluster)['method']}, percentile",
        "cluster": cluster,
        "unit": interval_method(cluster=cluster)["unit"],
        "resamples": resamples,
        "seed": seed,
        "level": level,
        "mcnemar": "exact, two-sided, on the discordant pairs",
        "permutation": f"paired sign flips per question, two-sided, {permutations} drawn (exact when fewer)",
    }


def write_comparison(out: str | Path, record: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write :data:`COMPARISON_FILES` into ``out`` (each atomically; the manifest last); returns the paths.

    Parameters
    ----------
    out : str or Path
        The folder to write into.
    record : mapping
        The record, as :func:`compare_runs` returns it.
    figures : bool, optional
        Also draw its figure (PNG and PDF); without it, figures an earlier run wrote there are removed.

    Returns
    -------
    list of Path
        The files written, the manifest last.
    """
    return write_record(
        out,
        "comparison",
        "compare",
        record,
        markdown=comparison_markdown,
        csv=comparison_csv,
        plot=plot_comparison,
        figures=figures,
    )
