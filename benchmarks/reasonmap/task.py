"""The route task (ReasonMap short and long questions) as a registry record: see :mod:`benchmarks.tasks`.

Large prediction files (:data:`POOL_FROM` answers and more, or any on Ray) are
scored in blocks by an executor's workers (:func:`score_block`); the verdicts
come back in input order, so the outputs are the same byte for byte whichever
executor ran them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from benchmarks.difficulty import WEIGHTINGS
from benchmarks.jsonl import Problem
from benchmarks.official_rules import OFFICIAL_MODELS
from benchmarks.reasonmap.loading import graph_lookup, load_questions
from benchmarks.reasonmap.metrics import ROUTE_METRICS
from benchmarks.reasonmap.records import KINDS, Prediction, Question, Verdict
from benchmarks.reasonmap.scoring import MAP_SCORE_RULES, score_predictions
from benchmarks.repeats import with_repeats
from benchmarks.tasks import (
    Generation,
    InspectSpec,
    Loaded,
    MapPolicy,
    Prompt,
    Reader,
    ReadOptions,
    ScoreOptions,
    Task,
    Variant,
)
from graphkit.errors import TransitError
from graphkit.graph import TransitGraph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay

if TYPE_CHECKING:
    from benchmarks.official_rules import RuleChoice
    from benchmarks.samples import SampleSet
    from graphkit.executors import Executor

__all__ = ["POOL_FROM", "VARIANTS", "VARIANT_NAMES", "ROUTE", "ScoreJob", "score_block", "reasonmap_samples"]

DEFAULT_WEIGHTING = "paper"
# predictions per job handed to an executor: about a second of scoring
_PREDICTIONS_PER_JOB = 10_000
#: Answers from which a local process pool scores them; fewer are scored in this process, where scoring costs
#: less than the pool's start, each worker's graphs and the verdicts' way back (22,876 answers on 2 cores: 10 s
#: in process, 21 s on the pool). Ray clusters are used whatever the size: asking for one is asking for it.
POOL_FROM = 100_000


class RouteScoring(Protocol):
    """A route variant's scoring step: verdicts in input order and one message per prediction skipped (a
    variant's :attr:`~benchmarks.tasks.Variant.options` come as keywords)."""

    def __call__(
        self,
        questions: dict[str, Question],
        predictions: Iterable[Prediction],
        graph_for: Callable[[Question], TransitGraph],
        weighting: str,
        /,
        **options: Any,
    ) -> tuple[list[Verdict], list[str]]: ...


