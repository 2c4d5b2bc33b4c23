"""The map QA task (OmniMapBench-style objective questions on any map image) as a registry record.

See :mod:`benchmarks.tasks`. Map QA questions carry their own image and no
Metro Data, so they are asked with the map (``full``) or without it
(``text-only``); one scoring variant, no weighting, no solver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from benchmarks.mapqa.io import is_mapqa_file, load_questions, read_predictions
from benchmarks.mapqa.metrics import MAPQA_METRICS
from benchmarks.mapqa.records import KIND, MapPrediction, MapQuestion, MapVerdict
from benchmarks.repeats import with_repeats
from benchmarks.task_types import deferred, loaded_by, prediction_key, variant_scorer
from benchmarks.tasks import Loaded, MapPolicy, Prompt, ScoreOptions, Task, Variant

if TYPE_CHECKING:
    from benchmarks.samples import SampleSet

__all__ = ["MAPQA", "mapqa_samples"]


def _prompts(question: MapQuestion) -> list[Prompt]:
    return [Prompt(question.id, KIND, question.text(), image=question.image)]


def _summarize(
    verdicts: Sequence[MapVerdict],
    loaded: Loaded,
    options: ScoreOptions,
    inputs: Mapping[str, Any],
    problems: Sequence[str],
) -> dict[str, Any]:
    from benchmarks.mapqa.report import summarize

    summary = summarize(verdicts, loaded.questions, inputs=inputs, problems=problems, cluster=options.cluster)
    return with_repeats(summary, verdicts)


def mapqa_samples(questions: Iterable[MapQuestion], *, images: str | Path) -> SampleSet:
    """Samples of map questions (one request each), with their own map images; correct means an exact match.

    Parameters
    ----------
    questions : iterable of MapQuestion
        The questions.
    images : str or Path
        The folder the questions' ``image`` paths are relative to.

    Returns
    -------
    SampleSet
        One sample per question whose image is there (the others in its problems, skipped), judged correct when
        the map QA scorer gives the answer 1.
    """
    from benchmarks.mapqa.io import image_path
    from benchmarks.mapqa.scoring import score_prediction
    from benchmarks.samples import Sample, SampleSet

    by_id: dict[str, MapQuestion] = {}
    samples, problems = [], []
    for question in questions:
        path = image_path(question, images)
        if not path.is_file():
            problems.append(f"question {question.id!r}: no map image at {path}; skipped")
            continue
        by_id[question.id] = question
        samples.append(Sample(question.id, KIND, Path(question.image).as_posix(), path, question.text()))

    def judge(sample: Sample, response: str) -> bool:
        return score_prediction(MapPrediction(sample.id, "vdi", response), by_id[sample.id]).correct == 1

    return SampleSet("mapqa", tuple(samples), judge, tuple(problems))


def _samples(loaded: Loaded, maps: Path | None, source: Path) -> SampleSet:
    return mapqa_samples(loaded.questions.values(), images=maps if maps is not None else source.parent)


#: The registry record.
MAPQA = Task(
    name="mapqa",
    title="Map QA (OmniMapBench-style objective questions)",
    modes=("full", "text-only"),
    # ``toolkit`` (formerly ``paper``): the toolkit's own rules; no paper prints an algorithm for these answers
    variants=(
        Variant(
            "toolkit",
            "exact match, Jaccard and Kendall's tau per answer type",
            deferred("benchmarks.mapqa.scoring:score_predictions"),
            former_names=("paper",),
        ),
    ),
    weightings=("none",),
    default_weighting="none",
    solvers=(),
    recognise=is_mapqa_file,
    load=loaded_by(load_questions),
    prompts=_prompts,
    readers=MappingProxyType({"jsonl": lambda path, options, /: read_predictions(path)}),  # the toolkit's rows only
    answer_key=prediction_key,
    score=variant_scorer(lambda: MAPQA),
    summarize=_summarize,
    write_report=deferred("benchmarks.mapqa.report:write_report"),  # tables only: map QA draws no figure
    table=deferred("benchmarks.mapqa.report:markdown_table"),
    samples=_samples,
    maps=MapPolicy(own_images=True),
    metrics=MAPQA_METRICS,
)
