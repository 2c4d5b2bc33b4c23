"""The main job: generate, solve, score and report on the embedded data."""

from __future__ import annotations

import json

import pytest

from benchmarks.reasonmap.report import REPORT_FILES
from reasonmap.cli import main
from reasonmap.demo import run_demo


@pytest.mark.slow
@pytest.mark.figures  # the demo draws its figures for real here (tests/conftest.py writes placeholders elsewhere)
def test_demo_writes_every_output_and_the_ceiling_is_perfect(tmp_path):
    result = run_demo(tmp_path, cities=("rome", "beijing", "budapest"), progress=False)
    for name in ("questions.jsonl", "predictions.jsonl", "scored.jsonl"):
        assert (tmp_path / name).stat().st_size > 0
    assert all((tmp_path / "report" / name).exists() for name in REPORT_FILES)
    models = result.evaluation.summary["models"]
    assert set(models) == {f"baseline:{n}" for n in ("oracle", "text-oracle", "direct-line", "echo", "noisy")}
    for ceiling in ("baseline:oracle", "baseline:text-oracle"):
        assert models[ceiling]["weighted_accuracy_short"] == models[ceiling]["weighted_accuracy_long"] == 1.0
    assert models["baseline:echo"]["weighted_accuracy_short"] == 0.0
    assert result.predictions == 5 * 2 * result.questions


@pytest.mark.slow  # compares the text outputs only: its two runs' figures are placeholders (tests/conftest.py)
def test_demo_command_prints_the_table_and_is_reproducible(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "a"), "--quiet"]) == 0
    table = capsys.readouterr().out
    assert "| baseline:text-oracle | 100.00 ± – |" in table
    assert main(["demo", "--out", str(tmp_path / "b"), "--quiet"]) == 0
    for name in ("questions.jsonl", "predictions.jsonl", "scored.jsonl", "report/summary.json", "report/table.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    # the same seed gives the same bytes whichever command generates the test split
    assert main(["generate", "--split", "test", "--seed", "0", "--out", str(tmp_path / "q.jsonl"), "--quiet"]) == 0
    assert (tmp_path / "q.jsonl").read_bytes() == (tmp_path / "a" / "questions.jsonl").read_bytes()
    summary = json.loads((tmp_path / "a" / "report" / "summary.json").read_text(encoding="utf-8"))
    assert len(summary["models"]["baseline:oracle"]["per_city"]) == 11
