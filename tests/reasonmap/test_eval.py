"""``reasonmap eval`` end to end against the loopback chat server: every task × mode, resume, refusals, failures."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pytest
from PIL import Image

from baselines.solvers import run_solver
from benchmarks.reasonmap.records import Question
from benchmarks.tasks import task_names
from graphkit.cities import city_graph
from reasonmap.cli import main
from tests.baselines.chat_server import ChatServer, Reply, last_message_text

MAPQA = Path(__file__).resolve().parents[1] / "benchmarks" / "mapqa" / "fixtures" / "questions.jsonl"
ROUTE_COLUMNS = ("Short Acc.", "Short Map Score", "Long Acc.", "Long Map Score")


def _maps(folder: Path) -> Path:
    """A placeholder map for every embedded city: the server does not look at images."""
    from graphkit.cities import city_names

    folder.mkdir()
    for city in city_names():
        Image.new("RGB", (8, 8), "white").save(folder / f"{city}.png")
    return folder


def _oracle_server(questions_file: Path) -> ChatServer:
    """A server that answers every route question as the oracle does, whatever the mode's wrapping."""
    questions = [Question.from_dict(json.loads(line)) for line in questions_file.read_text("utf-8").splitlines()]
    answers = {}
    for prediction in run_solver("oracle", questions, lambda question: city_graph(question.city)):
        question = next(q for q in questions if q.id == prediction.id)
        answers[question.text(prediction.question)] = prediction.response

    def script(call):
        text = last_message_text(call.body)
        for asked, answer in answers.items():
            if text.endswith(asked):
                return Reply(content=answer)
        return Reply(content="I cannot tell.")

    return ChatServer(script)


def _eval(server: ChatServer, out: Path, *more: str) -> int:
    return main(["eval", "--endpoint", server.url, "--model", "m", "--out", str(out), "--quiet", *more])


def test_every_task_and_mode_is_asked_scored_and_tabled(tmp_path, capsys):
    maps = _maps(tmp_path / "maps")
    out = tmp_path / "run"
    with ChatServer() as server:
        code = _eval(
            server,
            out,
            "--split",
            "test",
            "--limit",
            "3",
            "--tasks",
            "route,plus",
            "--modes",
            "full,text-only,symbolic,alias",
            "--maps",
            str(maps),
        )
        assert code == 0, capsys.readouterr().err
        # route: 3 questions × 2 kinds × 4 modes; plus: 3 questions × 3 modes (alias is not a plus mode)
        assert len(server.calls) == 3 * 2 * 4 + 3 * 3
        url = server.url
    results = json.loads((out / "results.json").read_text("utf-8"))
    pairs = [(row["task"], row["mode"]) for row in results["results"]]
    assert pairs == [
        ("route", "full"),
        ("route", "text-only"),
        ("route", "symbolic"),
        ("route", "alias"),
        ("plus", "full"),
        ("plus", "text-only"),
        ("plus", "symbolic"),
    ]
    assert all(row["n"] == (6 if row["task"] == "route" else 3) for row in results["results"])
    # "answer to <the question>" names no real station: no route answer is correct
    assert all(row["metrics"]["accuracy_short"] == 0 for row in results["results"] if row["task"] == "route")
    asked = results["config"]["questions_asked"]
    for task in ("route", "plus"):
        digest = hashlib.sha256((out / "questions" / f"{task}.jsonl").read_bytes()).hexdigest()
        assert asked[task] == {"file": f"{task}.jsonl", "sha256": digest}
    config = results["config"]["settings"]
    assert config["model"] == "m" and config["limit"] == 3 and config["endpoint"] == url
    for task, mode in pairs:
        folder = out / task / mode
        for name in ("requests.jsonl", "predictions.jsonl", "scored.jsonl", "samples.jsonl", "report/summary.json"):
            assert (folder / name).is_file(), folder / name
        sample = json.loads((folder / "samples.jsonl").read_text("utf-8").splitlines()[0])
        assert sample["response"].startswith("answer to") and sample["question_info"]["city"]
    table = (out / "results.md").read_text("utf-8")
    # one table per task, each a page wide: route's columns are its modes × the Table 2 metrics
    route, plus = table.split("(`route`)")[1].split("(`plus`)")
    assert all(f"full: {column}" in route and f"text-only: {column}" in route for column in ROUTE_COLUMNS)
    assert "Short Acc." not in plus and route.count("| m |") == plus.count("| m |") == 1


