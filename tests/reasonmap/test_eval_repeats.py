"""``reasonmap eval --repeats K`` and ``--pixel-budget A,B,C`` end to end against the loopback chat server."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from baselines.solvers import run_solver
from benchmarks.reasonmap.records import Question
from graphkit.cities import city_graph, city_names
from reasonmap.cli import main
from tests.baselines.chat_server import ChatServer, Reply, last_message_text


def _eval(server: ChatServer, out: Path, *more: str) -> int:
    return main(["eval", "--endpoint", server.url, "--model", "m", "--out", str(out), "--quiet", *more])


@pytest.fixture(scope="module")
def questions(tmp_path_factory) -> Path:
    """Two route questions of one embedded city (one easy, one middle)."""
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import generate_set, parse_quota

    generated = generate_set([city_graph(city_names()[0])], seed=0, per_city=2, quota=parse_quota("1:1:0"))
    assert len(generated) == 2
    path = tmp_path_factory.mktemp("questions") / "route.jsonl"
    write_jsonl(path, generated)
    return path


def _answers(questions_file: Path) -> dict[str, tuple[str, str]]:
    """Each request's question text -> (kind, the oracle's answer)."""
    questions = [Question.from_dict(json.loads(line)) for line in questions_file.read_text("utf-8").splitlines()]
    by_id = {question.id: question for question in questions}
    return {
        by_id[p.id].text(p.question): (p.question, p.response)
        for p in run_solver("oracle", questions, lambda question: city_graph(question.city))
    }


def _answer_for(answers: dict[str, tuple[str, str]], call) -> tuple[str, str] | None:
    text = last_message_text(call.body)
    return next((found for asked, found in answers.items() if text.endswith(asked)), None)


def test_repeats_ask_each_request_k_times_and_the_summary_reports_pass_at_k(questions, tmp_path, capsys):
    answers = _answers(questions)

    def script(call):  # short: right on the first of its three calls only; long: never
        found = _answer_for(answers, call)
        if found is not None and found[0] == "short" and call.attempt == 1:
            return Reply(content=found[1])
        return Reply(content="I cannot tell.")

    out = tmp_path / "run"
    arguments = ("--questions", str(questions), "--modes", "text-only", "--repeats", "3", "--temperature", "0.7")
    server = ChatServer(script).start()
    assert _eval(server, out, *arguments) == 0, capsys.readouterr().err
    assert len(server.calls) == 2 * 2 * 3  # questions x kinds x repeats
    folder = out / "route" / "text-only"
    scored = [json.loads(line) for line in (folder / "scored.jsonl").read_text("utf-8").splitlines()]
    assert [(row["id"], row["question"], row.get("repeat", 0)) for row in scored] == [
        (id, kind, repeat) for id in dict.fromkeys(r["id"] for r in scored) for kind in ("long", "short")
        for repeat in range(3)
    ]  # fmt: skip
    repeats = json.loads((folder / "report" / "summary.json").read_text("utf-8"))["models"]["m"]["repeats"]
    # 4 requests: the 2 short ones 1 right of 3, the 2 long ones 0 of 3.
    # mean@3 = (1/3 + 1/3 + 0 + 0) / 4 = 1/6; pass@2 = (2/3 + 2/3) / 4 = 1/3 (1 - C(2,2)/C(3,2) = 2/3 each);
    # pass@3 = 2/4; consistency: the two long requests agree (all wrong) = 2/4
    assert repeats == {
        "k": 3,
        "k_max": 3,
        "n_requests": 4,
        "n_fewer": 0,
        "mean_at_k": 0.166667,
        "pass_at_k": {"1": 0.166667, "2": 0.333333, "3": 0.5},
        "consistency": 0.5,
    }
    table = (folder / "report" / "table.md").read_text("utf-8")
    assert "| m | 3 | 16.67 | 16.67 | 50.00 | 50.00 |" in table
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text("utf-8").splitlines()]
    right = [s for s in samples if s["correct"]]
    assert len(right) == 2
    assert {s["response"] for s in right} == {answer for kind, answer in answers.values() if kind == "short"}
    assert json.loads((out / "eval.json").read_text("utf-8"))["settings"]["repeats"] == 3
    (result,) = json.loads((out / "results.json").read_text("utf-8"))["results"]
    assert result["repeats"] == repeats and result["n"] == 12
    assert "3 answers per request" in (out / "results.md").read_text("utf-8")
    # a rerun asks nothing; another K is another run
    try:
        assert _eval(server, out, *arguments) == 0
        capsys.readouterr()
        assert _eval(server, out, *arguments[:-4], "--temperature", "0.7") == 2
        assert "--repeats 3, not 1" in capsys.readouterr().err
        assert len(server.calls) == 12
    finally:
        server.stop()


def test_an_interrupted_eval_redoes_only_the_missing_request_repeat_pairs(questions, tmp_path, capsys):
    out = tmp_path / "run"
    arguments = ("--questions", str(questions), "--modes", "text-only", "--repeats", "2", "--temperature", "1")
    with ChatServer() as server:
        assert _eval(server, out, *arguments) == 0
        predictions = out / "route" / "text-only" / "predictions.jsonl"
        lines = predictions.read_text("utf-8").splitlines(keepends=True)
        assert len(lines) == 8
        # as a kill leaves it: the last three answers never came (one is cut mid-line)
        predictions.write_text("".join(lines[:5]) + lines[5][:20], encoding="utf-8")
        lost = {(r["id"], r["question"], r.get("repeat", 0)) for r in map(json.loads, lines[5:])}
        assert _eval(server, out, *arguments) == 0
        assert len(server.calls) == 8 + 3
    rows = [json.loads(line) for line in predictions.read_text("utf-8").splitlines()]
    assert sorted((r["id"], r["question"], r.get("repeat", 0)) for r in rows[5:]) == sorted(lost)
    assert len({(r["id"], r["question"], r.get("repeat", 0)) for r in rows}) == 8


def test_repeats_at_temperature_zero_are_refused_unless_forced_and_unset_temperature_is_warned(
    questions, tmp_path, capsys
):
    given = ("--questions", str(questions), "--modes", "text-only", "--repeats", "2")
    with ChatServer() as server:
        assert _eval(server, tmp_path / "a", *given, "--temperature", "0") == 2
        assert "--repeats: 2 answers at temperature 0 would be one answer 2 times" in capsys.readouterr().err
        assert not (tmp_path / "a" / "eval.json").exists() and len(server.calls) == 0
        assert _eval(server, tmp_path / "a", *given, "--temperature", "0", "--force-repeats") == 0
        assert len(server.calls) == 8
        assert _eval(server, tmp_path / "b", *given) == 0
        assert "2 answers per request at the server's default temperature" in capsys.readouterr().err


def _maps(folder: Path, side: int) -> Path:
    """A blank ``side`` × ``side`` map of the questions' city: the server looks only at its size."""
    folder.mkdir()
    Image.new("RGB", (side, side), "white").save(folder / f"{city_names()[0]}.png")
    return folder


