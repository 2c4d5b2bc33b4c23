"""One exception hierarchy per package: every public error class derives from its package's root."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

ROOTS = {
    "graphkit": "graphkit.errors:TransitError",
    "benchmarks": "benchmarks.errors:BenchmarkError",
    "baselines": "baselines.errors:BaselineError",
    "vision": "vision.errors:VisionError",
    "reasonmap": "reasonmap.errors:ReasonmapError",
}
# an error that is not the package's own kind of failure, each with the reason
OUTSIDE = {
    "graphkit.choices.UnknownChoice": "a bad option name, raised for every package's registries (a ValueError)",
    "graphkit.files.FolderLocked": "an OS condition (another run holds the folder), an OSError as file errors are",
}


def _error_classes(package: str) -> list[type[BaseException]]:
    root = importlib.import_module(package)
    found = []
    for info in pkgutil.walk_packages(root.__path__, prefix=package + "."):
        if info.name.startswith("benchmarks.speed") or info.name.endswith(".__main__"):
            continue  # not library code (nothing imports it), or a command that runs when imported
        try:
            module = importlib.import_module(info.name)
        except ImportError as error:  # an optional extra that is not installed (Inspect, Ray)
            if info.name.endswith((".inspect_tasks", ".inspect_scorer")) or "ray" in str(error):
                continue
            raise
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Exception)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found.append(value)
    return found


@pytest.mark.parametrize("package", ROOTS)
def test_every_error_derives_from_the_package_root(package):
    module, name = ROOTS[package].split(":")
    root = getattr(importlib.import_module(module), name)
    errors = _error_classes(package)
    assert root in errors
    strays = [
        f"{error.__module__}.{error.__qualname__}"
        for error in errors
        if not issubclass(error, root) and f"{error.__module__}.{error.__qualname__}" not in OUTSIDE
    ]
    assert strays == []


def test_the_re_parented_errors_are_still_caught_as_before():
    from baselines.errors import ClientError, EndpointRefused, EndpointUnreachable, InvalidTextualization
    from graphkit.errors import TransitError
    from reasonmap.eval import EvalError, NothingDone
    from reasonmap.paths import OverwriteRefused

    assert issubclass(EndpointRefused, ValueError) and issubclass(EndpointUnreachable, ConnectionError)
    assert issubclass(InvalidTextualization, TransitError) and issubclass(InvalidTextualization, ValueError)
    assert issubclass(EvalError, ValueError) and issubclass(NothingDone, EvalError)
    assert issubclass(OverwriteRefused, ValueError) and not issubclass(ClientError, ValueError)
