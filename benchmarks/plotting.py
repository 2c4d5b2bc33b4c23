"""The toolkit's one figure style, and the one way its figures are saved.

Every plot the toolkit draws (reports, the VDI, the diagnosis, the notebooks)
is drawn inside :func:`figure_style` and written with :func:`save_figure`: a
PNG and a vector PDF beside it, both without dates or version strings, so the
same figures give the same bytes. Sizes are in inches for a two-column paper:
:data:`COLUMN_WIDTH` for one column, :data:`PAGE_WIDTH` for both; the fonts
(8 pt, 7 pt ticks) stay readable at those widths.

A plot draws at most :data:`PLOT_MODELS` models (:func:`top_models`: the best
by the report's headline metric, ties by name) and says so in a note; the
tables beside it list every model. Without the cap a run of thousands of
models drew a panel or a bar each, for minutes and gigabytes.

Text is drawn without mathtext (``text.parse_math`` off in :data:`STYLE`):
names come from other tools' files, and a ``$`` pair in one is text, not a
formula that may fail to parse.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "COLUMN_WIDTH",
    "PAGE_WIDTH",
    "COLOURS",
    "HATCHES",
    "MARKERS",
    "ModelStyle",
    "model_style",
    "STYLE",
    "PLOT_MODELS",
    "ModelCap",
    "top_models",
    "type_figure",
    "figure_style",
    "save_figure",
    "save_png",
    "vector_path",
    "remove_figures",
    "type_bars",
]

PLOT_MODELS = 12  # as many as a page-wide figure keeps readable (a panel or a bar each)

COLUMN_WIDTH, PAGE_WIDTH = 3.4, 7.0
# Okabe and Ito's eight colour-blind-safe colours, then twelve more, each chosen for the largest CIELAB distance
# to those before it: no two of the twenty closer than ΔE76 26 (the closest pair of Okabe and Ito's own)
COLOURS = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
    "#332288", "#661100", "#7F7F7F", "#EE3377", "#DBDB8D", "#225522", "#EE8866", "#222255",
    "#882255", "#9467BD", "#8C564B", "#997700",
)  # fmt: skip
# past twenty models the colours come round again, told apart by a hatch on bars and a marker on points
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++++")
MARKERS = ("o", "s", "^", "D", "v", "P")
STYLE: dict[str, Any] = {
    "font.family": ["DejaVu Sans"],
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "axes.prop_cycle": None,  # set below from COLOURS
    "figure.dpi": 100,
    "savefig.dpi": 300,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.03,
    "pdf.fonttype": 42,  # TrueType in the PDF: text stays text, editable and searchable
    "svg.hashsalt": "reasonmap",
    "image.interpolation": "none",
    "hatch.linewidth": 0.6,
    # names (models, runs, cities) are drawn as they are: a "$...$" name is not parsed as mathtext (which failed
    # on "$\\undefinedmacro{x}$" and stopped the command); matplotlib's Text reads this when parse_math is not given
    "text.parse_math": False,
}


@dataclass(frozen=True, slots=True)
class ModelStyle:
    """How one model is drawn: its colour, the hatch of its bars and the marker of its points.

    Attributes
    ----------
    colour : str
        ``#rrggbb``.
    hatch : str
        Matplotlib's hatch pattern (empty: none).
    marker : str
        Matplotlib's marker.
    """

    colour: str
    hatch: str
    marker: str


def model_style(index: int) -> ModelStyle:
    """The style of the ``index``-th model of a figure: no two of the first ``len(COLOURS) * len(HATCHES)`` alike.

    Parameters
    ----------
    index : int
        The model's place in the figure.

    Returns
    -------
    ModelStyle

    Examples
    --------
    >>> model_style(0), model_style(20).colour == model_style(0).colour, model_style(20).hatch
    (ModelStyle(colour='#0072B2', hatch='', marker='o'), True, '////')
    """
    turn, position = divmod(index, len(COLOURS))
    return ModelStyle(COLOURS[position], HATCHES[turn % len(HATCHES)], MARKERS[turn % len(MARKERS)])


@dataclass(frozen=True, slots=True)
class ModelCap:
    """The models a plot draws: ``shown`` (in the order they were given), of ``total``, ranked by ``metric``.

    Attributes
    ----------
    shown : tuple of str
        The models drawn.
    total : int
        The models there are.
    metric : str
        What ranked them.
    """

    shown: tuple[str, ...]
    total: int
    metric: str

    @property
    def capped(self) -> bool:
        """Whether some models are left out of the plot."""
        return len(self.shown) < self.total

    @property
    def note(self) -> str:
        """What a figure and its summary say about the cap; ``""`` when every model is drawn."""
        if not self.capped:
            return ""
        return f"plots show the top {len(self.shown):,} of {self.total:,} models by {self.metric}; the tables list all"

    def to_dict(self) -> dict[str, Any]:
        return {"shown": list(self.shown), "total": self.total, "metric": self.metric, "note": self.note}


def top_models(scores: Mapping[str, float | None], *, metric: str, limit: int = PLOT_MODELS) -> ModelCap:
    """The ``limit`` models with the highest score (``None`` and NaN last), ties broken by name.

    The shown models keep the order of ``scores`` (the report's own order), so
    a report with no more than ``limit`` models draws exactly what it drew
    before there was a cap.

    Parameters
    ----------
    scores : mapping of str to float or None
        Each model's score, in the report's order.
    metric : str
        The score's name, for the note.
    limit : int, optional
        The most models drawn.

    Returns
    -------
    ModelCap

    Examples
    --------
    >>> cap = top_models({"b": 0.5, "a": 0.5, "c": None, "d": 0.9}, metric="accuracy", limit=2)
    >>> cap.shown, cap.note
    (('a', 'd'), 'plots show the top 2 of 4 models by accuracy; the tables list all')
    >>> top_models({"b": 0.1, "a": 0.2}, metric="accuracy").shown
    ('b', 'a')
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"limit: expected an integer >= 1, got {limit!r}")

    def rank(model: str) -> tuple[bool, float, str]:
        score = scores[model]
        missing = score is None or math.isnan(score)
        return (missing, 0.0 if missing else -float(score), model)

    chosen = set(sorted(scores, key=rank)[:limit])
    return ModelCap(tuple(model for model in scores if model in chosen), len(scores), metric)


