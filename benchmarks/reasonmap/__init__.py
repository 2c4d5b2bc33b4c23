"""The ReasonMap benchmark's route questions: generation, answer parsing, scoring, weighting, reports and rewards.

The public surface is ``__all__``: the records (:class:`Question`,
:class:`Prediction`, :class:`Verdict`), generation, reading question and
prediction files (the public data set's too), the two scoring stages
(:func:`parse_answer`, then :func:`score_answer`, or both at once with
:func:`score_prediction`), the scoring variants' names (:data:`VARIANT_NAMES`, ``official``
included) and weighting schemes, the
report and the RL rewards. The submodules are internal (import from the
package, not from them). ReasonMap-Plus lives beside it, in
:mod:`benchmarks.plus`.

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.reasonmap import Prediction, generate_questions, score_prediction
>>> graph = city_graph("rome")
>>> question = generate_questions(graph, seed=1, per_city=1)[0]
>>> answer = "Route Name: Line B\\nDeparture Stop: Colosseo\\nArrival Stop: Marconi"
>>> score_prediction(Prediction(question.id, "me", "short", answer), question, graph).correct
1
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.difficulty": ("DIFFICULTIES", "WEIGHTINGS"),
        "benchmarks.splits": ("TEST_CITIES",),
        "benchmarks.reasonmap.generate": ("generate_questions",),
        "benchmarks.reasonmap.loading": ("load_questions", "read_predictions"),
        "benchmarks.reasonmap.public_dataset": ("load_public_dataset",),
        "benchmarks.reasonmap.parsing": ("parse_answer",),
        "benchmarks.reasonmap.records": ("Prediction", "Question", "Verdict"),
        "benchmarks.reasonmap.report": ("summarize", "write_report"),
        "benchmarks.reasonmap.rewards": ("accuracy_reward", "compute_score", "format_reward"),
        "benchmarks.reasonmap.scoring": ("score_answer", "score_prediction", "score_predictions"),
        "benchmarks.reasonmap.task": ("VARIANT_NAMES",),
        "benchmarks.reasonmap.weighting": ("weight_of",),
    },
)
