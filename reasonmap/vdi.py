"""The text-mediated pathway of OmniMapBench: how much a model's answers depend on seeing the map.

For each token budget ``k_max`` the model first describes each map image in
at most ``k_max`` tokens (the describe request's ``max_tokens`` is
``k_max``), then answers every question about that map from its own
description alone, without the image. Beside it, the same model answers
with the image (the full pathway). All calls go through the resumable model
client (:func:`baselines.client.run_requests`). Then, per budget:

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
    approximation counted in ``n_estimated``. A server that ignores
    ``max_tokens`` can make DSI exceed 1; it is not clipped.

Samples (:mod:`reasonmap.vdi_samples`)
    Map QA questions (:mod:`benchmarks.mapqa`; correct means an exact match)
    and ReasonMap questions (the short question; correct as the paper's
    Algorithm 1 judges it, against the city's graph; maps from a folder of
    ``<city>.png`` as for the ``full`` prompt mode). A sample whose image is
    missing or unreadable is skipped and reported.
Descriptions
    Each map is described once per budget, by a prompt that does not depend
    on the question; every question about the map is answered from that one
    description. DSI averages over samples, so a map counts as often as it
    has questions.
Failed calls
    An error row in ``full`` or ``text`` counts as a wrong answer. A sample
    whose description failed is not asked from text: it counts as wrong in
    ``Acc_text`` and is left out of DSI (``n_described`` counts the others).
    Accuracies are over all samples.

Files in ``out``: ``full.jsonl``, ``describe-k{k}.jsonl`` and
``text-k{k}.jsonl`` (the client's rows: a second run asks only what is
missing), ``samples.jsonl`` (per sample: correctness with the image, and per
budget its description length and correctness from text), ``vdi.json``,
``vdi.md`` and ``vdi.png`` with ``vdi.pdf`` (VDI and DSI against ``k_max``). Same rows, same
outputs, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from baselines.client import RunSummary, run_requests
from baselines.prompts import DEFAULT_PIXEL_BUDGET, image_data_url
from baselines.requests import Request
from benchmarks.manifests import MANIFEST, begin_outputs, write_manifest
from benchmarks.provenance import versions
from reasonmap.vdi_samples import Sample, SampleSet

__all__ = [
    "DESCRIBE_PROMPT",
    "TEXT_PROMPT",
    "VDI_FILES",
    "BudgetFigures",
    "VdiResult",
    "visual_dependency_index",
    "descriptive_saturation_index",
    "parse_budgets",
    "run_vdi",
    "vdi_table",
    "plot_vdi",
]

VDI_FILES = ("samples.jsonl", "vdi.json", "vdi.md", "vdi.png", "vdi.pdf")
DESCRIBE_PROMPT = (
    "Describe this map in detail, so that someone who cannot see it could answer questions about it: its title and"
    " legend, every label and name, the lines, colours and symbols, and where things lie relative to each other."
    " Use at most {k_max} tokens."
)
TEXT_PROMPT = (
    "You cannot see the map. Here is a description of it:\n\n<description>\n{description}\n</description>\n\n"
    "Using only this description, answer the question.\n\n{question}"
)
DESCRIBE_KIND = "describe"


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


# -- the run ------------------------------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class VdiResult:
    """What a run measured (``summary`` is what ``vdi.json`` holds), the client runs (stage name and
    :class:`~baselines.client.RunSummary`), the files written and the samples skipped."""

    accuracy_full: float | None
    budgets: tuple[BudgetFigures, ...]
    summary: dict[str, Any]
    runs: tuple[tuple[str, RunSummary], ...]
    files: tuple[Path, ...]
    problems: tuple[str, ...]


def _user(content: Any) -> tuple[dict[str, Any], ...]:
    return ({"role": "user", "content": content},)


def _with_image(url: str, text: str) -> tuple[dict[str, Any], ...]:
    return _user([{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": text}])


def _rows(path: Path, model: str) -> dict[str, dict[str, Any]]:
    """The client's rows of ``model`` in a file, by id (the first of an id counts)."""
    rows: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                row = json.loads(line)
                if row.get("model") == model:
                    rows.setdefault(str(row.get("id")), row)
    return rows


