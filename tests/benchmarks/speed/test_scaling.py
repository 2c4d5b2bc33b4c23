"""The scaling benchmark runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks.speed.scaling import exponent, main


def test_the_exponent_is_the_slope_of_log_cost_on_log_size():
    # ten times the size at ten times the cost: slope 1; at a hundred times the cost: slope 2
    assert exponent([(100, 1.0), (1000, 10.0)]) == 1.0
    assert exponent([(100, 1.0), (1000, 100.0)]) == 2.0
    assert exponent([(100, 1.0)]) is None


def test_benchmark_prints_one_line_per_size_and_the_exponent_last(capsys):
    assert main(["--sizes", "30,60"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    last = json.loads(lines[-1])
    assert [size["pairs"] for size in last["sizes"]] == [30 * 29, 60 * 59]
    assert [json.loads(line) for line in lines[:-1]] == last["sizes"]
    assert isinstance(last["exponent"], float) and isinstance(last["cpu_exponent"], float)
    assert all(size["peak_rss_mb"] > 0 and size["lines"] == 2 for size in last["sizes"])


@pytest.mark.slow
def test_a_pool_streams_every_pair_too(capsys):
    # 330 stations make two jobs of departures (100,000 pairs each at most), so the pool does run
    assert main(["--sizes", "330", "--workers", "2"]) == 0
    (size,) = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["sizes"]
    assert size["pairs"] == 330 * 329 and size["workers"] == 2 and size["worker_peak_rss_mb"] > 0