def _style(extra_fonts: tuple[str, ...] = ()) -> dict[str, Any]:
    from cycler import cycler

    style = dict(STYLE)
    style["axes.prop_cycle"] = cycler(color=list(COLOURS))
    style["font.family"] = [*STYLE["font.family"], *extra_fonts]
    return style


@contextmanager
def figure_style(*, fonts: Sequence[str | Path] = ()) -> Iterator[Any]:
    """Draw inside the toolkit's style; yields ``matplotlib.pyplot`` (the Agg backend: files only).

    ``fonts`` are font files whose families back up the default one, in order: the CJK font the map
    renderer uses, for Chinese station names in titles (:func:`vision.fonts.find_font`).

    Parameters
    ----------
    fonts : sequence of font files, optional
        Back-up fonts.

    Yields
    ------
    module
        ``matplotlib.pyplot``.

    Examples
    --------
    >>> with figure_style() as plt:
    ...     plt.rcParams["font.size"]
    8.0
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.font_manager as font_manager
    import matplotlib.pyplot as plt

    families = []
    for font in fonts:
        font_manager.fontManager.addfont(str(font))
        families.append(font_manager.FontProperties(fname=str(font)).get_name())
    with matplotlib.rc_context(_style(tuple(families))):
        yield plt


def vector_path(png: str | Path) -> Path:
    """Where the vector copy of a figure goes: ``X.png`` → ``X.pdf``.

    Parameters
    ----------
    png : str or Path

    Returns
    -------
    Path

    Examples
    --------
    >>> vector_path("report/cities.png").as_posix()
    'report/cities.pdf'
    """
    return Path(png).with_suffix(".pdf")


_METADATA: dict[str, dict[str, None]] = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
}


def _write(figure: Any, path: Path, form: str) -> Path:
    import io

    from graphkit.files import atomic_writer

    buffer = io.BytesIO()
    figure.savefig(buffer, format=form, metadata=_METADATA[form])
    with atomic_writer(path, binary=True) as stream:
        stream.write(buffer.getvalue())
    return path


def save_figure(figure: Any, png: str | Path) -> tuple[Path, Path]:
    """Write ``figure`` as ``png`` and as a PDF beside it (:func:`vector_path`), atomically, then close it.

    No creation date, software version or random ids go into either file.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    png : str or Path
        The PNG.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    import matplotlib.pyplot as plt

    png = Path(png)
    written = (_write(figure, png, "png"), _write(figure, vector_path(png), "pdf"))
    plt.close(figure)
    return written


def save_png(figure: Any, png: str | Path) -> Path:
    """Write ``figure`` as ``png`` alone (no PDF), atomically and without dates or versions, then close it.

    For figures drawn by the hundred (one per wrong answer), where a vector copy of each would double the cost.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    png : str or Path
        The PNG.

    Returns
    -------
    Path
        ``png``.
    """
    import matplotlib.pyplot as plt

    written = _write(figure, Path(png), "png")
    plt.close(figure)
    return written


def remove_figures(directory: str | Path, names: Sequence[str]) -> None:
    """Delete the figure files ``names`` an earlier run wrote in ``directory`` and recorded in its manifest
    (a report written without figures); a file of the same name that no run recorded is kept.

    Parameters
    ----------
    directory : str or Path
        The report's folder.
    names : sequence of str
        The figure files' names.
    """
    from benchmarks.manifests import remove_stale

    remove_stale(directory, names)


