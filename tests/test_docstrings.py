"""The public callables that have numpydoc ``Parameters`` and ``Returns`` keep them.

``python -m tests.docstrings --missing`` measures every facade (``--modules``: every module); this pins what is
complete: the facades of graphkit, benchmarks, its four task folders (``benchmarks.reasonmap``, ``plus``,
``mapqa``, ``probe``), baselines, vision and reasonmap, and every module of those packages. The names in
``PENDING`` and the modules in ``PENDING_MODULES`` are being rewritten; the speed benchmarks are not pinned.
"""

from __future__ import annotations

import inspect
from typing import Protocol

import pytest

from tests.docstrings import FACADES, gaps, has_section, lacks, module_gaps, needs

COMPLETE = FACADES  # every facade that tests.docstrings measures is complete
# every module of these groups is complete, not only the facade (``python -m tests.docstrings --modules``)
COMPLETE_MODULES = ("graphkit", "baselines", "vision", "benchmarks", "reasonmap")
PENDING_MODULES: set[str] = set()
# the task folders' own modules are measured apart (``benchmarks.reasonmap``, ...); the speed benchmarks are not
# pinned
PINNED_GROUPS = (
    "graphkit",
    "baselines",
    "vision",
    "benchmarks (root)",
    "benchmarks.reasonmap",
    "benchmarks.plus",
    "benchmarks.mapqa",
    "benchmarks.probe",
    "reasonmap",
)
# benchmarks/reasonmap/scoring.py is being rewritten
PENDING: dict[str, set[str]] = {}  # every facade name is pinned


@pytest.mark.parametrize("package", COMPLETE)
def test_every_public_callable_has_its_parameters_and_returns(package):
    missing = [f"{gap.name}: {', '.join(gap.missing)}" for gap in gaps(package) if gap.missing]
    missing = [line for line in missing if line.split(":")[0] not in PENDING.get(package, set())]
    assert not missing, f"{package}: " + "; ".join(missing)


def test_every_public_callable_of_every_module_has_its_parameters_and_returns():
    found = module_gaps(COMPLETE_MODULES)
    missing = [
        f"{gap.package}.{gap.name}: {', '.join(gap.missing)}"
        for group in PINNED_GROUPS
        for gap in found[group]
        if gap.missing and gap.package not in PENDING_MODULES
    ]
    assert not missing, "; ".join(missing)


def _documented(a: int, b: int = 0) -> int:
    """Add.

    Parameters
    ----------
    a, b : int
        The numbers.

    Returns
    -------
    int
        Their sum.
    """
    return a + b


def _undocumented(a: int) -> int:
    """Add nothing.

    Parameters: ``a``.
    """
    return a


class _Record:
    """A record.

    Attributes
    ----------
    name : str
    """

    def __init__(self, name: str) -> None:
        self.name = name


class _Interface(Protocol):
    def run(self, n: int) -> int: ...


def _generate(n: int):
    """Count.

    Parameters
    ----------
    n : int
    """
    yield from range(n)


def test_the_measure_tells_a_complete_docstring_from_an_incomplete_one():
    assert lacks(_documented) == ()
    # "Parameters:" in prose is no section; the annotation says it returns something
    assert lacks(_undocumented) == ("Parameters", "Returns")
    # a class's fields may be its Attributes, and a class returns nothing to document
    assert needs(_Record) == ("Parameters",) and lacks(_Record) == ()
    # an exception's message is not counted
    assert needs(ValueError) == ()
    # an unannotated generator yields
    assert lacks(_generate) == ("Yields",)
    # an interface is never built
    assert needs(_Interface) == ()


def test_a_section_needs_its_line_of_dashes():
    doc = inspect.getdoc(_documented)
    assert has_section(doc, "Parameters") and has_section(doc, "Returns")
    assert not has_section(doc, "Raises")
    assert not has_section("Parameters\nnone here", "Parameters")
