"""ARCHITECTURE.md stays true: the paths it names exist, and it describes every task and every field of the record."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from benchmarks.tasks import TASKS, Task, get_task

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


def test_every_field_of_the_task_record_is_described():
    first_cells = re.findall(r"^\| (`\w+`(?:, `\w+`)*) \|", TEXT, flags=re.MULTILINE)
    names = {name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)}
    fields = {field.name for field in dataclasses.fields(Task)}
    assert fields - names == set()


def test_every_subcommand_module_it_lists_adds_parsers():
    for path in re.findall(r"`(reasonmap/\w+_commands?\.py)`", TEXT):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(r"^def add_\w+\(commands", source, flags=re.MULTILINE), path