def type_bars(
    axis: Any,
    summary: Mapping[str, Any],
    models: Sequence[str],
    kinds: Sequence[str],
    metric: str,
    *,
    edgecolor: str | None = None,
    interval_label: str | None = None,
) -> float:
    """Draw on ``axis`` one bar per model and question type: each model's ``metric`` per type in % (its row's
    ``per_type``), a group of bars per type, with each bar's 95% interval where its row has one.

    Parameters
    ----------
    axis : matplotlib Axes
    summary : mapping
        A task's summary: ``summary["models"][model]["per_type"][kind]`` holds ``metric`` and its ``intervals``.
    models : sequence of str
        The models drawn, in order (each styled by :func:`model_style` of its place).
    kinds : sequence of str
        The types, one group of bars each, at x = 0, 1, ...
    metric : str
        The share drawn (a missing one draws as 0).
    edgecolor : str, optional
        The bars' edge colour (matplotlib's default when not given).
    interval_label : str, optional
        The legend entry of the first model's interval bars (none when not given).

    Returns
    -------
    float
        The width of one bar (a group is ``len(models)`` bars wide).
    """
    from benchmarks.cells import figure_text

    width = 0.8 / max(1, len(models))
    for index, model in enumerate(models):
        per = summary["models"][model]["per_type"]
        values = [(per.get(kind, {}).get(metric) or 0.0) * 100 for kind in kinds]
        style = model_style(index)
        xs = [x + index * width for x in range(len(kinds))]
        looks = {"edgecolor": edgecolor} if edgecolor is not None else {}
        axis.bar(
            xs, values, width, label=figure_text(model), color=style.colour, hatch=style.hatch or None, **looks,
            linewidth=0,
        )  # fmt: skip
        found = [
            (x, value, per[kind]["intervals"][metric])
            for x, value, kind in zip(xs, values, kinds)
            if (per.get(kind, {}).get("intervals", {}).get(metric) or {}).get("low") is not None
        ]  # none where no interval can be claimed (n < 2 or no variance)
        if found:  # each bar's 95% interval
            low = [max(0.0, value - 100 * interval["low"]) for _, value, interval in found]
            high = [max(0.0, 100 * interval["high"] - value) for _, value, interval in found]
            label = {"label": interval_label if index == 0 else None} if interval_label is not None else {}
            axis.errorbar(
                [x for x, _, _ in found], [value for _, value, _ in found], yerr=[low, high],
                fmt="none", ecolor="0.15", elinewidth=0.6, capsize=1.5, capthick=0.6, **label,
            )  # fmt: skip
    return width


@contextmanager
def type_figure(
    summary: Mapping[str, Any],
    cap: ModelCap,
    kinds: Sequence[str],
    metric: str,
    path: Path,
    *,
    width_in: float,
    title: str,
    ylabel: str,
    legend_extra: int = 0,
    edgecolor: str | None = None,
    interval_label: str | None = None,
) -> Iterator[tuple[Any, float]]:
    """A task's figure of ``metric`` per question type (:func:`type_bars`), saved to ``path`` when the block ends:
    the block adds what is the task's own (lines of chance, tick sizes) to the axes it is given.

    Parameters
    ----------
    summary : mapping
        The task's summary.
    cap : ModelCap
        The models drawn (its note written under the figure when it has one).
    kinds : sequence of str
        The types, one group of bars each.
    metric : str
        The share drawn, in % from 0 to 100.
    path : Path
        The PNG written (and its vector twin: :func:`save_figure`).
    width_in : float
        The figure's width in inches.
    title, ylabel : str
        The axes' title and y label.
    legend_extra : int, optional
        Legend entries besides the models' (the legend has at most 3 columns).
    edgecolor, interval_label : str, optional
        As :func:`type_bars` takes them.

    Yields
    ------
    tuple
        The axes and the width of one bar.
    """
    models = list(cap.shown)
    with figure_style() as plt:
        figure, axis = plt.subplots(figsize=(width_in, 2.6), layout="constrained")
        width = type_bars(axis, summary, models, kinds, metric, edgecolor=edgecolor, interval_label=interval_label)
        yield axis, width
        axis.set_xticks([x + width * (len(models) - 1) / 2 for x in range(len(kinds))], kinds)
        axis.set_ylim(0, 100)
        axis.set_ylabel(ylabel)
        axis.set_title(title)
        if models:  # outside the axes: bars reach 100%
            figure.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(3, len(models) + legend_extra))
        if cap.note:
            figure.text(0.0, 0.0, cap.note, fontsize=6.5, ha="left", va="top")
        save_figure(figure, path)
