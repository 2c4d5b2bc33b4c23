"""Collection settings for the doctest run over the packages.

The Inspect tasks module and the tasks' Inspect scorers have no doctests and import Inspect at their top, which
takes seconds: they are left out of the doctest collection (every worker would import Inspect only to find nothing
to run). Their tests are tests/reasonmap/test_inspect_tasks.py, which import them when they run.
"""

from __future__ import annotations

import pytest

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


# --- testspeed: `-n` without `--dist` balances by work stealing -----------------------------------------------
@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """``pytest -n N`` with no ``--dist`` of its own runs pytest-xdist's ``worksteal`` schedule, not ``load``.

    ``load`` hands each worker runs of tests in collection order and never takes them back: the suite's last
    runs (the vision tests, seconds each, before the packages' doctests, milliseconds each) can leave one worker
    drawing maps while the other has finished. ``worksteal`` gives each worker half of the tests and lets a
    worker that runs out take half of what the other has left (pytest-xdist 3.2 or later). An explicit
    ``--dist`` is kept; without ``-n`` nothing is distributed.
    """
    option = config.option
    if getattr(option, "numprocesses", None) and getattr(option, "dist", "no") == "no":
        if not getattr(option, "distload", False):
            option.dist = "worksteal"
