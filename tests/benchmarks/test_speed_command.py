"""The command benchmark times ``reasonmap score`` as a fresh process and reports its figures (no timing asserted)."""

from __future__ import annotations

import json
import sys

import pytest

from benchmarks.speed.command import main, write_inputs


def test_benchmark_times_the_command_and_another_on_the_same_files_and_prints_one_json_object_last(capsys):
    # the other command counts the predictions it was given: it must see the same file ours scored
    other = f'{sys.executable} -c "import sys; assert sum(1 for _ in open(sys.argv[1])) == 30" {{predictions}}'
    assert main(["--answers", "30", "--repeat", "1", "--compare-with", other]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (run,) = figures["runs"]
    # the figures are reported, and each kind of figure is there; their values are never judged here
    assert run["answers"] == 30
    keys = ("seconds", "other_seconds", "speedup_vs_other", "cpu_seconds", "other_cpu_seconds", "cpu_speedup_vs_other")
    assert all(isinstance(run[key], float) for key in keys)


def test_inputs_hold_as_many_distinct_answers_as_asked(tmp_path):
    questions, files = write_inputs(tmp_path, [40], seed=1)
    rows = [json.loads(line) for line in files[40].read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 40 == len({row["response"] for row in rows})
    ids = {json.loads(line)["id"] for line in questions.read_text(encoding="utf-8").splitlines()}
    assert {row["id"] for row in rows} <= ids and len({row["model"] for row in rows}) > 10


def test_the_public_loop_refuses_a_checkout_that_is_not_the_commit_its_line_numbers_name(tmp_path, capsys):
    from benchmarks.speed.public_loop import main as public_loop

    (tmp_path / "main.py").write_text("print('another version')\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        public_loop(["--public", str(tmp_path), "q.jsonl", "p.jsonl"])
    # one line naming the file and why; the lines of another version are never run
    assert (
        str(stopped.value)
        == f"public_loop: {tmp_path / 'main.py'}: not fscdc/ReasonMap e68dd65's main.py (its sha256 differs)"
    )
    assert "another version" not in capsys.readouterr().out
    with pytest.raises(SystemExit, match="cannot read it"):
        public_loop(["--public", str(tmp_path / "absent"), "q.jsonl", "p.jsonl"])


def test_a_relative_path_in_the_other_command_names_what_it_names_where_the_benchmark_was_started(tmp_path):
    from benchmarks.speed.command import _from_here

    (tmp_path / "bin").mkdir()
    (tmp_path / "base-python").write_text("", encoding="utf-8")
    (tmp_path / "bin" / "python").symlink_to(tmp_path / "base-python")  # as a venv's interpreter is
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        found = _from_here(["bin/python", "-m", "x", "--public", "absent/dir", "{questions}", "/abs/path"])
    # the existing relative path is made absolute, the link kept (its target would leave the venv); options,
    # placeholders, absolute and absent paths are kept as given
    assert found == [str(tmp_path / "bin" / "python"), "-m", "x", "--public", "absent/dir", "{questions}", "/abs/path"]
