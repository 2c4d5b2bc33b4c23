"""The text-mediated pathway of OmniMapBench: the visual dependency and descriptive saturation indices.

For each token budget ``k_max`` a model first describes each map image in at
most ``k_max`` tokens, then answers every question about that map from its own
description alone, without the image; beside it, it answers with the image
(the full pathway). Per budget:

``VDI(k_max) = (Acc_full - Acc_text(k_max)) / Acc_full``
    the visual dependency index: the share of the full-image accuracy lost
    when the map reaches the model only as its own description (0 nothing
    lost, 1 all lost, negative when the description did better than the
    image). It is undefined when ``Acc_full`` is 0 (or there are no samples):
    ``None`` in Python and JSON, ``undefined`` in the table, a gap in the plot.
``DSI(k_max) = mean over samples of k_actual / k_max``
    the descriptive saturation index: how much of the budget the
    descriptions use (near 1, the model had more to say). ``k_actual`` is the
    describe call's ``usage.completion_tokens`` (reasoning tokens included,
    when the endpoint counts them there); when the endpoint reports no usage,
    the number of whitespace-separated words of the description, an
    approximation counted in ``n_estimated`` (:func:`description_length`). A
    server that ignores ``max_tokens`` can make DSI exceed 1; it is not clipped.

Here are the measures, the two prompts (:data:`DESCRIBE_PROMPT`,
:data:`TEXT_PROMPT`), the figures of one budget and the report (table and
plot) of a run's summary; ``reasonmap vdi`` (:mod:`reasonmap.vdi`) asks the
model and composes them, for map QA, ReasonMap and ReasonMap-Plus questions. They serve every task, so they
live at the benchmarks root beside :mod:`benchmarks.samples`; the map QA facade still exports the two indices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = [
    "DESCRIBE_PROMPT",
    "TEXT_PROMPT",
    "MAX_BUDGET",
    "BudgetFigures",
    "visual_dependency_index",
    "descriptive_saturation_index",
    "description_length",
    "budget_figures",
    "parse_budgets",
    "vdi_table",
    "plot_vdi",
]

DESCRIBE_PROMPT = (
    "Describe this map in detail, so that someone who cannot see it could answer questions about it: its title and"
    " legend, every label and name, the lines, colours and symbols, and where things lie relative to each other."
    " Use at most {k_max} tokens."
)
TEXT_PROMPT = (
    "You cannot see the map. Here is a description of it:\n\n<description>\n{description}\n</description>\n\n"
    "Using only this description, answer the question.\n\n{question}"
)


# -- the measures -------------------------------------------------------------------------------------------------


def visual_dependency_index(accuracy_full: float | Fraction, accuracy_text: float | Fraction) -> float | None:
    """``(accuracy_full - accuracy_text) / accuracy_full``, rounded to 6 decimals; ``None`` when
    ``accuracy_full`` is 0 (the index is undefined).

    Computed in exact fractions (pass :class:`~fractions.Fraction` accuracies for exact inputs).

    Examples
    --------
    >>> visual_dependency_index(Fraction(3, 4), Fraction(1, 4)), visual_dependency_index(0.5, 0.75)
    (0.666667, -0.5)
    >>> visual_dependency_index(0, 0) is None
    True
    """
    full, text = Fraction(accuracy_full), Fraction(accuracy_text)
    if full == 0:
        return None
    return round(float((full - text) / full), 6)


def descriptive_saturation_index(k_actual: Iterable[int], k_max: int) -> float | None:
    """The mean of ``k / k_max`` over the description lengths ``k_actual``, rounded to 6 decimals; ``None`` when
    there are none.

    Raises
    ------
    ValueError
        ``k_max`` is not a positive integer.

    Examples
    --------
    >>> descriptive_saturation_index([64, 128, 32, 96], 128)
    0.625
    >>> descriptive_saturation_index([], 128) is None
    True
    """
    if not isinstance(k_max, int) or isinstance(k_max, bool) or k_max < 1:
        raise ValueError(f"k_max must be a positive integer, got {k_max!r}")
    lengths = list(k_actual)
    if not lengths:
        return None
    return round(float(Fraction(sum(lengths), k_max * len(lengths))), 6)


#: the largest description budget (tokens): no model writes more in one answer
MAX_BUDGET = 1_000_000


def parse_budgets(text: str) -> tuple[int, ...]:
    """Token budgets from ``"128,256,512"``: integers from 1 to :data:`MAX_BUDGET`, sorted, each once.

    Raises
    ------
    ValueError
        A budget is not an integer from 1 to :data:`MAX_BUDGET`, or none is given.

    Examples
    --------
    >>> parse_budgets("512, 128,256,128")
    (128, 256, 512)
    """
    budgets = set()
    for piece in text.split(","):
        if not piece.strip():
            continue
        try:
            value = int(piece)
        except ValueError:
            value = 0
        if not 1 <= value <= MAX_BUDGET:
            raise ValueError(
                f"budgets: expected integers >= 1 and <= {MAX_BUDGET:,} separated by commas, got {piece.strip()!r}"
            )
        budgets.add(value)
    if not budgets:
        raise ValueError(f"budgets: expected positive integers separated by commas, got {text!r}")
    return tuple(sorted(budgets))


@dataclass(frozen=True, slots=True)
class BudgetFigures:
    """The text pathway under one budget: accuracy, VDI, DSI and the counts behind them."""

    k_max: int
    accuracy_text: float | None
    vdi: float | None
    dsi: float | None
    n_correct_text: int
    n_described: int
    n_estimated: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "k_max": self.k_max,
            "accuracy_text": self.accuracy_text,
            "vdi": self.vdi,
            "dsi": self.dsi,
            "n_correct_text": self.n_correct_text,
            "n_described": self.n_described,
            "n_estimated": self.n_estimated,
        }


def budget_figures(
    k_max: int, *, n: int, n_correct_full: int, n_correct_text: int, lengths: Iterable[int], n_estimated: int
) -> BudgetFigures:
    """The figures of one budget from its counts over ``n`` samples (``lengths``: the described samples' ``k_actual``).

    Examples
    --------
    >>> figures = budget_figures(128, n=8, n_correct_full=6, n_correct_text=3, lengths=[64] * 8, n_estimated=0)
    >>> figures.accuracy_text, figures.vdi, figures.dsi, figures.n_described
    (0.375, 0.5, 0.5, 8)
    >>> budget_figures(128, n=0, n_correct_full=0, n_correct_text=0, lengths=[], n_estimated=0).vdi is None
    True
    """
    lengths = list(lengths)
    return BudgetFigures(
        k_max,
        round(n_correct_text / n, 6) if n else None,
        visual_dependency_index(Fraction(n_correct_full, n), Fraction(n_correct_text, n)) if n else None,
        descriptive_saturation_index(lengths, k_max),
        n_correct_text,
        len(lengths),
        n_estimated,
    )


def description_length(row: Mapping[str, Any]) -> tuple[int, bool]:
    """A description's length in tokens (``k_actual``), and whether it was estimated from its words.

    ``row`` is the describe call's row: its ``tokens`` (``usage.completion_tokens``) when the endpoint
    reported them, else the number of whitespace-separated words of its ``response``.

    Examples
    --------
    >>> description_length({"tokens": 96, "response": "a map"}), description_length({"response": "a small map"})
    ((96, False), (3, True))
    """
    tokens = row.get("tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
        return tokens, False
    return len((row.get("response") or "").split()), True


# -- report -------------------------------------------------------------------------------------------------------


def vdi_table(summary: Mapping[str, Any]) -> str:
    """The budgets × (text accuracy, VDI, DSI) table of a ``vdi.json`` summary, in markdown.

    Examples
    --------
    >>> summary = {"model": "m", "benchmark": "mapqa", "n": 4, "accuracy_full": 0.0, "vdi_defined": False,
    ...            "budgets": [{"k_max": 128, "accuracy_text": 0.25, "vdi": None, "dsi": 0.5, "n_described": 4}]}
    >>> print(vdi_table(summary))
    Model `m` on mapqa: 4 samples; accuracy with the image 0.00 %.
    <BLANKLINE>
    | k_max | Acc. from text (%) | VDI | DSI | Described |
    |---:|---:|---:|---:|---:|
    | 128 | 25.00 | undefined | 0.500 | 4/4 |
    <BLANKLINE>
    VDI is undefined: no answer with the image was correct (Acc_full = 0).
    <BLANKLINE>
    """

    def cell(value: float | None, percent: bool = False, missing: str = "–") -> str:
        if value is None:
            return missing
        return f"{value * 100:.2f}" if percent else f"{value:.3f}"

    lines = [
        f"Model `{summary['model']}` on {summary['benchmark']}: {summary['n']} samples; accuracy with the image"
        f" {cell(summary['accuracy_full'], percent=True)} %.",
        "",
        "| k_max | Acc. from text (%) | VDI | DSI | Described |",
        "|---:|---:|---:|---:|---:|",
    ]
    undefined = "undefined" if not summary["vdi_defined"] else "–"
    for row in summary["budgets"]:
        lines.append(
            f"| {row['k_max']} | {cell(row['accuracy_text'], percent=True)} | {cell(row['vdi'], missing=undefined)}"
            f" | {cell(row['dsi'])} | {row['n_described']}/{summary['n']} |"
        )
    if not summary["vdi_defined"]:
        lines += ["", "VDI is undefined: no answer with the image was correct (Acc_full = 0)."]
    return "\n".join(lines) + "\n"


def plot_vdi(summary: Mapping[str, Any], path: str | Path) -> None:
    """VDI and DSI against ``k_max`` (log2 axis), from a ``vdi.json`` summary, as a PNG and a PDF; deterministic."""
    from benchmarks.plotting import COLUMN_WIDTH, figure_style, save_figure

    rows = summary["budgets"]
    budgets = [row["k_max"] for row in rows]
    nan = float("nan")
    with figure_style() as plt:
        figure, axis = plt.subplots(figsize=(COLUMN_WIDTH, 2.4), layout="constrained")
        axis.plot(
            budgets, [nan if r["vdi"] is None else r["vdi"] for r in rows], "o-",
            label="VDI: share of the accuracy lost without the image",
        )  # fmt: skip
        axis.plot(
            budgets, [nan if r["dsi"] is None else r["dsi"] for r in rows], "s--",
            label="DSI: share of the budget the description used",
        )  # fmt: skip
        axis.set_xscale("log", base=2)
        axis.set_xticks(budgets, [str(k) for k in budgets])
        axis.minorticks_off()
        axis.axhline(0, color="0.7", linewidth=0.8)
        axis.set_xlabel("description budget k_max (tokens)")
        axis.set_ylabel("VDI and DSI (fractions)")
        axis.set_title(f"{summary['model']} on {summary['benchmark']} (n = {summary['n']})")
        if not summary["vdi_defined"]:
            axis.text(0.5, 0.5, "VDI undefined: Acc_full = 0", transform=axis.transAxes, ha="center", color="0.4")
        axis.legend()
        save_figure(figure, path)
