"""Each package's public surface: its ``__all__`` is pinned, every name resolves, and importing stays cheap."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A name added to or dropped from a surface is a change to the toolkit's contract: update this table with it.
SURFACES: dict[str, tuple[str, ...]] = {
    "graphkit": (
        "all_city_stats",
        "AmbiguousLine",
        "AmbiguousStation",
        "city_graph",
        "city_names",
        "city_path",
        "city_stats",
        "CityStats",
        "compile_graph",
        "DEFAULT_MAX_ROUTES",
        "fold",
        "folder_list",
        "graph_from_file",
        "InvalidMetroData",
        "InvalidOverlay",
        "InvalidSetting",
        "Line",
        "load_city",
        "load_metro",
        "load_metro_file",
        "load_overlay",
        "MetroData",
        "name_list",
        "NameIndex",
        "NoRoute",
        "open_executor",
        "output_folder",
        "Overlay",
        "reference_routes",
        "Resolution",
        "Route",
        "RouteSet",
        "Segment",
        "shortest_route",
        "shortest_route_length",
        "shortest_routes",
        "StationEntry",
        "synthesize_network",
        "TransitError",
        "TransitGraph",
        "UnknownCity",
        "UnknownLine",
        "UnknownStation",
        "whole_number",
        "write_references",
    ),
    "benchmarks": (
        "BenchmarkError",
        "check_manifest",
        "compare_scored",
        "comparison_markdown",
        "detect_task",
        "file_sha256",
        "get_task",
        "headline_intervals",
        "Invalid",
        "InvalidRecord",
        "leaderboard_markdown",
        "leaderboard_table",
        "plot_comparison",
        "plot_leaderboard",
        "Problem",
        "read_jsonl",
        "task_names",
        "unique_by_id",
        "write_jsonl",
        "write_summary",
        "write_text",
    ),
    "benchmarks.reasonmap": (
        "accuracy_reward",
        "compute_score",
        "DIFFICULTIES",
        "format_reward",
        "generate_questions",
        "load_public_dataset",
        "load_questions",
        "parse_answer",
        "Prediction",
        "Question",
        "read_predictions",
        "score_answer",
        "score_prediction",
        "score_predictions",
        "summarize",
        "TEST_CITIES",
        "VARIANT_NAMES",
        "Verdict",
        "weight_of",
        "WEIGHTINGS",
        "write_report",
    ),
    "benchmarks.plus": (
        "chance_accuracy",
        "generate_plus_questions",
        "generate_plus_set",
        "load_hub_plus",
        "load_questions",
        "parse_answer",
        "PLUS_TYPES",
        "plus_weight",
        "PlusPrediction",
        "PlusQuestion",
        "PlusVerdict",
        "read_plus_sheet",
        "read_predictions",
        "score_answer",
        "score_prediction",
        "score_predictions",
        "summarize",
        "write_report",
    ),
    "benchmarks.mapqa": (
        "Choice",
        "descriptive_saturation_index",
        "image_path",
        "LEVELS",
        "load_questions",
        "MapPrediction",
        "MapQuestion",
        "MapVerdict",
        "METRICS",
        "parse_answer",
        "QUESTION_TYPES",
        "read_predictions",
        "score_answer",
        "score_prediction",
        "score_predictions",
        "summarize",
        "visual_dependency_index",
        "write_report",
    ),
    "benchmarks.probe": (
        "generate_probe_questions",
        "generate_probe_set",
        "load_questions",
        "parse_answer",
        "PROBE_TYPES",
        "ProbePrediction",
        "ProbeQuestion",
        "ProbeVerdict",
        "read_predictions",
        "score_answer",
        "score_prediction",
        "score_predictions",
        "summarize",
        "write_report",
    ),
    "baselines": (
        "aliased",
        "BaselineError",
        "build_requests",
        "ClientError",
        "InvalidTextualization",
        "MODES",
        "Noise",
        "plus_oracle_predictions",
        "render_answer",
        "Request",
        "run_requests",
        "run_solver",
        "RunSummary",
        "solve",
        "solve_probe",
        "SOLVERS",
        "symbolic_prompt",
        "text_oracle_routes",
        "TEXTUALIZATIONS",
        "unalias_text",
    ),
    "vision": (
        "analyse_map",
        "answer_route",
        "attribute_diagnoses",
        "CATEGORIES",
        "confusion_crops",
        "diagnose_files",
        "diagnose_predictions",
        "Diagnosis",
        "draw_routes",
        "EngineUnavailable",
        "find_font",
        "folder_evidence",
        "follow_results",
        "LABELS",
        "map_files",
        "MapEvidence",
        "plot_confusions",
        "plot_labels",
        "prediction_row",
        "read_truth",
        "reference_route",
        "render_map",
        "summarize",
        "summary_markdown",
        "VisionError",
        "write_rendered",
    ),
}
# the packages a researcher imports from; graphkit's surface is the widest, the others stay small
SMALL = tuple(name for name in SURFACES if name != "graphkit")
# vision's is the widest of the small ones: reading a map, diagnosing (a file, or rows, with probe attribution), and
# drawing an answer's route; the route task's holds its records, its stages, its report and both RL rewards; the
# benchmarks root's the registry and the plumbing, a run folder's check among it
WIDEST = {"vision": 26, "benchmarks": 21, "benchmarks.reasonmap": 21}


@pytest.mark.parametrize("package", SURFACES)
def test_the_public_names_are_pinned(package):
    assert list(importlib.import_module(package).__all__) == list(SURFACES[package])


@pytest.mark.parametrize("package", SMALL)
def test_each_surface_is_small(package):
    assert 10 <= len(SURFACES[package]) <= WIDEST.get(package, 20)


# (facade, name) -> where the name lives now: the VDI measures serve every task, so they moved to the benchmarks root
KEPT_AFTER_A_MOVE = {
    ("benchmarks.mapqa", "descriptive_saturation_index"): "benchmarks.vdi",
    ("benchmarks.mapqa", "visual_dependency_index"): "benchmarks.vdi",
}


@pytest.mark.parametrize("package", SURFACES)
def test_every_public_name_resolves_to_its_home(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None, name
        assert name in dir(module), name
        origin = getattr(value, "__module__", None)
        if origin is not None and not isinstance(value, (tuple, dict, frozenset, int, str)):
            # defined inside the package it is exported from, never borrowed from another one (but the few names
            # that moved down to the benchmarks root, which the task facade they came from still exports)
            home = KEPT_AFTER_A_MOVE.get((package, name), package + ".")
            assert origin.startswith(home), (name, origin)


@pytest.mark.parametrize("package", SURFACES)
def test_a_public_name_never_shadows_a_submodule(package):
    # importing the submodule would replace the name on the package (``vision.diagnose`` the function by the module)
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not submodules & set(module.__all__)


@pytest.mark.parametrize("package", SURFACES)
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package):
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_star_import_gives_the_surface():
    namespace: dict = {}
    exec("from benchmarks.reasonmap import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(SURFACES["benchmarks.reasonmap"])


def test_importing_every_package_loads_nothing_behind_the_names():
    """A fresh interpreter imports all the packages: only their ``__init__`` modules (and the lazy helper) load."""
    code = (
        "import json, sys; before = set(sys.modules); "
        f"import {', '.join(SURFACES)}; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sorted({*SURFACES, "graphkit.lazy"})


def _toolkit_imports(path: Path) -> list[tuple[str, str | None]]:
    """``(module, name)`` for each toolkit import of a file (``name`` None for a plain ``import``)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
    roots = {package.split(".")[0] for package in SURFACES}
    return [(module, name) for module, name in found if module.split(".")[0] in roots]


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.py")), ids=lambda path: path.name)
def test_the_notebooks_import_only_public_names(notebook):
    imports = _toolkit_imports(notebook)
    assert imports  # the notebook uses the toolkit at all
    for module, name in imports:
        assert module in SURFACES, f"{notebook.name} imports the internal module {module}"
        assert name is None or name in SURFACES[module], f"{notebook.name} imports {module}.{name}, not public"


def test_every_name_of_the_applications_surface_resolves():
    """``reasonmap``'s surface is what a notebook composes from finished runs (some names are borrowed from
    ``benchmarks``, so it is not among the pinned ``SURFACES``); each name must still import."""
    import reasonmap

    assert {"evaluate_files", "build_synthetic_set", "SynthOptions"} <= set(reasonmap.__all__)
    for name in reasonmap.__all__:
        assert getattr(reasonmap, name) is not None, name
