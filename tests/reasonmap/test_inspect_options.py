"""The Inspect tasks' ``-T`` options are checked when Inspect builds the task, before any sample is asked.

Each case runs ``inspect_ai.eval("reasonmap/route", ...)`` (the path ``inspect eval reasonmap/route -T ...``
takes: Inspect's loader calls the task's factory with the options) with Inspect's ``openai/`` provider pointed
at a loopback chat server, as the fourth campaign did (``--model-base-url ... -M responses_api=false``), and
asserts that the server received no request. The control case, with good options, does reach it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.jsonl import write_jsonl
from benchmarks.plus.questions import generate_plus_questions
from benchmarks.reasonmap.generate import generate_questions
from graphkit import city_graph
from tests.baselines.chat_server import ChatServer

pytestmark = pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None, reason="the [inspect] extra is absent")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from PIL import Image

    folder = tmp_path_factory.mktemp("inspect-options")
    questions = folder / "q.jsonl"
    write_jsonl(questions, generate_questions(city_graph("rome"), seed=1, per_city=2))
    plus = folder / "plus.jsonl"
    write_jsonl(plus, generate_plus_questions(city_graph("rome"), seed=2, per_type=1))
    (folder / "maps").mkdir()
    Image.new("RGB", (600, 400), (10, 120, 200)).save(folder / "maps" / "rome.png")
    # an lmms-eval 0.4 sample log: a JSON Lines file, but no question file
    (folder / "lmms.jsonl").write_text('{"doc_id": 0, "filtered_resps": ["x"], "input": "Which route?"}\n')
    os.mkfifo(folder / "fifo.jsonl")
    return folder


@pytest.fixture(scope="module")
def server():
    with ChatServer() as running:
        yield running


def _eval(server, tmp_path, task, options, monkeypatch):
    import inspect_ai

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-inspect-options")
    server.reset()
    return inspect_ai.eval(
        task,
        model="openai/m",
        model_base_url=server.url,
        model_args={"responses_api": False},
        task_args=options,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )


BAD_ROUTE_OPTIONS = [
    # (options besides questions=q.jsonl, what the one line says after "reasonmap/route: ")
    ({"mode": "text-only", "variant": "bogus"}, "route scoring variant must be one of ['paper', "),
    ({"mode": "text-only", "variant": "oficial"}, "did you mean 'official'?"),
    ({"mode": "text-only", "weighting": "bogus"}, "route weighting must be one of ['paper', 'city', 'none']"),
    ({"mode": "text-only", "split": "bogus"}, "split must be one of ['test', 'train', 'all'], got 'bogus'"),
    ({"mode": "text-only", "seed": "abc"}, "seed: expected an integer, got 'abc'"),
    ({"mode": "text-only", "kinds": "bogus"}, "kinds must be one of ['both', 'short', 'long']"),
    ({"mode": "symbolic", "textualization": "bogus"}, "textualization must be one of ['lines', "),
    ({"mode": "bogus"}, "route prompt mode must be one of ['full', "),
    # the command line's bounds: under 4,096 pixels a map is not legible (a 1x1 picture was sent before)
    ({"maps": "MAPS", "pixel_budget": 0}, "pixel_budget: expected pixels >= 4,096 and <= 300,000,000, got 0"),
    ({"maps": "MAPS", "pixel_budget": 1}, "pixel_budget: expected pixels >= 4,096 and <= 300,000,000, got 1"),
    ({"maps": "MAPS", "pixel_budget": 4095}, "got 4,095"),
    ({"maps": "MAPS", "pixel_budget": -5}, "pixel_budget: expected pixels >= 4,096 and <= 300,000,000, got -5"),
    ({"maps": "MAPS", "pixel_budget": 300_000_001}, "got 300,000,001"),
    ({"maps": "MAPS", "pixel_budget": "abc"}, "pixel_budget: expected pixels such as 4000000, 500k or 4M"),
    ({"maps": "MAPS", "pixel_budget": "1M,4M"}, "pixel_budget: expected one pixel budget, got '1M,4M'"),
    ({"maps": "MAPS", "pixel_budget": True}, "pixel_budget: expected a whole number of pixels"),
    ({"maps": "MAPS", "pixel_budget": float("inf")}, "pixel_budget: expected a whole number of pixels"),
    ({"maps": "MAPS", "pixel_budget": 1e400}, "pixel_budget: expected a whole number of pixels"),
    ({"maps": "nowhere"}, "nowhere: no such folder"),
    ({"maps": "QUESTIONS"}, "q.jsonl: not a folder"),
    ({"questions": "missing.jsonl", "mode": "text-only"}, "missing.jsonl: no such JSON Lines file"),
    ({"questions": "lmms.jsonl", "mode": "text-only"}, "lmms.jsonl: no readable question"),
    ({"questions": "fifo.jsonl", "mode": "text-only"}, "fifo.jsonl: a FIFO, not a JSON Lines file"),
    ({"questions": "plus.jsonl", "mode": "text-only"}, "plus.jsonl: no readable question"),
    ({"questions": 123, "mode": "text-only"}, "questions: expected a path, got 123"),
    # a misspelt option: Inspect itself only logs that it is unused, and the run went on with the default
    ({"mode": "text-only", "variantt": "C1"}, "no option 'variantt'; its options are ['mode', "),
    ({"mode": "text-only", "pixel_buget": 5000}, "did you mean 'pixel_budget'?"),
    ({"mode": "text-only", "questions": "questions.jsonl", "Questions": "x"}, "no option 'Questions'"),
]


def _resolved(options, files):
    names = {"MAPS": str(files / "maps"), "QUESTIONS": str(files / "q.jsonl")}
    resolved = {"questions": str(files / "q.jsonl")} | options
    for name in ("maps", "questions"):
        value = resolved.get(name)
        if isinstance(value, str):
            resolved[name] = names.get(value, str(files / value) if not Path(value).is_absolute() else value)
    return resolved


@pytest.mark.parametrize(("options", "says"), BAD_ROUTE_OPTIONS, ids=[repr(case[0]) for case in BAD_ROUTE_OPTIONS])
def test_a_bad_option_stops_the_task_in_one_line_before_any_request(
    options, says, files, server, tmp_path, monkeypatch
):
    from inspect_ai._util.error import PrerequisiteError

    monkeypatch.chdir(files)
    with pytest.raises(PrerequisiteError) as raised:  # Inspect prints such an error's message alone
        _eval(server, tmp_path, "reasonmap/route", _resolved(options, files), monkeypatch)
    message = raised.value.message
    assert message.startswith("reasonmap/route: ") and "\n" not in message, message
    assert says in message, message
    assert server.hits() == 0


def test_good_options_reach_the_server(files, server, tmp_path, monkeypatch):
    """The control: the same path with good options asks the server (so that no request above means refused)."""
    options = {"mode": "full", "maps": "MAPS", "pixel_budget": "6k", "kinds": "short", "variant": "C1"}
    (log,) = _eval(server, tmp_path, "reasonmap/route", _resolved(options, files), monkeypatch)
    assert log.status == "success" and server.hits() == 1
    (call,) = server.calls
    # the map was sent within the budget written as the command line writes it: 6k pixels of 600x400 is a
    # scale of sqrt(6000 / 240000) = sqrt(1/40), so 94.9 x 63.2, cut to whole pixels
    url = next(part["image_url"]["url"] for part in call.body["messages"][0]["content"] if "image_url" in part)
    assert _png_size(url) == (94, 63)


def _png_size(url):
    import base64
    import struct

    data = base64.b64decode(url.split(",", 1)[1])
    return struct.unpack(">II", data[16:24])


def test_the_plus_task_checks_its_options_too(files, server, tmp_path, monkeypatch):
    from inspect_ai._util.error import PrerequisiteError

    given = {"questions": str(files / "plus.jsonl"), "mode": "text-only"}
    for options, says in [
        ({"weighting": "bogus"}, "plus weighting must be one of ['paper', 'city', 'none']"),
        ({"split": "bogus"}, "split must be one of ['test', 'train', 'all']"),
        ({"mode": "full", "maps": str(files / "maps"), "pixel_budget": 1}, "pixel_budget: expected pixels >= 4,096"),
    ]:
        with pytest.raises(PrerequisiteError, match=r"^reasonmap/plus: ") as raised:
            _eval(server, tmp_path, "reasonmap/plus", given | options, monkeypatch)
        assert says in raised.value.message
        assert server.hits() == 0


def test_a_plus_log_is_refused_by_reasonmap_predictions(files, server, tmp_path, monkeypatch):
    # its samples were read as route answers and skipped one by one ("cannot tell a short from a long answer"):
    # 0 rows written, exit 0
    from benchmarks.errors import InvalidRecord
    from reasonmap.convert import convert_predictions

    given = {"questions": str(files / "plus.jsonl"), "mode": "text-only"}
    (log,) = _eval(server, tmp_path, "reasonmap/plus", given, monkeypatch)
    assert log.status == "success"
    with pytest.raises(InvalidRecord, match=r"a log of the Inspect task reasonmap/plus; only reasonmap/route logs"):
        convert_predictions(log.location, "inspect", tmp_path / "p.jsonl")


@pytest.mark.slow
def test_inspect_eval_prints_one_line_and_no_traceback(files, tmp_path):
    """``inspect eval reasonmap/route -T pixel_budget=-5`` from the shell: Inspect's own command line, in a fresh
    interpreter that finds the task through the installed entry point (the checkout first on the path)."""
    with ChatServer() as server:
        command = [sys.executable, "-c", "from inspect_ai._cli.main import main; main()", "eval", "reasonmap/route"]
        command += ["--model", "openai/m", "--model-base-url", server.url, "-M", "responses_api=false", "--limit", "2"]
        command += ["-T", f"questions={files / 'q.jsonl'}", "-T", f"maps={files / 'maps'}", "-T", "pixel_budget=-5"]
        command += ["--log-dir", str(tmp_path / "logs")]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test", "COLUMNS": "300"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert server.hits() == 0
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert "Traceback" not in output and "TypeError" not in output, output[-3000:]
    assert output == "reasonmap/route: pixel_budget: expected pixels >= 4,096 and <= 300,000,000, got -5", output
