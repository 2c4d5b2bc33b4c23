"""The packages' imports: no cycles anywhere, and import-linter's contracts (`make lint`) say what they must.

The floors and the task folders' independence are import-linter's contracts in ``pyproject.toml``; the tests here
check that those contracts cover every registered task folder and that the speed benchmarks stay the one exempt layer.
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import grimp
import networkx

from benchmarks.tasks import TASKS

PACKAGES = ("graphkit", "benchmarks", "baselines", "vision", "reasonmap")
PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = PYPROJECT["tool"]["importlinter"]["contracts"]


def _cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module, each sorted, in order."""
    graph = networkx.DiGraph((module, target) for module, targets in imports.items() for target in targets)
    graph.add_nodes_from(imports)
    return sorted(sorted(group) for group in networkx.strongly_connected_components(graph) if len(group) > 1)


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert _cycles({"d": {"c"}, "c": {"d"}, "b": {"a"}, "a": {"b", "c"}}) == [["a", "b"], ["c", "d"]]


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(*PACKAGES)
    imports = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert _cycles(imports) == []


def _contracts(kind: str) -> list[dict]:
    return [contract for contract in CONTRACTS if contract["type"] == kind]


def test_no_two_task_folders_may_import_each_other():
    folders = {where.split(":")[0].rsplit(".", 1)[0] for where in TASKS.values()}
    assert len(folders) == len(TASKS) >= 4  # one folder per task (benchmarks.reasonmap, benchmarks.plus, ...)
    covered = {
        frozenset(pair)
        for contract in _contracts("independence")
        for pair in itertools.combinations(contract["modules"], 2)
    }
    missing = [pair for pair in itertools.combinations(sorted(folders), 2) if frozenset(pair) not in covered]
    assert missing == []


def test_the_speed_benchmarks_are_the_one_exempt_layer_and_nothing_imports_them():
    (floors,) = _contracts("layers")
    assert floors["layers"][0] == "reasonmap" and floors["layers"][-1] == "graphkit"
    # the only imports up the floors the contract lets through are the speed benchmarks' own
    assert floors["ignore_imports"]
    assert all(rule.startswith("benchmarks.speed.** -> ") for rule in floors["ignore_imports"])
    # and no library module leans on them
    forbidding = [c for c in _contracts("forbidden") if c["forbidden_modules"] == ["benchmarks.speed"]]
    assert len(forbidding) == 1
    assert set(forbidding[0]["source_modules"]) == {"graphkit", "benchmarks.*", "baselines", "vision", "reasonmap"}
