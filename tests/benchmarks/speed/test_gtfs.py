"""The GTFS speed benchmark runs on a small feed and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json
import zipfile

from benchmarks.speed.gtfs import main
from tests.graphkit.gtfs_feeds import trip, write_feed


def test_benchmark_prints_both_timings_as_one_json_object_last(capsys, tmp_path):
    folder = write_feed(
        tmp_path / "feed",
        stops=[("A", "A", 40.0, -74.0), ("B", "B", 40.01, -74.0), ("C", "C", 40.02, -74.0)],
        routes=[("R", "R", "", "1")],
        trips=[trip(f"t{n}", "R", ["A", "B", "C"]) for n in range(5)],
    )
    feed = tmp_path / "tiny.zip"
    with zipfile.ZipFile(feed, "w") as archive:
        for path in folder.iterdir():
            archive.write(path, path.name)
    assert main([str(feed), "--repeats", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["feed"] == "tiny.zip" and figures["stop_times"] == 15
    assert set(figures) == {"feed", "stop_times", "read_seconds", "compile_seconds", "ratio", "compile_peak_mib"}
