"""The route task (ReasonMap short and long questions) as a registry entry: see :mod:`benchmarks.tasks`.

Large prediction files are scored in blocks by an executor's workers
(:func:`score_block`); the verdicts come back in input order, so the outputs
are the same byte for byte whichever executor ran them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.jsonl import Problem
from benchmarks.metrics import MetricSpec
from benchmarks.reasonmap.loading import graph_lookup, load_questions
from benchmarks.reasonmap.metrics import ROUTE_METRICS
from benchmarks.reasonmap.records import KINDS, Prediction, Question, Verdict
from benchmarks.reasonmap.scoring import VARIANTS, score_predictions
from benchmarks.tasks import Loaded, Prompt, ScoreOptions
from graphkit.errors import TransitError
from graphkit.graph import TransitGraph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = ["SCORING_VARIANTS", "RouteTask", "ROUTE", "ScoreJob", "score_block"]

#: Every variant route answers are scored with: the paper-faithful ones and the public code's.
SCORING_VARIANTS: tuple[str, ...] = (*VARIANTS, "official")
# predictions per job handed to an executor: about a second of scoring
_PREDICTIONS_PER_JOB = 10_000


@dataclass(frozen=True, slots=True)
class ScoreJob:
    """A block of predictions with their questions and where their cities' graphs come from (for a worker)."""

    questions: dict[str, Question]
    predictions: tuple[Prediction, ...]
    metro: dict[str, Any]
    network: tuple[MetroData, Overlay] | None
    metro_dir: str | None
    weighting: str
    variant: str
    official_model: str | Mapping[str, str] | None = None


def score_block(job: ScoreJob) -> tuple[list[Verdict], list[str]]:
    """The verdicts and unmatched ids of one block (run by a worker)."""
    from graphkit.graph import compile_graph

    override = compile_graph(*job.network) if job.network is not None else None
    graph_for = graph_lookup(job.metro, override, job.metro_dir)
    return _score(job.questions, job.predictions, graph_for, job.weighting, job.variant, job.official_model)


def _score(
    questions: dict[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    weighting: str,
    variant: str,
    official_model: str | Mapping[str, str] | None = None,
) -> tuple[list[Verdict], list[str]]:
    if variant == "official":
        from benchmarks.reasonmap.official_scoring import score_official_predictions

        return score_official_predictions(
            questions, predictions, graph_for, weighting=weighting, official_model=official_model
        )
    return score_predictions(questions, predictions, graph_for, weighting=weighting, variant=variant)


def _score_on(
    executor: Executor,
    questions: dict[str, Question],
    predictions: list[Prediction],
    template: ScoreJob,
) -> tuple[list[Verdict], list[str]]:
    """Score blocks of predictions on ``executor``; verdicts and unmatched ids come back in input order."""
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
    return graph_lookup(dict(loaded.context.get("metro", {})), options.graph, options.metro_dir)


@dataclass(frozen=True, slots=True)
class RouteTask:
    """ReasonMap route questions: a short and a long request each, judged by Algorithms 1 and 2."""

    name: str = "route"
    title: str = "ReasonMap route questions (short and long)"
    modes: tuple[str, ...] = ("full", "text-only", "symbolic", "alias")
    variants: tuple[str, ...] = SCORING_VARIANTS
    default_weighting: str = "paper"
    solvers: tuple[str, ...] = ("oracle", "text-oracle", "direct-line", "echo", "noisy")
    metrics: tuple[MetricSpec, ...] = ROUTE_METRICS

    def recognise(self, path: Path) -> bool:
        return True  # the fallback: the toolkit's own files and the public data set's

    def load(self, path: str | Path) -> Loaded:
        questions, metro, problems = load_questions(path)
        return Loaded(questions, tuple(str(problem) for problem in problems), {"metro": metro})

    def prompts(self, question: Question) -> list[Prompt]:
        return [Prompt(question.id, kind, question.text(kind), question.city, question.country) for kind in KINDS]

    def read_predictions(self, path: str | Path, options: ScoreOptions) -> tuple[list[Prediction], list[Problem]]:
        from benchmarks.reasonmap.harnesses import read_harness_predictions

        return read_harness_predictions(
            path,
            options.source,
            model=options.model,
            kind=options.kind,
            positions=options.positions,
            partial=options.partial,
        )

    def answer_key(self, prediction: Prediction) -> Hashable:
        return (prediction.id, prediction.model, prediction.question, prediction.repeat)

    def score(
        self, loaded: Loaded, predictions: Sequence[Prediction], options: ScoreOptions, executor: Executor | None
    ) -> tuple[list[Verdict], list[str]]:
        weighting = options.weighting or self.default_weighting
        questions = dict(loaded.questions)
        predictions, skipped = _with_graphs(questions, predictions, _graph_for(loaded, options))
        if executor is None:
            verdicts, unmatched = _score(
                questions, predictions, _graph_for(loaded, options), weighting, options.variant, options.official_model
            )
        else:
            network = (options.graph.metro, options.graph.overlay) if options.graph is not None else None
            metro = dict(loaded.context.get("metro", {}))
            template = ScoreJob(
                {}, (), metro, network, options.metro_dir, weighting, options.variant, options.official_model
            )
            verdicts, unmatched = _score_on(executor, questions, list(predictions), template)
        return _with_repeats(verdicts, predictions, questions), [
            *skipped,
            *(f"prediction {id!r} matches no question" for id in unmatched),
        ]

    def summarize(
        self,
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
            weighting=options.weighting or self.default_weighting,
            variant=options.variant,
            inputs=inputs,
            problems=problems,
        )
        if options.variant == "official":
            from benchmarks.reasonmap.compare import published_aggregate
            from benchmarks.reasonmap.official_rules import official_rules

            summary["published_aggregate"] = published_aggregate(verdicts, loaded.questions)
            summary["official_rules"] = official_rules((v.model for v in verdicts), given=options.official_model)
        return summary

    def write_report(self, directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
        from benchmarks.reasonmap.report import write_report

        return write_report(directory, summary, figures=figures)

    def table(self, summary: Mapping[str, Any]) -> str:
        from benchmarks.reasonmap.report import markdown_table

        return markdown_table(summary)

    def compare(
        self,
        evaluations: Mapping[str, Any],
        loaded: Loaded,
        predictions: Sequence[Prediction],
        variants: tuple[str, str],
        options: ScoreOptions,
    ) -> tuple[dict[str, Any], str]:
        """Why two variants' numbers differ, charged to causes (:mod:`benchmarks.reasonmap.compare`)."""
        from benchmarks.reasonmap.compare import attribute, compare_markdown, with_intervals

        comparison = attribute(
            dict(loaded.questions),
            predictions,
            _graph_for(loaded, options),
            variants=variants,
            weighting=options.weighting or self.default_weighting,
            official_model=options.official_model,
        )
        comparison = with_intervals(comparison, {name: found.summary for name, found in evaluations.items()})
        aggregate = evaluations["official"].summary.get("published_aggregate") if "official" in evaluations else None
        comparison["published_aggregate"] = aggregate or {}
        return comparison, compare_markdown(comparison, aggregate)


#: The registry entry.
ROUTE = RouteTask()
