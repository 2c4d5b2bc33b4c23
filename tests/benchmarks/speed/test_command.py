"""The command benchmark times ``reasonmap score`` as a fresh process and reports its figures (no timing asserted)."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from benchmarks.speed import command
from benchmarks.speed.command import main, write_inputs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The benchmark's inputs at its default seed, 30 and 40 answers: written once for this module's tests (the
    questions on all 30 cities take most of a test's time)."""
    folder = tmp_path_factory.mktemp("speed-command-inputs")
    return write_inputs(folder, [30, 40], seed=0)


def test_benchmark_times_the_command_and_another_on_the_same_files_and_prints_one_json_object_last(
    capsys, monkeypatch, inputs
):
    questions, files = inputs

    def written(folder, sizes, *, seed):  # what write_inputs writes for these sizes and seed, copied from the fixture
        assert (sizes, seed) == ([30], 0)
        for path in (questions, files[30]):
            shutil.copy(path, folder / path.name)
        return folder / questions.name, {30: folder / files[30].name}

    monkeypatch.setattr(command, "write_inputs", written)
    # the other command counts the predictions it was given: it must see the same file ours scored
    other = f'{sys.executable} -c "import sys; assert sum(1 for _ in open(sys.argv[1])) == 30" {{predictions}}'
    assert main(["--answers", "30", "--repeat", "1", "--compare-with", other]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (run,) = figures["runs"]
    # the figures are reported, and each kind of figure is there; their values are never judged here
    assert run["answers"] == 30
    keys = ("seconds", "other_seconds", "speedup_vs_other", "cpu_seconds", "other_cpu_seconds", "cpu_speedup_vs_other")
    assert all(isinstance(run[key], float) for key in keys)
    # the other command is named, and the load the figures were taken under is recorded
    assert figures["other"] == other and [len(figures["load_average"][when]) for when in ("before", "after")] == [3, 3]


def test_inputs_hold_as_many_distinct_answers_as_asked(inputs):
    questions, files = inputs
    rows = [json.loads(line) for line in files[40].read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 40 == len({row["response"] for row in rows})
    records = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]
    assert {row["id"] for row in rows} <= {record["id"] for record in records} and len(
        {row["model"] for row in rows}
    ) > 10
    # the shape: every embedded city, more than the default 40 questions a map where a map has them
    assert len({record["city"] for record in records}) == 30 and len(records) > 30 * 40


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


def test_the_public_loop_writes_no_file_per_answer_unless_asked(tmp_path, monkeypatch):
    import hashlib

    from benchmarks.speed import public_loop

    # a stand-in checkout with e68dd65's line numbers: the short question's block (from line 427) logs each run,
    # the saving block (lines 1234-1267) writes a file, as main.py's does once per question and model
    lines = ["pass"] * 1267
    lines[181] = "metro_data = {}"  # the Metro Data read (lines 182-192)
    lines[426] = "open('scored.log', 'a', encoding='utf-8').write(model_path + chr(10))"
    lines[1233] = "open(f'saved-{i_sample}-{model_path}.json', 'w').close()"
    (tmp_path / "main.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text("\n" * 12 + "def clean_string(text):\n    return text\n\n\n", encoding="utf-8")
    (tmp_path / "stations").mkdir()
    digests = {name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in ("main.py", "tools.py")}
    monkeypatch.setattr(public_loop, "PUBLIC_FILES", digests)
    question = {"id": "q1", "country": "c", "city": "x", "question_short": "", "question_long": "",
                "station_1": "a", "station_2": "b"}  # fmt: skip
    (tmp_path / "q.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    answers = [{"id": "q1", "model": model, "question": "short", "response": "r"} for model in ("m1", "m2")]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(row) + "\n" for row in answers), encoding="utf-8")
    for save in (False, True):
        work = tmp_path / f"save-{save}"
        work.mkdir()
        monkeypatch.chdir(work)
        assert public_loop.run(tmp_path, tmp_path / "q.jsonl", tmp_path / "p.jsonl", save_results=save) == 2
        assert (work / "scored.log").read_text(encoding="utf-8") == "m1\nm2\n"  # each pair scored once
        saved = sorted(path.name for path in work.glob("saved-*"))
        assert saved == (["saved-0-m1.json", "saved-0-m2.json"] if save else [])


def test_public_times_the_public_loop_on_that_checkout_from_any_folder(tmp_path):
    # the other command of --public runs public_loop.py as a script (it imports nothing of the toolkit) on the
    # checkout's absolute path, from the empty folder it is given: a checkout that is not e68dd65 is refused there
    import shlex
    import subprocess

    from benchmarks.speed.command import public_command

    (tmp_path / "checkout").mkdir()
    (tmp_path / "work").mkdir()
    command = public_command(str(tmp_path / "checkout"))
    argv = [part.format(questions="q.jsonl", predictions="p.jsonl") for part in shlex.split(command)]
    assert argv[0] == sys.executable and argv[-2:] == ["q.jsonl", "p.jsonl"]
    done = subprocess.run(argv, cwd=tmp_path / "work", capture_output=True, text=True, env={})
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        == f"public_loop: {tmp_path / 'checkout' / 'main.py'}: cannot read it (No such file or directory)"
    )
