"""Scoring files: the report folder's manifest vouches for one complete run, and only for it."""

from __future__ import annotations

import json

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.manifests import MANIFEST, check_manifest
from benchmarks.reasonmap import report
from reasonmap.cli import main
from reasonmap.score_files import ScoreSettings, evaluate_files


@pytest.fixture
def inputs(tmp_path):
    questions, predictions = tmp_path / "q.jsonl", tmp_path / "p.jsonl"
    assert main(["generate", "--cities", "rome", "--per-city", "3", "--out", str(questions), "--quiet"]) == 0
    assert main(["baseline", "oracle", "--questions", str(questions), "--out", str(predictions)]) == 0
    return questions, predictions


def test_a_complete_score_is_vouched_for(inputs, tmp_path):
    evaluation = evaluate_files(*inputs, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert check_manifest(tmp_path / "report") == []
    record = json.loads((tmp_path / "report" / MANIFEST).read_text(encoding="utf-8"))
    names = [entry["name"] for entry in record["files"]]
    assert names == ["../scored.jsonl", *(path.name for path in evaluation.report_files)]


def test_a_score_killed_after_the_scored_rows_leaves_no_complete_manifest(inputs, tmp_path, monkeypatch):
    questions, predictions = inputs
    evaluate_files(questions, predictions, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    old_scored = (tmp_path / "scored.jsonl").read_bytes()
    # the second run scores other answers: the echo baseline's
    assert main(["baseline", "echo", "--questions", str(questions), "--out", str(predictions)]) == 0

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as if killed after scored.jsonl and before the report

    monkeypatch.setattr(report, "write_report", killed)
    with pytest.raises(KeyboardInterrupt):
        evaluate_files(questions, predictions, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert (tmp_path / "scored.jsonl").read_bytes() != old_scored  # the new rows beside the old report
    problems = check_manifest(tmp_path / "report")
    assert problems == [f"{tmp_path / 'report' / MANIFEST}: the run of score that wrote it did not finish"]


def test_rescoring_files_of_an_unfinished_run_warns(inputs, tmp_path, capsys):
    questions, predictions = inputs
    (tmp_path / MANIFEST).write_text('{"command": "demo", "complete": false, "files": []}\n', encoding="utf-8")
    argv = ["score", "--questions", questions, "--predictions", predictions]
    code = main([str(arg) for arg in [*argv, "--out", tmp_path / "s.jsonl", "--report", tmp_path / "report"]])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert err[0] == (
        f"reasonmap score: warning: --questions {questions}: {tmp_path / MANIFEST} says the run that wrote it"
        " did not finish; its files may mix two runs"
    )
    assert err[1].startswith(f"reasonmap score: warning: --predictions {predictions}: ")


def test_a_score_refused_before_it_writes_leaves_the_good_report_vouched_for(inputs, tmp_path):
    questions, predictions = inputs
    given = dict(out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    evaluate_files(questions, predictions, **given)
    with pytest.raises(ValueError, match="got 'nonsense'"):
        evaluate_files(questions, predictions, settings=ScoreSettings(variant="nonsense"), **given)
    assert check_manifest(tmp_path / "report") == []
    with pytest.raises(InvalidRecord, match="missing.jsonl"):
        evaluate_files(questions, tmp_path / "missing.jsonl", **given)
    assert check_manifest(tmp_path / "report") == []


def test_a_comparison_refused_before_it_writes_leaves_the_good_report_vouched_for(inputs, tmp_path):
    from reasonmap.score_files import explain_files

    questions, predictions = inputs
    given = dict(out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    explain_files(questions, predictions, **given)
    assert check_manifest(tmp_path / "report") == []
    with pytest.raises(InvalidRecord, match="missing.jsonl"):
        explain_files(questions, tmp_path / "missing.jsonl", **given)
    assert check_manifest(tmp_path / "report") == []


# -- figures on request -----------------------------------------------------------------------------------------------


def test_score_writes_tables_only_unless_asked_and_drops_figures_an_earlier_run_left(inputs, tmp_path):
    questions, predictions = inputs
    report_dir = tmp_path / "report"
    common = ["score", "--questions", str(questions), "--predictions", str(predictions), "--out"]
    assert main([*common, str(tmp_path / "a.jsonl"), "--report", str(report_dir), "--figures"]) == 0
    figures = {"difficulty.png", "difficulty.pdf", "cities.png", "cities.pdf"}
    assert figures <= {path.name for path in report_dir.iterdir()}
    tables = (report_dir / "summary.json").read_bytes(), (report_dir / "table.md").read_bytes()
    assert main([*common, str(tmp_path / "b.jsonl"), "--report", str(report_dir)]) == 0
    assert sorted(path.name for path in report_dir.iterdir()) == [MANIFEST, "summary.json", "table.md"]
    # the tables do not depend on whether figures were drawn; the manifest vouches for what is there
    assert ((report_dir / "summary.json").read_bytes(), (report_dir / "table.md").read_bytes()) == tables
    assert check_manifest(report_dir) == []


def test_score_without_figures_keeps_figure_files_no_run_recorded(inputs, tmp_path):
    questions, predictions = inputs
    report_dir = tmp_path / "report"
    report_dir.mkdir()
    (report_dir / "difficulty.png").write_bytes(b"the user's own picture")
    elsewhere = tmp_path / "elsewhere.pdf"
    elsewhere.write_bytes(b"kept")
    (report_dir / "cities.pdf").symlink_to(elsewhere)
    argv = ["score", "--questions", str(questions), "--predictions", str(predictions)]
    assert main([*argv, "--out", str(tmp_path / "s.jsonl"), "--report", str(report_dir)]) == 0
    # no manifest recorded them: they are not the toolkit's to delete
    assert (report_dir / "difficulty.png").read_bytes() == b"the user's own picture"
    assert (report_dir / "cities.pdf").is_symlink() and elsewhere.read_bytes() == b"kept"


def test_scoring_without_figures_never_imports_a_plotting_image_graph_or_table_library_or_other_task(inputs, tmp_path):
    # scoring reads stations' names and lines, never searches a graph (igraph, networkx), reads no image and
    # no data frame
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from reasonmap.cli import main\n"
        f"argv = ['score', '--questions', {str(inputs[0])!r}, '--predictions', {str(inputs[1])!r},"
        f" '--out', {str(tmp_path / 's.jsonl')!r}, '--report', {str(tmp_path / 'r')!r}]\n"
        "assert main(argv) == 0\n"
        "heavy = {'matplotlib', 'cv2', 'rapidocr', 'onnxruntime', 'PIL', 'igraph', 'networkx', 'pandas',"
        " 'datasets', 'scipy', 'pyarrow'} & set(sys.modules)\n"
        "assert not heavy, sorted(heavy)\n"
        # nor the other tasks' records (telling the file's task asks their recognisers alone)
        "others = {'benchmarks.plus.task', 'benchmarks.mapqa.task'} & set(sys.modules)\n"
        "assert not others, sorted(others)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_score_and_compare_are_refused_while_another_run_writes_the_report_folder(inputs, tmp_path, capsys):
    from graphkit.files import LOCK, folder_lock

    questions, predictions = inputs
    report_dir = tmp_path / "report"
    argv = ["score", "--questions", str(questions), "--predictions", str(predictions)]
    argv += ["--out", str(tmp_path / "s.jsonl"), "--report", str(report_dir)]
    with folder_lock(report_dir, "score"):  # a live run holds the folder
        assert main(argv) == 2
        assert "another run (pid" in capsys.readouterr().err
        assert main([*argv, "--explain", "paper,official"]) == 2
        assert "another run (pid" in capsys.readouterr().err
    assert not list(tmp_path.glob("s*.jsonl"))  # nothing written while it held the folder
    assert main(argv) == 0 and not (report_dir / LOCK).exists()


def test_scoring_pauses_the_cyclic_collector_and_restores_it_as_it_was(inputs, tmp_path, monkeypatch):
    import gc

    seen = []
    original = report.summarize

    def recording(*args, **kwargs):
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(report, "summarize", recording)
    assert gc.isenabled()
    evaluate_files(*inputs, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert seen == [False] and gc.isenabled()  # paused while scoring, on again after
    # a run that fails gives the collector back too; one paused by the caller stays paused
    monkeypatch.setattr(report, "write_report", lambda *args, **kwargs: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        evaluate_files(*inputs, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(ZeroDivisionError):
            evaluate_files(*inputs, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- the tasks' own options -------------------------------------------------------------------------------------------


def test_an_option_no_task_declares_is_refused_and_another_tasks_is_left_to_it(inputs, tmp_path):
    # route declares graph, metro_dir and official_model; a misspelt one is no task's: refused before any write
    given = dict(out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    misspelt = ScoreSettings(options={"oficial_model": "Qwen/QVQ-72B-Preview"})
    expected = (
        r"^score option must be one of \['graph', 'metro_dir', 'official_model'\], got 'oficial_model';"
        r" did you mean 'official_model'\?$"
    )
    with pytest.raises(ValueError, match=expected):
        evaluate_files(*inputs, settings=misspelt, **given)
    assert not (tmp_path / "report").exists()
    # the same answers scored with the default rules, and with every model named a path of the closed-model
    # script's rule (the same rule): the same scored rows, byte for byte
    evaluate_files(*inputs, settings=ScoreSettings(variant="official"), **given)
    named = ScoreSettings(variant="official", options={"official_model": "o3"})
    evaluate_files(*inputs, settings=named, out=tmp_path / "named.jsonl", report_dir=tmp_path / "named")
    assert (tmp_path / "named.jsonl").read_bytes() == (tmp_path / "scored.jsonl").read_bytes()
