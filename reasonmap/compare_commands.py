"""``reasonmap compare`` and ``reasonmap leaderboard``: numbers of finished runs, side by side, with error bars.

Each command reads run folders (``eval --out`` or ``score --report``), calls one
library function (:func:`reasonmap.comparisons.compare_runs`,
:func:`reasonmap.leaderboard.build_leaderboard`), writes its files into
``--out`` and prints its table.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_compare_commands"]


def _check_out(out: str, runs: list[str]) -> None:
    """Refuse an ``--out`` that is a file, or is, or lies inside, a run folder read (its manifest and files would
    be mixed in)."""
    import os

    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out {out}: a file, not a folder")
    where = os.path.realpath(out)
    for run in runs:
        folder = os.path.realpath(run)
        if where == folder or where.startswith(folder + os.sep):
            raise ValueError(
                f"--out {out} is inside the run folder {run}, which is read: writing there would mix files into"
                " that run (and replace its manifest); give another folder"
            )


def _warn(command: str, runs: list[str]) -> None:
    """Say which runs' scored rows their manifest does not vouch for (unfinished, or changed since)."""
    from reasonmap.runs import doubts, read_run

    for line in doubts([part for run in dict.fromkeys(runs) for part in read_run(run)]):
        print(f"reasonmap {command}: warning: {line}", file=sys.stderr)


def _written(paths: list[Any], out: str) -> str:
    """The files a command wrote, as its last line names them: ``a.md, a.json and a.csv in DIR/``."""
    names = [path.name for path in paths]
    shown = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{shown} in {out}/"


def cmd_compare(args: argparse.Namespace) -> int:
    from benchmarks.comparisons import comparison_markdown
    from reasonmap.comparisons import compare_runs, write_comparison

    runs = [args.a, *([args.b] if args.b else [])]
    _check_out(args.out, runs)
    record = compare_runs(
        args.a,
        args.b,
        models=tuple(args.models) if args.models else None,
        modes=tuple(args.modes) if args.modes else None,
        join=args.join,
        allow_partial=args.allow_partial,
        resamples=args.resamples,
        permutations=args.permutations,
        seed=args.seed,
        cluster=args.cluster,
    )
    _warn("compare", runs)  # after the refusals: a refused run gets its one line
    written = write_comparison(args.out, record, figures=args.figures)
    print(comparison_markdown(record), end="")
    count = len(record["comparisons"])
    print(f"compared {count} metrics; {_written(written, args.out)}", file=sys.stderr)
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from benchmarks.leaderboards import leaderboard_markdown
    from reasonmap.leaderboard import build_leaderboard, write_leaderboard

    _check_out(args.out, list(args.runs))
    record = build_leaderboard(
        args.runs, join=args.join, rank_by=args.rank_by, allow_partial=args.allow_partial, cluster=args.cluster
    )
    _warn("leaderboard", list(args.runs))  # after the refusals: a refused run gets its one line
    written = write_leaderboard(args.out, record, figures=args.figures)
    print(leaderboard_markdown(record), end="")
    print(f"{len(record['rows'])} models from {len(args.runs)} runs; {_written(written, args.out)}", file=sys.stderr)
    return 0


def add_figure_options(parser: argparse.ArgumentParser, name: str) -> None:
    """``--figures``, as ``score`` takes it: figures on request (drawing takes longer than the tables); without it,
    the figure an earlier run wrote into ``--out`` is removed. ``--no-figure`` (the old default's opt-out) is
    still accepted and now changes nothing."""
    parser.add_argument(
        "--figures",
        action="store_true",
        help=f"draw {name}.png and .pdf too (default: tables only, with no plotting library imported; an earlier"
        " run's figure in --out is removed)",
    )
    parser.add_argument("--no-figure", action="store_true", help=argparse.SUPPRESS)


def _two(text: str) -> tuple[str, str]:
    """``--modes MA,MB``: two modes, comma-separated as every command writes a list."""
    from reasonmap.options import comma_list

    names = comma_list(text)
    if len(names) != 2:
        raise argparse.ArgumentTypeError(f"expected two modes as MA,MB (e.g. full,text-only), got {text!r}")
    return names[0], names[1]


def _share(text: str) -> float:
    """A rate or difference in points (0 to 100), as a share."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected points from 0 to 100, got {text!r}") from None
    if not 0.0 <= value <= 100.0:  # nan fails too
        raise argparse.ArgumentTypeError(f"{text} is outside 0 to 100 (points, as the tables print them)")
    return value / 100.0


def _open_share(text: str) -> float:
    """``--alpha`` and ``--power``: a share strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not strictly between 0 and 1")
    return value


def _correlation(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from -1 to 1, got {text!r}") from None
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is outside -1 to 1")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of questions, got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value}: at least 2 questions")
    return value


def cmd_power(args: argparse.Namespace) -> int:
    from reasonmap.power import PowerSettings, power_markdown, power_rows

    rates = tuple(args.rates) if args.rates else ((args.rate,) if args.rate is not None else ())
    if args.folder is None and len(rates) == 1 and args.difference is None and args.questions is None:
        raise ValueError("--rate needs --difference D (questions needed) or --questions N (minimum detectable effect)")
    settings = PowerSettings(
        alpha=args.alpha,
        power=args.power,
        difference=args.difference,
        questions=args.questions,
        correlation=args.correlation,
    )
    rows = power_rows(settings, rates=rates, run=args.folder, models=tuple(args.models) if args.models else None)
    print(power_markdown(rows, settings), end="")
    return 0


