"""The perception-probe task as a registry record: see :mod:`benchmarks.tasks`.

Probes need no graph to score (the references are in the records); one scoring variant (exact and partial),
no weighting (every probe weighs 1), two solvers (``oracle``, ``echo``), every prompt mode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from benchmarks.inspect_scores import one_sample_per_question
from benchmarks.probe.io import is_probe_file, load_questions, read_predictions
from benchmarks.probe.metrics import PROBE_METRICS
from benchmarks.probe.questions import DEFAULT_PER_TYPE, ProbePrediction, ProbeQuestion
from benchmarks.repeats import with_repeats
from benchmarks.task_types import deferred, loaded_by, prediction_key, typed_prompts, variant_scorer
from benchmarks.tasks import Generation, InspectSpec, Loaded, ScoreOptions, Task, Variant

if TYPE_CHECKING:
    from benchmarks.samples import SampleSet
    from graphkit.graph import TransitGraph

__all__ = ["PROBE", "probe_samples"]


def _summarize(
    verdicts: Sequence[Any], loaded: Loaded, options: ScoreOptions, inputs: Mapping[str, Any], problems: Sequence[str]
) -> dict[str, Any]:
    from benchmarks.probe.report import summarize

    summary = summarize(verdicts, inputs=inputs, problems=problems)
    summary["variant"] = options.variant
    return with_repeats(summary, verdicts)


def _generate(
    graphs: Iterable[TransitGraph], *, seed: int, progress: bool, per_type: int, truth: str | None
) -> list[ProbeQuestion]:
    from benchmarks.probe.questions import generate_probe_set

    return generate_probe_set(graphs, seed=seed, per_type=per_type, truth=truth, progress=progress)


def _describe(questions: Sequence[ProbeQuestion]) -> str:
    from benchmarks.probe.questions import format_probe_counts

    return format_probe_counts(questions)


def probe_samples(questions: Iterable[ProbeQuestion], *, maps: str | Path) -> SampleSet:
    """Samples of probes (asked as written; the request kind is the probe's type).

    Parameters
    ----------
    questions : iterable of ProbeQuestion
        The probes.
    maps : str or Path
        The folder of city maps (:func:`benchmarks.samples.with_city_maps`).

    Returns
    -------
    SampleSet
        One sample per probe with a map (the others in its problems, skipped), judged correct when the probe
        scorer gives the answer 1 (an exact answer).
    """
    from benchmarks.samples import judged_exactly, typed_samples

    correct = judged_exactly(deferred("benchmarks.probe.scoring:score_prediction"), ProbePrediction)
    return typed_samples("probe", questions, maps, correct)


def _samples(loaded: Loaded, maps: Path, source: Path) -> SampleSet:
    return probe_samples(loaded.questions.values(), maps=maps)


#: The registry record.
PROBE = Task(
    name="probe",
    title="Perception probes (lines at a station, follow a line, neighbours, same line, count between)",
    modes=("full", "text-only", "symbolic"),
    # ``toolkit`` (formerly ``paper``): the toolkit's own rules; probes are the toolkit's, not a paper's
    variants=(
        Variant(
            "toolkit",
            "exact answers, and partial: set F1 and edit similarity",
            deferred("benchmarks.probe.scoring:score_predictions"),
            former_names=("paper",),
        ),
    ),
    weightings=("none",),
    default_weighting="none",
    solvers=("oracle", "echo", "noisy"),
    solve="baselines.probe_solvers:solve_probe",
    recognise=is_probe_file,
    load=loaded_by(load_questions),
    prompts=typed_prompts,
    readers=MappingProxyType({"jsonl": lambda path, options, /: read_predictions(path)}),  # the toolkit's rows only
    answer_key=prediction_key,
    score=variant_scorer(lambda: PROBE),
    summarize=_summarize,
    write_report=deferred("benchmarks.probe.report:write_report"),
    table=deferred("benchmarks.probe.report:markdown_table"),
    generation=Generation(_generate, {"per_type": DEFAULT_PER_TYPE, "truth": None}, _describe, noun="probes"),
    samples=_samples,
    metrics=PROBE_METRICS,
    inspect=InspectSpec(
        options={},
        question_set="benchmarks.probe.inspect_scorer:probe_set",
        scorer="benchmarks.probe.inspect_scorer:probe_scorer",
        sample=one_sample_per_question,
        dataset="reasonmap-probe",
    ),
)
