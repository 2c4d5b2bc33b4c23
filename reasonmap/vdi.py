"""The text-mediated pathway of OmniMapBench: how much a model's answers depend on seeing the map.

For each token budget ``k_max`` the model first describes each map image in
at most ``k_max`` tokens (the describe request's ``max_tokens`` is
``k_max``), then answers every question about that map from its own
description alone, without the image. Beside it, the same model answers
with the image (the full pathway). All calls go through the resumable model
client (:func:`baselines.client.run_requests`). Then, per budget:

The measures, the prompts and the report (:mod:`benchmarks.vdi`):
``VDI(k_max) = (Acc_full - Acc_text(k_max)) / Acc_full``, the share of the
full-image accuracy lost; ``DSI(k_max)``, the mean share of the budget the
descriptions used. This module asks the model and composes them:

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baselines.client import RunSummary, run_requests
from baselines.prompts import DEFAULT_PIXEL_BUDGET, image_data_url
from baselines.requests import Request
from benchmarks.manifests import MANIFEST, begin_outputs, write_manifest
from benchmarks.provenance import versions
from benchmarks.samples import Sample, SampleSet
from benchmarks.vdi import (
    DESCRIBE_PROMPT,
    TEXT_PROMPT,
    BudgetFigures,
    budget_figures,
    description_length,
    plot_vdi,
    vdi_table,
)

__all__ = ["VDI_FILES", "VdiResult", "run_vdi"]

VDI_FILES = ("samples.jsonl", "vdi.json", "vdi.md", "vdi.png", "vdi.pdf")
DESCRIBE_KIND = "describe"


@dataclass(frozen=True, slots=True)
class VdiResult:
    """What a run measured (``summary`` is what ``vdi.json`` holds), the client runs (stage name and
    :class:`~baselines.client.RunSummary`), the files written and the samples skipped.

    Attributes
    ----------
    accuracy_full : float or None
        The accuracy with the full map.
    budgets : tuple of BudgetFigures
        Each description budget's figures.
    summary : dict
        What ``vdi.json`` holds.
    runs : tuple of (str, RunSummary)
        Each client stage's run.
    files : tuple of Path
        The files written.
    problems : tuple of str
        The samples skipped.
    """

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


@dataclass(slots=True)
class _Client:
    """The run's model client: asks one stage's requests (resuming its file), keeps its summary, reads its rows."""

    endpoint: str
    model: str
    out: Path
    options: Mapping[str, Any]
    runs: list[tuple[str, RunSummary]] = field(default_factory=list)

    @property
    def tag(self) -> str:
        """The model's name in the rows (the client writes rows under it; they are read back by it)."""
        return self.options.get("name") or self.model

    def ask(self, stage: str, requests: list[Request], max_tokens: int | None) -> dict[str, dict[str, Any]]:
        path = self.out / f"{stage}.jsonl"
        options = {**self.options, "max_tokens": max_tokens}
        self.runs.append((stage, run_requests(requests, endpoint=self.endpoint, model=self.model, out=path, **options)))
        return _rows(path, self.tag)


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
        From :func:`reasonmap.vdi_samples.load_samples` (or a task's own, e.g.
        :func:`benchmarks.reasonmap.task.reasonmap_samples`).
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
        manifest = begin_outputs(out / MANIFEST, "vdi")  # a run killed from here on says so
        kept, urls, problems = _readable(samples, pixel_budget)
        client = _Client(endpoint, model, out, client_options)
        correct_full = _full_pathway(client, samples, kept, urls, answer_max_tokens)
        figures, entries = [], []
        for k_max in budgets:
            figure, entry = _text_pathway(client, samples, kept, urls, k_max, answer_max_tokens, correct_full)
            figures.append(figure)
            entries.append(entry)
        per_sample = {s.id: {str(k_max): entry[s.id] for k_max, entry in zip(budgets, entries)} for s in kept}
        summary = _summary(samples, kept, client.tag, correct_full, figures, answer_max_tokens, pixel_budget, problems)
        _write(out, manifest, client.runs, kept, correct_full, per_sample, summary)
    return VdiResult(
        summary["accuracy_full"],
        tuple(figures),
        summary,
        tuple(client.runs),
        tuple(out / name for name in VDI_FILES),
        tuple(problems),
    )


