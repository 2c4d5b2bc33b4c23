"""The command line over every task: score, baseline, prompts, run and vdi take any task's file, share one set of
flags, start without the heavy libraries, and exit non-zero when nothing came of a run."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from baselines.plus_oracle import plus_oracle_answer
from baselines.requests import Request
from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import read_jsonl
from benchmarks.plus.loading import load_questions
from graphkit import city_graph
from reasonmap import options
from reasonmap.cli import build_parser, main, report_skipped
from tests.baselines.chat_server import ChatServer, Reply

ROOT = Path(__file__).resolve().parents[2]
MAPQA = ROOT / "tests" / "benchmarks" / "mapqa" / "fixtures" / "questions.jsonl"
FAST = ["--max-retries", "0", "--timeout", "5", "--quiet"]


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def plus_file(tmp_path_factory) -> Path:
    """Rome's plus questions, one per type (five), as `reasonmap generate --task plus` writes them."""
    path = tmp_path_factory.mktemp("plus") / "plus.jsonl"
    argv = ["generate", "--task", "plus", "--cities", "rome", "--per-type", "1", "--out", str(path), "--quiet"]
    assert main(argv) == 0
    return path


# -- the parser: literal constants, help, and a light start --------------------------------------------------------


def test_the_parsers_numbers_equal_the_libraries():
    from baselines.prompts import DEFAULT_PIXEL_BUDGET
    from benchmarks.plus.questions import DEFAULT_PER_TYPE
    from graphkit.routes import DEFAULT_MAX_ROUTES
    from vision.images import BYTES_PER_PIXEL, DEFAULT_PIXEL_LIMIT

    assert options.DEFAULT_PIXEL_BUDGET == DEFAULT_PIXEL_BUDGET
    assert options.DEFAULT_MAX_ROUTES == DEFAULT_MAX_ROUTES
    assert options.DEFAULT_PER_TYPE == DEFAULT_PER_TYPE
    from benchmarks.probe.questions import DEFAULT_PER_TYPE as PROBE_PER_TYPE

    assert options.DEFAULT_PER_TYPE == PROBE_PER_TYPE  # --per-type serves plus and probes alike
    assert (options.DEFAULT_PIXEL_LIMIT, options.BYTES_PER_PIXEL) == (DEFAULT_PIXEL_LIMIT, BYTES_PER_PIXEL)


def test_the_parsers_choices_are_the_registries():
    """Each option's choices are read from its registry: what every task declares, nothing written out."""
    from baselines.alias import STRATEGIES
    from baselines.prompts import MODES
    from baselines.textualize import TEXTUALIZATIONS
    from benchmarks.tasks import get_task, task_names
    from graphkit.choices import Choices
    from graphkit.executors import EXECUTORS
    from graphkit.stats import TIERS
    from graphkit.synth import SCRIPTS
    from vision.engines import DEVICES, ENGINES
    from vision.ocr import ROTATIONS
    from vision.render import PALETTES

    written = [name for name in options.__all__ if name.isupper() and isinstance(getattr(options, name), tuple)]
    # no choice list is a literal tuple (the ranges are two numbers each)
    assert written == ["PIXEL_BUDGET_RANGE", "RESAMPLE_RANGE"]
    assert tuple(options.TASKS) == task_names()
    assert (tuple(options.MODES), tuple(options.TEXTUALIZATIONS)) == (MODES, tuple(TEXTUALIZATIONS))
    assert tuple(options.ALIAS_STRATEGIES) == STRATEGIES
    assert (tuple(options.EXECUTORS), tuple(options.TIERS), tuple(options.SCRIPTS)) == (EXECUTORS, TIERS, SCRIPTS)
    assert tuple(options.PALETTES) == tuple(sorted(PALETTES))
    assert (tuple(options.ENGINES), tuple(options.DEVICES), tuple(options.ROTATIONS)) == (ENGINES, DEVICES, ROTATIONS)
    tasks = [get_task(name) for name in task_names()]
    # each once, in the registry's order: route (all five solvers; paper, C1, C2, ungated, official) comes first
    assert tuple(options.SOLVERS) == ("oracle", "text-oracle", "direct-line", "echo", "noisy")
    assert set(options.SOLVERS) == {solver for task in tasks for solver in task.solvers}
    assert tuple(options.SERVED_SOLVERS) == get_task("route").solvers  # `serve` answers route prompts
    assert all(set(task.modes) <= set(options.MODES) for task in tasks)
    assert tuple(options.GENERATED_TASKS) == tuple(task.name for task in tasks if task.generation is not None)
    assert tuple(options.VARIANTS) == tuple(dict.fromkeys(name for task in tasks for name in task.variant_names))
    assert set(options.WEIGHTINGS) == {name for task in tasks for name in task.weightings}
    assert all(isinstance(getattr(options, name), Choices) for name in ("TASKS", "VARIANTS", "ROTATIONS"))