def test_a_rerun_asks_nothing_again_and_a_changed_setting_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    arguments = ("--limit", "2", "--modes", "text-only", "--tasks", "route")
    with ChatServer() as server:
        assert _eval(server, out, *arguments) == 0
        asked = len(server.calls)
        first = (out / "results.json").read_bytes()
        assert _eval(server, out, *arguments) == 0
        assert len(server.calls) == asked == 4
        assert (out / "results.json").read_bytes() == first
        capsys.readouterr()
        assert _eval(server, out, *arguments, "--temperature", "0.7") == 2
        error = capsys.readouterr().err
        assert "--temperature (none), not 0.7" in error and "--force" in error
        assert _eval(server, out, *arguments[:2], "--modes", "text-only,symbolic", "--tasks", "route") == 2
        assert "--modes text-only, not text-only,symbolic" in capsys.readouterr().err
        assert len(server.calls) == asked
        assert _eval(server, out, *arguments, "--temperature", "0.7", "--force") == 0
        assert len(server.calls) == 2 * asked
    assert json.loads((out / "eval.json").read_text("utf-8"))["settings"]["temperature"] == 0.7


def test_oracle_answers_score_full_marks_and_name_tags_the_model(tmp_path, capsys):
    out = tmp_path / "run"
    with ChatServer() as probe:  # the first run writes the questions the oracle server answers
        assert _eval(probe, out, "--limit", "4", "--modes", "text-only", "--tasks", "route") == 0
    with _oracle_server(out / "questions" / "route.jsonl") as server:
        assert (
            _eval(server, tmp_path / "b", "--limit", "4", "--modes", "text-only", "--tasks", "route", "--name", "o")
            == 0
        )
    (row,) = json.loads((tmp_path / "b" / "results.json").read_text("utf-8"))["results"]
    assert row["model"] == "o" and row["n"] == 8 and row["n_invalid"] == 0
    assert row["metrics"]["accuracy_short"] == row["metrics"]["accuracy_long"] == 1.0
    assert "| o | 100.00 ± – |" in (tmp_path / "b" / "results.md").read_text("utf-8")


def test_map_qa_questions_are_asked_with_their_own_images(tmp_path):
    out = tmp_path / "run"
    with ChatServer(default=Reply(content="The answer is A.")) as server:
        assert _eval(server, out, "--questions", str(MAPQA), "--modes", "full,text-only,symbolic") == 0
        images = [call for call in server.calls if isinstance(call.body["messages"][0]["content"], list)]
    results = json.loads((out / "results.json").read_text("utf-8"))["results"]
    n = sum(1 for line in MAPQA.read_text("utf-8").splitlines() if line.strip())
    assert [(row["task"], row["mode"], row["n"]) for row in results] == [
        ("mapqa", "full", n),
        ("mapqa", "text-only", n),
    ]
    assert len(images) == n


def test_full_mode_without_maps_skips_with_a_count_or_fails_when_required(tmp_path, capsys):
    with ChatServer() as server:
        assert _eval(server, tmp_path / "a", "--limit", "2", "--tasks", "route", "--modes", "full,text-only") == 0
        rows = json.loads((tmp_path / "a" / "results.json").read_text("utf-8"))["results"]
        assert [(row["mode"], row["n"], row["n_skipped_no_map"]) for row in rows] == [
            ("full", 0, 2),
            ("text-only", 4, 0),
        ]
        capsys.readouterr()
        code = _eval(server, tmp_path / "b", "--limit", "2", "--tasks", "route", "--modes", "full", "--require-maps")
        assert code != 0
        assert "no maps" in capsys.readouterr().err


