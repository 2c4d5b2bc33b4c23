"""Reports of scored ReasonMap-Plus predictions: summary, table and a plot.

``summarize`` aggregates verdicts per model: accuracy weighted by map
difficulty (1 / 1.5 / 2) and plain, ``n`` and ``n_invalid``, overall and per
type, per city and per map difficulty. ``markdown_table`` renders models ×
types; ``write_report`` writes ``summary.json``, ``table.md`` and
``types.png`` (weighted accuracy per type with its 95% interval, one bar per model, for the top
:data:`~benchmarks.plotting.PLOT_MODELS` models by overall weighted accuracy;
the table lists all, and it and ``summary.json`` say when the plot does not).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.difficulty import DIFFICULTIES, get_weighting
from benchmarks.intervals import interval_method, interval_note, question_maps, scored_row
from benchmarks.plotting import ModelCap, top_models
from benchmarks.plus.metrics import PLUS_METRICS
from benchmarks.plus.records import ANSWER_KINDS, OPTION_LETTERS, PLUS_TYPES
from benchmarks.plus.scoring import PlusVerdict
from benchmarks.provenance import versions
from benchmarks.repeats import repeats_table
from benchmarks.summaries import model_table, partial_lines

__all__ = ["REPORT_FILES", "summarize", "markdown_table", "write_report", "chance_accuracy"]

REPORT_FILES = ("summary.json", "table.md", "types.png", "types.pdf")


def _city(verdict: PlusVerdict) -> str:
    return verdict.city


def _figures(verdicts: Sequence[PlusVerdict], cluster: str = "question", *, both: bool = False) -> dict[str, Any]:
    """Every plus metric over ``verdicts``, and the counts; with ``both``, the intervals of both clusterings."""
    return scored_row(PLUS_METRICS, verdicts, cluster=cluster, map_of=_city, both=both)


def summarize(
    verdicts: Iterable[PlusVerdict],
    *,
    weighting: str,
    inputs: Mapping[str, Any] | None = None,
    problems: Sequence[str] = (),
    cluster: str = "question",
) -> dict[str, Any]:
    """Aggregate plus verdicts per model.

    Parameters
    ----------
    verdicts : iterable of PlusVerdict
        They carry their type, city, map difficulty and weight.
    weighting : str
        The scheme the weights came from, recorded with the weights it gives.
    inputs : mapping, optional
        What was read (file names and checksums).
    problems : sequence of str
        Skipped records, recorded with their count.
    cluster : {"question", "map"}
        What the printed intervals resample (maps: the questions' cities); each model's row records both in
        ``intervals_by_cluster``.

    Returns
    -------
    dict
        The summary: ``weighting``, ``weights``, per model (``models``) the accuracy overall, per type, per
        city and per map difficulty with their intervals, and ``inputs``/``problems`` as given.

    Examples
    --------
    >>> from benchmarks.plus.scoring import PlusVerdict
    >>> rows = [PlusVerdict("1", "m", "TorF1", "rome", "easy", "yes", "yes", "yes", 1, 1.0),
    ...         PlusVerdict("2", "m", "TorF1", "kl", "hard", None, None, "no", 0, 2.0, "empty response")]
    >>> row = summarize(rows, weighting="city")["models"]["m"]
    >>> row["weighted_accuracy"], row["accuracy"], row["n_invalid"], row["per_type"]["TorF1"]["n"]
    (0.333333, 0.5, 1, 2)
    """
    scheme = get_weighting(weighting)
    verdicts = list(verdicts)
    overall: dict[str, list[PlusVerdict]] = defaultdict(list)
    groups: dict[str, dict[str, dict[str, list[PlusVerdict]]]] = {
        "per_type": defaultdict(lambda: defaultdict(list)),
        "per_city": defaultdict(lambda: defaultdict(list)),
        "per_difficulty": defaultdict(lambda: defaultdict(list)),
    }
    for verdict in verdicts:
        overall[verdict.model].append(verdict)
        groups["per_type"][verdict.model][verdict.type].append(verdict)
        groups["per_city"][verdict.model][verdict.city].append(verdict)
        groups["per_difficulty"][verdict.model][verdict.difficulty_city].append(verdict)
    orders = {"per_type": PLUS_TYPES, "per_difficulty": DIFFICULTIES}
    models = {}
    for model in sorted(overall):
        row = _figures(overall[model], cluster, both=True)
        for name, group in groups.items():
            members = group[model]
            order = orders.get(name, sorted(members))
            row[name] = {key: _figures(members[key], cluster) for key in order if key in members}
        models[model] = row
    return {
        "question_set": "plus",
        "weighting": scheme.name,
        "weights": {level: scheme.weight("easy", level) for level in DIFFICULTIES},
        "models": models,
        "interval_method": interval_method(cluster=cluster),
        "clusters": question_maps(verdicts, _city),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def _plotted_models(summary: Mapping[str, Any]) -> ModelCap:
    """The models ``types.png`` draws: the best by overall weighted accuracy."""
    scores = {model: row.get("weighted_accuracy") for model, row in summary["models"].items()}
    return top_models(scores, metric="overall weighted accuracy")


def markdown_table(summary: Mapping[str, Any]) -> str:
    """Models × types (weighted accuracy, %), then models × map difficulty.

    Parameters
    ----------
    summary : mapping
        What :func:`summarize` returned.

    Returns
    -------
    str
        The markdown of ``table.md``.

    Examples
    --------
    >>> summary = {"weighting": "city", "weights": {"easy": 1.0, "middle": 1.5, "hard": 2.0}, "models": {
    ...     "m": {"weighted_accuracy": 0.5, "n": 2, "n_invalid": 1,
    ...           "per_type": {"TorF1": {"weighted_accuracy": 0.5}}, "per_difficulty": {}}}}
    >>> print(markdown_table(summary))
    Weighting: `city` (map difficulty: easy 1, middle 1.5, hard 2); weighted accuracy in %.
    <BLANKLINE>
    | Model | Counting1 | Counting2 | Counting3 | TorF1 | TorF2 | Overall | Invalid |
    |---|---:|---:|---:|---:|---:|---:|---:|
    | m | – | – | – | 50.00 | – | 50.00 | 1/2 |
    <BLANKLINE>
    | Model | easy maps | middle maps | hard maps |
    |---|---:|---:|---:|
    | m | – | – | – |
    <BLANKLINE>
    """
    weights = ", ".join(f"{level} {summary['weights'][level]:g}" for level in DIFFICULTIES)
    lines = [
        f"Weighting: `{summary['weighting']}` (map difficulty: {weights}); weighted accuracy in %."
        + interval_note(summary),
        "",
        *model_table(summary, PLUS_TYPES, "weighted_accuracy"),
        "",
        *model_table(
            summary,
            DIFFICULTIES,
            "weighted_accuracy",
            group="per_difficulty",
            labels=[f"{level} maps" for level in DIFFICULTIES],
            overall=False,
            invalid=False,
        ),
    ]
    note = _plotted_models(summary).note
    if note:
        lines += ["", note[0].upper() + note[1:] + "."]
    if summary.get("official_rules"):
        from benchmarks.official_rules import official_rules_lines

        lines += ["", *official_rules_lines(summary["official_rules"])]
    lines += repeats_table(summary) + partial_lines(summary)
    return "\n".join(lines) + "\n"


def chance_accuracy(kind: str) -> float | None:
    """The accuracy of answering a question type at random.

    Parameters
    ----------
    kind : str
        A plus question type.

    Returns
    -------
    float or None
        1/4 for a choice of four options, 1/2 for yes or no; ``None`` for a count.

    Raises
    ------
    KeyError
        ``kind`` is not a plus type.

    Examples
    --------
    >>> [chance_accuracy(kind) for kind in PLUS_TYPES]
    [0.25, None, None, 0.5, 0.5]
    """
    answer = ANSWER_KINDS[kind]
    return 1 / len(OPTION_LETTERS) if answer == "choice" else 0.5 if answer == "yes_no" else None


def _plot_types(summary: Mapping[str, Any], path: Path) -> None:
    from benchmarks.plotting import COLUMN_WIDTH, PAGE_WIDTH, type_figure

    cap = _plotted_models(summary)
    width_in = COLUMN_WIDTH if len(cap.shown) <= 3 else PAGE_WIDTH
    title = "ReasonMap-Plus accuracy per question type"
    with type_figure(
        summary, cap, PLUS_TYPES, "weighted_accuracy", path, width_in=width_in, title=title,
        ylabel="weighted accuracy (%)", legend_extra=1, edgecolor="white", interval_label="95% interval",
    ) as (axis, width):  # fmt: skip
        end = width * (max(1, len(cap.shown)) - 0.5)
        chances = [(x, chance_accuracy(kind)) for x, kind in enumerate(PLUS_TYPES)]
        for number, (x, chance) in enumerate((x, c) for x, c in chances if c is not None):  # a count has none
            label = None if number else "chance (a random answer)"
            axis.hlines(100 * chance, x - width / 2, x + end, colors="0.15", linestyles=(0, (3, 2)), linewidth=0.9,
                        label=label)  # fmt: skip


def write_report(directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write ``summary.json``, ``table.md`` and, with ``figures``, ``types.png`` (with ``types.pdf``).

    Parameters
    ----------
    directory : str or Path
        The report folder (made when missing).
    summary : mapping
        What :func:`summarize` returned.
    figures : bool
        Whether to draw ``types.png``; without, earlier figures in the folder are removed.

    Returns
    -------
    list of Path
        The files written.
    """
    from benchmarks.summaries import write_report_files

    return write_report_files(
        directory,
        summary,
        files=REPORT_FILES,
        table=markdown_table,
        cap=_plotted_models(summary),
        plot=lambda out: _plot_types(summary, out / "types.png"),
        figures=figures,
    )
