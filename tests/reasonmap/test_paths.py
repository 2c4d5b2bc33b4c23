"""Outputs never destroy inputs; special outputs (``-``, /dev/stdout, /dev/full, FIFOs) are written through."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonmap.cli import main
from reasonmap.paths import OverwriteRefused, refuse_overwrite

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A question file of 6 Rome questions and the oracle's answers to them."""
    folder = tmp_path_factory.mktemp("inputs")
    questions, predictions = folder / "q.jsonl", folder / "p.jsonl"
    assert main(["generate", "--cities", "rome", "--per-city", "3", "--out", str(questions), "--quiet"]) == 0
    assert main(["baseline", "oracle", "--questions", str(questions), "--out", str(predictions)]) == 0
    return questions, predictions


def copies(files, tmp_path):
    questions, predictions = (tmp_path / path.name for path in files)
    for source, target in zip(files, (questions, predictions)):
        target.write_bytes(source.read_bytes())
    return questions, predictions


def refused(capsys, argv, expected):
    code = main([str(arg) for arg in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [expected]


def test_score_out_equal_to_predictions_is_refused_and_the_predictions_kept(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    before = predictions.read_bytes()
    argv = ["score", "--questions", questions, "--predictions", predictions, "--out", predictions]
    refused(
        capsys,
        [*argv, "--report", tmp_path / "report"],
        f"reasonmap score: error: --out {predictions} is the same file as --predictions;"
        " refusing to overwrite an input",
    )
    assert predictions.read_bytes() == before
    assert not (tmp_path / "report").exists()


def test_score_out_equal_to_questions_by_a_hard_link_is_refused(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    linked = tmp_path / "linked.jsonl"
    os.link(questions, linked)
    before = questions.read_bytes()
    refused(
        capsys,
        ["score", "--questions", questions, "--predictions", predictions, "--out", linked, "--report", tmp_path],
        f"reasonmap score: error: --out {linked} is the same file as --questions; refusing to overwrite an input",
    )
    assert questions.read_bytes() == before


def test_score_out_through_a_symlink_to_the_predictions_is_refused(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    link = tmp_path / "scored.jsonl"
    link.symlink_to(predictions)
    before = predictions.read_bytes()
    refused(
        capsys,
        ["score", "--questions", questions, "--predictions", predictions, "--out", link, "--report", tmp_path / "r"],
        f"reasonmap score: error: --out {link} is the same file as --predictions; refusing to overwrite an input",
    )
    assert predictions.read_bytes() == before


def test_a_report_folder_that_would_write_over_an_input_is_refused(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    table = tmp_path / "table.md"
    predictions.rename(table)  # the predictions where the report writes its table
    refused(
        capsys,
        [
            "score",
            "--questions",
            questions,
            "--predictions",
            table,
            "--out",
            tmp_path / "s.jsonl",
            "--report",
            tmp_path,
        ],
        f"reasonmap score: error: --report {tmp_path} would write over {table}, which is --predictions;"
        " refusing to overwrite an input",
    )


def test_a_report_folder_holding_the_inputs_under_other_names_is_fine(files, tmp_path, capsys):
    data = tmp_path / "rr" / "data"
    data.mkdir(parents=True)
    questions, predictions = copies(files, data)  # rr/data/q.jsonl: nothing the report writes
    argv = ["score", "--questions", questions, "--predictions", predictions, "--out", tmp_path / "s.jsonl"]
    assert main([str(arg) for arg in [*argv, "--report", tmp_path / "rr"]]) == 0
    assert "| baseline:oracle | 100.00 ± – |" in capsys.readouterr().out  # all right: no interval
    assert (tmp_path / "rr" / "summary.json").is_file() and questions.is_file()


def test_compared_outputs_clash_only_with_compare_and_only_by_their_exact_names(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    run = tmp_path / "s.paper_run.jsonl"  # not s.paper.jsonl: --explain would not write it either
    predictions.rename(run)
    argv = ["score", "--questions", questions, "--predictions", run, "--out", tmp_path / "s.jsonl"]
    assert main([str(arg) for arg in [*argv, "--report", tmp_path / "report"]]) == 0
    assert main([str(arg) for arg in [*argv, "--report", tmp_path / "other", "--explain", "paper,official"]]) == 0
    capsys.readouterr()
    compared = tmp_path / "s.official.jsonl"
    run.rename(compared)
    argv = ["score", "--questions", questions, "--predictions", compared, "--out", tmp_path / "s.jsonl"]
    assert main([str(arg) for arg in [*argv, "--report", tmp_path / "r2"]]) == 0  # no --explain: not written
    capsys.readouterr()
    refused(
        capsys,
        [*argv, "--report", tmp_path / "r3", "--explain", "paper,official"],
        f"reasonmap score: error: --out {tmp_path / 's.jsonl'} writes {compared} beside it, which is --predictions;"
        " refusing to overwrite an input",
    )


def test_a_compared_report_clashes_by_its_variants_files(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    inside = tmp_path / "report" / "C1" / "table.md"
    inside.parent.mkdir(parents=True)
    predictions.rename(inside)
    argv = ["score", "--questions", questions, "--predictions", inside, "--out", tmp_path / "s.jsonl"]
    argv += ["--report", tmp_path / "report"]
    assert main([str(arg) for arg in [*argv, "--explain", "paper,official"]]) == 0  # C1/ is not compared
    capsys.readouterr()
    refused(
        capsys,
        [*argv, "--explain", "paper,C1"],
        f"reasonmap score: error: --report {tmp_path / 'report'} would write over {inside}, which is --predictions;"
        " refusing to overwrite an input",
    )


def test_the_report_files_named_are_every_tasks_report():
    from benchmarks.mapqa.report import REPORT_FILES as MAPQA
    from benchmarks.plus.report import REPORT_FILES as PLUS_REPORT_FILES
    from benchmarks.reasonmap.report import REPORT_FILES as ROUTE
    from reasonmap.paths import REPORT_FILES

    assert set(REPORT_FILES) == {*ROUTE, *PLUS_REPORT_FILES, *MAPQA, "manifest.json"}


@pytest.mark.parametrize("command", [["baseline", "oracle"], ["prompts", "--mode", "text-only"]])
def test_baseline_and_prompts_refuse_to_write_over_their_questions(command, files, tmp_path, capsys):
    questions, _ = copies(files, tmp_path)
    before = questions.read_bytes()
    refused(
        capsys,
        [*command, "--questions", questions, "--out", questions],
        f"reasonmap {command[0]}: error: --out {questions} is the same file as --questions;"
        " refusing to overwrite an input",
    )
    assert questions.read_bytes() == before


def test_export_refuses_to_replace_the_folder_that_holds_its_questions(files, tmp_path, capsys):
    questions, _ = copies(files, tmp_path)
    refused(
        capsys,
        ["export", "--questions", questions, "--out", tmp_path],
        f"reasonmap export: error: --out {tmp_path} would write over {questions}, which is --questions;"
        " refusing to overwrite an input",
    )
    assert questions.exists()


def test_eval_refuses_an_answer_file_of_its_own_as_questions(files, tmp_path, capsys):
    inside = tmp_path / "route" / "text-only" / "predictions.jsonl"
    inside.parent.mkdir(parents=True)
    inside.write_bytes(files[0].read_bytes())
    refused(
        capsys,
        ["eval", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--questions", inside, "--out", tmp_path],
        f"reasonmap eval: error: --out {tmp_path} would write over {inside}, which is --questions;"
        " refusing to overwrite an input",
    )


def test_outputs_beside_the_inputs_are_fine(files, tmp_path, capsys):
    questions, predictions = copies(files, tmp_path)
    argv = ["score", "--questions", questions, "--predictions", predictions, "--out", tmp_path / "scored.jsonl"]
    assert main([str(arg) for arg in [*argv, "--report", tmp_path / "report"]]) == 0
    assert "| baseline:oracle | 100.00 ± – |" in capsys.readouterr().out  # all right: no interval


def test_a_folder_read_and_written_into_clashes_only_by_name(tmp_path):
    (tmp_path / "rome.png").write_bytes(b"")
    refuse_overwrite(argparse.Namespace(command="ocr", maps=str(tmp_path), evidence_dir=str(tmp_path)))
    clash = argparse.Namespace(
        command="ocr", map=str(tmp_path / "rome.evidence.json"), evidence_dir=str(tmp_path), maps=None
    )
    with pytest.raises(
        OverwriteRefused, match=r"^--evidence-dir .* would write over .*rome.evidence.json, which is MAP"
    ):
        refuse_overwrite(clash)


def test_files_written_beside_an_output_are_outputs_too(tmp_path):
    predictions = tmp_path / "d[1].summary.json"  # glob characters in a name are names
    predictions.write_text("", encoding="utf-8")
    args = argparse.Namespace(command="diagnose", out=str(tmp_path / "d[1].jsonl"), predictions=str(predictions))
    with pytest.raises(OverwriteRefused, match=r"writes .* beside it, which is --predictions"):
        refuse_overwrite(args)
    refuse_overwrite(
        argparse.Namespace(command="diagnose", out=str(tmp_path / "d1.jsonl"), predictions=str(predictions))
    )


def test_streamed_outputs_are_never_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refuse_overwrite(argparse.Namespace(command="baseline", out=str(fifo), questions=str(fifo)))
    refuse_overwrite(argparse.Namespace(command="baseline", out="-", questions="-"))


def cli(*argv, stdout=subprocess.PIPE):
    return subprocess.run(
        [sys.executable, "-m", "reasonmap.cli", *map(str, argv)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
def test_out_dash_and_dev_stdout_print_the_rows(out, files):
    done = cli("baseline", "oracle", "--questions", files[0], "--out", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout == files[1].read_text(encoding="utf-8")
    assert not (ROOT / "-").exists()


def test_out_dev_stdout_redirected_to_a_file_appends_to_it(files, tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("earlier\n", encoding="utf-8")
    with open(log, "a", encoding="utf-8") as stream:
        done = cli("baseline", "oracle", "--questions", files[0], "--out", "/dev/stdout", stdout=stream)
    assert done.returncode == 0, done.stderr
    assert log.read_text(encoding="utf-8") == "earlier\n" + files[1].read_text(encoding="utf-8")


def test_a_full_disk_is_one_line_naming_the_file_and_exit_2(files):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    done = cli("baseline", "oracle", "--questions", files[0], "--out", "/dev/full")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["reasonmap baseline: error: /dev/full: no space left on device"]
    assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")


def test_a_fifo_out_is_streamed_to_its_reader(files, tmp_path):
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [sys.executable, "-m", "reasonmap.cli", "baseline", "oracle", "--questions", str(files[0]), "--out", str(fifo)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        rows = fifo.read_text(encoding="utf-8")  # blocks until the command opens the FIFO and closes it
        assert process.wait(timeout=300) == 0
    finally:
        process.kill()
        process.wait()
    assert [json.loads(line)["id"] for line in rows.splitlines()] == [
        json.loads(line)["id"] for line in files[1].read_text(encoding="utf-8").splitlines()
    ]
    assert [path.name for path in tmp_path.iterdir()] == ["rows"]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["references", "--city", "rome", "--out", ""], "--out"),
        (["demo", "--out", ""], "--out"),
        (["generate", "--cities", "rome", "--out", ""], "--out"),
        (["predictions", "--from", "vlmevalkit", "", "--out", "p.jsonl"], "FILE"),
    ],
)
def test_an_empty_path_is_refused_before_anything_is_written(argv, flag, tmp_path, monkeypatch, capsys):
    # an empty path names the current folder: demo wrote into it, the others failed naming a temporary file
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .splitlines()[-1]
        .endswith(f"error: {flag}: an empty path (it would name the current folder); name one")
    )
    assert list(tmp_path.iterdir()) == []


def test_a_file_given_as_a_folder_output_or_one_path_for_two_outputs_is_refused(files, tmp_path, capsys):
    # --report FILE said "[Errno 17] File exists"; --out X --report X wrote the report, then failed on --out
    questions, predictions = files
    (tmp_path / "r.json").write_text("{}", encoding="utf-8")
    argv = ["score", "--questions", questions, "--predictions", predictions, "--out", tmp_path / "s.jsonl"]
    refused(
        capsys,
        [*argv, "--report", tmp_path / "r.json"],
        f"reasonmap score: error: --report {tmp_path / 'r.json'}: a file, not a folder (the command writes a folder"
        " there)",
    )
    same = tmp_path / "same"
    argv = ["score", "--questions", questions, "--predictions", predictions, "--out", same, "--report", same]
    refused(capsys, argv, f"reasonmap score: error: --out and --report name one path ({same})")
    assert not same.exists() and (tmp_path / "r.json").read_text(encoding="utf-8") == "{}"


@pytest.mark.parametrize("argv", [["export", "--format", "gtfs", "--city", "rome"], ["synth", "--quiet"]])
def test_an_output_that_may_be_a_file_is_not_refused_as_a_folder(argv, tmp_path, capsys):
    # export --format gtfs writes FEED.zip, synth without --count city.json: an existing one is written over
    out = tmp_path / ("feed.zip" if argv[0] == "export" else "city.json")
    out.write_text("old", encoding="utf-8")
    assert main([*argv, "--out", str(out)]) == 0
    assert out.read_bytes() != b"old"
