"""One set of flags: every command spells an option one way, and a mistake is named in the error."""

from __future__ import annotations

import json

import pytest

from reasonmap.cli import main
from vision.analyse import write_evidence
from vision.evidence import read_truth


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def latin_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth") / "set"
    argv = ["synth", "--count", "2", "--stations", "20", "--lines", "3", "--questions", "--render", "--script", "latin"]
    assert main([*argv, "--out", str(folder), "--workers", "1", "--quiet"]) == 0
    return folder


def test_diagnose_of_a_set_reads_the_truth_of_its_maps_with_metro_dir(capsys, latin_set, tmp_path):
    folder = latin_set
    evidence = tmp_path / "evidence"
    for city in ("synth_0000", "synth_0001"):
        write_evidence(
            evidence / f"{city}.evidence.json", read_truth(folder / "maps" / f"{city}.truth.json", city=city)
        )
    predictions = tmp_path / "noisy.jsonl"
    given = ("--questions", folder / "questions.jsonl", "--metro-dir", folder / "metro")
    assert run(capsys, "baseline", "noisy", *given, "--out", predictions, "--wrong-line", 0.5)[0] == 0
    diagnose = ("diagnose", *given, "--predictions", predictions, "--workers", 1)
    assert run(capsys, *diagnose, "--evidence-dir", evidence, "--out", tmp_path / "by-evidence.jsonl")[0] == 0
    code, _, err = run(capsys, *diagnose, "--maps", folder / "maps", "--truth", "--out", tmp_path / "by-truth.jsonl")
    assert code == 0 and "skipped" not in err, err
    by_truth = [json.loads(line) for line in (tmp_path / "by-truth.jsonl").read_text(encoding="utf-8").splitlines()]
    by_evidence = (tmp_path / "by-evidence.jsonl").read_text(encoding="utf-8").splitlines()
    assert [row["label"] for row in by_truth] == [json.loads(line)["label"] for line in by_evidence]
    assert len(by_truth) == len(predictions.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["generate", "--citty", "rome", "--out", "q.jsonl"], "unrecognised argument --citty; did you mean --city?"),
        (["route", "--citty", "rome", "A", "B"], "unrecognised argument --citty; did you mean --city?"),
        (["eval", "--modles", "x"], "unrecognised argument --modles; did you mean --modes?"),
        (["lint", "--city", "rome", "--zzzzzz"], "unrecognised argument --zzzzzz (see `reasonmap lint --help`)"),
        (["rout", "--city", "rome"], "invalid choice: 'rout'; did you mean 'route'?"),
        (["prompts", "--mode", "ful", "--questions", "q", "--out", "r"], "invalid choice: 'ful'; did you mean 'full'?"),
    ],
)
def test_a_mistyped_option_or_command_is_named_with_what_it_misspells(capsys, argv, expected):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and expected in err.splitlines()[-1]
    assert "is required" not in err


def test_options_argparse_takes_are_left_to_it(capsys, tmp_path):
    # an abbreviation, a value with `=` and a negative number are not unknown options
    assert run(capsys, "route", "--cit=rome", "--slack", "0", "Battistini Station", "Cornelia Station")[0] == 0
    code, _, err = run(capsys, "route", "--city", "rome", "--slack", "-1", "Battistini Station", "Cornelia Station")
    assert code == 2 and "slack must be a non-negative integer, got -1" in err


