"""The ReasonMap-Plus task as a registry entry: see :mod:`benchmarks.tasks`.

Plus questions need no graph to score (the answers are in the records);
variant ``official`` reads each answer the way the public ``main_plus.py``
does, ``vlmevalkit`` the way VLMEvalKit's ``reasonmap_plus.py`` does,
everything else (rows, weights, skips) being the same.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.jsonl import Problem, read_jsonl
from benchmarks.plus.loading import is_plus_file, load_plus_questions, read_plus_sheet
from benchmarks.plus.questions import PlusPrediction, PlusQuestion
from benchmarks.repeats import with_repeats
from benchmarks.tasks import Loaded, Prompt, ScoreOptions

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = ["PlusTask", "PLUS"]


@dataclass(frozen=True, slots=True)
class PlusTask:
    """ReasonMap-Plus counting and true/false questions: one request each, judged by exact match."""

    name: str = "plus"
    title: str = "ReasonMap-Plus counting and true/false questions"
    modes: tuple[str, ...] = ("full", "text-only", "symbolic")
    variants: tuple[str, ...] = ("paper", "official", "vlmevalkit")
    default_weighting: str = "city"
    solvers: tuple[str, ...] = ("oracle",)

    def recognise(self, path: Path) -> bool:
        return is_plus_file(path)

    def load(self, path: str | Path) -> Loaded:
        questions, problems = load_plus_questions(path)
        return Loaded(questions, tuple(str(problem) for problem in problems))

    def prompts(self, question: PlusQuestion) -> list[Prompt]:
        return [Prompt(question.id, question.type, question.question, question.city, question.country)]

    def read_predictions(self, path: str | Path, options: ScoreOptions) -> tuple[list[PlusPrediction], list[Problem]]:
        if options.source == "vlmevalkit":
            return read_plus_sheet(path, model=options.model)
        if options.source != "jsonl":
            raise ValueError(
                f"--from {options.source} reads route answers;"
                " plus predictions are JSON Lines rows or VLMEvalKit sheets"
            )
        return read_jsonl(path, PlusPrediction.from_dict)

    def answer_key(self, prediction: PlusPrediction) -> Hashable:
        return (prediction.id, prediction.model, prediction.repeat)

    def score(
        self, loaded: Loaded, predictions: Sequence[PlusPrediction], options: ScoreOptions, executor: Executor | None
    ) -> tuple[list[Any], list[str]]:
        from benchmarks.plus.scoring import score_plus_predictions

        questions = loaded.questions
        verdicts, skipped = score_plus_predictions(
            questions, predictions, weighting=options.weighting or self.default_weighting
        )
        if options.variant in ("official", "vlmevalkit"):
            from benchmarks.plus.official import official_plus_verdict
            from benchmarks.plus.vlmevalkit import vlmevalkit_plus_verdict

            read = official_plus_verdict if options.variant == "official" else vlmevalkit_plus_verdict
            # the same rows, weights and skips; only the reading of each answer differs
            by_key = {(p.id, p.model, p.repeat): p for p in predictions}
            given = {"official_model": options.official_model} if options.variant == "official" else {}
            verdicts = [read(by_key[(v.id, v.model, v.repeat)], questions[v.id], v.weight, **given) for v in verdicts]
        return verdicts, skipped

    def summarize(
        self,
        verdicts: Sequence[Any],
        loaded: Loaded,
        options: ScoreOptions,
        inputs: Mapping[str, Any],
        problems: Sequence[str],
    ) -> dict[str, Any]:
        from benchmarks.plus.report import summarize_plus

        summary = summarize_plus(
            verdicts, weighting=options.weighting or self.default_weighting, inputs=inputs, problems=problems
        )
        summary["variant"] = options.variant
        if options.variant == "official":
            from benchmarks.plus.official import PLUS_MODELS
            from benchmarks.reasonmap.official_rules import official_rules

            models = (v.model for v in verdicts)
            summary["official_rules"] = official_rules(models, given=options.official_model, table=PLUS_MODELS)
        return with_repeats(summary, verdicts)

    def write_report(self, directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
        from benchmarks.plus.report import write_plus_report

        return write_plus_report(directory, summary, figures=figures)

    def table(self, summary: Mapping[str, Any]) -> str:
        from benchmarks.plus.report import plus_markdown_table

        return plus_markdown_table(summary)

    def compare(
        self,
        evaluations: Mapping[str, Any],
        loaded: Loaded,
        predictions: Sequence[PlusPrediction],
        variants: tuple[str, str],
        options: ScoreOptions,
    ) -> tuple[dict[str, Any], str]:
        """Two variants' accuracy per model and type; the one cause of a difference is the answer extraction."""
        from benchmarks.plus.compare import compare_plus

        return compare_plus(evaluations, variants)


#: The registry entry.
PLUS = PlusTask()
