"""The ablation notebook runs end to end on the built-in demonstration and on runs given to it."""

from __future__ import annotations

import json
import os
import runpy
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


def _settings(out: Path, **settings: str) -> dict[str, str]:
    """The notebook's settings for a small built-in run into ``out``, with ``settings`` over them."""
    return (
        dict(
            ABLATIONS_OUT=str(out),
            ABLATIONS_CITIES="rome,lisboa,singapore",
            ABLATIONS_QUESTIONS="8",
            ABLATIONS_SEED="2",
            ABLATIONS_RESAMPLES="300",
        )
        | settings
    )


def _run(out: Path, **settings: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg") | _settings(out, **settings)
    return subprocess.run(
        [sys.executable, str(NOTEBOOK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _stopped(monkeypatch, out: Path, **settings: str) -> str:
    """The one line the notebook stops with, run in this process (a refused setting or run ends it with
    ``SystemExit(message)``, which Python prints to stderr with exit status 1: checked as a process by
    :func:`test_a_bad_setting_ends_the_process_with_status_1_and_one_line`). The test fails when nothing is
    refused."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("ABLATIONS_RUNS", raising=False)
    for name, value in _settings(out, **settings).items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(NOTEBOOK), run_name="__main__")
    assert isinstance(stopped.value.code, str), stopped.value.code  # a message: exit status 1, the message on stderr
    return stopped.value.code


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
    # right every time: no spread, so no interval is claimed
    assert (ceiling["mean"], ceiling["low"], ceiling["high"]) == (1.0, None, None)
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


BAD_SETTINGS = [
    ({"ABLATIONS_RUNS": "nonexistent"}, "ABLATIONS_RUNS: nonexistent: no such folder"),
    ({"ABLATIONS_RUNS": ","}, "ABLATIONS_RUNS: expected at least one name, got ','"),
    ({"ABLATIONS_RESAMPLES": "0"}, "ABLATIONS_RESAMPLES: expected a whole number from 200 to 50,000, got 0"),
    ({"ABLATIONS_RESAMPLES": "abc"}, "ABLATIONS_RESAMPLES: expected a whole number from 200 to 50,000, got 'abc'"),
    ({"ABLATIONS_RESAMPLES": "2e3"}, "got '2e3'"),
    ({"ABLATIONS_RESAMPLES": "9" * 5000}, "got '99999"),  # no 4,300-digit int error
    ({"ABLATIONS_QUESTIONS": "-1"}, "ABLATIONS_QUESTIONS: expected a whole number from 0 to 10,000, got -1"),
    ({"ABLATIONS_SEED": "-1"}, "ABLATIONS_SEED: expected a whole number from 0 to 18,446,744,073,709,551,615"),
    ({"ABLATIONS_CITIES": "atlantis"}, "ABLATIONS_CITIES: unknown city 'atlantis'"),
    ({"ABLATIONS_CITIES": "rome,rom"}, "ABLATIONS_CITIES: unknown city 'rom'; did you mean 'rome'?"),
]


@pytest.mark.parametrize(("settings", "says"), BAD_SETTINGS, ids=[str(case[0])[:60] for case in BAD_SETTINGS])
def test_a_bad_setting_is_one_line_and_a_failure(tmp_path, monkeypatch, settings, says):
    error = _stopped(monkeypatch, tmp_path / "out", **settings)
    assert error.startswith("ablations: ABLATIONS_") and "\n" not in error and says in error, error[-2000:]
    assert not (tmp_path / "out").exists()


def test_a_bad_setting_ends_the_process_with_status_1_and_one_line(tmp_path):
    """The notebook run as a script: a refused setting is its exit status 1 and one line on stderr."""
    settings, says = BAD_SETTINGS[-1]
    done = _run(tmp_path / "out", **settings)
    assert done.returncode == 1
    error = done.stderr.strip()
    assert error.startswith("ablations: ABLATIONS_") and "\n" not in error and says in error, error[-2000:]
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def _a_run(folder: Path) -> Path:
    """A folder in eval's layout; only its names matter, the notebook stops before reading it."""
    scored = folder / "route" / "full" / "scored.jsonl"
    scored.parent.mkdir(parents=True)
    scored.write_text("{}\n", encoding="utf-8")
    return folder


def test_the_output_is_never_a_run_it_reads_nor_inside_one(tmp_path, monkeypatch):
    run = _a_run(tmp_path / "run")
    (tmp_path / "link").symlink_to(run)
    before = sorted(str(path) for path in run.rglob("*"))
    for out, says in [
        (run, f"ABLATIONS_OUT: {run} is the folder {run} (ABLATIONS_RUNS), which is read"),
        (run / "route", f"ABLATIONS_OUT: {run / 'route'} is inside the folder {run} (ABLATIONS_RUNS), which is read"),
        (tmp_path / "link" / "sub", "is inside the folder"),  # through a symbolic link
        (run / "route" / "full" / "scored.jsonl", "scored.jsonl: a file, not a folder"),
    ]:
        assert says in _stopped(monkeypatch, out, ABLATIONS_RUNS=str(run))
    assert sorted(str(path) for path in run.rglob("*")) == before  # nothing written into the run
    assert "no such folder" in _stopped(monkeypatch, tmp_path / "out", ABLATIONS_RUNS=str(tmp_path / "empty"))
    (tmp_path / "plus-only" / "plus" / "full").mkdir(parents=True)
    error = _stopped(monkeypatch, tmp_path / "out", ABLATIONS_RUNS=str(tmp_path / "plus-only"))
    assert "plus-only: no route results (route/<mode>/scored.jsonl" in error


@pytest.mark.slow
def test_a_pixel_budget_sweeps_full_modes_are_read(run, tmp_path):
    """An ``eval --pixel-budget 1M,4M`` run holds ``route/full@1M`` and ``route/full@4M`` and no ``full``:
    each budget is a mode, and the largest is what the others are compared with."""
    import shutil

    out, summary = run
    careful = out / "runs" / "careful"
    sweep = tmp_path / "sweep"
    shutil.copytree(careful / "questions", sweep / "questions")
    # the built-in run's full answers as the 4M ones, its alias answers as the 1M ones
    for mode, folder in (("full", "full@4M"), ("alias", "full@1M"), ("text-only", "text-only")):
        shutil.copytree(careful / "route" / mode, sweep / "route" / folder)
    done = _run(tmp_path / "out", ABLATIONS_RUNS=str(sweep))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "compared with full@4M, the largest pixel budget" in done.stdout
    mine = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert mine["modes"] == ["full@1M", "full@4M", "text-only"]
    built_in = summary["intervals"]["careful"]
    assert mine["intervals"]["careful"] == {
        "full@1M": built_in["alias"],
        "full@4M": built_in["full"],
        "text-only": built_in["text-only"],
    }
    expected = {
        (row["mode_b"], row["metric"]): row["difference"]
        for row in summary["differences"]
        if row["model_a"] == "careful" and row["mode_b"] in ("alias", "text-only")
    }
    renamed = {("full@1M" if mode == "alias" else mode, metric): value for (mode, metric), value in expected.items()}
    assert {(row["mode_b"], row["metric"]): row["difference"] for row in mine["differences"]} == renamed
    assert {row["mode_a"] for row in mine["differences"]} == {"full@4M"}
    assert "| full@4M | text-only | text-only − full@4M [95% CI] |" in (tmp_path / "out" / "by_city.md").read_text(
        encoding="utf-8"
    )
