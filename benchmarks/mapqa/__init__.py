"""Objective map questions over any map images, in the style of OmniMapBench.

Single-choice, multiple-choice and sorting questions, each tagged with a
capability level (1 perception, 2 single-step reasoning, 3 multi-step
reasoning), a map category and a language. The public surface is
``__all__``: the records, reading question and prediction files (bad records
reported and skipped), the two scoring stages (:func:`parse_answer`, which
never raises, then :func:`score_answer`, or both at once with
:func:`score_prediction`), the registered metrics, the report, and the
text-mediated pathway's visual dependency and descriptive saturation indices
(VDI, DSI). The submodules are internal (import from the package, not from
them).
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.mapqa.io": ("image_path", "read_predictions", "load_questions"),
        "benchmarks.mapqa.parsing": ("Choice", "parse_answer"),
        "benchmarks.mapqa.records": ("LEVELS", "QUESTION_TYPES", "MapPrediction", "MapQuestion", "MapVerdict"),
        "benchmarks.mapqa.report": ("summarize", "write_report"),
        "benchmarks.mapqa.scoring": ("METRICS", "score_answer", "score_prediction", "score_predictions"),
        "benchmarks.vdi": ("descriptive_saturation_index", "visual_dependency_index"),
    },
)
