"""ReasonMap-Plus: counting and true/false questions on the ReasonMap maps, with exact answers.

The public surface is ``__all__``: the records, seeded generation, reading
question files (the toolkit's and the hub's), prediction files and VLMEvalKit sheets, the two
scoring stages (:func:`parse_answer`, then :func:`score_answer`, or
both at once with :func:`score_prediction`), the weights and the report.
The submodules are internal (import from the package, not from them).

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.plus import generate_plus_questions, parse_answer, score_answer
>>> question = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)[0]
>>> question.type, score_answer(parse_answer(str(question.answer), question.type), question).correct
('Counting1', 1)
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.plus.loading": ("load_questions", "read_plus_sheet", "read_predictions"),
        "benchmarks.plus.public_dataset": ("load_hub_plus",),
        "benchmarks.plus.questions": ("generate_plus_questions", "generate_plus_set"),
        "benchmarks.plus.records": ("PLUS_TYPES", "PlusPrediction", "PlusQuestion"),
        "benchmarks.plus.report": ("chance_accuracy", "summarize", "write_report"),
        "benchmarks.plus.scoring": (
            "PlusVerdict",
            "parse_answer",
            "plus_weight",
            "score_answer",
            "score_prediction",
            "score_predictions",
        ),
    },
)
