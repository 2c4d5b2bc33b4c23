"""The main job on the embedded data: the ceiling/floor table of the symbolic solvers.

Generates the test split (the paper's 11 held-out maps), answers every
question with every symbolic solver, scores the answers and writes the
report, all under ``out``:

- ``questions.jsonl``, ``predictions.jsonl``, ``scored.jsonl``;
- ``report/summary.json``, ``report/table.md`` (the paper's Table A6 shape:
  weighted accuracy and map score, short and long, per solver), and the
  plots ``report/difficulty.png`` and ``report/cities.png``;
- ``manifest.json``, written last: every file's size and SHA-256 (see
  :mod:`benchmarks.manifests`); a run killed before the end leaves it marked incomplete.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from baselines.solvers import SOLVERS, run_solver
from benchmarks.jsonl import write_jsonl
from benchmarks.manifests import MANIFEST, begin_outputs, write_manifest
from benchmarks.reasonmap.generate import generate_set
from benchmarks.splits import TEST_CITIES
from reasonmap.score_files import Evaluation, evaluate_files

__all__ = ["DemoResult", "run_demo"]


@dataclass(frozen=True, slots=True)
class DemoResult:
    """What ``reasonmap demo`` did.

    Attributes
    ----------
    out : Path
        The folder written.
    questions, predictions : int
        The questions generated and the answers scored.
    seconds : float
        How long it took.
    evaluation : Evaluation
        The scoring's result.
    """

    out: Path
    questions: int
    predictions: int
    seconds: float
    evaluation: Evaluation


def run_demo(
    out: str | Path, *, seed: int = 0, cities: tuple[str, ...] = TEST_CITIES, progress: bool = True
) -> DemoResult:
    """Generate, solve, score and report; see the module notes for the files written.

    Parameters
    ----------
    out : str or Path
        The folder to write.
    seed : int, optional
        Seeds generation and the noisy solver.
    cities : tuple of str, optional
        The cities asked about (the test split's by default).
    progress : bool, optional
        Show progress bars on standard error.

    Returns
    -------
    DemoResult
    """
    from graphkit.cities import city_graph

    started = time.perf_counter()
    folder = Path(out)
    manifest = begin_outputs(folder / MANIFEST, "demo")  # a run killed from here on says so
    questions = generate_set([city_graph(city) for city in cities], seed=seed, progress=progress)
    write_jsonl(folder / "questions.jsonl", questions)
    predictions = []
    names = list(SOLVERS)
    if progress:
        from tqdm import tqdm

        names = tqdm(names, unit="solver", desc="solving", file=sys.stderr)
    for name in names:
        predictions.extend(run_solver(name, questions, lambda question: city_graph(question.city), seed=seed))
    write_jsonl(folder / "predictions.jsonl", predictions)
    evaluation = evaluate_files(
        folder / "questions.jsonl",
        folder / "predictions.jsonl",
        out=folder / "scored.jsonl",
        report_dir=folder / "report",
    )
    names = ("questions.jsonl", "predictions.jsonl", "scored.jsonl")
    write_manifest(
        manifest, [*(folder / name for name in names), *evaluation.report_files, folder / "report" / MANIFEST], "demo"
    )
    return DemoResult(folder, len(questions), len(predictions), time.perf_counter() - started, evaluation)
