"""Which public callables of the package facades lack a numpydoc ``Parameters`` or ``Returns`` section.

Run ``python -m tests.docstrings`` from the checkout (``--missing`` also lists each callable that lacks a section):
it prints, per facade, how many of its public callables (the functions and the classes its ``__all__`` names)
have every section they need, and last one JSON line ``{package: [complete, callables]}``. With ``--modules`` it
measures every module's public callables instead (its ``__all__``, else its names without ``_``; those it defines),
per package, the benchmarks root apart from the task folders.

What a callable needs:

- ``Parameters`` when it takes any (a class: its constructor's, so a record's fields, which an ``Attributes``
  section may describe instead; an exception's message is not counted);
- ``Returns`` (or ``Yields`` for a generator) when a function returns something (its return annotation is not
  ``None``); a context manager's ``Yields`` stands for it; a class never needs one, nor a ``Protocol``
  ``Parameters``.

A section is a line with its name followed by a line of dashes, as numpydoc writes it. ``tests/test_docstrings.py``
pins the packages that are complete, so they stay complete.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
import sys
from collections.abc import Callable
from typing import Any

FACADES = (
    "graphkit",
    "benchmarks",
    "benchmarks.reasonmap",
    "benchmarks.plus",
    "benchmarks.mapqa",
    "benchmarks.probe",
    "baselines",
    "vision",
    "reasonmap",
)


@dataclasses.dataclass(frozen=True, slots=True)
class Gap:
    """One public callable and the sections its docstring lacks (empty: complete).

    Parameters
    ----------
    package : str
        The facade that exports it.
    name : str
        Its public name.
    missing : tuple of str
        The numpydoc sections it needs and lacks, such as ``("Parameters", "Returns")``.
    """

    package: str
    name: str
    missing: tuple[str, ...]


def has_section(doc: str | None, section: str) -> bool:
    """Whether a docstring has a numpydoc section: its name on a line, a line of dashes under it.

    Parameters
    ----------
    doc : str or None
        The docstring (``None``: no docstring, so no section).
    section : str
        The section's name, such as ``"Parameters"``.

    Returns
    -------
    bool
        True when the section is there.

    Examples
    --------
    >>> has_section("Sum.\\n\\n    Parameters\\n    ----------\\n    a : int\\n", "Parameters")
    True
    >>> has_section("Sum.\\n\\n    Parameters: a and b\\n", "Parameters")
    False
    """
    return bool(doc) and re.search(rf"^\s*{section}\s*\n\s*-{{3,}}\s*$", doc, re.M) is not None


def _parameters(function: Callable[..., Any]) -> list[str]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    return [name for name in signature.parameters if name not in ("self", "cls")]


def needs(value: Any) -> tuple[str, ...]:
    """The numpydoc sections a public callable's docstring needs.

    Parameters
    ----------
    value : callable
        A function or a class.

    Returns
    -------
    tuple of str
        ``"Parameters"`` when it takes any (an exception's are not counted), then ``"Returns"`` (``"Yields"``
        for a generator) when a function returns something.

    Examples
    --------
    >>> def add(a: int, b: int) -> int:
    ...     return a + b
    >>> needs(add)
    ('Parameters', 'Returns')
    >>> def tell() -> None:
    ...     pass
    >>> needs(tell)
    ()
    """
    if inspect.isclass(value):
        # an exception's message, a Protocol (an interface, never built) and a class built without arguments
        if (
            issubclass(value, BaseException)
            or getattr(value, "_is_protocol", False)
            or value.__init__ is object.__init__
        ):
            return ()
        return ("Parameters",) if _parameters(value) else ()
    found = ["Parameters"] if _parameters(value) else []
    returned = inspect.signature(value).return_annotation
    if returned not in ("None", None, "NoReturn"):  # an unannotated function is taken to return something
        found.append("Yields" if inspect.isgeneratorfunction(value) else "Returns")
    return tuple(found)


def public_callables(package: str) -> list[tuple[str, Any]]:
    """The functions and classes a facade's ``__all__`` names, in its order.

    Parameters
    ----------
    package : str
        The package, such as ``"graphkit"``.

    Returns
    -------
    list of (str, callable)
        Each public name with its value.
    """
    module = importlib.import_module(package)
    found = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            found.append((name, value))
    return found


def gaps(package: str) -> list[Gap]:
    """Each public callable of a facade with the sections it lacks.

    Parameters
    ----------
    package : str
        The package, such as ``"graphkit"``.

    Returns
    -------
    list of Gap
        One per public callable, in the facade's order; ``missing`` is empty for a complete one.
    """
    return [Gap(package, name, lacks(value)) for name, value in public_callables(package)]


def lacks(value: Any) -> tuple[str, ...]:
    """The numpydoc sections a public callable needs and its docstring lacks.

    Parameters
    ----------
    value : callable
        A function or a class.

    Returns
    -------
    tuple of str
        The sections of :func:`needs` that are absent (a class's ``Attributes`` stands for its ``Parameters``, a
        ``Yields`` for a ``Returns``).
    """
    doc = inspect.getdoc(value)
    found = []
    for section in needs(value):
        if section == "Parameters" and inspect.isclass(value):
            accepted: tuple[str, ...] = ("Parameters", "Attributes")  # a record's fields may be its Attributes
        elif section == "Returns":
            accepted = ("Returns", "Yields")  # a context manager's value is what it yields
        else:
            accepted = (section,)
        if not any(has_section(doc, alternative) for alternative in accepted):
            found.append(section)
    return tuple(found)


#: the task folders of ``benchmarks`` and its speed benchmarks, measured apart from its root (``--modules``)
TASK_FOLDERS = ("reasonmap", "plus", "mapqa", "probe", "speed")
#: modules that import a heavy optional library at their top (Inspect): not imported to be measured
UNMEASURED = ("reasonmap.inspect_tasks", "benchmarks.reasonmap.inspect_scorer", "benchmarks.plus.inspect_scorer")


def module_group(module: str) -> str | None:
    """The group ``--modules`` counts a module in: its top package, the benchmarks root apart.

    Parameters
    ----------
    module : str
        A module's dotted name.

    Returns
    -------
    str or None
        ``"graphkit"``, ``"benchmarks (root)"``, ``"benchmarks.plus"``, ...; None for a module not measured.

    Examples
    --------
    >>> module_group("graphkit.gtfs.feed"), module_group("benchmarks.jsonl"), module_group("benchmarks.plus.task")
    ('graphkit', 'benchmarks (root)', 'benchmarks.plus')
    """
    parts = module.split(".")
    if module in UNMEASURED or parts[0] not in {package.split(".")[0] for package in FACADES}:
        return None
    if parts[0] == "benchmarks":
        return f"benchmarks.{parts[1]}" if len(parts) > 1 and parts[1] in TASK_FOLDERS else "benchmarks (root)"
    return parts[0]


def module_gaps(tops: tuple[str, ...] | None = None) -> dict[str, list[Gap]]:
    """Each module's public callables with the sections they lack, by :func:`module_group`.

    Parameters
    ----------
    tops : tuple of str, optional
        Only the modules of these top packages (default: every package of :data:`FACADES`).

    Returns
    -------
    dict of str to list of Gap
        Per group, one per public callable (``package`` is its module).
    """
    found: dict[str, list[Gap]] = {}
    for top in tops or dict.fromkeys(package.split(".")[0] for package in FACADES):
        package = importlib.import_module(top)
        names = [top] + [info.name for info in pkgutil.walk_packages(package.__path__, top + ".")]
        for name in names:
            group = module_group(name)
            if group is None:
                continue
            module = importlib.import_module(name)
            public = getattr(module, "__all__", None) or [key for key in vars(module) if not key.startswith("_")]
            for key in public:
                value = getattr(module, key, None)
                if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ == name:
                    found.setdefault(group, []).append(Gap(name, key, lacks(value)))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the share of complete callables per facade, and one JSON line.

    Parameters
    ----------
    argv : list of str, optional
        The command line's arguments (``sys.argv[1:]`` when None).

    Returns
    -------
    int
        The exit status: 0.
    """
    parser = argparse.ArgumentParser(prog="python -m tests.docstrings", description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list each callable that lacks a section")
    parser.add_argument("--modules", action="store_true", help="every module's public callables, not the facades'")
    arguments = parser.parse_args(argv)
    groups = module_gaps() if arguments.modules else {package: gaps(package) for package in FACADES}
    figures: dict[str, list[int]] = {}
    for group, found in groups.items():
        complete = sum(not gap.missing for gap in found)
        figures[group] = [complete, len(found)]
        print(f"{group:22} {complete:3} of {len(found):3} complete")
        if arguments.missing:
            for gap in found:
                if gap.missing:
                    where = f"{gap.package}." if arguments.modules else ""
                    print(f"    {where}{gap.name}: no {', '.join(gap.missing)}")
    total = [sum(pair[0] for pair in figures.values()), sum(pair[1] for pair in figures.values())]
    print(f"{'all':22} {total[0]:3} of {total[1]:3} complete")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
