"""``reasonmap gtfs``: feeds to Metro Data on disk, read by the other commands; failures are one line."""

from __future__ import annotations

import json

import pytest

from graphkit.cities import graph_from_file
from reasonmap.cli import main
from tests.graphkit.gtfs_feeds import trip, write_feed


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def files_of(folder):
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}


def _feed(folder, *, suffix=""):
    stops = [(name, name + suffix, 40.0 + 0.01 * n, -74.0) for n, name in enumerate("ABCDEF")]
    trips = [trip(f"m{n}", "R", list("ABCD")) for n in range(4)] + [trip(f"b{n}", "R", list("ABEF")) for n in range(2)]
    trips += [trip("s", "S", ["C", "F"])]
    return write_feed(folder, stops=stops, routes=[("R", "Red", "", "1", "FF0000"), ("S", "Sun", "", "0")], trips=trips)


def test_a_feed_becomes_metro_data_the_route_command_reads(capsys, tmp_path):
    feed = _feed(tmp_path / "tinytown")
    code, _, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--workers", 1)
    assert code == 0 and "2 lines, 6 stations" in err
    assert sorted(files_of(tmp_path / "out")) == ["tinytown.json", "tinytown.overlay.json"]
    graph = graph_from_file(tmp_path / "out" / "tinytown.json")
    assert graph.city == "tinytown" and graph.lines["Red"].shape == "tree"
    code, out, _ = run(capsys, "route", "--metro", tmp_path / "out" / "tinytown.json", "A", "F", "--json")
    assert code == 0 and json.loads(out)["transfers"] == 0  # on the branch, no change
    code, _, _ = run(capsys, "gtfs", feed, "--out", tmp_path / "named", "--city", "elsewhere", "--workers", 1)
    assert (
        code == 0
        and (tmp_path / "named" / "elsewhere.json").read_bytes() == (tmp_path / "out" / "tinytown.json").read_bytes()
    )


def test_a_malformed_feed_is_one_line_exit_2_and_nothing_written(capsys, tmp_path):
    feed = _feed(tmp_path / "broken")
    (feed / "stop_times.txt").write_text("trip_id,stop_id,stop_sequence\nm0,A,x\n", encoding="utf-8")
    code, out, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--workers", 1)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "stop_times.txt: row 1: missing column 'arrival_time'" in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_many_feeds_a_failing_one_reported_and_skipped(capsys, tmp_path):
    good = _feed(tmp_path / "good")
    other = _feed(tmp_path / "other", suffix="x")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip", encoding="utf-8")
    code, _, err = run(capsys, "gtfs", good, bad, other, "--out", tmp_path / "out", "--workers", 2)
    assert code == 2
    assert "bad.zip: not a GTFS feed" in err and "(skipped)" in err and "1 of 3 feeds skipped" in err
    assert sorted(files_of(tmp_path / "out")) == ["good.json", "good.overlay.json", "other.json", "other.overlay.json"]
    run(capsys, "gtfs", good, other, "--out", tmp_path / "inline", "--workers", 1)
    assert files_of(tmp_path / "inline") == files_of(tmp_path / "out")  # the same bytes whichever ran it


def test_options_are_checked(capsys, tmp_path):
    feed = _feed(tmp_path / "town")
    code, _, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--date", "2024-13-01")
    assert code == 2 and "--date 2024-13-01: not a date" in err
    code, _, err = run(capsys, "gtfs", feed, feed, "--out", tmp_path / "out", "--city", "x")
    assert code == 2 and "--city names one feed's city" in err
    code, _, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--modes", "tram,bus")
    assert code == 2 and "--modes mode" in err and "'bus'" in err
    code, _, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--modes", "tram", "--workers", 1)
    assert code == 0 and "1 lines, 2 stations" in err


def test_export_a_city_as_gtfs_and_compile_it_back(capsys, tmp_path):
    feed = tmp_path / "rome.zip"
    code, _, err = run(capsys, "export", "--format", "gtfs", "--city", "rome", "--out", feed)
    assert code == 0 and "a GTFS feed of" in err
    code, _, _ = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--workers", 1)
    assert code == 0
    back = graph_from_file(tmp_path / "out" / "rome.json")
    from graphkit.cities import city_graph

    rome = city_graph("rome")
    assert list(back.lines) == list(rome.lines) and sorted(back.stations) == sorted(rome.stations)


