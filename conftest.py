"""Collection settings for the doctest run over the packages.

The Inspect tasks module and the tasks' Inspect scorers have no doctests and import Inspect at their top, which
takes seconds: they are left out of the doctest collection (every worker would import Inspect only to find nothing
to run). Their tests are tests/reasonmap/test_inspect_tasks.py, which import them when they run.
"""

from __future__ import annotations

collect_ignore = [
    "reasonmap/inspect_tasks.py",
    "benchmarks/reasonmap/inspect_scorer.py",
    "benchmarks/plus/inspect_scorer.py",
]
