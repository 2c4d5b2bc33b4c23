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


# --- testspeed: doctest collection reads a package module only when it has a doctest ---------------------------
_PACKAGES = ("graphkit", "benchmarks", "baselines", "vision", "reasonmap")


def pytest_ignore_collect(collection_path, config):
    """A package module without ``>>>`` in its text is left out of the doctest collection (nothing to run).

    ``--doctest-modules`` imports every module of the packages in every pytest-xdist worker to look for
    doctests; a module whose source has no ``>>>`` has none, so reading its text is enough to know. Importing
    every module is tested by tests/test_errors.py, which walks the packages.
    """
    if collection_path.suffix != ".py" or collection_path.name == "conftest.py":
        return None
    root = config.rootpath
    try:
        relative = collection_path.relative_to(root)
    except ValueError:
        return None
    if relative.parts[0] not in _PACKAGES:
        return None
    if ">>>" in collection_path.read_text(encoding="utf-8", errors="replace"):
        return None
    return True
