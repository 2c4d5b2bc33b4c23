"""Collection settings for the doctest run over the packages.

The Inspect tasks module has no doctests and imports Inspect at its top, which takes seconds: it is left out of
the doctest collection (every worker would import Inspect only to find nothing to run). Its tests are
tests/reasonmap/test_inspect_tasks.py, which import it when they run.
"""

from __future__ import annotations

collect_ignore = ["reasonmap/inspect_tasks.py"]
