"""The command line builds only the subcommand asked for; ``--help``, ``--version`` and a mistyped command still
see every subcommand, and each subcommand built alone reads as it does among all the others."""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from reasonmap import cli
from reasonmap.cli import COMMANDS, build_parser, main

#: every subcommand, in the order `reasonmap --help` lists them (written out from the README's command list)
LISTED = (
    "cities route references lint gtfs generate score export predictions demo mapqa-score baseline prompts run vdi"
    " serve ocr render diagnose synth eval compare leaderboard power knobs"
).split()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _actions(parser: argparse.ArgumentParser) -> list[tuple]:
    """What each option is: its spellings, destination, default, type, choices, and whether it is required."""
    return [
        (a.option_strings, a.dest, repr(a.default), a.type, a.nargs, a.required, a.choices and list(a.choices))
        for a in parser._actions
    ] + [parser.get_default("run")]


def _built(monkeypatch) -> list[argparse.ArgumentParser]:
    """The parsers `main` builds from here on."""
    built = []

    def spy(command=None):
        built.append(build_parser(command))
        return built[-1]

    monkeypatch.setattr(cli, "build_parser", spy)
    return built


def test_the_full_parser_and_its_help_list_every_subcommand_in_order(capsys):
    assert list(_subcommands(build_parser())) == LISTED and COMMANDS == set(LISTED)
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    out = capsys.readouterr().out
    lines = itertools.takewhile(bool, out.split("positional arguments:\n  COMMAND\n")[1].splitlines())
    assert exited.value.code == 0 and [line.split()[0] for line in lines if line[4:5] != " "] == LISTED


@pytest.mark.parametrize(
    "argv", [["score", "--help"], ["route", "Foo", "Bar", "--bogus"], ["cities", "--json", "--nope"]]
)
def test_a_subcommand_builds_only_itself(monkeypatch, capsys, argv):
    built = _built(monkeypatch)
    with pytest.raises(SystemExit):
        main(argv)
    assert [list(_subcommands(parser)) for parser in built] == [[argv[0]]]


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["rout"], ["--quiet", "score"]])
def test_no_subcommand_first_builds_them_all(monkeypatch, capsys, argv):
    built = _built(monkeypatch)
    with pytest.raises(SystemExit):
        main(argv)
    assert [list(_subcommands(parser)) for parser in built] == [LISTED]


def test_a_mistyped_subcommand_names_the_closest_among_all(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["scroe"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "invalid choice: 'scroe'; did you mean 'score'?" in err
    assert "(choose from " + ", ".join(map(repr, LISTED)) + ")" in err


@pytest.mark.parametrize("command", LISTED)
def test_a_subcommand_built_alone_reads_as_among_all(command):
    alone = _subcommands(build_parser(command))
    full = _subcommands(build_parser())[command]
    assert list(alone) == [command]
    assert alone[command].format_help() == full.format_help()
    assert alone[command].format_usage() == full.format_usage()
    assert _actions(alone[command]) == _actions(full)


def test_the_table_of_builders_matches_each_modules_own(monkeypatch):
    # each group module adds its subcommands in the table's order, and no other
    import importlib

    for module, builder, names in cli.COMMAND_BUILDERS:
        parser = argparse.ArgumentParser()
        getattr(importlib.import_module(module), builder)(parser.add_subparsers())
        assert list(_subcommands(parser)) == list(names), module


def test_a_subcommand_imports_no_other_subcommands_module():
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\nfrom reasonmap.cli import main\n"
        "try:\n    main(['score', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.endswith(('_commands', '_command'))), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("usage: reasonmap score")
    assert done.stderr.strip() == "['reasonmap.benchmark_commands']"


def test_a_swapped_command_function_is_the_one_run(monkeypatch, capsys):
    # the parser captures the command's function when it is built: at each call of main, after a swap
    import reasonmap.graph_commands

    monkeypatch.setattr(reasonmap.graph_commands, "cmd_cities", lambda args: 7)
    assert main(["cities"]) == 7