def test_a_dead_endpoint_exits_non_zero_with_the_reason(tmp_path, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(
        [
            "eval",
            "--endpoint",
            f"http://127.0.0.1:{port}/v1",
            "--model",
            "m",
            "--out",
            str(tmp_path / "run"),
            "--limit",
            "1",
            "--tasks",
            "route",
            "--modes",
            "text-only",
            "--max-retries",
            "0",
            "--quiet",
        ]
    )
    error = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in error and error.strip()


def test_every_request_failing_exits_non_zero(tmp_path, capsys):
    with ChatServer(default=Reply(status=400, error="bad request")) as server:
        code = _eval(server, tmp_path / "run", "--limit", "1", "--tasks", "route", "--modes", "text-only")
    assert code == 1
    assert "not one request was answered" in capsys.readouterr().err


def test_unknown_mode_lists_the_known_ones_and_the_close_one(tmp_path, capsys):
    with ChatServer() as server:
        assert _eval(server, tmp_path / "run", "--modes", "text_only", "--tasks", "route") == 2
    error = capsys.readouterr().err
    assert "mode must be one of ['alias', 'full', 'symbolic', 'text-only'], got 'text_only'" in error
    assert error.rstrip().endswith("did you mean 'text-only'?")
    assert not (tmp_path / "run").exists()  # refused before anything is written


def test_unknown_task_lists_the_known_ones(tmp_path, capsys):
    with ChatServer() as server:
        assert _eval(server, tmp_path / "run", "--tasks", "routes") == 2
    error = capsys.readouterr().err
    # every registered task, in the registry's order (a new task changes the list, not this test)
    assert f"task must be one of {list(task_names())}, got 'routes'; did you mean 'route'?" in error


@pytest.mark.parametrize("limit", ["0", "-3"])
def test_a_limit_below_one_is_refused(tmp_path, capsys, limit):
    with ChatServer() as server:
        assert _eval(server, tmp_path / "run", "--limit", limit) == 2
    assert "--limit must be at least 1" in capsys.readouterr().err


def test_force_never_removes_the_runs_own_inputs(tmp_path):
    out = tmp_path / "run"
    with ChatServer() as server:
        assert _eval(server, out, "--limit", "2", "--tasks", "route", "--modes", "text-only") == 0
        questions = out / "questions" / "route.jsonl"  # fed back in as the input of a new run in place
        before = questions.read_bytes()
        code = _eval(server, out, "--questions", str(questions), "--modes", "text-only", "--force")
        assert code == 0
        assert questions.read_bytes() == before


def test_force_refuses_a_folder_that_holds_what_no_run_wrote_naming_it(tmp_path, capsys):
    mine = tmp_path / "mine"
    (mine / "maps").mkdir(parents=True)
    (mine / "maps" / "precious.png").write_bytes(b"png")
    with ChatServer() as server:
        assert _eval(server, mine, "--limit", "1", "--tasks", "route", "--modes", "text-only", "--force") == 2
        assert "holds files but no evaluation run" in capsys.readouterr().err
        assert (mine / "maps" / "precious.png").read_bytes() == b"png"
        out = tmp_path / "run"
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only") == 0
        (out / "route" / "text-only" / "notes.txt").write_text("mine", encoding="utf-8")
        assert _eval(server, out, "--limit", "1", "--tasks", "plus", "--modes", "text-only", "--force") == 2
        assert "route/text-only/notes.txt, which no evaluation run here wrote" in capsys.readouterr().err
        assert (out / "route" / "text-only" / "notes.txt").read_text(encoding="utf-8") == "mine"
        assert (out / "route" / "text-only" / "predictions.jsonl").is_file()  # refused: nothing removed
        (out / "route" / "text-only" / "notes.txt").unlink()
        assert _eval(server, out, "--limit", "1", "--tasks", "plus", "--modes", "text-only", "--force") == 0
    assert not (out / "route").exists() and not (out / "questions" / "route.jsonl").exists()
    assert [row["task"] for row in json.loads((out / "results.json").read_text("utf-8"))["results"]] == ["plus"]


def test_tasks_without_a_file_are_generated_beside_those_given(tmp_path):
    with ChatServer(default=Reply(content="The answer is A.")) as server:
        code = _eval(
            server, tmp_path / "run", "--tasks", "route,mapqa", "--questions", str(MAPQA), "--limit", "2",
            "--modes", "text-only",
        )  # fmt: skip
    assert code == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    assert [(row["task"], row["n"]) for row in results["results"]] == [("route", 4), ("mapqa", 2)]
    assert results["config"]["settings"]["split"] == "test"


def test_scored_rows_follow_the_questions_whatever_order_answers_came_in(tmp_path):
    outputs = []
    for name, concurrency in (("a", "1"), ("b", "8")):
        with ChatServer() as server:
            arguments = ("--limit", "8", "--tasks", "route", "--modes", "text-only", "--concurrency", concurrency)
            assert _eval(server, tmp_path / name, *arguments) == 0
        outputs.append((tmp_path / name / "route" / "text-only" / "scored.jsonl").read_bytes())
    assert outputs[0] == outputs[1]
    ids = [json.loads(line)["id"] for line in outputs[0].decode("utf-8").splitlines()]
    questions = [json.loads(line)["id"] for line in (tmp_path / "a" / "questions" / "route.jsonl").open()]
    assert list(dict.fromkeys(ids)) == questions


def test_a_bad_client_option_is_refused_before_anything_is_recorded(tmp_path, capsys):
    with ChatServer() as server:
        assert _eval(server, tmp_path / "run", "--max-tokens", "0", "--tasks", "route") == 2
    assert "--max-tokens" in capsys.readouterr().err
    assert not (tmp_path / "run" / "eval.json").exists()


def test_map_qa_images_are_found_beside_their_file_when_maps_holds_the_city_maps(tmp_path):
    maps = _maps(tmp_path / "maps")
    with ChatServer(default=Reply(content="The answer is A.")) as server:
        code = _eval(
            server, tmp_path / "run", "--tasks", "route,mapqa", "--questions", str(MAPQA), "--limit", "2",
            "--modes", "full", "--maps", str(maps),
        )  # fmt: skip
    assert code == 0
    rows = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))["results"]
    assert [(row["task"], row["n"], row["n_skipped_no_map"]) for row in rows] == [("route", 4, 0), ("mapqa", 2, 0)]


