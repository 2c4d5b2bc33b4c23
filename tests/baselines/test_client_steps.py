"""The client's run stays a sequence of named steps (STYLE: functions under 80 lines), its options unchanged."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from baselines.client import run_requests

SOURCE = Path(__file__).resolve().parents[2] / "baselines" / "client.py"


def test_no_function_of_the_client_reaches_eighty_lines():
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    lengths = {
        node.name: node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert lengths["run_requests"] > 0
    assert {name: length for name, length in lengths.items() if length >= 80} == {}


def test_run_requests_takes_the_same_options_with_the_same_defaults():
    parameters = inspect.signature(run_requests).parameters
    assert [(name, p.kind.name, p.default) for name, p in parameters.items()] == [
        ("requests", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
        ("endpoint", "KEYWORD_ONLY", inspect.Parameter.empty),
        ("model", "KEYWORD_ONLY", inspect.Parameter.empty),
        ("out", "KEYWORD_ONLY", inspect.Parameter.empty),
        ("concurrency", "KEYWORD_ONLY", 4),
        ("max_tokens", "KEYWORD_ONLY", None),
        ("timeout", "KEYWORD_ONLY", 60.0),
        ("max_retries", "KEYWORD_ONLY", 6),
        ("temperature", "KEYWORD_ONLY", None),
        ("progress", "KEYWORD_ONLY", True),
        ("api_key", "KEYWORD_ONLY", None),
        ("retry_errors", "KEYWORD_ONLY", False),
        ("backoff", "KEYWORD_ONLY", None),
        ("name", "KEYWORD_ONLY", None),
        ("repeats", "KEYWORD_ONLY", 1),
        ("force_repeats", "KEYWORD_ONLY", False),
    ]
