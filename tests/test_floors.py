"""The packages' imports: no cycles anywhere (the floors themselves are import-linter's contracts, `make lint`)."""

from __future__ import annotations

import grimp
import networkx

PACKAGES = ("graphkit", "benchmarks", "baselines", "vision", "reasonmap")


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