def test_rescoring_the_nested_files_of_an_unfinished_eval_warns(tmp_path, capsys):
    run = tmp_path / "run"
    with ChatServer(default=Reply(status=400, error="bad request")) as server:
        assert _eval(server, run, "--limit", "1", "--tasks", "route", "--modes", "text-only") == 1
    capsys.readouterr()
    predictions = run / "route" / "text-only" / "predictions.jsonl"
    argv = ["score", "--questions", run / "questions" / "route.jsonl", "--predictions", predictions]
    main([str(arg) for arg in [*argv, "--out", tmp_path / "s.jsonl", "--report", tmp_path / "report"]])
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings[1] == (
        f"reasonmap score: warning: --predictions {predictions}: {run / 'manifest.json'} says the run that wrote"
        " it did not finish; its files may mix two runs"
    )


def test_every_stage_says_what_it_is_doing_and_the_bars_name_task_and_mode(tmp_path, capsys):
    argv = ["eval", "--tasks", "route", "--modes", "text-only,symbolic", "--limit", "1", "--name", "tag"]
    with ChatServer() as server:
        assert main([*argv, "--endpoint", server.url, "--model", "m", "--out", str(tmp_path / "run")]) == 0
        lines = [line.strip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
        notes = [line for line in lines if ":" in line and not line.startswith(("generating", "route/text-only tag"))]
        assert notes[:4] == [
            f"eval: checking the settings of the run in {tmp_path / 'run'}/",
            f"eval: tag on route in text-only, symbolic; outputs in {tmp_path / 'run'}/",
            "route: generating the test split's questions (seed 0)",
            "route/text-only: building the requests of 1 questions",
        ]
        for mode in ("text-only", "symbolic"):
            assert f"route/{mode}: scoring the answers" in lines
            bars = [line for line in lines if line.startswith(f"route/{mode} tag:")]
            assert bars and "2/2" in bars[-1]  # labelled, and ends at its total
        assert any(line.startswith("generating:") for line in lines)  # the question generator's own bar
        argv = [*argv, "--endpoint", server.url, "--model", "m", "--out", str(tmp_path / "quiet"), "--quiet"]
        assert main(argv) == 0
    err = capsys.readouterr().err
    assert (
        "checking the settings" not in err
        and "building the requests" not in err
        and "scoring the answers" not in err
        and "generating" not in err
    )


def test_force_never_deletes_maps_given_inside_a_mode_folder(tmp_path, capsys):
    out = tmp_path / "run"
    with ChatServer() as server:
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only") == 0
        maps = _maps(out / "route" / "full")
        kept = {path: path.read_bytes() for path in maps.iterdir()}
        code = _eval(
            server, out, "--limit", "1", "--tasks", "route", "--modes", "full,text-only", "--maps", str(maps), "--force"
        )
    assert code == 2
    assert "which no evaluation run here wrote" in capsys.readouterr().err
    assert {path: path.read_bytes() for path in maps.iterdir()} == kept
    assert (out / "route" / "text-only" / "predictions.jsonl").is_file()


def test_force_never_follows_a_symlinked_mode_folder(tmp_path, capsys):
    out, elsewhere = tmp_path / "run", tmp_path / "ELSEWHERE"
    elsewhere.mkdir()
    (elsewhere / "data.txt").write_text("keep", encoding="utf-8")
    with ChatServer() as server:
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only") == 0
        (out / "route" / "symbolic").symlink_to(elsewhere, target_is_directory=True)
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only", "--force") == 2
    assert "route/symbolic, which no evaluation run here wrote" in capsys.readouterr().err
    assert (elsewhere / "data.txt").read_text(encoding="utf-8") == "keep"


def test_a_second_run_and_force_are_refused_while_one_writes_and_a_stale_lock_is_taken_over(tmp_path, capsys):
    import os
    import subprocess
    import sys

    from graphkit.files import LOCK, folder_lock

    out = tmp_path / "run"
    with ChatServer() as server:
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only") == 0
        assert not (out / LOCK).exists()
        before = (out / "route" / "text-only" / "predictions.jsonl").read_bytes()
        with folder_lock(out, "eval"):  # a live run holds the folder
            for more in ((), ("--force",)):
                assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only", *more) == 2
                assert f"another run (pid {os.getpid()} on host {socket.gethostname()})" in capsys.readouterr().err
        assert (out / "route" / "text-only" / "predictions.jsonl").read_bytes() == before
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        stale = {"pid": int(dead.stdout), "host": socket.gethostname(), "command": "eval"}
        (out / LOCK).write_text(json.dumps(stale), encoding="utf-8")
        assert _eval(server, out, "--limit", "1", "--tasks", "route", "--modes", "text-only", "--force") == 0
    assert not (out / LOCK).exists()