def test_export_gtfs_needs_one_network(capsys, tmp_path):
    code, _, err = run(capsys, "export", "--format", "gtfs", "--out", tmp_path / "x.zip")
    assert code == 2 and "give one of --city C or --metro PATH" in err
    code, _, err = run(
        capsys, "export", "--format", "gtfs", "--city", "rome", "--questions", "q.jsonl", "--out", tmp_path / "x.zip"
    )
    assert code == 2 and "not --questions" in err
    code, _, err = run(capsys, "export", "--out", tmp_path / "d")
    assert code == 2 and "--format hf writes questions: give --questions Q" in err
    assert not (tmp_path / "x.zip").exists()


def test_lines_of_one_colour_are_reported(capsys, tmp_path):
    stops = [(name, name, 40.0 + 0.01 * n, -74.0) for n, name in enumerate("ABCD")]
    feed = write_feed(
        tmp_path / "twins",
        stops=stops,
        routes=[("1", "1", "", "1", "EE352E"), ("2", "2", "", "1", "EE352E")],
        trips=[trip("a", "1", ["A", "B"]), trip("b", "2", ["C", "D"])],
    )
    code, _, err = run(capsys, "gtfs", feed, "--out", tmp_path / "out", "--workers", 1)
    assert code == 0 and "lines '1' and '2' have colours a map cannot tell apart (CIEDE2000 0)" in err


@pytest.mark.slow
def test_many_feeds_are_the_same_bytes_on_ray(capsys, tmp_path):
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    feeds = [_feed(tmp_path / "one"), _feed(tmp_path / "two", suffix="y")]
    run(capsys, "gtfs", *feeds, "--out", tmp_path / "local", "--workers", 1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        code, _, _ = run(capsys, "gtfs", *feeds, "--out", tmp_path / "ray", "--executor", "ray")
    finally:
        ray.shutdown()
    assert code == 0 and files_of(tmp_path / "ray") == files_of(tmp_path / "local")


def test_questions_and_baselines_on_the_shipped_feed(capsys, tmp_path):
    """The README's walk-through: the paper's difficulty mix, and the oracle answers every question."""
    from pathlib import Path

    import graphkit

    shipped = Path(graphkit.__file__).parent / "data" / "gtfs" / "harbourside.zip"
    cities, questions = tmp_path / "cities", tmp_path / "questions.jsonl"
    assert run(capsys, "gtfs", shipped, "--out", cities, "--workers", 1)[0] == 0
    assert run(capsys, "generate", "--metro", cities / "harbourside.json", "--out", questions)[0] == 0
    records = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]
    mix = [record["difficulty_question"] for record in records]
    assert (mix.count("easy"), mix.count("middle"), mix.count("hard")) == (20, 15, 5)  # generate's default quota
    oracle = tmp_path / "oracle.jsonl"
    assert run(capsys, "baseline", "oracle", "--questions", questions, "--metro-dir", cities, "--out", oracle)[0] == 0
    code, _, _ = run(
        capsys, "score", "--questions", questions, "--predictions", oracle, "--metro-dir", cities,
        "--out", tmp_path / "scored.jsonl", "--report", tmp_path / "report",
    )  # fmt: skip
    summary = json.loads((tmp_path / "report" / "summary.json").read_text(encoding="utf-8"))
    assert code == 0 and summary["models"]["baseline:oracle"]["accuracy_short"] == 1.0


def test_the_help_shows_the_compilers_modes_and_default():
    from graphkit.gtfs.names import DEFAULT_MODES, MODE_NAMES
    from reasonmap.cli import build_parser

    parser = build_parser()
    gtfs = parser._subparsers._group_actions[0].choices["gtfs"]  # noqa: SLF001 (argparse keeps them there)
    modes = next(action for action in gtfs._actions if action.dest == "modes")  # noqa: SLF001
    assert modes.type(modes.default) == DEFAULT_MODES  # comma-separated, as every list option is written
    assert all(mode in modes.help for mode in MODE_NAMES)
