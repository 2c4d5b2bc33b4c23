"""The bootstrap benchmark times a report's intervals as the command computes them (no timing asserted)."""

from __future__ import annotations

import json
import os
import sys

from benchmarks.speed.intervals import main


def test_the_bootstrap_is_timed_with_one_blas_thread_as_the_command_sets_it(capsys, monkeypatch):
    # OpenBLAS reads its thread count when numpy loads: the benchmark sets it first, as reasonmap.cli does, unless
    # the user chose one; its figures are reported, never judged here
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(sys, "argv", ["intervals", "--models", "3", "--questions", "12", "--answers", "40"])
    main()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    found = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert found["answers"] == 40 and found["bootstrap_calls"] == 1
    timed = ("bootstrap_cpu_seconds", "bootstrap_seconds", "summary_seconds")
    assert all(isinstance(found[key], float) for key in timed)
    assert 1 <= found["threads"] <= 4