def test_generate_takes_city_like_every_city_command_and_cities_still(capsys, tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert run(capsys, "generate", "--city", "rome", "--out", one, "--quiet")[0] == 0
    assert run(capsys, "generate", "--cities", "rome", "--out", two, "--quiet")[0] == 0
    assert one.read_bytes() == two.read_bytes()
    assert {json.loads(line)["city"] for line in one.read_text(encoding="utf-8").splitlines()} == {"rome"}


def test_route_says_1_stop(capsys):
    code, out, _ = run(capsys, "route", "--city", "rome", "Battistini Station", "Cornelia Station")
    assert code == 0 and "route 1 (1 stop)\n" in out
    code, out, _ = run(capsys, "route", "--city", "rome", "Battistini Station", "Baldo degli Ubaldi Station")
    assert code == 0 and "route 1 (2 stops)\n" in out


def test_no_ray_cluster_is_named_by_our_option(capsys, tmp_path, monkeypatch):
    import graphkit.executors

    def no_cluster(*args, **kwargs):  # Ray's own words (ray/_private/services.py, 2.x)
        raise ConnectionError(
            "Could not find any running Ray instance. Please specify the one to connect to by setting `--address`"
            " flag or `RAY_ADDRESS` environment variable."
        )

    monkeypatch.setattr(graphkit.executors, "RayExecutor", no_cluster)
    argv = ("references", "--city", "rome", "--out", tmp_path / "r.jsonl", "--quiet", "--executor", "ray")
    code, _, err = run(capsys, *argv, "--ray-address", "10.0.0.9:6379")
    assert code == 2 and "--ray-address 10.0.0.9:6379: no Ray cluster to join" in err
    assert "`--address`" not in err and len(err.strip().splitlines()) == 1


def test_prompts_in_full_mode_skips_a_question_whose_map_is_missing_and_says_so(capsys, tmp_path):
    from PIL import Image

    from baselines.requests import Request
    from benchmarks.jsonl import read_jsonl

    questions, maps, out = tmp_path / "q.jsonl", tmp_path / "maps", tmp_path / "r.jsonl"
    argv = ("generate", "--city", "rome,oslo", "--per-city", "2", "--quota", "1:1:0", "--out", questions, "--quiet")
    assert run(capsys, *argv)[0] == 0
    maps.mkdir()
    Image.new("RGB", (40, 30)).save(maps / "rome.png")
    code, _, err = run(capsys, "prompts", "--mode", "full", "--questions", questions, "--maps", maps, "--out", out)
    requests, _ = read_jsonl(out, Request.from_dict)
    assert code == 0 and {request.id.split("-")[0] for request in requests} == {"rome"}
    skipped = [line for line in err.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 2 and all("no map of 'oslo'" in line for line in skipped)
    (maps / "rome.png").unlink()
    code, _, err = run(capsys, "prompts", "--mode", "full", "--questions", questions, "--maps", maps, "--out", out)
    assert code == 1 and "no question's map could be read (see above)" in err.splitlines()[-1]


def test_every_command_that_shows_progress_takes_quiet():
    import argparse

    from reasonmap.cli import build_parser

    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    showing = ("references", "generate", "demo", "run", "vdi", "eval", "ocr", "diagnose", "synth", "render")
    assert [name for name in showing if "--quiet" not in commands.choices[name]._option_string_actions] == []


def test_render_of_a_folder_shows_a_bar_unless_quiet(capsys, latin_set, tmp_path):
    argv = ("render", "--metro-dir", latin_set / "metro", "--size", "600", "--workers", "1")
    code, _, err = run(capsys, *argv, "--out", tmp_path / "shown")
    bars = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("rendering:")]
    assert code == 0 and bars and "2/2" in bars[-1]
    code, _, err = run(capsys, *argv, "--out", tmp_path / "quiet", "--quiet")
    assert code == 0 and "rendering:" not in err and "wrote 2 maps" in err


def test_every_option_and_argument_of_every_command_says_what_it_is():
    import argparse

    from reasonmap.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [
        f"{name} {action.option_strings[-1] if action.option_strings else action.dest}"
        for name, parser in commands.choices.items()
        for action in parser._actions
        if action.help is None and not isinstance(action, argparse._HelpAction)
    ]
    assert missing == []


#: Options whose one name means different things in different commands, on purpose, with the reason.
DIFFERENT_ON_PURPOSE = {
    "--questions": "a question file everywhere; synth's is a switch (write questions too), power's a count",
    "--lines": "synth's is how many lines to draw; ocr's a switch (read the line colours too)",
    "--out": "demo alone has a default folder (demo-out): it is the command run with no option",
    "--from": "score's default is the toolkit's own rows; predictions converts another harness's file only",
    "--pixel-budget": "eval sweeps several budgets (1M,4M); prompts, run and vdi take one",
    "--modes": "comma-separated everywhere; eval's and compare's are prompt modes (compare takes two), gtfs's the"
    " feed's transit modes (each with its own default)",
    "--truth": "generate's is a map's truth file (probes name lines as its legend does); diagnose's a switch (read"
    " the map's truth beside it)",
    "--predictions": "score takes several files (lmms-eval's short and long logs); diagnose one",
    "--probes": "diagnose's is a scored probes file; synth's a switch (write probe questions too)",
}


def test_one_option_name_has_one_form_and_default_in_every_command():
    """The same option has the same action, arity, type and default wherever it appears (issue 39 §4: ``eval
    --modes a,b`` beside ``compare --modes a b``, ``--figures`` beside ``--no-figure``, ``--quiet`` missing)."""
    import argparse

    from reasonmap.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    forms: dict[str, dict[tuple, list[str]]] = {}
    for name, parser in commands.choices.items():
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    form = (type(action).__name__, action.nargs, getattr(action.type, "__name__", action.type))
                    forms.setdefault(option, {}).setdefault((*form, repr(action.default)), []).append(name)
    differ = {option: found for option, found in forms.items() if len(found) > 1 and option not in DIFFERENT_ON_PURPOSE}
    assert differ == {}
    assert all(len(forms[option]) > 1 for option in DIFFERENT_ON_PURPOSE)  # an exception no longer needed goes
    assert set(forms["--quiet"].popitem()[1]) == set(commands.choices)  # every command takes --quiet