def _readable(samples: SampleSet, pixel_budget: int) -> tuple[list[Sample], dict[str, str], list[str]]:
    """The samples whose map can be read, each map's data URL (encoded once), and the problems (the set's and
    the unreadable maps')."""
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
    return kept, urls, problems


def _full_pathway(
    client: _Client, samples: SampleSet, kept: list[Sample], urls: Mapping[str, str], max_tokens: int | None
) -> dict[str, bool]:
    """Every sample asked with its map image: whether each answer is right (a failed call is wrong)."""
    rows = client.ask(
        "full", [Request(s.id, s.kind, "full", _with_image(urls[s.image_id], s.prompt)) for s in kept], max_tokens
    )
    return {s.id: s.id in rows and samples.judge(s, rows[s.id].get("response") or "") for s in kept}


def _text_pathway(
    client: _Client,
    samples: SampleSet,
    kept: list[Sample],
    urls: Mapping[str, str],
    k_max: int,
    max_tokens: int | None,
    correct_full: Mapping[str, bool],
) -> tuple[BudgetFigures, dict[str, dict[str, Any]]]:
    """One budget: each map described once in at most ``k_max`` tokens, then each question of a described map
    answered from its description alone. Returns the budget's figures and each sample's entry."""
    images = list(dict.fromkeys(sample.image_id for sample in kept))
    prompt = DESCRIBE_PROMPT.format(k_max=k_max)
    described = client.ask(
        f"describe-k{k_max}",
        [
            Request(image, DESCRIBE_KIND, "describe", _with_image(urls[image], prompt), {"k_max": k_max})
            for image in images
        ],
        k_max,
    )
    descriptions = {image: row for image, row in described.items() if not row.get("error")}
    text_rows = client.ask(
        f"text-k{k_max}",
        [
            Request(
                s.id,
                s.kind,
                "text",
                _user(
                    TEXT_PROMPT.format(description=descriptions[s.image_id].get("response") or "", question=s.prompt)
                ),
                {"k_max": k_max},
            )
            for s in kept
            if s.image_id in descriptions
        ],
        max_tokens,
    )
    entries: dict[str, dict[str, Any]] = {}
    lengths, estimated, correct = [], 0, 0
    for sample in kept:
        row = descriptions.get(sample.image_id)
        entry: dict[str, Any] = {"described": row is not None, "k_actual": None, "estimated": False}
        if row is not None:
            entry["k_actual"], entry["estimated"] = description_length(row)
            lengths.append(entry["k_actual"])
            estimated += entry["estimated"]
        answer = text_rows.get(sample.id)
        entry["correct_text"] = int(answer is not None and samples.judge(sample, answer.get("response") or ""))
        correct += entry["correct_text"]
        entries[sample.id] = entry
    figure = budget_figures(
        k_max,
        n=len(kept),
        n_correct_full=sum(correct_full.values()),
        n_correct_text=correct,
        lengths=lengths,
        n_estimated=estimated,
    )
    return figure, entries


def _summary(
    samples: SampleSet,
    kept: list[Sample],
    tag: str,
    correct_full: Mapping[str, bool],
    figures: Sequence[BudgetFigures],
    answer_max_tokens: int | None,
    pixel_budget: int,
    problems: Sequence[str],
) -> dict[str, Any]:
    """What ``vdi.json`` holds."""
    n = len(kept)
    n_correct_full = sum(correct_full.values())
    return {
        "benchmark": samples.benchmark,
        "model": tag,
        "n": n,
        "n_images": len(dict.fromkeys(sample.image_id for sample in kept)),
        "n_correct_full": n_correct_full,
        "accuracy_full": round(n_correct_full / n, 6) if n else None,
        "vdi_defined": bool(n_correct_full),
        "budgets": [figure.to_dict() for figure in figures],
        "answer_max_tokens": answer_max_tokens,
        "pixel_budget": pixel_budget,
        "prompts": {"describe": DESCRIBE_PROMPT, "text": TEXT_PROMPT},
        "inputs": dict(samples.inputs),
        "skipped_records": len(problems),
        "versions": versions(),
    }


def _write(
    out: Path,
    manifest: Path | None,
    runs: Sequence[tuple[str, RunSummary]],
    kept: list[Sample],
    correct_full: Mapping[str, bool],
    per_sample: Mapping[str, Mapping[str, Any]],
    summary: Mapping[str, Any],
) -> None:
    """``samples.jsonl``, ``vdi.json``, ``vdi.md``, the figure and the manifest (each written atomically)."""
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
