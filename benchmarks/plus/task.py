"""The ReasonMap-Plus task as a registry record: see :mod:`benchmarks.tasks`.

Plus questions need no graph to score (the answers are in the records);
variant ``official`` reads each answer the way the public ``main_plus.py``
does, ``vlmevalkit`` the way VLMEvalKit's ``reasonmap_plus.py`` does,
everything else (rows, weights, skips) being the same.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence, Set
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from benchmarks.difficulty import WEIGHTINGS
from benchmarks.inspect_scores import one_sample_per_question
from benchmarks.jsonl import Problem
from benchmarks.plus.loading import is_plus_file, is_plus_sheet, load_questions, read_plus_sheet, read_predictions
from benchmarks.plus.metrics import PLUS_METRICS
from benchmarks.plus.official import PLUS_MODELS
from benchmarks.plus.questions import DEFAULT_PER_TYPE
from benchmarks.plus.records import PlusPrediction, PlusQuestion
from benchmarks.repeats import with_repeats
from benchmarks.task_types import deferred, loaded_by, prediction_key, typed_prompts
from benchmarks.tasks import Generation, InspectSpec, Loaded, Reader, ReadOptions, ScoreOptions, Task, Variant

if TYPE_CHECKING:
    from benchmarks.official_rules import RuleChoice
    from benchmarks.plus.scoring import PlusVerdict
    from benchmarks.samples import SampleSet
    from graphkit.executors import Executor
    from graphkit.graph import TransitGraph

__all__ = ["PLUS", "VARIANTS", "plus_samples"]

DEFAULT_WEIGHTING = "city"


class PlusReading(Protocol):
    """A plus variant's reading: the toolkit's verdicts re-read (the same rows, weights and skips), from the
    predictions by ``(id, model, repeat)`` and the questions by id (a variant's
    :attr:`~benchmarks.tasks.Variant.options` come as keywords)."""

    def __call__(
        self,
        verdicts: list[PlusVerdict],
        by_key: Mapping[Hashable, PlusPrediction],
        questions: Mapping[str, PlusQuestion],
        /,
        **options: Any,
    ) -> list[PlusVerdict]: ...


def _as_written(verdicts: list[PlusVerdict], by_key, questions, /) -> list[PlusVerdict]:
    """The toolkit's own reading of each answer: the verdicts as the scorer gave them."""
    return verdicts


def _reread(read, verdicts: list[PlusVerdict], by_key, questions, given: Mapping[str, Any]) -> list[PlusVerdict]:
    # the same rows, weights and skips; only the reading of each answer differs
    return [read(by_key[(v.id, v.model, v.repeat)], questions[v.id], v.weight, **given) for v in verdicts]


def _public_reading(verdicts, by_key, questions, /, *, rules: Mapping[str, RuleChoice]) -> list[PlusVerdict]:
    from benchmarks.plus.official import official_plus_verdict

    return _reread(official_plus_verdict, verdicts, by_key, questions, {"rules": rules})


def _vlmevalkit_reading(verdicts, by_key, questions, /) -> list[PlusVerdict]:
    from benchmarks.plus.vlmevalkit import vlmevalkit_plus_verdict

    return _reread(vlmevalkit_plus_verdict, verdicts, by_key, questions, {})


def _public_rules(verdicts: Sequence[Any], loaded: Loaded, options: ScoreOptions, /) -> dict[str, Any]:
    from benchmarks.official_rules import rules_record

    rules = options.extra["rules"]
    return {"official_rules": rules_record({model: rules[model] for model in sorted({v.model for v in verdicts})})}


def _resolve(given: Mapping[str, Any], models: Set[str], where: str, /) -> dict[str, Any]:
    """Plus's options for a run: each model's answer rule for variant ``official`` (``official_model`` resolved
    once over :data:`~benchmarks.plus.official.PLUS_MODELS`)."""
    from benchmarks.official_rules import resolve_rules

    return {"rules": resolve_rules(models, given=given["official_model"], table=PLUS_MODELS, where=where)}


#: The variants, the toolkit's reading first (``toolkit``, formerly ``paper``: the paper prints no reading rule).
VARIANTS: tuple[Variant[PlusReading], ...] = (
    Variant(
        "toolkit", "the toolkit's reading of an answer (benchmarks.plus.scoring)", _as_written, former_names=("paper",)
    ),
    Variant(
        "official",
        "the public main_plus.py's reading of an answer, by model path",
        _public_reading,
        summary_extras=_public_rules,
        model_paths=MappingProxyType(PLUS_MODELS),
        options=("rules",),
    ),
    Variant(
        "vlmevalkit",
        "VLMEvalKit's reasonmap_plus.py reading of an answer (benchmarks.plus.vlmevalkit)",
        _vlmevalkit_reading,
    ),
)