def _score_paper_like(
    questions: dict[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    weighting: str,
    *,
    variant: str,
) -> tuple[list[Verdict], list[str]]:
    """Algorithms 1 and 2 with the map-score rule ``variant`` (:data:`benchmarks.reasonmap.scoring.MAP_SCORE_RULES`)."""
    return score_predictions(questions, predictions, graph_for, weighting=weighting, variant=variant)


def _score_public(
    questions: dict[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    weighting: str,
    *,
    rules: Mapping[str, RuleChoice],
) -> tuple[list[Verdict], list[str]]:
    """The public evaluation code's engine (:mod:`benchmarks.reasonmap.official_scoring`), each model's answers
    read with its rule."""
    from benchmarks.reasonmap.official_scoring import score_official_predictions

    return score_official_predictions(questions, predictions, graph_for, weighting=weighting, rules=rules)


def _public_summary(verdicts: Sequence[Verdict], loaded: Loaded, options: ScoreOptions) -> dict[str, Any]:
    """What the public code's numbers add to a summary: its own aggregate, and the answer rule of each model."""
    from benchmarks.official_rules import rules_record
    from benchmarks.reasonmap.attribution import published_aggregate

    rules = options.extra["rules"]
    return {
        "published_aggregate": published_aggregate(verdicts, loaded.questions),
        "official_rules": rules_record({model: rules[model] for model in sorted({v.model for v in verdicts})}),
    }


def _resolve(given: Mapping[str, Any], models: Set[str], where: str, /) -> dict[str, Any]:
    """Route's options for a run: where its cities' graphs come from, and each model's answer rule for variant
    ``official`` (``official_model`` resolved once over :data:`~benchmarks.official_rules.OFFICIAL_MODELS`)."""
    from benchmarks.official_rules import resolve_rules

    metro_dir = given["metro_dir"]
    return {
        "graph": given["graph"],
        "metro_dir": str(metro_dir) if metro_dir is not None else None,
        "rules": resolve_rules(models, given=given["official_model"], where=where),
    }


#: Every variant route answers are scored with: the paper-faithful ones, then the public code's.
VARIANTS: tuple[Variant[RouteScoring], ...] = (
    *(
        Variant(name, variant.description, partial(_score_paper_like, variant=name))
        for name, variant in MAP_SCORE_RULES.items()
    ),
    Variant(
        "official",
        "the public evaluation code's behaviour, defects included (comparable with published tables)",
        _score_public,
        summary_extras=_public_summary,
        model_paths=MappingProxyType(OFFICIAL_MODELS),
        options=("rules",),
    ),
)
#: Their names (``get_task("route").variant_names``; the route facade's ``VARIANT_NAMES``).
VARIANT_NAMES: tuple[str, ...] = tuple(variant.name for variant in VARIANTS)


@dataclass(frozen=True, slots=True)
class ScoreJob:
    """A block of predictions with their questions and where their cities' graphs come from (for a worker).

    Parameters
    ----------
    questions : dict of str to Question
        The block's questions by id.
    predictions : tuple of Prediction
        The block's predictions.
    metro : dict
        City name to the Metro Data the question file carried (public data set files).
    network : tuple of (MetroData, Overlay) or None
        A network that answers every question (``--metro``), else ``None``.
    metro_dir : str or None
        A folder of Metro Data files to look cities up in.
    weighting : str
        The weighting scheme.
    variant : str
        The scoring variant.
    options : dict, optional
        The variant's own options (:attr:`benchmarks.tasks.Variant.options`), resolved.
    """

    questions: dict[str, Question]
    predictions: tuple[Prediction, ...]
    metro: dict[str, Any]
    network: tuple[MetroData, Overlay] | None
    metro_dir: str | None
    weighting: str
    variant: str
    #: the variant's own options (:attr:`benchmarks.tasks.Variant.options`), resolved
    options: dict[str, Any] = field(default_factory=dict)


def score_block(job: ScoreJob) -> tuple[list[Verdict], list[str]]:
    """The verdicts of one block and why the others were skipped (run by a worker).

    Parameters
    ----------
    job : ScoreJob
        The block.

    Returns
    -------
    verdicts : list of Verdict
        One per prediction scored, in input order.
    skipped : list of str
        Why the others were skipped.
    """
    from graphkit.graph import compile_graph

    override = compile_graph(*job.network) if job.network is not None else None
    graph_for = graph_lookup(job.metro, override, job.metro_dir)
    return ROUTE.variant(job.variant).score(job.questions, job.predictions, graph_for, job.weighting, **job.options)


def _score_on(
    executor: Executor,
    questions: dict[str, Question],
    predictions: list[Prediction],
    template: ScoreJob,
) -> tuple[list[Verdict], list[str]]:
    """Score blocks of predictions on ``executor``; verdicts and skip messages come back in input order."""
    jobs = (
        replace(
            template,
            questions={p.id: questions[p.id] for p in block if p.id in questions},
            predictions=block,
        )
        for start in range(0, len(predictions), _PREDICTIONS_PER_JOB)
        for block in [tuple(predictions[start : start + _PREDICTIONS_PER_JOB])]
    )
    verdicts: list[Verdict] = []
    unmatched: list[str] = []
    for block_verdicts, block_unmatched in executor.map(score_block, jobs):
        verdicts.extend(block_verdicts)
        unmatched.extend(block_unmatched)
    return verdicts, unmatched


def _with_graphs(
    questions: Mapping[str, Question], predictions: Sequence[Prediction], graph_for: Callable[[Question], TransitGraph]
) -> tuple[list[Prediction], list[str]]:
    """The predictions whose question's city has a graph, and one message per city without one (its answers are
    skipped, every other answer is scored)."""
    failed: dict[str, str] = {}
    tried: set[str] = set()
    for prediction in predictions:
        question = questions.get(prediction.id)
        if question is None or question.city in tried:
            continue
        tried.add(question.city)
        try:
            graph_for(question)
        except (TransitError, ValueError, OSError) as error:
            failed[question.city] = str(error)
    if not failed:
        return list(predictions), []
    kept, dropped = [], dict.fromkeys(failed, 0)
    for prediction in predictions:
        question = questions.get(prediction.id)
        if question is not None and question.city in failed:
            dropped[question.city] += 1
        else:
            kept.append(prediction)
    return kept, [f"{dropped[city]} answers about {city!r} skipped: {failed[city]}" for city in failed]


def _with_repeats(
    verdicts: list[Verdict], predictions: Sequence[Prediction], questions: Mapping[str, Question]
) -> list[Verdict]:
    """Each verdict with its prediction's ``repeat`` (the scorers keep the matched predictions' order)."""
    matched = [prediction for prediction in predictions if prediction.id in questions]
    return [
        replace(verdict, repeat=prediction.repeat) if prediction.repeat else verdict
        for verdict, prediction in zip(verdicts, matched, strict=True)
    ]


def _graph_for(loaded: Loaded, options: ScoreOptions) -> Callable[[Question], TransitGraph]:
    return graph_lookup(dict(loaded.context.get("metro", {})), options.extra["graph"], options.extra["metro_dir"])


def _recognise(path: Path) -> bool:
    return True  # the fallback: the toolkit's own files and the public data set's


def _load(path: str | Path) -> Loaded:
    questions, metro, problems = load_questions(path)
    return Loaded(questions, tuple(str(problem) for problem in problems), {"metro": metro})


def _prompts(question: Question) -> list[Prompt]:
    return [Prompt(question.id, kind, question.text(kind), question.city, question.country) for kind in KINDS]


def _harness_reader(source: str) -> Reader:
    """The reader of ``source``'s files (:data:`benchmarks.reasonmap.harnesses.READERS`), imported when first
    used: scoring the toolkit's own rows imports no other harness's reading."""

    def read(path: str | Path, options: ReadOptions, /) -> tuple[list[Prediction], list[Problem]]:
        from benchmarks.reasonmap.harnesses import READERS

        return READERS[source](path, options)

    return read


#: The harnesses whose files route predictions are read from (``score --from``), the toolkit's own first.
READERS: Mapping[str, Reader] = MappingProxyType(
    {source: _harness_reader(source) for source in ("jsonl", "lmms-eval", "vlmevalkit", "inspect")}
)


def _answer_key(prediction: Prediction) -> Hashable:
    return (prediction.id, prediction.model, prediction.question, prediction.repeat)


def _score_task(
    loaded: Loaded, predictions: Sequence[Prediction], options: ScoreOptions, executor: Executor | None
) -> tuple[list[Verdict], list[str]]:
    weighting = options.weighting or DEFAULT_WEIGHTING
    variant = ROUTE.variant(options.variant)  # an unknown name lists the known ones, before any work
    own = {name: options.extra[name] for name in variant.options}  # only what the variant reads reaches it
    questions = dict(loaded.questions)
    predictions, skipped = _with_graphs(questions, predictions, _graph_for(loaded, options))
    if executor is None or (executor.kind == "local" and len(predictions) < POOL_FROM):
        verdicts, unmatched = variant.score(questions, predictions, _graph_for(loaded, options), weighting, **own)
    else:
        graph, metro_dir = options.extra["graph"], options.extra["metro_dir"]
        network = (graph.metro, graph.overlay) if graph is not None else None
        metro = dict(loaded.context.get("metro", {}))
        template = ScoreJob({}, (), metro, network, metro_dir, weighting, variant.name, own)
        verdicts, unmatched = _score_on(executor, questions, list(predictions), template)
    return _with_repeats(verdicts, predictions, questions), [*skipped, *unmatched]


def _summarize(
    verdicts: Sequence[Verdict],
    loaded: Loaded,
    options: ScoreOptions,
    inputs: Mapping[str, Any],
    problems: Sequence[str],
) -> dict[str, Any]:
    from benchmarks.reasonmap.report import summarize

    summary = summarize(
        verdicts,
        loaded.questions,
        weighting=options.weighting or DEFAULT_WEIGHTING,
        variant=options.variant,
        inputs=inputs,
        problems=problems,
        cluster=options.cluster,
    )
    extras = ROUTE.variant(options.variant).summary_extras
    if extras is not None:
        summary.update(extras(verdicts, loaded, options))
    return with_repeats(summary, verdicts, request=lambda verdict: (verdict.id, verdict.question))


def _write_report(directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    from benchmarks.reasonmap.report import write_report

    return write_report(directory, summary, figures=figures)


def _table(summary: Mapping[str, Any]) -> str:
    from benchmarks.reasonmap.report import markdown_table

    return markdown_table(summary)


def _explain(
    evaluations: Mapping[str, Any],
    loaded: Loaded,
    predictions: Sequence[Prediction],
    variants: tuple[str, str],
    options: ScoreOptions,
) -> tuple[dict[str, Any], str]:
    """Why two variants' numbers differ, charged to causes (:mod:`benchmarks.reasonmap.attribution`)."""
    from benchmarks.reasonmap.attribution import attribute, explanation_markdown, with_intervals

    comparison = attribute(
        dict(loaded.questions),
        predictions,
        _graph_for(loaded, options),
        variants=variants,
        weighting=options.weighting or DEFAULT_WEIGHTING,
        rules=options.extra["rules"],
    )
    comparison = with_intervals(comparison, {name: found.summary for name, found in evaluations.items()})
    # the public code's own aggregate, where one of the two variants is the public code's
    aggregate = next(
        (e.summary["published_aggregate"] for e in evaluations.values() if "published_aggregate" in e.summary), None
    )
    comparison["published_aggregate"] = aggregate or {}
    return comparison, explanation_markdown(comparison, aggregate)


def _generate(graphs: Iterable[TransitGraph], *, seed: int, progress: bool, per_city: int, quota: str) -> list:
    from benchmarks.reasonmap.generate import generate_set, parse_quota

    return generate_set(graphs, seed=seed, per_city=per_city, quota=parse_quota(quota), progress=progress)


def _describe(questions: Sequence[Question]) -> str:
    from benchmarks.reasonmap.generate import format_distribution

    return format_distribution(questions)


def _carried_maps(
    source: Path, folder: Path, before_write: Callable[[Path], None] | None = None
) -> tuple[list[Path], list[Problem]] | None:
    """The public data set's figures (a parquet file or a dataset folder carries them), one map per city."""
    if not (source.suffix == ".parquet" or source.is_dir()):
        return None
    from benchmarks.reasonmap.public_dataset import export_figures

    return export_figures(source, folder, before_write=before_write)


def reasonmap_samples(
    questions: Iterable[Question], *, maps: str | Path, graph_for: Callable[[Question], TransitGraph] | None = None
) -> SampleSet:
    """Samples of ReasonMap questions (their short form), each with its city's map.

    Parameters
    ----------
    questions : iterable of Question
        The route questions.
    maps : str or Path
        The folder of city maps (``<city>.png`` or ``<country>__<city>.png``).
    graph_for : callable, optional
        A question's graph (default: its embedded city's).

    Returns
    -------
    SampleSet
        One sample per question with a map (the others in its problems, skipped), judged correct as Algorithm 1
        judges the short answer against ``graph_for(question)``.
    """
    from benchmarks.reasonmap.scoring import score_prediction
    from benchmarks.samples import Sample, SampleSet, with_city_maps

    if graph_for is None:
        from graphkit.cities import city_graph

        def graph_for(question: Question) -> TransitGraph:
            return city_graph(question.city)

    by_id, samples, problems = with_city_maps(
        questions, maps, lambda question, path: Sample(question.id, "short", path.name, path, question.question_short)
    )

    def judge(sample: Sample, response: str) -> bool:
        question = by_id[sample.id]
        prediction = Prediction(sample.id, "vdi", "short", response)
        return score_prediction(prediction, question, graph_for(question), weighting="none").correct == 1

    return SampleSet("route", tuple(samples), judge, tuple(problems))


def _samples(loaded: Loaded, maps: Path, source: Path) -> SampleSet:
    """Short questions with their city's map, correct as Algorithm 1 judges them against the city's graph."""
    graph_for = graph_lookup(dict(loaded.context.get("metro", {})))
    return reasonmap_samples(loaded.questions.values(), maps=maps, graph_for=graph_for)


def _inspect_sample(question: Question, kind: str) -> tuple[str, dict[str, Any]]:
    """One sample per question and kind: id ``<question id>:<kind>``; the metadata names the stations, so that
    a log is checked against the question file it is scored with even where the prompt renames them (``alias``)."""
    metadata = {
        "id": question.id,
        "kind": kind,
        "city": question.city,
        "station_1": question.station_1,
        "station_2": question.station_2,
        "difficulty_question": question.difficulty_question,
        "difficulty_city": question.difficulty_city,
    }
    return f"{question.id}:{kind}", metadata


def _inspect_maps(questions: str, folder: str) -> tuple[list[Path], list[Problem]] | None:
    """The public data set's figures, one map per city, from any of its files (parquet, JSON Lines, a dataset
    folder); ``None`` for another format."""
    if not (Path(questions).is_dir() or Path(questions).suffix in (".parquet", ".jsonl", ".json")):
        return None
    from benchmarks.reasonmap.public_dataset import export_figures

    try:
        return export_figures(questions, folder)
    except ValueError:  # not the public set's format: it carries no maps
        return None


def _export(loaded: Loaded, out: Path, *, figure: Callable[[Question], bytes | None], metro: MetroData | None) -> int:
    """The questions in the public data set's schema, each with its city's Metro Data (``metro``, else the file's,
    else the embedded city's; none for a city without any) as ``json``."""
    import json

    from benchmarks.reasonmap.hub import write_hf_dataset
    from graphkit.cities import city_names, load_city

    carried = loaded.context.get("metro", {})
    texts: dict[str, str | None] = {}

    def metro_text(question: Question) -> str | None:
        if question.city not in texts:
            data = metro or carried.get(question.city)
            if data is None and question.city in city_names():
                data = load_city(question.city)[0]
            texts[question.city] = None if data is None else json.dumps(data.to_dict(), ensure_ascii=False)
        return texts[question.city]

    return write_hf_dataset(list(loaded.questions.values()), out, metro_text=metro_text, figure=figure)


#: The registry record.
ROUTE = Task(
    name="route",
    title="ReasonMap route questions (short and long)",
    modes=("full", "text-only", "symbolic", "alias"),
    variants=VARIANTS,
    weightings=tuple(WEIGHTINGS),
    default_weighting=DEFAULT_WEIGHTING,
    solvers=("oracle", "text-oracle", "direct-line", "echo", "noisy"),
    solve="baselines.solvers:solve_route",
    recognise=_recognise,
    load=_load,
    prompts=_prompts,
    readers=READERS,
    answer_key=_answer_key,
    score=_score_task,
    summarize=_summarize,
    write_report=_write_report,
    table=_table,
    explain=_explain,
    generation=Generation(_generate, {"per_city": 40, "quota": "20:15:5"}, _describe),
    samples=_samples,
    maps=MapPolicy(carried=_carried_maps),
    metrics=ROUTE_METRICS,  # the headline ones in the paper's Table 2 shape
    inspect=InspectSpec(
        options={"kinds": "both", "textualization": "lines", "weighting": DEFAULT_WEIGHTING, "variant": "paper"},
        question_set="benchmarks.reasonmap.inspect_scorer:route_set",
        scorer="benchmarks.reasonmap.inspect_scorer:route_scorer",
        sample=_inspect_sample,
        dataset="reasonmap",
        kinds=KINDS,
        carried_maps=_inspect_maps,
    ),
    export=_export,
    options={"graph": None, "metro_dir": None, "official_model": None},
    resolve=_resolve,
)
