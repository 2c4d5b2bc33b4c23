"""The ablation notebook runs end to end on the built-in demonstration and on runs given to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import made_once

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "ablations.py"
TABLES = ("modes.md", "differences.md", "by_city.md", "by_difficulty.md")
FILES = (*TABLES, "summary.json", "differences.json", "differences.png", "ablations.png", "ablations.pdf")
MODES = ["full", "text-only", "symbolic", "alias"]


def _run(out: Path, **settings: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        ABLATIONS_OUT=str(out),
        ABLATIONS_CITIES="rome,lisboa,singapore",
        ABLATIONS_QUESTIONS="8",
        ABLATIONS_SEED="2",
        ABLATIONS_RESAMPLES="300",
        MPLBACKEND="Agg",
        **settings,
    )
    return subprocess.run(
        [sys.executable, str(NOTEBOOK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _ran(out: Path) -> None:
    done = _run(out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The built-in run's folder and summary: run once in the session, whichever xdist worker asks first."""
    out = made_once(tmp_path_factory, "ablations", _ran)
    return out, json.loads((out / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_writes_every_output(run):
    out, summary = run
    for name in FILES:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    for name in TABLES:
        assert (out / name).read_text(encoding="utf-8").startswith(("| ", "Paired comparison")), name
    assert "| 1 | baseline:text-oracle |" in (out / "modes.md").read_text(encoding="utf-8")  # the ceiling leads
    assert summary["modes"] == MODES and not summary["problems"]
    assert summary["models"][:2] == ["careful", "hasty"]
    assert {"baseline:text-oracle", "baseline:direct-line", "baseline:echo"} <= set(summary["models"])


@pytest.mark.slow
def test_the_modes_differ_as_designed(run):
    _, summary = run
    intervals = summary["intervals"]
    for model in ("careful", "hasty"):
        full, masked = intervals[model]["full"], intervals[model]["text-only"]
        for key in ("weighted_accuracy_long", "map_score_long"):
            assert full[key]["low"] <= full[key]["mean"] <= full[key]["high"]
            assert masked[key]["mean"] < full[key]["mean"]  # masking the map costs: most lines are guesses
    ceiling = intervals["baseline:text-oracle"]["full"]["weighted_accuracy_long"]
    assert ceiling["mean"] == ceiling["low"] == ceiling["high"] == 1.0  # right every time: no spread
    differences = {(row["model_a"], row["mode_b"], row["metric"]): row for row in summary["differences"]}
    masked = differences[("careful", "text-only", "weighted_accuracy_long")]
    assert masked["high"] < 0 and masked["p_value"] < 0.05 and masked["test"] == "mcnemar"
    # symbolic and alias differ only in the seed: their differences from full overlap
    symbolic = differences[("careful", "symbolic", "weighted_accuracy_long")]
    alias = differences[("careful", "alias", "weighted_accuracy_long")]
    assert symbolic["low"] <= alias["high"] and alias["low"] <= symbolic["high"]
    assert all(row["model_a"] in ("careful", "hasty") for row in summary["differences"])  # not the references
    cities = {row["city"] for row in summary["by_city"]}
    assert cities == {"rome", "lisboa", "singapore"}
    assert sum(row["n"] for row in summary["by_city"] if row["model"] == "careful") == 2 * summary["questions"]


@pytest.mark.slow
def test_same_seed_same_bytes(run, tmp_path):
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    for name in ("summary.json", *TABLES):
        assert (tmp_path / name).read_bytes() == (run[0] / name).read_bytes(), name


@pytest.mark.slow
def test_your_own_runs(run, tmp_path):
    """The built-in run's folders given back as a user's runs: the same numbers."""
    out, summary = run
    runs = ",".join(str(out / "runs" / name) for name in ("careful", "hasty"))
    done = _run(tmp_path, ABLATIONS_RUNS=runs)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    mine = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert mine["models"] == ["careful", "hasty"] and mine["settings"]["runs"] == ["careful", "hasty"]
    assert mine["intervals"]["careful"] == summary["intervals"]["careful"]
    assert mine["differences"] == summary["differences"]


def test_is_jupytext_percent_format():
    text = NOTEBOOK.read_text(encoding="utf-8")
    lines = text.splitlines()
    first = next(index for index, line in enumerate(lines) if line.startswith("# %%"))
    assert all(not line or line.startswith("#") for line in lines[:first])
    markers = [line for line in lines if line.startswith("# %%")]
    assert any(marker.startswith("# %% [markdown]") for marker in markers)
    assert any('tags=["parameters"]' in marker for marker in markers)
    for index, line in enumerate(lines):  # a markdown cell holds comments only
        if line.startswith("# %% [markdown]"):
            body = []
            for following in lines[index + 1 :]:
                if following.startswith("# %%"):
                    break
                body.append(following)
            assert all(not part or part.startswith("#") for part in body), line
