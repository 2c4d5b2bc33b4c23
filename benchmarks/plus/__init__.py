"""ReasonMap-Plus: counting and true/false questions on the ReasonMap maps, with exact answers.

The public surface is ``__all__``: the records, seeded generation, reading
question files (the toolkit's and the hub's) and VLMEvalKit sheets, the two
scoring stages (:func:`parse_plus_answer`, then :func:`score_plus_answer`, or
both at once with :func:`score_plus_prediction`), the weights and the report.
The submodules are internal (import from the package, not from them).

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.plus import generate_plus_questions, parse_plus_answer, score_plus_answer
>>> question = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)[0]
>>> question.type, score_plus_answer(parse_plus_answer(str(question.answer), question.type), question).correct
('Counting1', 1)
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.plus.loading": ("load_plus_questions", "read_plus_sheet"),
        "benchmarks.plus.official": ("load_hub_plus",),
        "benchmarks.plus.questions": (
            "PLUS_TYPES",
            "PlusPrediction",
            "PlusQuestion",
            "generate_plus_questions",
            "generate_plus_set",
        ),
        "benchmarks.plus.report": ("chance_accuracy", "summarize_plus", "write_plus_report"),
        "benchmarks.plus.scoring": (
            "PlusVerdict",
            "parse_plus_answer",
            "plus_weight",
            "score_plus_answer",
            "score_plus_prediction",
            "score_plus_predictions",
        ),
    },
)
