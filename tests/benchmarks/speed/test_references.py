"""The references speed benchmark runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

from benchmarks.speed.references import main


def test_benchmark_prints_one_json_object_last_and_both_implementations_agree(capsys):
    assert main(["--cities", "rome,dubai", "--repeat", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    figures = json.loads(last)
    assert {"pairs", "seconds", "networkx_seconds", "speedup_vs_networkx", "floor_seconds", "peak_rss_mb"} <= set(
        figures
    )
    assert figures["pairs"] == figures["ordered_pairs"] == 73 * 72 + 52 * 51
    assert figures["same_output"] is True