def _pixels(call) -> int:
    """The pixels of the image a call sent (0 without one)."""
    for part in call.body["messages"][-1]["content"]:
        if isinstance(part, dict) and part.get("type") == "image_url":
            data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
            width, height = Image.open(io.BytesIO(data)).size
            return width * height
    return 0


def test_a_pixel_budget_sweep_asks_the_full_mode_at_each_budget_and_plots_accuracy(questions, tmp_path, capsys):
    answers = _answers(questions)
    seen: list[int] = []

    def script(call):  # a model that reads the map only when it is sent at 40,000 pixels or more
        seen.append(_pixels(call))
        found = _answer_for(answers, call)
        return Reply(content=found[1] if found is not None and seen[-1] >= 40_000 else "I cannot tell.")

    maps = _maps(tmp_path / "maps", 300)  # 90,000 pixels: sent whole at 90k, downscaled below
    out = tmp_path / "run"
    arguments = ("--questions", str(questions), "--modes", "full,text-only", "--maps", str(maps))
    with ChatServer(script) as server:
        code = _eval(server, out, *arguments, "--pixel-budget", "90k,10k,40k")
        assert code == 0, capsys.readouterr().err
        assert len(server.calls) == 4 * 3 + 4  # the full mode at three budgets, text-only once
        first = (out / "resolution.md").read_bytes()
        assert _eval(server, out, *arguments, "--pixel-budget", "10k,40k,90k") == 0  # resumed: nothing asked
        assert len(server.calls) == 16 and (out / "resolution.md").read_bytes() == first
        capsys.readouterr()
        assert _eval(server, out, *arguments, "--pixel-budget", "10k,40k") == 2
        assert "--pixel-budget 10000,40000,90000, not 10000,40000" in capsys.readouterr().err
    assert sorted(set(seen)) == [0, 10_000, 40_000, 90_000]
    results = json.loads((out / "results.json").read_text("utf-8"))["results"]
    assert [(row["mode"], row.get("pixel_budget")) for row in results] == [
        ("full", 10_000),
        ("full", 40_000),
        ("full", 90_000),
        ("text-only", None),
    ]
    accuracy = [row["metrics"]["accuracy_short"] for row in results]
    assert accuracy == [0.0, 1.0, 1.0, 0.0]
    for label in ("10k", "40k", "90k"):
        assert (out / "route" / f"full@{label}" / "report" / "summary.json").is_file()
    markdown = (out / "resolution.md").read_text("utf-8")
    assert "| Model | Task | Metric | 10k px | 40k px | 90k px | Text-only (no map) |" in markdown
    # every answer of a budget right, or every one wrong: so is every resample of the summaries' intervals (± 0)
    assert "| m | route | Short Acc. | 0.00 ± – | 100.00 ± – | 100.00 ± – | 0.00 |" in markdown
    assert (out / "resolution.png").stat().st_size > 0 and (out / "resolution.pdf").is_file()
    assert "| full@40k: Short Acc." in (out / "results.md").read_text("utf-8").split("(`route`)")[1]
    assert json.loads((out / "eval.json").read_text("utf-8"))["settings"]["pixel_budget"] == [10_000, 40_000, 90_000]
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert {"resolution.md", "resolution.png", "route/full@10k/scored.jsonl"} <= {f["name"] for f in manifest["files"]}


