"""``reasonmap``: the toolkit's command line.

Each subcommand parses its options and calls one library function; heavy
imports happen inside the command so that ``reasonmap --help`` stays quick.
The subcommands live in their modules, each adding its own parsers:
:mod:`reasonmap.graph_commands`, :mod:`reasonmap.benchmark_commands`,
:mod:`reasonmap.model_commands`, :mod:`reasonmap.vision_commands`,
:mod:`reasonmap.batch` (``synth``), :mod:`reasonmap.eval_command`, :mod:`reasonmap.knobs_command` and
:mod:`reasonmap.compare_commands`.
"""

from __future__ import annotations

import argparse
import errno
import functools
import gc
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from reasonmap.options import report_skipped

__all__ = ["COMMANDS", "COMMAND_BUILDERS", "build_parser", "main", "run", "report_skipped"]


#: every subcommand's builder, in the order ``reasonmap --help`` lists them: its module, its function, and the
#: subcommands it adds (a builder adding several takes ``only``: the one to add)
COMMAND_BUILDERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("reasonmap.graph_commands", "add_graph_commands", ("cities", "route", "references", "lint", "gtfs")),
    (
        "reasonmap.benchmark_commands",
        "add_benchmark_commands",
        ("generate", "score", "export", "predictions", "demo", "mapqa-score"),
    ),
    ("reasonmap.model_commands", "add_model_commands", ("baseline", "prompts", "run", "vdi", "serve")),
    ("reasonmap.vision_commands", "add_vision_commands", ("ocr", "render", "diagnose")),
    ("reasonmap.batch", "add_synth_command", ("synth",)),
    ("reasonmap.eval_command", "add_eval_command", ("eval",)),
    ("reasonmap.compare_commands", "add_compare_commands", ("compare", "leaderboard", "power")),
    ("reasonmap.knobs_command", "add_knobs_command", ("knobs",)),
)

#: the subcommands' names
COMMANDS = frozenset(name for _, _, names in COMMAND_BUILDERS for name in names)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of one; each subcommand module adds its own.

    Parameters
    ----------
    command : str, optional
        Build this subcommand only (one of :data:`COMMANDS`): its arguments parse, its ``--help`` reads and its
        errors read as with every subcommand built, in a fraction of the time. None: every subcommand, for
        ``reasonmap --help``, a mistyped command and the tests that walk them all.

    Returns
    -------
    Parser
        The ``reasonmap`` parser (building it imports no library).
    """
    # nothing heavy here (no graphkit: it loads igraph): the libraries' choices and defaults are in options
    from reasonmap.options import Help, Parser

    parser = Parser(prog="reasonmap", description=__doc__.splitlines()[0], formatter_class=Help)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=functools.partial(Parser, formatter_class=Help),
    )
    for module, builder, names in COMMAND_BUILDERS:
        if command is None or command in names:
            add = getattr(importlib.import_module(module), builder)
            add(commands, only=command) if len(names) > 1 else add(commands)
    for parsed in commands.choices.values():  # one set of flags: every command takes --quiet
        if "--quiet" not in parsed._option_string_actions:
            parsed.add_argument("--quiet", action="store_true", help="no progress bars on stderr (errors still)")
    return parser


def _asked(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` asks for when its first argument names one (the parser builds only that one);
    else None (an option first, such as ``--help`` or ``--version``, no argument, or a mistyped command: every
    subcommand is built, to list them or to name the closest)."""
    arguments = sys.argv[1:] if argv is None else argv
    return arguments[0] if arguments and arguments[0] in COMMANDS else None


class _Version(argparse._VersionAction):
    """``--version``, its version read only when asked: reading it imports ``importlib.metadata`` (email, zip
    files), a thirtieth of a second every command would pay."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        self.version = f"%(prog)s {_version()}"
        super().__call__(parser, namespace, values, option_string)


def _version() -> str:
    """The installed distribution's version (read from its metadata: importing nothing of the toolkit)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("reasonmap-toolkit")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that every ``finally`` runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


