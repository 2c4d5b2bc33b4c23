"""The ReasonMap benchmark: question generation, answer parsing, scoring, weighting, reports and rewards.

Submodules: ``records`` (questions, predictions, verdicts), ``templates``,
``generate``, ``official`` (the public data set's files), ``parsing``,
``scoring``, ``weighting``, ``report``, ``rewards``, ``loading``, ``evaluate``,
``harnesses`` (other harnesses' prediction files), ``hub`` (Hugging Face datasets).
ReasonMap-Plus lives beside it, in :mod:`benchmarks.plus`.
"""