def test_one_pixel_budget_writes_what_eval_always_wrote(questions, tmp_path):
    maps = _maps(tmp_path / "maps", 8)
    given = ("--questions", str(questions), "--modes", "full", "--maps", str(maps))
    with ChatServer() as server:
        assert _eval(server, tmp_path / "default", *given) == 0
        assert _eval(server, tmp_path / "one", *given, "--pixel-budget", "4M") == 0
    for name in ("eval.json", "results.json", "results.md", "route/full/scored.jsonl", "route/full/report/table.md"):
        default, one = (tmp_path / "default" / name).read_text("utf-8"), (tmp_path / "one" / name).read_text("utf-8")
        assert default.replace(str(tmp_path / "default"), "") == one.replace(str(tmp_path / "one"), ""), name
    settings = json.loads((tmp_path / "one" / "eval.json").read_text("utf-8"))["settings"]
    assert settings["pixel_budget"] == 4_000_000 and "repeats" not in settings  # as before either option existed
    assert not (tmp_path / "one" / "resolution.md").exists()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("4MP", "expected pixels such as 4000000"),
        ("1M,2k", "--pixel-budget: expected pixels >= 4,096"),
        # read exactly, never through a float (which said 1,000,000,000,000,000,019,884,624,838,656)
        ("999999999999999999999999M", "<= 300,000,000, got 999,999,999,999,999,999,999,999,000,000\n"),
        ("1M,300000000.6", "<= 300,000,000, got 300,000,001\n"),
        ("0.0041k", "got 4\n"),
        ("9" * 5000, "<= 300,000,000, got " + "9" * 60 + "...(5000 characters)\n"),  # no 4,300-digit int error
    ],
)
def test_a_bad_pixel_budget_is_refused_naming_it(tmp_path, capsys, value, error):
    with ChatServer() as server:
        try:
            status = _eval(server, tmp_path / "run", "--tasks", "route", "--pixel-budget", value)
        except SystemExit as exit:  # refused while the arguments are parsed
            status = exit.code
        assert status == 2 and not server.calls
    assert error in capsys.readouterr().err


def test_map_qa_answers_are_repeated_too(tmp_path):
    mapqa = Path(__file__).resolve().parents[1] / "benchmarks" / "mapqa" / "fixtures" / "questions.jsonl"
    n = sum(1 for line in mapqa.read_text("utf-8").splitlines() if line.strip())
    with ChatServer(default=Reply(content="The answer is A.")) as server:
        given = ("--questions", str(mapqa), "--modes", "text-only", "--repeats", "2", "--temperature", "1")
        assert _eval(server, tmp_path / "run", *given) == 0
        assert len(server.calls) == 2 * n
    (row,) = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))["results"]
    # the same answer twice: every question's two verdicts agree
    assert row["n"] == 2 * n and row["repeats"]["k"] == 2 and row["repeats"]["consistency"] == 1.0


def test_several_budgets_without_the_full_mode_are_said_to_do_nothing(questions, tmp_path, capsys):
    with ChatServer() as server:
        given = ("--questions", str(questions), "--modes", "text-only", "--pixel-budget", "1M,4M")
        assert _eval(server, tmp_path / "run", *given) == 0
        assert len(server.calls) == 4  # text-only once: no budget applies to it
    assert "lists 2 budgets, but only the full mode sends a map" in capsys.readouterr().err
    assert not (tmp_path / "run" / "resolution.md").exists()
