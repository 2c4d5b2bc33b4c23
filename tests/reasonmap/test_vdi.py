"""The text-mediated pathway end to end against the loopback chat server: VDI and DSI from a designed script.

The script answers each call by what it is: a description (the image is told
by its data URL, the budget by ``max_tokens``; ``usage.completion_tokens`` is
scripted, or left out so the length is estimated from the words), an answer
with the image, or an answer from a description (the description names its
map and budget, so the script knows which pathway and budget it answers).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from baselines.answers import render_answer
from baselines.client import Backoff
from baselines.prompts import image_data_url
from benchmarks.jsonl import write_jsonl
from benchmarks.manifests import MANIFEST, check_manifest
from benchmarks.mapqa.io import load_questions
from benchmarks.plus.questions import generate_plus_questions
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.vdi import DESCRIBE_PROMPT, vdi_table
from graphkit import city_graph
from reasonmap.cli import main
from reasonmap.vdi import run_vdi
from reasonmap.vdi_samples import load_samples
from tests.baselines.chat_server import Call, ChatServer, Reply

FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "mapqa" / "fixtures"
QUESTIONS = FIXTURES / "questions.jsonl"
FAST = {"progress": False, "api_key": "", "backoff": Backoff(base=0.01, cap=0.05), "timeout": 5.0}
ALL = {"m01", "m02", "m03", "t01", "t02", "t03", "g01", "g02"}

# The design: which answers are right, and how long each map's description is, per budget.
FULL_RIGHT = ALL - {"t03", "g02"}  # 6 of 8
TEXT_RIGHT = {128: {"m01", "m02", "m03"}, 256: ALL - {"g02"}, 512: ALL - {"g01"}}
DESCRIPTION_TOKENS = {  # None: no usage reported (the length is estimated from the words); "error": the call fails
    128: {"metro": 64, "terrain": 128, "grid": 32},
    256: {"metro": 256, "terrain": 128, "grid": "error"},
    512: {"metro": 100, "terrain": 300, "grid": None},
}
# With the grid's description failed at 256, its two questions (g01, g02) are not asked from text there.
EXPECTED = {
    # k_max: (accuracy_text, vdi, dsi, n_described, n_estimated)
    128: (3 / 8, (6 - 3) / 6, (3 * 64 + 3 * 128 + 2 * 32) / (128 * 8), 8, 0),
    256: (6 / 8, (6 - 6) / 6, (3 * 256 + 3 * 128) / (256 * 6), 6, 0),
    512: (7 / 8, (6 - 7) / 6, (3 * 100 + 3 * 300 + 2 * 16) / (512 * 8), 8, 2),
}
# The grid's description at 512 without usage: 16 words, the 4 of its tag "[map grid k 512]" and these 12.
TWELVE_WORDS = "a grid of streets with four coloured places and a main street"


def answer_text(question, right: bool) -> str:
    if not right:
        return "I cannot tell from this."
    separator = " > " if question.type == "sorting" else ", "
    return f"Some reasoning about A and B.\nAnswer: {separator.join(question.answer)}"


class Script:
    """Replies by kind of call; counts nothing itself (the server does)."""

    def __init__(self, questions, *, full_right=FULL_RIGHT, text_right=TEXT_RIGHT, tokens=DESCRIPTION_TOKENS):
        self.questions = questions
        self.full_right, self.text_right, self.tokens = full_right, text_right, tokens
        self.maps = {
            image_data_url(str(FIXTURES / "maps" / f"{name}.png")): name for name in ("metro", "terrain", "grid")
        }

    def question_in(self, text: str):
        (question,) = [q for q in self.questions.values() if q.text() in text]
        return question

    def __call__(self, call: Call) -> Reply:
        content = call.body["messages"][-1]["content"]
        if isinstance(content, list):
            url = content[0]["image_url"]["url"]
            text = content[1]["text"]
            if text.startswith("Describe this map"):
                name, k_max = self.maps[url], call.body["max_tokens"]
                tokens = self.tokens[k_max][name]
                if tokens == "error":
                    return Reply(status=400, error="prompt too long")
                words = TWELVE_WORDS if tokens is None else f"the {name} map"
                usage = None if tokens is None else {"prompt_tokens": 9, "completion_tokens": tokens, "total_tokens": 9}
                return Reply(content=f"[map {name} k {k_max}] {words}", usage=usage)
            question = self.question_in(text)
            return Reply(content=answer_text(question, question.id in self.full_right))
        k_max = int(re.search(r"\[map \w+ k (\d+)\]", content).group(1))
        question = self.question_in(content)
        return Reply(content=answer_text(question, question.id in self.text_right[k_max]))


@pytest.fixture(scope="module")
def fixture_questions():
    questions, problems = load_questions(QUESTIONS)
    assert not problems and set(questions) == ALL
    return questions


pytestmark = pytest.mark.usefixtures("no_key_from_the_environment")


def outputs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


# -- the pathway --------------------------------------------------------------------------------------------------


def test_vdi_is_refused_while_another_run_writes_its_folder(tmp_path, fixture_questions):
    from graphkit.files import FolderLocked, folder_lock

    samples = load_samples(QUESTIONS)
    with ChatServer(Script(fixture_questions)) as server, folder_lock(tmp_path, "vdi"):
        with pytest.raises(FolderLocked, match="another run"):
            run_vdi(samples, endpoint=server.url, model="m", budgets=[128], out=tmp_path, **FAST)
        assert server.calls == ()  # nothing asked
    assert not (tmp_path / MANIFEST).exists()


@pytest.mark.figures
def test_vdi_and_dsi_end_to_end_match_the_designed_script(tmp_path, fixture_questions):
    samples = load_samples(QUESTIONS)
    assert samples.benchmark == "mapqa" and len(samples.samples) == 8
    with ChatServer(Script(fixture_questions)) as server:
        result = run_vdi(samples, endpoint=server.url, model="m", budgets=[512, 128, 256], out=tmp_path, **FAST)
        calls = server.calls
    # 8 full answers; per budget 3 descriptions and the text answers of the described maps' questions
    assert len(calls) == 8 + (3 + 8) + (3 + 6) + (3 + 8)
    describe_calls = [c for c in calls if "max_tokens" in c.body]
    assert sorted(c.body["max_tokens"] for c in describe_calls) == [128] * 3 + [256] * 3 + [512] * 3
    assert all(DESCRIBE_PROMPT.format(k_max=c.body["max_tokens"]) in json.dumps(c.body) for c in describe_calls)
    text_calls = [c for c in calls if isinstance(c.body["messages"][-1]["content"], str)]
    assert all("data:image" not in json.dumps(c.body) for c in text_calls)  # from the description alone

    summary = result.summary
    assert summary["n"] == 8 and summary["n_images"] == 3
    assert summary["accuracy_full"] == 0.75 and summary["n_correct_full"] == 6 and summary["vdi_defined"]
    assert [row["k_max"] for row in summary["budgets"]] == [128, 256, 512]
    for row in summary["budgets"]:
        accuracy, vdi, dsi, described, estimated = EXPECTED[row["k_max"]]
        assert row["accuracy_text"] == round(accuracy, 6)
        assert row["vdi"] == round(vdi, 6)
        assert row["dsi"] == round(dsi, 6)
        assert (row["n_described"], row["n_estimated"]) == (described, estimated)
    assert [figure.vdi for figure in result.budgets] == [0.5, 0.0, -0.166667]
    assert result.budgets[0].dsi == 0.625

    assert json.loads((tmp_path / "vdi.json").read_text()) == summary
    rows = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    by_id = {row["id"]: row for row in rows}
    assert by_id["g01"]["budgets"]["256"] == {
        "described": False,
        "k_actual": None,
        "estimated": False,
        "correct_text": 0,
    }
    assert by_id["g01"]["budgets"]["512"] == {"described": True, "k_actual": 16, "estimated": True, "correct_text": 0}
    assert by_id["t03"]["correct_full"] == 0 and by_id["t03"]["budgets"]["512"]["correct_text"] == 1
    table = (tmp_path / "vdi.md").read_text()
    assert "| 128 | 37.50 | 0.500 | 0.625 | 8/8 |" in table and "| 256 | 75.00 | 0.000 | 0.750 | 6/8 |" in table
    assert (tmp_path / "vdi.png").read_bytes().startswith(b"\x89PNG")
    # the full pathway's rows are map QA predictions
    assert main(["mapqa-score", "--questions", str(QUESTIONS), "--predictions", str(tmp_path / "full.jsonl"),
                 "--out", str(tmp_path / "scored.jsonl"), "--report", str(tmp_path / "report")]) == 0  # fmt: skip
    report = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert report["models"]["m"]["accuracy"] == 0.75


def test_a_second_run_makes_no_call_and_writes_the_same_bytes(tmp_path, fixture_questions):
    samples = load_samples(QUESTIONS)
    with ChatServer(Script(fixture_questions)) as server:
        run_vdi(samples, endpoint=server.url, model="m", budgets=[128, 256], out=tmp_path, **FAST)
        first, hits = outputs(tmp_path), server.hits()
        again = run_vdi(samples, endpoint=server.url, model="m", budgets=[128, 256], out=tmp_path, **FAST)
        assert server.hits() == hits
        assert all(summary.done_now == 0 and summary.done_before == summary.total for _, summary in again.runs)
        assert outputs(tmp_path) == first

        # an interrupted run: the last two text answers are missing; only they are asked again
        path = tmp_path / "text-k128.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[:-2]), encoding="utf-8")
        run_vdi(samples, endpoint=server.url, model="m", budgets=[128, 256], out=tmp_path, **FAST)
        assert server.hits() == hits + 2
    resumed = outputs(tmp_path)
    changed = ("text-k128", "manifest.json")  # the manifest holds the checksum of the rows appended anew
    assert {name: data for name, data in resumed.items() if not name.startswith(changed)} == {
        name: data for name, data in first.items() if not name.startswith(changed)
    }
    assert check_manifest(tmp_path) == []


@pytest.mark.figures
def test_no_right_answer_with_the_image_leaves_vdi_undefined(tmp_path, fixture_questions):
    samples = load_samples(QUESTIONS)
    script = Script(fixture_questions, full_right=set())
    with ChatServer(script) as server:
        result = run_vdi(samples, endpoint=server.url, model="m", budgets=[128, 512], out=tmp_path, **FAST)
    summary = result.summary
    assert summary["accuracy_full"] == 0.0 and not summary["vdi_defined"]
    assert [row["vdi"] for row in summary["budgets"]] == [None, None]
    assert [row["accuracy_text"] for row in summary["budgets"]] == [0.375, 0.875]  # still measured
    assert [row["dsi"] for row in summary["budgets"]] == [0.625, round(EXPECTED[512][2], 6)]
    assert json.loads((tmp_path / "vdi.json").read_text())["budgets"][0]["vdi"] is None
    table = (tmp_path / "vdi.md").read_text()
    assert "| 128 | 37.50 | undefined | 0.625 | 8/8 |" in table and "Acc_full = 0" in table
    assert (tmp_path / "vdi.png").read_bytes().startswith(b"\x89PNG")


def test_no_samples_at_all_gives_undefined_figures(tmp_path):
    questions = tmp_path / "questions.jsonl"
    record = json.loads(QUESTIONS.read_text(encoding="utf-8").splitlines()[0])
    questions.write_text(json.dumps({**record, "image": "missing.png"}) + "\n", encoding="utf-8")
    samples = load_samples(questions)
    assert samples.samples == () and "no map image" in samples.problems[0]
    with ChatServer() as server:
        result = run_vdi(samples, endpoint=server.url, model="m", budgets=[64], out=tmp_path / "out", **FAST)
        assert server.hits() == 0
    assert result.accuracy_full is None
    assert result.budgets[0].to_dict() == {
        "k_max": 64, "accuracy_text": None, "vdi": None, "dsi": None, "n_correct_text": 0, "n_described": 0,
        "n_estimated": 0,
    }  # fmt: skip
    assert "undefined" in vdi_table(result.summary)


def test_reasonmap_questions_take_the_short_question_and_the_city_map(tmp_path):
    from PIL import Image

    questions = generate_questions(city_graph("rome"), seed=1, per_city=4)
    path = tmp_path / "questions.jsonl"
    write_jsonl(path, questions)
    maps = tmp_path / "maps"
    maps.mkdir()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(maps / "rome.png")
    right = {questions[0].id, questions[1].id}
    by_text = {q.question_short: q for q in questions}

    def script(call: Call) -> Reply:
        content = call.body["messages"][-1]["content"]
        full = isinstance(content, list)
        if full and content[1]["text"].startswith("Describe"):
            return Reply(content="[rome]", usage={"completion_tokens": call.body["max_tokens"] // 2})
        question = by_text[content[1]["text"] if full else content.split("answer the question.\n\n", 1)[1]]
        good = question.id in right if full else question.id == questions[0].id
        return Reply(content=render_answer(question.routes[0], "short") if good else "No idea.")

    with pytest.raises(ValueError, match="--maps"):
        load_samples(path)
    samples = load_samples(path, maps=maps)
    assert samples.benchmark == "route" and [s.kind for s in samples.samples] == ["short"] * 4
    assert samples.samples[0].prompt == questions[0].question_short
    with ChatServer(script) as server:
        result = run_vdi(samples, endpoint=server.url, model="m", budgets=[256], out=tmp_path / "out", **FAST)
    (figures,) = result.budgets
    assert result.accuracy_full == 0.5 and figures.accuracy_text == 0.25
    assert figures.vdi == 0.5 and figures.dsi == 0.5 and figures.n_described == 4


def test_plus_questions_are_recognised_and_judged_by_the_plus_scorer(tmp_path):
    from PIL import Image

    questions = generate_plus_questions(city_graph("rome"), seed=0, per_type=1)
    path = tmp_path / "plus.jsonl"
    write_jsonl(path, questions)
    Image.new("RGB", (40, 30), (30, 30, 200)).save(tmp_path / "rome.png")
    samples = load_samples(path, maps=tmp_path)
    assert samples.benchmark == "plus" and len(samples.samples) == len(questions)
    assert all(sample.kind == question.type for sample, question in zip(samples.samples, questions))
    assert all(samples.judge(s, str(q.answer)) for s, q in zip(samples.samples, questions))
    assert not any(samples.judge(s, "") for s in samples.samples)


def test_cli_vdi_prints_the_table_and_writes_the_files(tmp_path, fixture_questions, capsys):
    with ChatServer(Script(fixture_questions)) as server:
        argv = ["vdi", "--endpoint", server.url, "--model", "m", "--questions", str(QUESTIONS), "--budgets", "128",
                "--out", str(tmp_path), "--concurrency", "2", "--quiet"]  # fmt: skip
        assert main(argv) == 0
    captured = capsys.readouterr()
    assert "| 128 | 37.50 | 0.500 | 0.625 | 8/8 |" in captured.out
    assert {"full.jsonl", "describe-k128.jsonl", "text-k128.jsonl", "vdi.json", "vdi.md", "vdi.png"} <= {
        path.name for path in tmp_path.iterdir()
    }
    assert main(["vdi", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--questions", str(QUESTIONS),
                 "--budgets", "128,x", "--out", str(tmp_path)]) == 2  # fmt: skip
    assert "budgets" in capsys.readouterr().err


def test_each_stage_file_records_its_own_max_tokens_and_a_rerun_with_others_is_refused(tmp_path, fixture_questions):
    from baselines.client import OutputFileError

    def max_tokens_of(stage: str):
        return json.loads((tmp_path / f"{stage}.jsonl.settings.json").read_text())["runs"]["m"]["max_tokens"]

    samples = load_samples(QUESTIONS)
    with ChatServer(Script(fixture_questions)) as server:
        run = {"endpoint": server.url, "model": "m", "budgets": [128], "out": tmp_path, **FAST}
        run_vdi(samples, answer_max_tokens=200, **run)
        # the descriptions are asked with their budget, the answers with --max-tokens: each in its own file
        assert [max_tokens_of(stage) for stage in ("full", "describe-k128", "text-k128")] == [200, 128, 200]
        hits = server.hits()
        again = run_vdi(samples, answer_max_tokens=200, **run)
        assert server.hits() == hits and all(summary.done_now == 0 for _, summary in again.runs)
        with pytest.raises(OutputFileError, match=r"full\.jsonl was written with --max-tokens 200, not 300"):
            run_vdi(samples, answer_max_tokens=300, **run)
        assert server.hits() == hits