def _length(row: Mapping[str, Any]) -> tuple[int, bool]:
    """A description's length in tokens, and whether it was estimated from its words (no usage reported)."""
    tokens = row.get("tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
        return tokens, False
    return len((row.get("response") or "").split()), True


def run_vdi(
    samples: SampleSet,
    *,
    endpoint: str,
    model: str,
    budgets: Sequence[int],
    out: str | Path,
    pixel_budget: int = DEFAULT_PIXEL_BUDGET,
    answer_max_tokens: int | None = None,
    **client_options: Any,
) -> VdiResult:
    """Run the full and text-mediated pathways and write VDI and DSI per budget.

    Parameters
    ----------
    samples : SampleSet
        From :func:`reasonmap.vdi_samples.load_samples` (or its ``mapqa_samples`` and ``reasonmap_samples``).
    endpoint, model
        The OpenAI-compatible base URL and the model name (see :func:`baselines.client.run_requests`).
    budgets
        The ``k_max`` values: positive integers (see :func:`parse_budgets`).
    out
        The output folder (created; its client files are resumed).
    pixel_budget
        Images above this many pixels are downscaled before they are sent.
    answer_max_tokens
        ``max_tokens`` of the answer calls (full and text); ``None`` leaves the server's default.
    **client_options
        Passed to :func:`~baselines.client.run_requests`: ``concurrency``, ``timeout``, ``max_retries``,
        ``temperature``, ``progress``, ``api_key``, ``retry_errors``, ``backoff``, ``name`` (the model's name
        in rows and in the summary; default ``model``).

    Returns
    -------
    VdiResult

    Raises
    ------
    ValueError
        A budget is not a positive integer, or an option is invalid.
    baselines.client.ClientError
        The endpoint refused or could not be reached, or an output file cannot be resumed; rows finished so far
        are kept and a new run goes on from them.
    """
    budgets = tuple(sorted(set(budgets)))
    if not budgets or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in budgets):
        raise ValueError(f"budgets: expected positive integers, got {list(budgets)!r}")
    out = Path(out)
    from graphkit.files import folder_lock

    with folder_lock(out, "vdi"):  # one writer: a second run would ask again and append to the same client files
        return _run_vdi_locked(samples, endpoint, model, budgets, out, pixel_budget, answer_max_tokens, client_options)


