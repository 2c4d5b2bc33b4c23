"""ARCHITECTURE.md stays true: the paths it names exist, and it describes every task and every field of the record."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from benchmarks.tasks import RECOGNISERS, TASKS, Task, get_task, imported, task_names

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
# a backticked path: folders end with "/", files with a suffix
PATHS = re.findall(r"`([\w./-]+/(?:[\w.-]+\.(?:py|md|toml))?)`", TEXT)


def test_every_path_it_names_exists():
    assert len(PATHS) > 20  # the page names the modules it speaks of
    missing = [path for path in PATHS if not (ROOT / path).exists()]
    assert missing == []


def test_every_registered_task_is_described_with_its_record_and_folder():
    for name, where in TASKS.items():
        module, attribute = where.split(":")
        path = module.replace(".", "/") + ".py"
        row = f"| `{name}` | `{attribute}` in `{path}` |"
        assert row in TEXT, row
        assert get_task(name).name == name


def test_every_recogniser_the_registry_names_is_its_tasks_own():
    # detect_task calls these without importing the records: each must be the function the record holds
    assert set(RECOGNISERS) <= set(TASKS)
    for name, where in RECOGNISERS.items():
        assert imported(where) is get_task(name).recognise, name


def test_every_field_of_the_task_record_is_described():
    first_cells = re.findall(r"^\| (`\w+`(?:, `\w+`)*) \|", TEXT, flags=re.MULTILINE)
    names = {name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)}
    fields = {field.name for field in dataclasses.fields(Task)}
    assert fields - names == set()


def test_the_records_callables_are_typed_by_protocols():
    # a field typed Callable[..., X] says nothing of what it is called with: each names its protocol
    source = (ROOT / "benchmarks" / "tasks.py").read_text(encoding="utf-8")
    assert re.findall(r"Callable\[\.\.\.", source) == []


def test_every_subcommand_module_it_lists_adds_parsers():
    for path in re.findall(r"`(reasonmap/\w+_commands?\.py)`", TEXT):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(r"^def add_\w+\(commands", source, flags=re.MULTILINE), path


# a task's name, quoted, compared with something: `== "route"`, `in ("plus", ...)`, `case "mapqa"`, `"route" ==`
_QUOTED = rf"[\"'](?:{'|'.join(task_names())})[\"']"
BRANCH = re.compile(
    rf"(?:==|!=|\bin\b|\bis\b|\bcase\b)\s*[(\[{{]?[^#\n]*?{_QUOTED}|{_QUOTED}\s*(?:==|!=|\bin\b|\bis\b)"
)


def test_no_module_of_the_application_branches_on_a_tasks_name():
    """``reasonmap/`` composes task records: a comparison with a task's name (``== "route"``, ``in ("plus", ...)``,
    ``case "mapqa"``) would be task-specific code that a new task has to edit."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "reasonmap").glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BRANCH.search(line) and not line.lstrip().startswith("#")
    ]
    assert found == []


def test_the_branch_check_sees_a_branch():
    """The pattern of the test above catches the branches it is meant to (else it would pass vacuously)."""
    for line in ('if task.name != "route":', "if name in ('plus', 'mapqa'):", 'case "mapqa":', '"route" == kind'):
        assert BRANCH.search(line), line
    for line in ('get_task(args.task or "route")', 'task: str = "route"', 'add_parser("route", help="...")'):
        assert not BRANCH.search(line), line


def _imports_a_task_folder(path: Path, folders: set[str]) -> bool:
    """Whether a module imports anything from ``benchmarks.<folder>`` for one of ``folders``."""
    import ast

    wanted = {f"benchmarks.{folder}" for folder in folders}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if any(".".join(name.split(".")[:2]) in wanted for name in names):
            return True
    return False


def test_every_module_of_the_application_that_imports_a_task_folder_is_listed():
    """The page lists the modules of ``reasonmap/`` that still import from a task folder; a new one is named
    there (or its import goes through the record)."""
    folders = {where.split(":")[0].split(".")[1] for where in TASKS.values()}
    listed = set(re.findall(r"`(reasonmap/\w+\.py)`", TEXT.split("do (the same test fails")[1].split("| field |")[0]))
    found = {
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "reasonmap").glob("*.py"))
        if _imports_a_task_folder(path, folders)
    }
    assert found, "the check sees no import at all"
    assert found - listed == set()