def _add_power_command(commands: Any) -> None:
    power = commands.add_parser(
        "power",
        help="questions needed to detect a difference between two models, and a run's minimum detectable effect",
        description="Sample size and minimum detectable effect of a comparison of two accuracies (independent"
        " and paired proportions, normal approximations), from given rates or from a run's scored rows.",
    )
    power.add_argument("folder", metavar="RUN", nargs="?", help="a run folder (eval --out, or score --report)")
    power.add_argument("--models", nargs=2, metavar=("MA", "MB"), help="RUN: the two models (default: its first two)")
    given = power.add_mutually_exclusive_group()
    given.add_argument("--rates", nargs=2, type=_share, metavar=("A", "B"), help="two accuracies, in %%")
    given.add_argument("--rate", type=_share, metavar="A", help="one accuracy, in %%")
    power.add_argument("--difference", type=_share, metavar="D", help="the difference to detect, in points")
    power.add_argument("--questions", type=_count, metavar="N", help="--rate: the questions at hand (for the MDE)")
    power.add_argument(
        "--correlation", type=_correlation, metavar="R", help="the two sides' per-question correlation (phi)"
    )
    power.add_argument("--alpha", type=_open_share, default=0.05, help="two-sided level of the test")
    power.add_argument("--power", type=_open_share, default=0.8, help="the power asked for")
    power.set_defaults(run=cmd_power)


def add_compare_commands(commands: Any, only: str | None = None) -> None:
    """Register ``reasonmap compare``, ``reasonmap leaderboard`` and ``reasonmap power``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The command line's subcommands.
    only : str, optional
        Add this one of them only (the command asked for: the others' options are not built).
    """
    for name, add in _BUILDERS.items():
        if only in (None, name):
            add(commands)


def _add_compare_command(commands: Any) -> None:
    from reasonmap.options import add_cluster_option, add_resampling_options

    compare = commands.add_parser(
        "compare",
        help="paired comparison of two runs, two models or two modes: B − A with intervals and p-values",
        description="The difference B − A in each headline metric over the questions both answered, with a"
        " paired-bootstrap interval and a p-value (exact McNemar for accuracy, sign-flip permutation for map"
        " scores). A and B are folders written by `eval --out` or `score --report`.",
    )
    compare.add_argument("a", metavar="A", help="a run folder (eval --out, or score --report)")
    compare.add_argument("b", metavar="B", nargs="?", help="a second run folder (omit with --models or --modes)")
    compare.add_argument("--models", nargs=2, metavar=("MA", "MB"), help="compare model MA (in A) with MB (in B)")
    compare.add_argument(
        "--modes", type=_two, metavar="MA,MB", help="compare mode MA with MB (e.g. full,text-only: visual masking)"
    )
    compare.add_argument("--join", action="store_true", help="compare even over different questions or settings")
    compare.add_argument(
        "--allow-partial",
        action="store_true",
        help="compare a run that did not finish or scored part of a log (refused otherwise), marked partial",
    )
    compare.add_argument(
        "--permutations", type=int, default=10_000, metavar="N", help="sign-flip patterns drawn (map scores)"
    )
    add_resampling_options(compare, seed_help="seed of the resamples and sign flips")
    add_cluster_option(compare)
    compare.add_argument("--out", required=True, metavar="DIR", help="folder for comparison.md/.json/.csv/.png")
    add_figure_options(compare, "comparison")
    compare.set_defaults(run=cmd_compare)


def _add_leaderboard_command(commands: Any) -> None:
    from reasonmap.options import add_cluster_option

    leaderboard = commands.add_parser(
        "leaderboard",
        help="one ranked table of models × (task, mode) across runs, with intervals and tied ranks",
        description="Models × (task, mode) in the paper's Table 2 shape, from folders written by `eval --out` or"
        " `score --report`; ranks that the 95% intervals cannot separate are tied.",
    )
    leaderboard.add_argument("runs", nargs="+", metavar="RUN", help="run folders (eval --out, or score --report)")
    leaderboard.add_argument("--join", action="store_true", help="join runs over different questions or settings")
    leaderboard.add_argument(
        "--allow-partial",
        action="store_true",
        help="rank a run that did not finish or scored part of a log (refused otherwise), marked partial",
    )
    leaderboard.add_argument("--rank-by", metavar="TASK/MODE/METRIC", help="the column to rank by (default: the first)")
    add_cluster_option(leaderboard)
    leaderboard.add_argument("--out", required=True, metavar="DIR", help="folder for leaderboard.md/.json/.csv/.png")
    add_figure_options(leaderboard, "leaderboard")
    leaderboard.set_defaults(run=cmd_leaderboard)


#: the builder of each subcommand, in the order ``reasonmap --help`` lists them
_BUILDERS = {
    "compare": _add_compare_command,
    "leaderboard": _add_leaderboard_command,
    "power": _add_power_command,
}
