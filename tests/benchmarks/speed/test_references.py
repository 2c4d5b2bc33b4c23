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


def test_the_write_floor_writes_the_bytes_asked_and_renames_them_over_the_last_file(tmp_path):
    from benchmarks.speed.references import write_floor

    path = tmp_path / "floor.jsonl"
    path.write_bytes(b"an earlier file\n")
    seconds = write_floor(str(path), 10 * 4096 + 7, 4096)
    assert seconds >= 0
    assert path.stat().st_size == 10 * 4096 + 7  # ten full blocks and the rest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["floor.jsonl"]  # no part left behind
