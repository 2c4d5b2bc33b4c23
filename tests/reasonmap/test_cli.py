"""The command line: output shapes other tools rely on, and clean errors."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphkit import city_names
from reasonmap.cli import main
from tests.networks import BRANCH, BRANCH_OVERLAY

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cities_json_lists_every_embedded_city_with_its_statistics(capsys):
    code, out, _ = run(capsys, "cities", "--json")
    assert code == 0
    cities = json.loads(out)
    assert [c["city"] for c in cities] == list(city_names())
    for city in cities:
        assert {"city", "country", "lines", "stations", "transfer_stations", "difficulty"} <= set(city)
        assert city["difficulty"] in {"easy", "middle", "hard"}
        assert 0 <= city["transfer_stations"] <= city["stations"]


def test_route_json_rides_beijing_line_2_round_the_loop(capsys):
    code, out, _ = run(capsys, "route", "--city", "beijing", "西直门站", "车公庄站", "--json")
    assert code == 0
    found = json.loads(out)
    assert found["transfers"] == 0
    assert found["routes"][0] == [
        {
            "route_name": "Line 2",
            "departure_stop": "西直门站",
            "arrival_stop": "车公庄站",
            "via_stops": [],
            "num_via_stops": 0,
        }
    ]


def test_route_table_is_readable(capsys):
    code, out, _ = run(capsys, "route", "--city", "rome", "Termini Station", "Jonio Station")
    assert code == 0
    assert "0 transfers" in out and "Bologna Station" in out and "Line B" in out


def test_unknown_station_is_a_clear_error_with_suggestions(capsys):
    code, _, err = run(capsys, "route", "--city", "rome", "Termini", "Jonoi")
    assert code == 2
    assert "unknown station 'Jonoi'" in err and "Jonio Station" in err


def test_unknown_city_is_a_clear_error(capsys):
    code, _, err = run(capsys, "route", "--city", "atlantis", "A", "B")
    assert code == 2 and "atlantis" in err


def test_metro_file_with_its_overlay_beside_it(tmp_path, capsys):
    metro = tmp_path / "forked.json"
    metro.write_text(json.dumps(BRANCH), encoding="utf-8")
    (tmp_path / "forked.overlay.json").write_text(json.dumps(BRANCH_OVERLAY), encoding="utf-8")
    code, out, _ = run(capsys, "route", "--metro", str(metro), "M4", "B2", "--json")
    assert code == 0
    assert json.loads(out)["routes"][0][0]["via_stops"] == ["M3", "M2", "B1"]


def test_malformed_metro_file_names_the_file_and_the_line(tmp_path, capsys):
    metro = tmp_path / "broken.json"
    metro.write_text(json.dumps({"Line 1": ["A", 7]}), encoding="utf-8")
    code, _, err = run(capsys, "route", "--metro", str(metro), "A", "B")
    assert code == 2
    assert "broken.json" in err and "Line 1" in err and "#2" in err


def test_references_writes_one_record_per_ordered_pair(tmp_path, capsys):
    out_file = tmp_path / "refs.jsonl"
    code, _, err = run(capsys, "references", "--city", "rome", "--out", str(out_file), "--quiet")
    assert code == 0
    records = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    stations = {r["station_1"] for r in records}
    assert len(records) == len(stations) * (len(stations) - 1)
    assert {(r["station_1"], r["station_2"]) for r in records} == {(a, b) for a in stations for b in stations if a != b}
    assert all(r["city"] == "rome" and r["routes"]["route_1"] for r in records)
    assert f"wrote {len(records)}" in err


def test_references_run_inline_unless_workers_are_asked_for(tmp_path, capsys, monkeypatch):
    """A pool hands the whole text back through pipes: dearer than making it, so the default is one worker."""
    import graphkit.io as io_module

    folder = tmp_path / "metro"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({"L1": ["A", "B", "C"]}), encoding="utf-8")
    (folder / "b.json").write_text(json.dumps({"L1": ["D", "E"], "L2": ["E", "F"]}), encoding="utf-8")

    def jobs(graphs, executor, **options):  # the departures handed to the executor's workers
        raise RuntimeError(f"a pool of {executor.workers} ran the departures")

    monkeypatch.setattr(io_module, "reference_texts", jobs)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # a pool of 4 workers by the executors' own default
    out = tmp_path / "refs.jsonl"
    assert main(["references", "--metro-dir", str(folder), "--out", str(out), "--quiet"]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3 * 2 + 3 * 2
    with pytest.raises(RuntimeError, match="a pool of 2 ran"):
        main(["references", "--metro-dir", str(folder), "--out", str(out), "--quiet", "--workers", "2"])


@pytest.mark.parametrize("command", [["references", "--out", "refs.jsonl"], ["render", "--out", "maps"]])
def test_a_metro_dir_without_metro_data_is_refused(tmp_path, capsys, monkeypatch, command):
    # references wrote an empty file ("wrote 0 station pairs") with exit 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "metro").mkdir()
    (tmp_path / "metro" / "a.overlay.json").write_text("{}", encoding="utf-8")  # an overlay is no network
    assert main([*command, "--metro-dir", "metro", "--quiet"]) == 2
    expected = "error: metro: no Metro Data file (*.json, overlays aside) in this folder"
    assert capsys.readouterr().err.splitlines()[-1].endswith(expected)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["metro"]


def test_references_are_byte_identical_across_runs(tmp_path, capsys):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (first, second):
        assert main(["references", "--city", "dubai", "--out", str(path), "--quiet"]) == 0
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("option", [["--city", "new_york"], ["--all"]])
def test_lint_reports(capsys, option):
    code, out, _ = run(capsys, "lint", *option)
    assert code == 0
    assert "new_york" in out


def test_generate_writes_questions_and_prints_the_difficulty_mix(tmp_path, capsys):
    out_file = tmp_path / "questions.jsonl"
    code, out, err = run(
        capsys, "generate", "--cities", "rome,beijing", "--seed", "5", "--out", str(out_file), "--quiet"
    )
    assert code == 0
    records = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert {r["city"] for r in records} == {"rome", "beijing"}
    assert "57.7%" in out and "easy" in out and f"wrote {len(records)} questions" in err
    again = tmp_path / "again.jsonl"
    assert main(["generate", "--cities", "rome,beijing", "--seed", "5", "--out", str(again), "--quiet"]) == 0
    assert again.read_bytes() == out_file.read_bytes()


def test_generate_rejects_a_bad_quota(tmp_path, capsys):
    code, _, err = run(capsys, "generate", "--cities", "rome", "--quota", "20-15-5", "--out", str(tmp_path / "q.jsonl"))
    assert code == 2 and "EASY:MIDDLE:HARD" in err


def test_baseline_prompts_and_score_chain_from_generated_questions(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    assert main(["generate", "--cities", "rome", "--per-city", "6", "--out", str(questions), "--quiet"]) == 0
    predictions = tmp_path / "p.jsonl"
    assert main(["baseline", "text-oracle", "--questions", str(questions), "--out", str(predictions)]) == 0
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and {row["model"] for row in rows} == {"baseline:text-oracle"}
    requests = tmp_path / "r.jsonl"
    assert main(["prompts", "--mode", "symbolic", "--questions", str(questions), "--out", str(requests)]) == 0
    first = json.loads(requests.read_text(encoding="utf-8").splitlines()[0])
    assert '<map name="lines">' in first["messages"][0]["content"] and first["meta"]["textualization"] == "lines"
    capsys.readouterr()
    report = tmp_path / "report"
    code, out, err = run(
        capsys,
        "score",
        "--questions", str(questions),
        "--predictions", str(predictions),
        "--out", str(tmp_path / "s.jsonl"),
        "--report", str(report),
        "--weighting", "city",
    )  # fmt: skip
    assert code == 0 and "| baseline:text-oracle | 100.00 ± – |" in out and "scored 12 predictions" in err
    assert json.loads((report / "summary.json").read_text(encoding="utf-8"))["weighting"] == "city"


def test_noisy_baseline_options_reach_the_solver(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    assert main(["generate", "--cities", "beijing", "--per-city", "10", "--out", str(questions), "--quiet"]) == 0
    quiet, loud = tmp_path / "quiet.jsonl", tmp_path / "loud.jsonl"
    zero = ["--wrong-line", "0", "--wrong-transfer", "0", "--detour", "0", "--miscount", "0"]
    assert main(["baseline", "noisy", "--questions", str(questions), "--out", str(quiet), *zero]) == 0
    assert main(["baseline", "noisy", "--questions", str(questions), "--out", str(loud), "--wrong-line", "1"]) == 0
    oracle = tmp_path / "oracle.jsonl"
    assert main(["baseline", "oracle", "--questions", str(questions), "--out", str(oracle)]) == 0
    responses = [
        [json.loads(row)["response"] for row in f.read_text(encoding="utf-8").splitlines()]
        for f in (quiet, loud, oracle)
    ]
    assert responses[0] == responses[2] and responses[1] != responses[2]


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
def test_score_out_to_standard_output_prints_only_the_rows_there_and_the_table_to_stderr(out, tmp_path, capsys):
    questions, predictions = tmp_path / "q.jsonl", tmp_path / "p.jsonl"
    assert main(["generate", "--cities", "rome", "--per-city", "2", "--out", str(questions), "--quiet"]) == 0
    assert main(["baseline", "oracle", "--questions", str(questions), "--out", str(predictions)]) == 0
    capsys.readouterr()
    argv = ["score", "--questions", str(questions), "--predictions", str(predictions)]
    code, stdout, stderr = run(capsys, *argv, "--out", out, "--report", str(tmp_path / "report"))
    assert code == 0
    rows = [json.loads(line) for line in stdout.splitlines()]  # every line a scored row, nothing else
    assert len(rows) == 4
    assert "| baseline:oracle | 100.00 ± – |" in stderr  # every answer right: no interval


def test_python_dash_m_reasonmap_is_the_command_line():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "reasonmap", "generate", "--help"], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: reasonmap generate")
    done = subprocess.run([sys.executable, "-m", "reasonmap", "nosuch"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_building_the_parser_reads_no_distribution_metadata():
    # the version is read when --version asks for it: importlib.metadata (email, zip files) is no cost of
    # every command's start
    root = Path(__file__).resolve().parents[2]
    code = "import sys, reasonmap.cli as cli; cli.build_parser(); print('importlib.metadata' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_version_prints_the_installed_distributions_version(capsys):
    from importlib.metadata import version

    from reasonmap.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"reasonmap {version('reasonmap-toolkit')}"


@pytest.mark.parametrize(
    ("signum", "status", "name"), [(signal.SIGINT, 130, "Ctrl-C (SIGINT)"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_a_signal_to_a_command_on_a_pool_ends_it_with_one_line(tmp_path, signum, status, name):
    """Ctrl-C (or SIGTERM to the process group) right as a pool's workers start: each worker printed a
    traceback before the command's one line (campaign 3), and a SIGTERM then could leave the command waiting
    for ever on its pool."""
    from tests.graphkit.test_executors import _children, _running

    command = [sys.executable, "-m", "reasonmap", "render", "--all", "--workers", "2", "--quiet", "--out"]
    process = subprocess.Popen(
        [*command, str(tmp_path / "maps")],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        for _ in range(1200):  # until the pool has forked its two workers (polled: no clock is asserted)
            workers = _children(process.pid)
            if len(workers) >= 2:
                break
            time.sleep(0.02)
        os.killpg(process.pid, signum)
        _, err = process.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == status
    assert err.splitlines() == [
        f"reasonmap render: interrupted by {name}; files are written whole or not at all, so earlier outputs are"
        " untouched; run the same command again to redo it"
    ]
    for _ in range(300):
        if not [pid for pid in workers if _running(pid)]:
            break
        time.sleep(0.2)
    assert not [pid for pid in workers if _running(pid)]


def test_the_command_as_a_process_exits_with_mains_status_and_leaves_its_objects_to_the_exit(monkeypatch):
    import gc

    from reasonmap import cli

    calls = []
    monkeypatch.setattr(cli, "main", lambda: calls.append("main") or 3)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))  # the test process keeps its collector
    with pytest.raises(SystemExit) as exited:
        cli.run()
    # the status is main's, and nothing is frozen before main has returned (its files are closed by then)
    assert exited.value.code == 3 and calls == ["main", "freeze"]


def test_python_dash_m_reasonmap_runs_the_command_and_exits_with_its_status(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "reasonmap", "route", "--city", "nowhere", "A", "B"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "nowhere" in done.stderr


@pytest.mark.parametrize("given", ["0", "-2", "two"])
def test_a_bad_workers_count_is_one_line_naming_the_option(capsys, tmp_path, given):
    out = tmp_path / "refs.jsonl"
    with pytest.raises(SystemExit) as stopped:
        main(["references", "--city", "rome", "--out", str(out), "--workers", given])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "argument --workers: expected a positive integer" in err
    assert err.strip().splitlines()[-1].startswith("reasonmap references: error:") and not out.exists()
