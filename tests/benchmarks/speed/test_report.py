"""The report-writing benchmark runs each model count in its own process and reports it (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks.speed.report import main


@pytest.mark.slow  # each model count runs in a fresh process that draws the figures
def test_benchmark_prints_one_run_per_model_count_last(capsys):
    assert main(["--models", "3", "20", "--cities", "rome", "--per-city", "4"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out.strip().splitlines()[-1])
    assert [run["models"] for run in figures["runs"]] == [3, 20]
    for run in figures["runs"]:
        assert run["questions"] == 4 and run["verdicts"] == run["models"] * 4 * 2
    assert "20 models: report written in" in captured.err
