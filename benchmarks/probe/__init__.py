"""Perception probes: single perception steps a route needs, asked on the same maps, with references.

The public surface is ``__all__``: the records, seeded generation (from the graph, and a map's truth),
reading probe files, the two scoring stages (:func:`parse_answer`, then :func:`score_answer`, or
both at once with :func:`score_prediction`) and the report. The submodules are internal.

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.probe import generate_probe_questions, parse_answer, score_answer
>>> question = generate_probe_questions(city_graph("rome"), per_type=1, types=["neighbours"])[0]
>>> question.station, question.answer
('Numidio Quadrato Station', ('Porta Furba-Quadraro Station', 'Lucio Sestio Station'))
>>> score_answer(parse_answer("Answer: Lucio Sestio, Porta Furba-Quadraro", "neighbours"), question)
ProbeScore(correct=1, partial=1.0)
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.probe.io": ("load_questions", "read_predictions"),
        "benchmarks.probe.questions": (
            "PROBE_TYPES",
            "ProbePrediction",
            "ProbeQuestion",
            "generate_probe_questions",
            "generate_probe_set",
        ),
        "benchmarks.probe.report": ("summarize", "write_report"),
        "benchmarks.probe.scoring": (
            "ProbeVerdict",
            "parse_answer",
            "score_answer",
            "score_prediction",
            "score_predictions",
        ),
    },
)