def _run_vdi_locked(
    samples: SampleSet,
    endpoint: str,
    model: str,
    budgets: tuple[int, ...],
    out: Path,
    pixel_budget: int,
    answer_max_tokens: int | None,
    client_options: Mapping[str, Any],
) -> VdiResult:
    """:func:`run_vdi`, once this process holds the output folder's lock."""
    manifest = begin_outputs(out / MANIFEST, "vdi")  # a run killed from here on says so
    problems = list(samples.problems)
    urls: dict[str, str] = {}
    kept: list[Sample] = []
    for sample in samples.samples:
        if sample.image_id not in urls:
            try:
                urls[sample.image_id] = image_data_url(str(sample.image), pixel_budget=pixel_budget)
            except ValueError as error:
                urls[sample.image_id] = ""
                problems.append(f"map {sample.image_id!r}: {error}")
        if urls[sample.image_id]:
            kept.append(sample)
        else:
            problems.append(f"question {sample.id!r}: its map cannot be read; skipped")
    images = list(dict.fromkeys(sample.image_id for sample in kept))
    runs: list[tuple[str, RunSummary]] = []
    # the client writes rows under the tag; they are read back by it
    tag = client_options.get("name") or model

    def ask(stage: str, requests: list[Request], max_tokens: int | None) -> dict[str, dict[str, Any]]:
        path = out / f"{stage}.jsonl"
        options = {**client_options, "max_tokens": max_tokens}
        runs.append((stage, run_requests(requests, endpoint=endpoint, model=model, out=path, **options)))
        return _rows(path, tag)

    full_rows = ask(
        "full",
        [Request(s.id, s.kind, "full", _with_image(urls[s.image_id], s.prompt)) for s in kept],
        answer_max_tokens,
    )
    correct_full = {s.id: s.id in full_rows and samples.judge(s, full_rows[s.id].get("response") or "") for s in kept}
    per_sample: dict[str, dict[str, Any]] = {s.id: {} for s in kept}
    figures = []
    for k_max in budgets:
        prompt = DESCRIBE_PROMPT.format(k_max=k_max)
        described = ask(
            f"describe-k{k_max}",
            [
                Request(image, DESCRIBE_KIND, "describe", _with_image(urls[image], prompt), {"k_max": k_max})
                for image in images
            ],
            k_max,
        )
        descriptions = {image: row for image, row in described.items() if not row.get("error")}
        answerable = [s for s in kept if s.image_id in descriptions]
        text_rows = ask(
            f"text-k{k_max}",
            [
                Request(
                    s.id,
                    s.kind,
                    "text",
                    _user(
                        TEXT_PROMPT.format(
                            description=descriptions[s.image_id].get("response") or "", question=s.prompt
                        )
                    ),
                    {"k_max": k_max},
                )
                for s in answerable
            ],
            answer_max_tokens,
        )
        lengths, estimated, correct = [], 0, 0
        for sample in kept:
            row = descriptions.get(sample.image_id)
            entry: dict[str, Any] = {"described": row is not None, "k_actual": None, "estimated": False}
            if row is not None:
                entry["k_actual"], entry["estimated"] = _length(row)
                lengths.append(entry["k_actual"])
                estimated += entry["estimated"]
            answer = text_rows.get(sample.id)
            entry["correct_text"] = int(answer is not None and samples.judge(sample, answer.get("response") or ""))
            correct += entry["correct_text"]
            per_sample[sample.id][str(k_max)] = entry
        n = len(kept)
        figures.append(
            BudgetFigures(
                k_max,
                round(correct / n, 6) if n else None,
                visual_dependency_index(Fraction(sum(correct_full.values()), n), Fraction(correct, n)) if n else None,
                descriptive_saturation_index(lengths, k_max),
                correct,
                len(lengths),
                estimated,
            )
        )
    n = len(kept)
    n_correct_full = sum(correct_full.values())
    accuracy_full = round(n_correct_full / n, 6) if n else None
    summary = {
        "benchmark": samples.benchmark,
        "model": tag,
        "n": n,
        "n_images": len(images),
        "n_correct_full": n_correct_full,
        "accuracy_full": accuracy_full,
        "vdi_defined": bool(n_correct_full),
        "budgets": [figure.to_dict() for figure in figures],
        "answer_max_tokens": answer_max_tokens,
        "pixel_budget": pixel_budget,
        "prompts": {"describe": DESCRIBE_PROMPT, "text": TEXT_PROMPT},
        "inputs": dict(samples.inputs),
        "skipped_records": len(problems),
        "versions": versions(),
    }
    from benchmarks.jsonl import write_jsonl
    from benchmarks.summaries import write_summary, write_text

    write_jsonl(
        out / "samples.jsonl",
        (
            {"id": s.id, "image": s.image_id, "correct_full": int(correct_full[s.id]), "budgets": per_sample[s.id]}
            for s in kept
        ),
    )
    write_summary(out / "vdi.json", summary)
    write_text(out / "vdi.md", vdi_table(summary))
    plot_vdi(summary, out / "vdi.png")
    write_manifest(
        manifest, [*(out / f"{stage}.jsonl" for stage, _ in runs), *(out / name for name in VDI_FILES)], "vdi"
    )
    return VdiResult(
        accuracy_full, tuple(figures), summary, tuple(runs), tuple(out / name for name in VDI_FILES), tuple(problems)
    )


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
