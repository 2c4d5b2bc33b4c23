"""The rendered-map benchmark runs and reports ambiguous labels and bends (no timing is asserted)."""

from __future__ import annotations

import json

from benchmarks.speed.render import main, synthetic_network


def test_benchmark_prints_label_and_bend_figures_last(capsys):
    assert main(["--only", "miami", "--synthetic", "2", "--seed", "7"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out.strip().splitlines()[-1])
    assert set(figures["maps"]) == {"miami", "synthetic-7", "synthetic-8"}
    assert figures["maps"]["miami"]["labels"] == 23
    assert figures["labels"] == sum(m["labels"] for m in figures["maps"].values())
    assert figures["ambiguous"] == 0 and figures["ambiguous_share"] == 0.0
    lines = sum(m["lines"] for m in figures["maps"].values())
    assert figures["bends_per_line"] == round(sum(m["bends"] for m in figures["maps"].values()) / lines, 3)
    assert "miami: 0/23 ambiguous" in captured.err


def test_benchmark_reports_the_median_and_slowest_map_and_each_map_seconds(capsys):
    assert main(["--only", "miami,sydney", "--synthetic", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    per_map = figures["seconds_per_map"]
    assert per_map == {name: m["seconds"] for name, m in figures["maps"].items()}
    assert set(per_map) == {"miami", "sydney", "synthetic-0"}
    assert figures["seconds_median"] == sorted(per_map.values())[1]  # the middle of three
    assert figures["seconds_max"] == max(per_map.values())
    cpu = sorted(m["cpu_seconds"] for m in figures["maps"].values())  # the CPU seconds of each map, summed up
    assert figures["cpu_seconds_median"] == cpu[1] and figures["cpu_seconds_max"] == cpu[-1]
    assert figures["cpu_seconds"] == round(sum(cpu), 2)


def test_synthetic_networks_are_seeded():
    first, again, other = synthetic_network(3), synthetic_network(3), synthetic_network(4)
    assert first.stations == again.stations and first.stations != other.stations
    assert 2 <= len(first.lines) <= 8