def _read_sheet(path: str | Path, options: ReadOptions, /) -> tuple[list[PlusPrediction], list[Problem]]:
    return read_plus_sheet(path, model=options.model, questions=options.questions)


#: The harnesses whose files plus predictions are read from (``score --from``): the toolkit's rows, VLMEvalKit's
#: sheets of ReasonMap-Plus.
READERS: Mapping[str, Reader] = MappingProxyType(
    {"jsonl": lambda path, options, /: read_predictions(path), "vlmevalkit": _read_sheet}
)


def _score(
    loaded: Loaded, predictions: Sequence[PlusPrediction], options: ScoreOptions, executor: Executor | None
) -> tuple[list[Any], list[str]]:
    from benchmarks.plus.scoring import score_predictions

    variant = PLUS.variant(options.variant)
    questions = loaded.questions
    verdicts, skipped = score_predictions(questions, predictions, weighting=options.weighting or DEFAULT_WEIGHTING)
    by_key = {(p.id, p.model, p.repeat): p for p in predictions}
    own = {name: options.extra[name] for name in variant.options}  # only what the variant reads reaches it
    return variant.score(verdicts, by_key, questions, **own), skipped


def _summarize(
    verdicts: Sequence[Any],
    loaded: Loaded,
    options: ScoreOptions,
    inputs: Mapping[str, Any],
    problems: Sequence[str],
) -> dict[str, Any]:
    from benchmarks.plus.report import summarize

    summary = summarize(
        verdicts,
        weighting=options.weighting or DEFAULT_WEIGHTING,
        inputs=inputs,
        problems=problems,
        cluster=options.cluster,
    )
    summary["variant"] = options.variant
    extras = PLUS.variant(options.variant).summary_extras
    if extras is not None:
        summary.update(extras(verdicts, loaded, options))
    return with_repeats(summary, verdicts)


def _explain(
    evaluations: Mapping[str, Any],
    loaded: Loaded,
    predictions: Sequence[PlusPrediction],
    variants: tuple[str, str],
    options: ScoreOptions,
) -> tuple[dict[str, Any], str]:
    """Two variants' accuracy per model and type; the one cause of a difference is the answer extraction."""
    from benchmarks.plus.attribution import explain_variants

    return explain_variants(evaluations, variants)


def _generate(graphs: Iterable[TransitGraph], *, seed: int, progress: bool, per_type: int) -> list[PlusQuestion]:
    from benchmarks.plus.questions import generate_plus_set

    return generate_plus_set(graphs, seed=seed, per_type=per_type, progress=progress)


def _describe(questions: Sequence[PlusQuestion]) -> str:
    from benchmarks.plus.questions import format_type_counts

    return format_type_counts(questions)


def plus_samples(questions: Iterable[PlusQuestion], *, maps: str | Path) -> SampleSet:
    """Samples of ReasonMap-Plus questions (asked as written; the request kind is the question's type).

    Parameters
    ----------
    questions : iterable of PlusQuestion
        The questions.
    maps : str or Path
        The folder of city maps (:func:`benchmarks.samples.with_city_maps`).

    Returns
    -------
    SampleSet
        One sample per question with a map (the others in its problems, skipped), judged correct as the plus
        scorer judges an answer.
    """
    from benchmarks.samples import judged_exactly, typed_samples

    correct = judged_exactly(deferred("benchmarks.plus.scoring:score_prediction"), PlusPrediction)
    return typed_samples("plus", questions, maps, correct)


def _samples(loaded: Loaded, maps: Path, source: Path) -> SampleSet:
    return plus_samples(loaded.questions.values(), maps=maps)


#: The registry record.
PLUS = Task(
    name="plus",
    title="ReasonMap-Plus counting and true/false questions",
    modes=("full", "text-only", "symbolic"),
    variants=VARIANTS,
    weightings=tuple(WEIGHTINGS),
    default_weighting=DEFAULT_WEIGHTING,
    solvers=("oracle",),
    solve="baselines.plus_oracle:solve_plus",
    recognise=is_plus_file,
    load=loaded_by(load_questions),
    prompts=typed_prompts,
    readers=READERS,
    claims=is_plus_sheet,
    answer_key=prediction_key,
    score=_score,
    summarize=_summarize,
    write_report=deferred("benchmarks.plus.report:write_report"),
    table=deferred("benchmarks.plus.report:markdown_table"),
    explain=_explain,
    generation=Generation(_generate, {"per_type": DEFAULT_PER_TYPE}, _describe, noun="plus questions"),
    samples=_samples,
    metrics=PLUS_METRICS,
    inspect=InspectSpec(
        options={"weighting": DEFAULT_WEIGHTING},
        question_set="benchmarks.plus.inspect_scorer:plus_set",
        scorer="benchmarks.plus.inspect_scorer:plus_scorer",
        sample=one_sample_per_question,
        dataset="reasonmap-plus",
    ),
    options={"official_model": None},
    resolve=_resolve,
)
