"""The map QA task (OmniMapBench-style objective questions on any map image) as a registry entry.

See :mod:`benchmarks.tasks`. Map QA questions carry their own image and no
Metro Data, so they are asked with the map (``full``) or without it
(``text-only``); there are no scoring variants.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.jsonl import Problem
from benchmarks.mapqa.io import is_mapqa_file, read_map_predictions, read_map_questions
from benchmarks.mapqa.records import KIND, MapPrediction, MapQuestion, MapVerdict
from benchmarks.repeats import with_repeats
from benchmarks.tasks import Loaded, Prompt, ScoreOptions

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = ["MapQATask", "MAPQA"]


@dataclass(frozen=True, slots=True)
class MapQATask:
    """Map QA: one request per question, judged by exact match, Jaccard and Kendall's tau."""

    name: str = "mapqa"
    title: str = "Map QA (OmniMapBench-style objective questions)"
    modes: tuple[str, ...] = ("full", "text-only")
    variants: tuple[str, ...] = ("paper",)
    default_weighting: str = "none"
    solvers: tuple[str, ...] = ()

    def recognise(self, path: Path) -> bool:
        return is_mapqa_file(path)

    def load(self, path: str | Path) -> Loaded:
        questions, problems = read_map_questions(path)
        return Loaded(questions, tuple(str(problem) for problem in problems))

    def prompts(self, question: MapQuestion) -> list[Prompt]:
        return [Prompt(question.id, KIND, question.text(), image=question.image)]

    def read_predictions(self, path: str | Path, options: ScoreOptions) -> tuple[list[MapPrediction], list[Problem]]:
        if options.source != "jsonl":
            raise ValueError(f"--from {options.source} reads route answers; map QA predictions are JSON Lines rows")
        return read_map_predictions(path)

    def answer_key(self, prediction: MapPrediction) -> Hashable:
        return (prediction.id, prediction.model, prediction.repeat)

    def score(
        self, loaded: Loaded, predictions: Sequence[MapPrediction], options: ScoreOptions, executor: Executor | None
    ) -> tuple[list[MapVerdict], list[str]]:
        from benchmarks.mapqa.scoring import score_predictions

        verdicts, unmatched = score_predictions(loaded.questions, predictions)
        return verdicts, [f"prediction {id!r} matches no question" for id in unmatched]

    def summarize(
        self,
        verdicts: Sequence[MapVerdict],
        loaded: Loaded,
        options: ScoreOptions,
        inputs: Mapping[str, Any],
        problems: Sequence[str],
    ) -> dict[str, Any]:
        from benchmarks.mapqa.report import summarize

        return with_repeats(summarize(verdicts, loaded.questions, inputs=inputs, problems=problems), verdicts)

    def write_report(self, directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
        from benchmarks.mapqa.report import write_report

        return write_report(directory, summary)  # tables only: map QA draws no figure

    def table(self, summary: Mapping[str, Any]) -> str:
        from benchmarks.mapqa.report import markdown_table

        return markdown_table(summary)


#: The registry entry.
MAPQA = MapQATask()
