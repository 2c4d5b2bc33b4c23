"""What ``leaderboard`` and ``compare`` check of the runs they read, and what they leave in ``--out``
(campaign 4: J2, J3, J6, J7, J13, J14, J16, C31, K1).

- a summary edited since its run's manifest was written (J7), or holding NaN, an infinity or a value out of its
  metric's range (J2, J3), is refused naming the run, the model and the field;
- a run that did not finish (manifest ``complete: false``: J6, J16) or that scored part of a log is refused unless
  ``--allow-partial``, and then marked in every table;
- ``--no-figure`` removes the figure an earlier run of the command wrote and recorded (J13, J14), and the last line
  names only the files written;
- ``--out`` a file is refused as such (C31); a file over ``ulimit -f`` is named (K1).
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from reasonmap.cli import main
from tests.reasonmap.run_folders import ROUTE_KEYS, route_rows, write_eval_run, write_score_report

ROWS = route_rows("m", {"q0": (1, 15.0, 0, 0.0), "q1": (0, 0.0, 1, 30.0)})
OTHER = route_rows("n", {"q0": (0, 0.0, 0, 0.0), "q1": (0, 0.0, 1, 20.0)})


def _model_row(**given) -> dict:
    row = {"n": 4, "n_invalid": 0, **dict.fromkeys(ROUTE_KEYS, 0.5)}
    row["intervals"] = {key: {"n": 2, "se": 0.1, "low": 0.3, "high": 0.7} for key in ROUTE_KEYS}
    for key, value in given.items():
        if key.startswith("low_"):
            row["intervals"][key[4:]]["low"] = value
        else:
            row[key] = value
    return row


def _manifest(report: Path) -> None:
    """Rewrite the report's manifest over its files as they are now (score's shape: name, size, SHA-256)."""
    files = []
    for name in ("../scored.jsonl", "summary.json"):
        data = (report / name).read_bytes()
        files.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    (report / "manifest.json").write_text(json.dumps({"command": "score", "complete": True, "files": files}))


def _error(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("given", "field", "shown"),
    [
        ({"weighted_accuracy_short": math.nan}, "weighted_accuracy_short", "nan: not a finite number"),  # J2
        ({"low_weighted_accuracy_short": -math.inf}, "intervals.weighted_accuracy_short.low", "-inf: not a finite"),
        ({"weighted_accuracy_short": -5}, "weighted_accuracy_short", "-5: outside the metric's range [0, 1]"),  # J3
        ({"map_score_long": 41.0}, "map_score_long", "41.0: outside the metric's range [0, 40]"),
        ({"map_score_short": 10**60}, "map_score_short", "an integer of 61 digits: outside the metric's range"),
    ],
)
def test_a_figure_that_is_no_finite_number_in_range_is_refused(tmp_path, capsys, given, field, shown):
    report = write_score_report(tmp_path / "rep", ROWS, models={"m": _model_row(**given)})
    assert main(["leaderboard", str(report), "--out", str(tmp_path / "lb"), "--no-figure"]) == 2
    error = _error(capsys)
    assert f"{report} route: summary.json model 'm': {field} is {shown}" in error, error
    assert not (tmp_path / "lb" / "leaderboard.json").exists()


def test_a_summary_edited_since_its_run_is_refused(tmp_path, capsys):
    # J7: the accuracy edited to 0.01 after the run wrote its manifest
    report = write_score_report(tmp_path / "rep", ROWS, models={"m": _model_row()})
    summary = json.loads((report / "summary.json").read_text())
    summary["models"]["m"]["weighted_accuracy_short"] = 0.01
    (report / "summary.json").write_text(json.dumps(summary))
    assert main(["leaderboard", str(report), "--out", str(tmp_path / "lb"), "--no-figure"]) == 2
    error = _error(capsys)
    assert f"{report / 'summary.json'}: changed since the run wrote it" in error, error
    assert "its figures are not the ones the run computed" in error
    _manifest(report)  # the run's own numbers (its manifest vouches for them): ranked
    assert main(["leaderboard", str(report), "--out", str(tmp_path / "lb"), "--no-figure"]) == 0


def _unfinished_eval(folder: Path) -> Path:
    """An eval run that stopped before its end (J16): its manifest marked incomplete over its reports."""
    run = write_eval_run(folder, {("route", "full"): ROWS})
    record = {"command": "eval", "complete": False, "files": [], "covers": ["*/*/*.jsonl", "*/*/report/*"]}
    (run / "manifest.json").write_text(json.dumps(record))
    return run


def test_an_unfinished_run_is_refused_unless_allowed_then_marked(tmp_path, capsys):
    unfinished = _unfinished_eval(tmp_path / "e_macro")
    done = write_eval_run(tmp_path / "done", {("route", "full"): OTHER})
    out = tmp_path / "lb"
    assert main(["leaderboard", str(unfinished), str(done), "--out", str(out), "--no-figure"]) == 2
    error = _error(capsys)
    assert f"{unfinished} route/full: incomplete: the run that wrote it did not finish" in error
    assert error.endswith("pass --allow-partial to rank it anyway, marked partial"), error
    assert not out.exists()
    assert main(["leaderboard", str(unfinished), str(done), "--out", str(out), "--no-figure", "--allow-partial"]) == 0
    markdown = (out / "leaderboard.md").read_text(encoding="utf-8")
    row = next(line for line in markdown.splitlines() if line.startswith("| ") and " m |" in line)
    assert row.count("(partial)") == 4  # the four Table 2 cells of the unfinished run
    assert "marked (partial)" in markdown and "did not finish" in markdown
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text(encoding="utf-8"))))
    assert {row["model"]: bool(row["partial"]) for row in rows} == {"m": True, "n": False}
    record = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert record["partial"] == [f"{unfinished} route/full: incomplete: the run that wrote it did not finish"]


def test_compare_refuses_an_unfinished_side_unless_allowed(tmp_path, capsys):
    unfinished = _unfinished_eval(tmp_path / "e_macro")
    done = write_eval_run(tmp_path / "done", {("route", "full"): OTHER})
    out = tmp_path / "cmp"
    assert main(["compare", str(unfinished), str(done), "--out", str(out), "--no-figure"]) == 2
    assert "pass --allow-partial to compare it anyway" in _error(capsys)
    assert main(["compare", str(unfinished), str(done), "--out", str(out), "--no-figure", "--allow-partial"]) == 0
    markdown = (out / "comparison.md").read_text(encoding="utf-8")
    assert all("e_macro: m (partial)" in line for line in markdown.splitlines() if line.startswith("| route"))
    rows = list(csv.DictReader(io.StringIO((out / "comparison.csv").read_text(encoding="utf-8"))))
    assert {row["partial_a"] for row in rows} == {"incomplete: the run that wrote it did not finish"}
    assert {row["partial_b"] for row in rows} == {""}


def test_a_partial_score_report_is_refused_unless_allowed(tmp_path, capsys):
    # F13: a report scored from a cancelled Inspect log's 3 samples was ranked first with no note
    report = write_score_report(tmp_path / "part", ROWS, models={"m": _model_row()})
    summary = json.loads((report / "summary.json").read_text())
    summary["partial"] = {"source": "inspect", "log": "a.eval", "status": "cancelled", "samples": 3}
    (report / "summary.json").write_text(json.dumps(summary))
    _manifest(report)
    other = write_score_report(tmp_path / "other", OTHER)
    assert main(["leaderboard", str(report), str(other), "--out", str(tmp_path / "lb"), "--no-figure"]) == 2
    assert "partial: its inspect log ended with status 'cancelled', 3 samples scored" in _error(capsys)


def test_no_figure_removes_the_figure_the_command_wrote_before(tmp_path, capsys):
    # J13, J14: the old leaderboard.png (other models) stayed beside the new tables, and the line named a .png;
    # figures are drawn on request (--figures, as score takes it); --no-figure, the old opt-out, is the default
    first = write_score_report(tmp_path / "rep", ROWS)
    second = write_score_report(tmp_path / "rep2", OTHER)
    out = tmp_path / "lb"
    assert main(["leaderboard", str(first), "--out", str(out), "--figures"]) == 0
    assert (out / "leaderboard.png").is_file() and (out / "leaderboard.pdf").is_file()
    capsys.readouterr()
    assert main(["leaderboard", str(second), "--out", str(out), "--no-figure"]) == 0
    assert not (out / "leaderboard.png").exists() and not (out / "leaderboard.pdf").exists()
    assert capsys.readouterr().err.strip().endswith(f"leaderboard.md, leaderboard.json and leaderboard.csv in {out}/")
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(entry["name"] for entry in manifest["files"]) == [
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.md",
    ]
    # a figure of the same name that no run recorded is the user's: kept
    (out / "leaderboard.png").write_bytes(b"mine")
    assert main(["leaderboard", str(second), "--out", str(out), "--no-figure"]) == 0
    assert (out / "leaderboard.png").read_bytes() == b"mine"


def test_compare_no_figure_removes_its_earlier_figure(tmp_path, capsys):
    first = write_score_report(tmp_path / "rep", ROWS + OTHER)
    out = tmp_path / "cmp"
    assert main(["compare", str(first), "--models", "m", "n", "--out", str(out), "--figures"]) == 0
    assert (out / "comparison.png").is_file()
    capsys.readouterr()
    assert main(["compare", str(first), "--models", "n", "m", "--out", str(out)]) == 0
    assert not (out / "comparison.png").exists() and not (out / "comparison.pdf").exists()
    assert capsys.readouterr().err.strip().endswith(f"comparison.md, comparison.json and comparison.csv in {out}/")


def test_an_out_that_is_a_file_is_refused_as_one(tmp_path, capsys):
    # C31: `[Errno 17] File exists: 'q.jsonl'`
    report = write_score_report(tmp_path / "rep", ROWS + OTHER)
    taken = tmp_path / "q.jsonl"
    taken.write_text("{}\n")
    for command in (["leaderboard", str(report)], ["compare", str(report), "--models", "m", "n"]):
        assert main([*command, "--out", str(taken), "--no-figure"]) == 2
        assert _error(capsys) == f"reasonmap {command[0]}: error: --out {taken}: a file, not a folder"
    assert taken.read_text() == "{}\n"


def test_a_file_over_the_size_limit_is_named(tmp_path):
    # K1: `(ulimit -f 1; reasonmap compare ...)` said `[Errno 27] File too large` without the file
    report = write_score_report(tmp_path / "rep", ROWS + OTHER)
    out = tmp_path / "cf"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    command = [sys.executable, "-m", "reasonmap", "compare", str(report), "--models", "m", "n"]
    done = subprocess.run(
        [*command, "--out", str(out), "--no-figure", "--resamples", "200"],
        preexec_fn=limit,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"error: {out}/comparison." in lines[0] and "file too large" in lines[0], lines
    assert errno.EFBIG  # the errno the kernel gives a write past RLIMIT_FSIZE (SIGXFSZ is ignored by Python)