def test_a_bad_choice_is_named_with_the_registrys_names(capsys):
    from benchmarks.tasks import variant_names

    with pytest.raises(SystemExit) as stopped:
        main(["score", "--questions", "q", "--predictions", "p", "--out", "s", "--report", "r", "--variant", "offical"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    # the close name, then the registry's names in its order
    assert "invalid choice: 'offical'; did you mean 'official'?" in err
    assert f"(choose from {', '.join(map(repr, variant_names()))})" in err


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_every_command_shows_choices_and_defaults_in_its_help():
    commands = _subcommands(build_parser())
    assert {"score", "mapqa-score", "baseline", "prompts", "run", "vdi", "ocr", "diagnose", "synth"} <= set(commands)
    assert all(parser.formatter_class is options.Help for parser in commands.values())
    text = commands["run"].format_help()
    assert "requests in flight at once (default: 4)" in text
    assert "{lines,adjacency,stations}" in text and "(default: romanize)" in text
    assert "(default: 4000000)" in commands["vdi"].format_help()
    # a text that already says its default is not told twice
    assert "(default: the server's)\n" in text.replace("\n" + " " * 24, " ") and "(default: --model)" in text


def test_run_and_vdi_share_the_client_flags_and_vdi_sends_the_map_always():
    commands = _subcommands(build_parser())

    def flags(name):
        return {option for action in commands[name]._actions for option in action.option_strings}

    client = {"--endpoint", "--model", "--name", "--concurrency", "--max-tokens", "--temperature", "--timeout"}
    client |= {"--max-retries", "--retry-errors"}
    assert client <= flags("run") and client <= flags("vdi")
    assert {"--maps", "--pixel-budget", "--textualization", "--alias-strategy", "--task"} <= flags("run")
    assert {"--maps", "--pixel-budget", "--task"} <= flags("vdi")
    assert not {"--textualization", "--alias-strategy", "--benchmark"} & flags("vdi")
    assert {"--maps", "--pixel-budget", "--textualization", "--alias-strategy", "--task"} <= flags("prompts")
    # one image is --map FILE, a folder is --maps DIR, wherever they are taken
    assert {"--map", "--maps"} <= flags("ocr") and {"--map", "--maps"} <= flags("diagnose")


def _help_of(command: str, option: str) -> str:
    """One option's help line(s) as ``reasonmap COMMAND --help`` shows it, joined into one line."""
    shown = _subcommands(build_parser())[command]
    shown.format_help()  # reads the registries, as --help does
    (action,) = [a for a in shown._actions if option in (a.option_strings or [a.dest])]
    return " ".join(str(action.help).split())


@pytest.mark.parametrize(
    ("command", "option"),
    [("eval", "--tasks"), ("baseline", "--questions"), ("prompts", "--questions")],
)
def test_help_that_names_tasks_names_every_registered_one(command, option):
    from benchmarks.tasks import task_names

    text = _help_of(command, option)
    assert all(name in text for name in task_names()), text


def test_help_of_solvers_modes_and_generated_tasks_is_each_tasks_own():
    from benchmarks.tasks import get_task, task_names

    solvers, modes = _help_of("baseline", "name"), _help_of("prompts", "--mode")
    for name in task_names():
        task = get_task(name)
        assert f"{name}: {', '.join(task.solvers) or 'none'}" in solvers
        assert f"{name}: {', '.join(task.modes)}" in modes
    generated = [name for name in task_names() if get_task(name).generation is not None]
    assert _help_of("eval", "--split").startswith(", ".join(generated) + ":")


def test_a_registry_help_is_read_only_when_the_help_is_shown():
    parser = build_parser()
    (action,) = [a for a in _subcommands(parser)["eval"]._actions if "--tasks" in a.option_strings]
    assert isinstance(action.help, options.RegistryHelp)  # building the parser read no registry


def test_building_the_parser_and_asking_for_help_import_no_heavy_library():
    # nor the registries the options choose from: a command's help reads those it lists (`ocr --help` the OCR
    # modules' names, which import no image library; `score --help` the task records, which load igraph)
    heavy = {"igraph", "matplotlib", "cv2", "PIL", "numpy", "vision.ocr", "vision.engines", "vision.images"}
    images = {"matplotlib", "cv2", "PIL", "numpy"}
    code = (
        "import sys\n"
        "from reasonmap.cli import build_parser, main\n"
        "build_parser()\n"
        f"assert not {heavy!r} & set(sys.modules), sorted({heavy!r} & set(sys.modules))\n"
        "def helped(argv):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as stop:\n"
        "        assert stop.code == 0\n"
        "helped(['--help'])\n"
        f"assert not {heavy!r} & set(sys.modules), sorted({heavy!r} & set(sys.modules))\n"
        "helped(['ocr', '--help'])\n"
        "assert 'vision.engines' in sys.modules\n"
        f"assert not {images!r} & set(sys.modules), sorted({images!r} & set(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "argv",
    [["cities"], ["cities", "--json"], ["route", "--city", "rome", "Termini", "Colosseo"]],
)
def test_commands_that_only_read_data_import_no_drawing_or_ocr_library(argv):
    # what only drawing or reading an image needs: plotting, OpenCV, images, the OCR engine and its runtime
    heavy = {"matplotlib", "cv2", "PIL", "rapidocr", "onnxruntime", "paddleocr", "vision.ocr"}
    code = (
        "import sys\n"
        "from reasonmap.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        f"assert not {heavy!r} & set(sys.modules), sorted({heavy!r} & set(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout  # it printed its answer


# -- any task's file ------------------------------------------------------------------------------------------------


def test_generate_kind_is_a_deprecated_spelling_of_task(plus_file, tmp_path, capsys):
    out = tmp_path / "old.jsonl"
    argv = ["generate", "--kind", "plus", "--cities", "rome", "--per-type", "1", "--out", out, "--quiet"]
    code, _, err = run(capsys, *argv)
    assert code == 0 and "--kind is deprecated; use --task" in err
    assert out.read_bytes() == plus_file.read_bytes()  # the fixture was written with --task plus
    code, _, err = run(capsys, *argv, "--task", "route")
    assert code == 2 and err.count("\n") == 2 and "--kind plus and --task route disagree" in err
    with pytest.raises(SystemExit):  # map QA questions are read from files, never generated
        main(["generate", "--task", "mapqa", "--out", str(out)])
    assert "invalid choice: 'mapqa'" in capsys.readouterr().err


def test_plus_baseline_oracle_then_score_gives_every_type_right(plus_file, tmp_path, capsys):
    predictions = tmp_path / "oracle.jsonl"
    code, _, err = run(capsys, "baseline", "oracle", "--questions", plus_file, "--out", predictions)
    assert code == 0 and "wrote 5 plus predictions" in err
    code, out, _ = run(
        capsys, "score", "--questions", plus_file, "--predictions", predictions, "--out", tmp_path / "s.jsonl",
        "--report", tmp_path / "report",
    )  # fmt: skip
    full = "100.00 ± –"  # every answer right: every resample is too, so there is no interval to give
    assert code == 0 and f"| baseline:plus-oracle | {full} | {full} | {full} | {full} | {full} | {full} | 0/5 |" in out
    summary = json.loads((tmp_path / "report" / "summary.json").read_text(encoding="utf-8"))
    # a plus file's default weighting is the task's, by map difficulty
    assert summary["models"]["baseline:plus-oracle"]["accuracy"] == 1.0 and "`city`" in out


def test_paper_is_the_former_name_of_the_plus_and_map_qa_toolkit_variant(plus_file, tmp_path, capsys):
    # route's paper is Algorithms 1 and 2; plus's and map QA's default is the toolkit's own rules (toolkit),
    # and older scripts' --variant paper still scores with it, recorded under the present name
    from reasonmap.runs import read_run

    predictions = tmp_path / "oracle.jsonl"
    assert run(capsys, "baseline", "oracle", "--questions", plus_file, "--out", predictions)[0] == 0
    summaries = []
    for name, given in (("default", []), ("paper", ["--variant", "paper"]), ("toolkit", ["--variant", "toolkit"])):
        code, _, _ = run(
            capsys, "score", "--questions", plus_file, "--predictions", predictions,
            "--out", tmp_path / f"{name}.jsonl", "--report", tmp_path / name, *given,
        )  # fmt: skip
        assert code == 0
        summaries.append((tmp_path / name / "summary.json").read_bytes())
    assert summaries[0] == summaries[1] == summaries[2]
    assert json.loads(summaries[0])["variant"] == "toolkit"
    # a run scored before the rename says paper: it is judged as toolkit, so the two stay comparable
    old = json.loads(summaries[0])
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "summary.json").write_text(json.dumps({**old, "variant": "paper"}), encoding="utf-8")
    assert read_run(tmp_path / "old")[0].settings["variant"] == "toolkit"
    answers = tmp_path / "mapqa.jsonl"
    answers.write_text('{"id": "m01", "model": "m", "question": "mapqa", "response": "Answer: A"}\n', encoding="utf-8")
    scored = []
    for name in ("paper", "toolkit"):
        code, out, _ = run(
            capsys, "score", "--task", "mapqa", "--questions", MAPQA, "--predictions", answers,
            "--out", tmp_path / f"m-{name}.jsonl", "--report", tmp_path / f"m-{name}", "--variant", name,
        )  # fmt: skip
        assert code == 0
        scored.append((out, (tmp_path / f"m-{name}" / "summary.json").read_bytes()))
    assert scored[0] == scored[1]
    code, _, err = run(
        capsys, "score", "--task", "mapqa", "--questions", MAPQA, "--predictions", answers,
        "--out", tmp_path / "m.jsonl", "--report", tmp_path / "m", "--variant", "official",
    )  # fmt: skip
    assert code == 2 and "mapqa scoring variant must be one of ['toolkit'], got 'official'" in err


def test_explaining_plus_under_the_former_name_reports_under_the_present_one(plus_file, tmp_path, capsys):
    # score --explain paper,official on a plus file: the first variant's report folder is toolkit
    predictions = tmp_path / "oracle.jsonl"
    assert run(capsys, "baseline", "oracle", "--questions", plus_file, "--out", predictions)[0] == 0
    code, out, err = run(
        capsys, "score", "--questions", plus_file, "--predictions", predictions, "--out", tmp_path / "s.jsonl",
        "--report", tmp_path / "why", "--explain", "paper,official",
    )  # fmt: skip
    assert code == 0 and "explained 5 predictions" in err and "Traceback" not in err
    assert sorted(path.name for path in (tmp_path / "why").iterdir() if path.is_dir()) == ["official", "toolkit"]


def test_explaining_a_variant_against_its_former_name_says_so(plus_file, tmp_path, capsys):
    # paper,toolkit is one variant twice; the error showed ['toolkit', 'toolkit'], neither as the user wrote it
    predictions = tmp_path / "oracle.jsonl"
    assert run(capsys, "baseline", "oracle", "--questions", plus_file, "--out", predictions)[0] == 0
    code, _, err = run(
        capsys, "score", "--questions", plus_file, "--predictions", predictions, "--out", tmp_path / "s.jsonl",
        "--report", tmp_path / "why", "--explain", "paper,toolkit",
    )  # fmt: skip
    assert code == 2 and err.splitlines()[-1].endswith("got ['paper', 'toolkit'] (paper is the former name of toolkit)")


def test_a_solver_the_task_lacks_is_one_line_naming_its_solvers(plus_file, tmp_path, capsys):
    code, _, err = run(capsys, "baseline", "echo", "--questions", plus_file, "--out", tmp_path / "p.jsonl")
    assert code == 2 and err.strip().count("\n") == 0
    assert "plus solver must be one of ['oracle'], got 'echo'" in err
    assert not (tmp_path / "p.jsonl").exists()
    code, _, err = run(capsys, "baseline", "oracle", "--questions", MAPQA, "--out", tmp_path / "p.jsonl")
    assert code == 2 and "mapqa questions have no solver" in err


def test_a_mode_the_task_lacks_is_one_line_naming_its_modes(plus_file, tmp_path, capsys):
    code, _, err = run(capsys, "prompts", "--mode", "alias", "--questions", plus_file, "--out", tmp_path / "r.jsonl")
    assert code == 2 and err.strip().count("\n") == 0
    assert "plus prompt mode must be one of ['full', 'text-only', 'symbolic'], got 'alias'" in err
    code, _, err = run(capsys, "prompts", "--mode", "symbolic", "--questions", MAPQA, "--out", tmp_path / "r.jsonl")
    assert code == 2 and "mapqa prompt mode must be one of ['full', 'text-only'], got 'symbolic'" in err


def test_prompts_of_plus_and_map_qa_files_are_one_request_per_question(plus_file, tmp_path, capsys):
    out = tmp_path / "plus-requests.jsonl"
    assert run(capsys, "prompts", "--mode", "text-only", "--questions", plus_file, "--out", out)[0] == 0
    requests, problems = read_jsonl(out, Request.from_dict)
    questions, _ = load_questions(plus_file)
    assert not problems and [(r.id, r.question) for r in requests] == [(q.id, q.type) for q in questions.values()]
    out = tmp_path / "mapqa-requests.jsonl"
    code, _, _ = run(
        capsys, "prompts", "--mode", "full", "--questions", MAPQA, "--maps", MAPQA.parent, "--out", out
    )  # fmt: skip
    requests, _ = read_jsonl(out, Request.from_dict)
    assert code == 0 and len(requests) == 8 and {r.question for r in requests} == {"mapqa"}
    assert all(r.messages[0]["content"][0]["type"] == "map_image" for r in requests)


def test_request_kinds_are_any_tasks_but_never_empty():
    record = {"id": "q1", "messages": [{"role": "user", "content": "?"}]}
    for kind in ("short", "long", "Counting1", "TorF2", "mapqa", "describe"):
        assert Request.from_dict({**record, "question": kind}).key == ("q1", kind)
    for bad in ("", "  ", 3, None):
        with pytest.raises(InvalidRecord, match="field 'question' must be a non-empty string"):
            Request.from_dict({**record, "question": bad}, where="r.jsonl:1")


def test_run_asks_plus_questions_and_tags_the_rows_with_the_name(plus_file, tmp_path, capsys):
    questions, _ = load_questions(plus_file)
    rome = city_graph("rome")
    answers = {q.question: plus_oracle_answer(q, rome) for q in questions.values()}
    predictions = tmp_path / "p.jsonl"
    with ChatServer(lambda call: Reply(content=answers[call.key])) as server:
        code, _, err = run(
            capsys, "run", "--endpoint", server.url, "--model", "m", "--name", "m-t0", "--questions", plus_file,
            "--mode", "text-only", "--out", predictions, *FAST,
        )  # fmt: skip
        assert code == 0 and server.hits() == 5
        # the requests file of `prompts` is read too, plus types and all: nothing is asked again
        requests = tmp_path / "r.jsonl"
        assert run(capsys, "prompts", "--mode", "text-only", "--questions", plus_file, "--out", requests)[0] == 0
        code, _, err = run(
            capsys, "run", "--endpoint", server.url, "--model", "m", "--name", "m-t0", "--requests", requests,
            "--out", predictions, *FAST,
        )  # fmt: skip
        assert code == 0 and server.hits() == 5 and "5 done before" in err
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    # rows land as answers come back: compared as sets
    assert sorted((row["id"], row["model"], row["question"]) for row in rows) == sorted(
        (q.id, "m-t0", q.type) for q in questions.values()
    )
    code, out, _ = run(
        capsys, "score", "--questions", plus_file, "--predictions", predictions, "--out", tmp_path / "s.jsonl",
        "--report", tmp_path / "report",
    )  # fmt: skip
    assert code == 0 and "| m-t0 | 100.00 ± – |" in out  # every answer right: no interval


def test_mapqa_score_is_score_with_task_mapqa(tmp_path, capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        '{"id": "m01", "model": "m", "question": "mapqa", "response": "Answer: A"}\n'
        '{"id": "m02", "model": "m", "question": "mapqa", "response": "no idea"}\n',
        encoding="utf-8",
    )
    outputs = []
    for argv in (["mapqa-score"], ["score", "--task", "mapqa"]):
        name = argv[0]
        code, out, _ = run(
            capsys, *argv, "--questions", MAPQA, "--predictions", predictions, "--out", tmp_path / f"{name}.jsonl",
            "--report", tmp_path / name,
        )  # fmt: skip
        assert code == 0
        outputs.append((out, (tmp_path / f"{name}.jsonl").read_bytes()))
    assert outputs[0] == outputs[1]
    assert "alias of `reasonmap score --task mapqa`" in _subcommands(build_parser())["mapqa-score"].format_help()


# -- exit status: 1 with a reason when nothing was produced --------------------------------------------------------


def test_score_with_nothing_scored_exits_1_with_the_reason(plus_file, tmp_path, capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "elsewhere-0", "model": "m", "response": "The answer is 2."}\n', encoding="utf-8")
    code, _, err = run(
        capsys, "score", "--questions", plus_file, "--predictions", predictions, "--out", tmp_path / "s.jsonl",
        "--report", tmp_path / "report",
    )  # fmt: skip
    assert code == 1 and "nothing scored" in err.splitlines()[-1]


def test_baseline_and_prompts_with_no_question_exit_1(tmp_path, capsys):
    empty = tmp_path / "q.jsonl"
    empty.write_text('{"id": "x"}\n', encoding="utf-8")
    code, _, err = run(capsys, "baseline", "oracle", "--questions", empty, "--out", tmp_path / "p.jsonl")
    assert code == 1 and "skipped:" in err and "no prediction written" in err.splitlines()[-1]
    code, _, err = run(capsys, "prompts", "--mode", "text-only", "--questions", empty, "--out", tmp_path / "r.jsonl")
    assert code == 1 and "no request written" in err.splitlines()[-1]


def test_run_and_vdi_against_an_endpoint_that_fails_every_call_exit_1(plus_file, tmp_path, capsys):
    from PIL import Image

    Image.new("RGB", (40, 30), (30, 30, 200)).save(tmp_path / "rome.png")
    with ChatServer(default=Reply(status=500)) as server:
        code, _, err = run(
            capsys, "run", "--endpoint", server.url, "--model", "m", "--questions", plus_file, "--mode", "text-only",
            "--out", tmp_path / "p.jsonl", *FAST,
        )  # fmt: skip
        assert code == 1 and "not one of the 5 requests has an answer" in err
        code, out, err = run(
            capsys, "vdi", "--endpoint", server.url, "--model", "m", "--questions", plus_file, "--maps", tmp_path,
            "--budgets", "64", "--out", tmp_path / "vdi", *FAST,
        )  # fmt: skip
        assert code == 1 and "not one request was answered" in err and out == ""
    # no map at all: nothing can be asked
    code, _, err = run(
        capsys, "vdi", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--questions", plus_file,
        "--maps", tmp_path / "vdi", "--budgets", "64", "--out", tmp_path / "vdi2", *FAST,
    )  # fmt: skip
    assert code == 1 and "no question could be asked" in err


def test_skipped_records_beyond_twenty_are_counted_with_where_to_see_them(capsys):
    report_skipped([f"line {n}: bad" for n in range(1, 26)], see="report/summary.json")
    lines = capsys.readouterr().err.splitlines()
    assert lines[:20] == [f"skipped: line {n}: bad" for n in range(1, 21)]
    assert lines[20:] == ["skipped: ... and 5 more (see report/summary.json)"]


def test_ocr_takes_its_one_map_once(tmp_path, capsys):
    code, _, err = run(capsys, "ocr", tmp_path / "a.png", "--map", tmp_path / "b.png", "--city", "rome")
    assert code == 2 and "give the map once" in err


def test_the_help_texts_that_name_tasks_come_from_the_registry(capsys):
    from benchmarks.tasks import get_task, task_names

    with pytest.raises(SystemExit):
        main(["score", "--help"])
    shown = " ".join(capsys.readouterr().out.split())  # the help's lines joined as one
    for name in task_names():
        task = get_task(name)
        assert f"{name}: {', '.join(task.variant_names)}" in shown, name
        assert f"{name} {task.default_weighting}" in shown, name
    assert "route: lmms-eval, vlmevalkit, inspect; plus: vlmevalkit" in shown
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    per_type = ", ".join(
        name for name in task_names() if "per_type" in getattr(get_task(name).generation, "defaults", {})
    )
    assert per_type == "plus, probe" and f"--per-type PER_TYPE {per_type}: questions per type" in shown


def test_diagnose_refuses_another_tasks_questions(capsys, plus_file, tmp_path):
    # plus questions were read as route questions, none found: an empty diagnosis was written with exit 0
    predictions = tmp_path / "p.jsonl"
    assert main(["baseline", "oracle", "--questions", str(plus_file), "--out", str(predictions)]) == 0
    assert main(["render", "--city", "rome", "--out", str(tmp_path / "rome.png")]) == 0
    out = tmp_path / "diagnosis.jsonl"
    argv = ["diagnose", "--questions", plus_file, "--predictions", predictions, "--map", tmp_path / "rome.png"]
    code, _, err = run(capsys, *argv, "--city", "rome", "--truth", "--out", out, "--quiet")
    assert code == 2 and not out.exists()
    expected = f"--questions {plus_file}: plus questions; diagnose labels route answers (route questions)"
    assert err.splitlines()[-1] == f"reasonmap diagnose: error: {expected}"
