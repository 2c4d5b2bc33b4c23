"""Figures of a diagnosis run: labels per model, and crops of the map where a model went wrong.

:func:`plot_labels` draws one stacked bar of failure labels per model.
:func:`confusion_crops` picks the line confusions and misread stations worth
showing (one per city, station and pair of lines, round-robin over cities and
kinds), and :func:`plot_confusions` draws a crop of the map around each: the
station in question ringed and its label boxed, the claimed line dashed, the
right line dotted, a legend saying so, and a title naming the model, city,
label and what was confused. Crops grow to keep every label they touch whole.
Both figures are written as PNG and PDF (:mod:`benchmarks.plotting`).
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.plotting import PAGE_WIDTH, figure_style, save_figure, top_models
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import ParsedAnswer, Question
from graphkit.graph import TransitGraph
from vision.diagnose import LABELS, Diagnosis
from vision.evidence import MapEvidence

__all__ = [
    "CONFUSIONS",
    "LABEL_COLOURS",
    "ConfusionCrop",
    "confused_station",
    "confusion_crops",
    "crop_window",
    "plot_labels",
    "plot_confusions",
]

CONFUSIONS = ("line_confusion_colour", "line_confusion_layout", "misread_station")
_SHADES = {
    "correct": ("#2e7d32",),
    "grounding": ("#b71c1c", "#e53935", "#fb8c00", "#fdd835", "#8d6e63"),
    "reasoning": ("#0d47a1", "#42a5f5", "#90caf9"),
    "other": ("#424242", "#9e9e9e", "#e0e0e0"),
}


def _label_colours() -> dict[str, str]:
    """Grounding labels in warm colours, reasoning labels in blues, the rest in greys, correct in green."""
    used: Counter[str] = Counter()
    colours = {}
    for label, (category, _) in LABELS.items():
        shades = _SHADES[category]
        colours[label] = shades[used[category] % len(shades)]
        used[category] += 1
    return colours


LABEL_COLOURS = _label_colours()


@dataclass(frozen=True, slots=True)
class ConfusionCrop:
    """One diagnosis to show: the ``station`` it is about, and the map ``image`` (Pillow) and ``evidence``.

    Attributes
    ----------
    diagnosis : Diagnosis
        The confusion.
    station : str
        The station it is about.
    image : PIL image
        The map.
    evidence : MapEvidence
        Where the map shows its stations and lines.
    """

    diagnosis: Diagnosis
    station: str
    image: Any
    evidence: MapEvidence


def plot_labels(diagnoses: Iterable[Diagnosis], path: str | Path, *, models: Sequence[str] = ()) -> tuple[Path, Path]:
    """One stacked bar of labels per model (in ``models`` order, else sorted); written as PNG and PDF.

    At most :data:`~benchmarks.plotting.PLOT_MODELS` bars: the models with the largest share of correct
    answers (ties by name), with a note under the plot.

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The diagnoses to count.
    path : str or Path
        The PNG to write.
    models : sequence of str, optional
        The models' order (sorted by default).

    Returns
    -------
    png, pdf : Path
        The two files written (the PDF beside the PNG).
    """
    rows = list(diagnoses)
    names = list(models) or sorted({diagnosis.model for diagnosis in rows})
    counts = Counter((diagnosis.model, diagnosis.label) for diagnosis in rows)
    answers = Counter(diagnosis.model for diagnosis in rows)
    right = Counter(diagnosis.model for diagnosis in rows if diagnosis.category == "correct")
    cap = top_models(
        {name: right[name] / answers[name] if answers[name] else None for name in names}, metric="share correct"
    )
    names = list(cap.shown)
    with figure_style() as plt:
        figure, axis = plt.subplots(figsize=(PAGE_WIDTH * 0.75, 2.8), layout="constrained")
        bottoms = [0] * len(names)
        for label in LABELS:
            heights = [counts[(model, label)] for model in names]
            if any(heights):
                axis.bar(
                    names, heights, bottom=bottoms, color=LABEL_COLOURS[label], label=label,
                    edgecolor="white", linewidth=0.4,
                )  # fmt: skip
                bottoms = [bottom + height for bottom, height in zip(bottoms, heights)]
        axis.set_ylabel("answers")
        axis.tick_params(axis="x", labelrotation=15)
        axis.set_title("Failure labels per model")
        handles, labels = axis.get_legend_handles_labels()
        axis.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.0, 1.0))  # top of stack first
        if cap.note:
            figure.text(0.0, 0.0, cap.note, fontsize=6.5, ha="left", va="top")
        return save_figure(figure, path)


def confused_station(diagnosis: Diagnosis, question: Question, response: str, graph: TransitGraph) -> str | None:
    """The station a confusion is about: the one named in its evidence, else the faulty section's departure.

    Parameters
    ----------
    diagnosis : Diagnosis
        A line confusion.
    question : Question
        Its question.
    response : str
        The answer diagnosed.
    graph : TransitGraph
        The city.

    Returns
    -------
    str or None
        The station, or ``None`` when neither names one.
    """
    found = diagnosis.evidence
    for name in (found.get("station"), found.get("unreadable"), found.get("near_miss"), *found.get("expected", ())[:1]):
        if name in graph.stations:
            return name
    template = question.long_template if diagnosis.question == "long" else None
    answer = parse_answer(response, kind=diagnosis.question, template=template)
    if not isinstance(answer, ParsedAnswer) or found.get("section", 0) >= len(answer.sections):
        return None
    section = answer.sections[found.get("section", 0)]
    text = section.arrival_stop if found.get("field") == "arrival_stop" else section.departure_stop
    names = graph.station_index.lookup(text).names
    return names[0] if names else None


def confusion_crops(
    diagnoses: Iterable[Diagnosis],
    questions: Mapping[str, Question],
    responses: Mapping[tuple[str, str, str], str],
    graph_for: Callable[[str], TransitGraph],
    maps: Mapping[str, tuple[Any, MapEvidence]],
    *,
    limit: int = 12,
    models: Sequence[str] = (),
) -> list[ConfusionCrop]:
    """Up to ``limit`` confusions to crop, one per (city, station, claimed and right line), cities taking turns.

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The diagnoses; those naming a line confusion are candidates.
    questions : mapping of str to Question
        The route questions by id.
    responses : mapping
        ``(model, id, kind)`` to the answer text.
    graph_for : callable
        A city's name to its graph.
    maps : mapping
        A city to its ``(image, evidence)``; cities without an image are left out.
    limit : int, optional
        The most crops.
    models : sequence of str, optional
        Only these models' diagnoses (all by default).

    Returns
    -------
    list of ConfusionCrop
        The confusions to crop, in the order they are drawn.
    """
    rank = {model: index for index, model in enumerate(models)}
    chosen: dict[tuple[str, str], list[ConfusionCrop]] = {}
    seen: set[tuple[Any, ...]] = set()
    ordered = sorted(
        (diagnosis for diagnosis in diagnoses if diagnosis.label in CONFUSIONS and diagnosis.city in maps),
        key=lambda d: (CONFUSIONS.index(d.label), d.city, rank.get(d.model, len(rank)), d.model, d.id, d.question),
    )
    for diagnosis in ordered:
        question = questions[diagnosis.id]
        response = responses.get((diagnosis.model, diagnosis.id, diagnosis.question), "")
        station = confused_station(diagnosis, question, response, graph_for(diagnosis.city))
        image, evidence = maps[diagnosis.city]
        key = (diagnosis.city, station, diagnosis.evidence.get("claimed_line"), diagnosis.evidence.get("right_line"))
        found = evidence.station(station) if station is not None else None
        if found is None or found.point is None or key in seen:
            continue
        seen.add(key)
        chosen.setdefault((diagnosis.city, diagnosis.label), []).append(
            ConfusionCrop(diagnosis, station, image, evidence)
        )
    crops: list[ConfusionCrop] = []
    cities = sorted({city for city, _ in chosen})
    while len(crops) < limit and any(chosen.values()):
        for key in [(city, label) for city in cities for label in CONFUSIONS]:
            if chosen.get(key) and len(crops) < limit:
                crops.append(chosen[key].pop(0))
    return crops


def _cuts(box: list[float], label: tuple[float, float, float, float]) -> bool:
    """``label`` overlaps ``box`` without lying wholly inside it."""
    inside = box[0] <= label[0] and box[1] <= label[1] and label[2] <= box[2] and label[3] <= box[3]
    overlaps = label[0] < box[2] and label[2] > box[0] and label[1] < box[3] and label[3] > box[1]
    return overlaps and not inside


def crop_window(
    evidence: MapEvidence, station: str, size: tuple[int, int], *, half: float = 130.0
) -> tuple[int, int, int, int]:
    """A window ``(x0, y0, x1, y1)`` around a station, with its label, in which no label is cut.

    A label the window cuts is either taken in (when that grows the window by less than a third, and
    to at most twice its first area) or left out by moving the one edge that loses least, never past
    the station and its own label (with room for the box drawn round it, and any label touching them).

    Parameters
    ----------
    evidence : MapEvidence
        The map's stations and labels.
    station : str
        The station.
    size : (int, int)
        The map's width and height (the window stays inside).
    half : float, optional
        Half the window's first side, in pixels.

    Returns
    -------
    (int, int, int, int)
        The window.

    Examples
    --------
    >>> from vision.evidence import MapEvidence
    >>> truth = {"stations": {"A": {"x": 100, "y": 100, "label_box": [110, 90, 300, 110]},
    ...                       "B": {"x": 260, "y": 160, "label_box": [200, 170, 330, 190]},
    ...                       "C": {"x": 20, "y": 300, "label_box": [30, 220, 700, 240]}}, "lines": {}}
    >>> crop_window(MapEvidence.from_truth(truth), "A", (1000, 1000))
    (0, 0, 330, 220)
    """
    found = evidence.station(station)
    x, y = found.point
    core = [x - 12, y - 12, x + 12, y + 12]
    if found.box is not None:  # the label, and room for the box drawn round it
        bx0, by0, bx1, by1 = found.box
        core = [min(core[0], bx0 - 6), min(core[1], by0 - 6), max(core[2], bx1 + 6), max(core[3], by1 + 6)]
    labels = [other.box for name, other in evidence.stations.items() if other.box is not None and name != station]
    for _ in range(len(labels)):  # a label touching the core joins it: it can only be kept whole by taking it in
        touching = [b for b in labels if _cuts(core, b)]
        if not touching:
            break
        for b in touching:
            core = [min(core[0], b[0]), min(core[1], b[1]), max(core[2], b[2]), max(core[3], b[3])]
    width, height = size
    box = [max(0.0, min(core[0], x - half)), max(0.0, min(core[1], y - half))]
    box += [min(float(width), max(core[2], x + half)), min(float(height), max(core[3], y + half))]
    start = (box[2] - box[0]) * (box[3] - box[1])
    for round_ in range(200):
        cut = next((label for label in labels if _cuts(box, label)), None)
        if cut is None:
            break
        area = (box[2] - box[0]) * (box[3] - box[1])
        grown = [min(box[0], cut[0]), min(box[1], cut[1]), max(box[2], cut[2]), max(box[3], cut[3])]
        shrunk = [
            candidate
            for candidate in (
                [cut[2], box[1], box[2], box[3]],
                [box[0], cut[3], box[2], box[3]],
                [box[0], box[1], cut[0], box[3]],
                [box[0], box[1], box[2], cut[1]],
            )
            if candidate[0] <= core[0]
            and candidate[1] <= core[1]
            and core[2] <= candidate[2]
            and core[3] <= candidate[3]
        ]
        grown_area = (grown[2] - grown[0]) * (grown[3] - grown[1])
        # growing first, within bounds; after a few rounds only shrinking, so that the two cannot take turns
        if not shrunk or (round_ < 10 and grown_area <= area * 4 / 3 and grown_area <= 2 * start):
            box = grown
        else:
            box = max(shrunk, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
    return int(box[0]), int(box[1]), math.ceil(box[2]), math.ceil(box[3])


def common_scale(
    windows: Sequence[tuple[int, int, int, int]], sizes: Sequence[tuple[int, int]]
) -> list[tuple[int, int, int, int]]:
    """The windows grown to the largest one's width and height about their centres, each slid inside its
    image (of ``sizes``) where it fits: drawn in equal panels, every crop then has one scale.

    Examples
    --------
    >>> common_scale([(10, 10, 30, 20), (50, 0, 110, 40)], [(200, 100), (200, 100)])
    [(0, 0, 60, 40), (50, 0, 110, 40)]
    >>> common_scale([(0, 0, 10, 10), (0, 0, 40, 40)], [(20, 20), (100, 100)])
    [(-15, -15, 25, 25), (0, 0, 40, 40)]
    """
    if not windows:
        return []
    width = max(x1 - x0 for x0, _, x1, _ in windows)
    height = max(y1 - y0 for _, y0, _, y1 in windows)
    grown = []
    for (x0, y0, x1, y1), size in zip(windows, sizes):
        left = (x0 + x1) // 2 - width // 2
        top = (y0 + y1) // 2 - height // 2
        if width <= size[0]:  # slid back inside the image; a window wider than it stays centred
            left = min(max(left, 0), size[0] - width)
        if height <= size[1]:
            top = min(max(top, 0), size[1] - height)
        grown.append((left, top, left + width, top + height))
    return grown


def _detail(diagnosis: Diagnosis) -> str:
    found = diagnosis.evidence
    if diagnosis.label == "misread_station":
        return f"read as “{found.get('claimed_station', '?')}”"
    distance = found.get("colour_distance")
    shade = f" (ΔE {distance:.1f})" if distance is not None else ""
    return f"{found.get('claimed_line')} for {found.get('right_line')}{shade}"


def plot_confusions(
    crops: Sequence[ConfusionCrop], path: str | Path, *, columns: int = 3, fonts: Sequence[str | Path] = ()
) -> tuple[Path, Path]:
    """A grid of map crops, one per confusion, with a legend of the overlays; written as PNG and PDF.

    Parameters
    ----------
    crops : sequence of ConfusionCrop
        The confusions, as :func:`confusion_crops` picks them.
    path : str or Path
        The PNG to write.
    columns : int, optional
        Crops per row.
    fonts : sequence of font files, optional
        Back up the default font in titles (a CJK font for Chinese station names).

    Returns
    -------
    png, pdf : Path
        The two files written (the PDF beside the PNG).
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    rows = max(1, -(-len(crops) // columns))
    panel = PAGE_WIDTH / columns
    title_characters = int(panel * 72 / (7 * 0.6))  # 7 pt characters average 0.6 em: the title fits its panel
    with figure_style(fonts=fonts) as plt:
        figure, grid = plt.subplots(
            rows, columns, figsize=(PAGE_WIDTH, panel * 1.12 * rows + 0.3), squeeze=False, layout="constrained"
        )
        for axis in grid.flat:
            axis.axis("off")
        if not crops:
            grid[0][0].text(0.5, 0.5, "no line confusion or misread station in this run", ha="center", va="center")
        # one scale for all: crops of different maps differ in size, so each panel's window is the largest's size
        windows = [crop_window(crop.evidence, crop.station, crop.image.size) for crop in crops]
        shared = common_scale(windows, [crop.image.size for crop in crops])
        for axis, crop, (x0, y0, x1, y1) in zip(grid.flat, crops, shared):
            axis.imshow(crop.image.crop((x0, y0, x1, y1)), extent=(x0, x1, y1, y0))
            found = crop.diagnosis.evidence
            for line, style in ((found.get("claimed_line"), (0, (4, 2))), (found.get("right_line"), (0, (1, 1.5)))):
                drawn = crop.evidence.lines.get(line) if line else None
                if drawn is not None and drawn.path:
                    xs, ys = zip(*drawn.path)
                    axis.plot(xs, ys, linestyle=style, color="black", linewidth=1.3)
            station = crop.evidence.station(crop.station)
            axis.plot(*station.point, "o", markersize=14, markerfacecolor="none", markeredgecolor="#CC79A7", mew=2)
            if station.box is not None:
                bx0, by0, bx1, by1 = station.box
                axis.add_patch(
                    Rectangle((bx0 - 3, by0 - 3), bx1 - bx0 + 6, by1 - by0 + 6, fill=False, ec="#CC79A7", lw=1.2)
                )
            axis.set_xlim(x0, x1)
            axis.set_ylim(y1, y0)
            diagnosis = crop.diagnosis
            lines = (
                f"{diagnosis.model} · {diagnosis.city} · {diagnosis.label}",
                f"{crop.station}: {_detail(diagnosis)}",
            )
            axis.set_title("\n".join(textwrap.fill(line, title_characters) for line in lines), fontsize=7)
        legend = [
            Line2D([], [], color="#CC79A7", marker="o", markerfacecolor="none", linestyle="", markersize=7, mew=1.5),
            Rectangle((0, 0), 1, 1, fill=False, ec="#CC79A7", lw=1.2),
            Line2D([], [], color="black", linestyle=(0, (4, 2)), linewidth=1.3),
            Line2D([], [], color="black", linestyle=(0, (1, 1.5)), linewidth=1.3),
        ]
        names = ["station in question", "its label", "claimed line's path", "right line's path"]
        figure.legend(legend, names, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=4)
        return save_figure(figure, path)