#: commands that pick up where an interrupted run stopped
_RESUMED = frozenset({"run", "eval", "vdi"})


def _interrupted(command: str, signal_name: str) -> str:
    """The one line an interrupted command ends with: what was kept, and how to go on."""
    if command == "serve":  # a server's usual end
        return f"reasonmap serve: stopped by {signal_name}"
    if command in _RESUMED:
        return (
            f"reasonmap {command}: interrupted by {signal_name}; every answer written so far is kept;"
            " run the same command again to resume (it asks only what is missing)"
        )
    return (
        f"reasonmap {command}: interrupted by {signal_name}; files are written whole or not at all, so earlier"
        " outputs are untouched; run the same command again to redo it"
    )


class _ClosedStream:
    """Standard output when it was closed (``>&-``): writing to it is an ``OSError`` naming it, not a crash."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def _mend_standard_streams() -> None:
    """Closed standard streams (``2>&-``, ``>&-``) do not crash a command: stderr goes nowhere, stdout refuses
    writes with one line, and their descriptors are held so that no output file is opened as fd 1 or 2."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process's life)
    if sys.stdout is None:
        sys.stdout = _ClosedStream()  # type: ignore[assignment]


def _one_blas_thread() -> None:
    """numpy's OpenBLAS gets one thread unless the user chose a number (``OPENBLAS_NUM_THREADS``).

    The toolkit's matrix products are small (a report's bootstrap: at most a few hundred questions by 2,000
    resamples), and there BLAS threads mostly wait on each other: with two, the bootstrap of a 500-answer
    report took twice the CPU time of one. Set before numpy loads (OpenBLAS reads it then); the threads
    split the rows and columns of a product, never a sum, so the numbers are the same bits either way.
    """
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``reasonmap`` command: its errors as one line on standard error, and an exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (``sys.argv[1:]`` when None).

    Returns
    -------
    int
        0 done; 1 nothing could be answered; 2 a usage or input error (one line naming it); 130 and 143
        interrupted (Ctrl-C, SIGTERM).
    """
    _mend_standard_streams()
    _one_blas_thread()
    args = build_parser(_asked(argv)).parse_args(argv)
    # after parsing: `--help` and usage errors import no library
    from baselines.errors import EndpointUnreachable
    from graphkit.errors import TransitError, shorten
    from reasonmap.paths import check_paths
    from vision.errors import VisionError

    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (a test harness): SIGTERM keeps its handler
        previous = None
    try:
        for warning in check_paths(args):  # an output that would replace an input is refused here
            print(f"reasonmap {args.command}: warning: {warning}", file=sys.stderr)
        return args.run(args)
    except KeyboardInterrupt:
        print(_interrupted(args.command, "Ctrl-C (SIGINT)"), file=sys.stderr)
        return 130
    except _Terminated:
        print(_interrupted(args.command, "SIGTERM"), file=sys.stderr)
        return 143
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except EndpointUnreachable as error:  # the command ran, but nothing could be asked: 1, as a run with no answer
        print(f"reasonmap {args.command}: {shorten(' '.join(str(error).split()), 2000)}", file=sys.stderr)
        return 1
    except (TransitError, VisionError, ValueError, OSError) as error:
        # one line, whatever the message echoes
        print(f"reasonmap {args.command}: error: {shorten(' '.join(str(error).split()), 2000)}", file=sys.stderr)
        return 2
    except (RecursionError, MemoryError) as error:  # a reader missed a hostile input: still one line, no traceback
        what = "nested too deeply" if isinstance(error, RecursionError) else "too large for the memory at hand"
        print(f"reasonmap {args.command}: error: an input is {what} to read", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def run() -> NoReturn:
    """The ``reasonmap`` command as a process: :func:`main`, then exit with its status.

    What the command leaves is not swept by the cyclic collector on the way out (``gc.freeze``): the
    interpreter's shutdown would walk every object three times (0.15 of the 5 CPU seconds of ``score`` at
    22,876 answers) only to find what reference counting frees anyway. The command's files are closed by then.
    """
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
