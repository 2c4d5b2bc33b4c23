"""Objective map questions over any map images, in the style of OmniMapBench.

Single-choice, multiple-choice and sorting questions, each tagged with a
capability level (1 perception, 2 single-step reasoning, 3 multi-step
reasoning), a map category and a language. Submodules: ``records`` (the JSON
Lines schema), ``io`` (loading, skipping and reporting bad records),
``parsing`` (option letters from a model's text, never raising),
``scoring`` (the registered metrics), ``report`` (summaries per type, level,
category and language) and ``evaluate`` (files in, scored rows and a report
out).
"""
