"""A cancelled Inspect log scored with ``--partial`` says so in its report, and ``leaderboard`` refuses it unless
``--allow-partial`` (campaign 4, F13: 3 of 8 samples scored 100.00 and ranked first with no note)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.reasonmap.test_inspect_tasks import _failed_copy, _inspect_imported, route_run  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None, reason="the [inspect] extra is absent")


def test_a_partial_log_is_marked_in_summary_and_table_and_refused_by_leaderboard(route_run, tmp_path, capsys):  # noqa: F811
    from reasonmap.cli import main

    _, _, path, log = route_run
    cancelled = _failed_copy(log, tmp_path, status="cancelled")  # its first 3 samples
    report = tmp_path / "part"
    command = ["score", "--questions", str(path), "--predictions", str(cancelled), "--from", "inspect", "--partial"]
    assert main([*command, "--out", str(tmp_path / "s.jsonl"), "--report", str(report)]) == 0
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert summary["partial"] == {"source": "inspect", "log": cancelled.name, "status": "cancelled", "samples": 3}
    table = (report / "table.md").read_text(encoding="utf-8")
    assert "**Partial run**: the Inspect log ended with status `cancelled`; only its 3 finished samples" in table
    capsys.readouterr()
    board = ["leaderboard", str(report), "--out", str(tmp_path / "lb"), "--no-figure"]
    assert main(board) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "partial: its inspect log ended with status 'cancelled', 3 samples scored" in error[0]
    assert main([*board, "--allow-partial"]) == 0
    assert "(partial)" in (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
