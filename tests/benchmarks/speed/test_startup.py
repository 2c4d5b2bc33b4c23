"""The start-up benchmark times the parse of `main` and two short commands, for this checkout and another, and
prints one JSON object last (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.speed.startup import HERE, main


def _reasonmap(*argv: str, cwd: Path) -> None:
    command = [sys.executable, "-m", "reasonmap", *argv, "--quiet"]
    subprocess.run(command, cwd=cwd, env={"PYTHONPATH": str(HERE)}, check=True, capture_output=True)


def test_benchmark_times_both_checkouts_and_prints_one_json_object_last(tmp_path, capsys):
    _reasonmap("generate", "--city", "auckland", "--per-city", "3", "--out", "q.jsonl", cwd=tmp_path)
    _reasonmap("baseline", "oracle", "--questions", "q.jsonl", "--out", "p.jsonl", cwd=tmp_path)
    given = ["--questions", str(tmp_path / "q.jsonl"), "--predictions", str(tmp_path / "p.jsonl")]
    main(["--repeat", "1", "--other", str(HERE), *given])
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # every figure of both checkouts is there, and their ratio; the values are never judged here
    keys = {"parse_seconds"} | {f"{c}_{k}_seconds" for c in ("help", "score") for k in ("wall", "cpu")}
    assert set(figures["runs"]) == {"this", "other"} and all(set(run) == keys for run in figures["runs"].values())
    assert set(figures["ratio"]) == keys and all(figures["runs"]["this"][key] > 0 for key in keys)
    assert [len(load) for load in figures["load_average"]] == [3, 3]
