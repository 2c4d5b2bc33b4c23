"""Writing a report's files: the summary as sorted, indented JSON and its tables as text, each atomically.

One writer for every report (scores of each task, evaluation results, VDI,
diagnosis), so the same numbers always give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphkit.files import atomic_writer

__all__ = ["summary_json", "write_summary", "write_text"]


def summary_json(summary: Mapping[str, Any]) -> str:
    """The summary as the report writes it: keys sorted, indented, non-ASCII kept, a final newline.

    >>> summary_json({"b": 1, "a": "é"})
    '{\\n  "a": "é",\\n  "b": 1\\n}\\n'
    """
    return json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def write_summary(path: str | Path, summary: Mapping[str, Any]) -> Path:
    """Write ``summary`` to ``path`` (atomically); returns the path."""
    return write_text(path, summary_json(summary))


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (atomically); returns the path."""
    with atomic_writer(path) as stream:
        stream.write(text)
    return Path(path)
