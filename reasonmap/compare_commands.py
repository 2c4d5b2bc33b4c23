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
    )
    _warn("compare", runs)  # after the refusals: a refused run gets its one line
    written = write_comparison(args.out, record, figures=not args.no_figure)
    print(comparison_markdown(record), end="")
    count = len(record["comparisons"])
    print(f"compared {count} metrics; {_written(written, args.out)}", file=sys.stderr)
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from benchmarks.leaderboards import leaderboard_markdown
    from reasonmap.leaderboard import build_leaderboard, write_leaderboard

    _check_out(args.out, list(args.runs))
    record = build_leaderboard(args.runs, join=args.join, rank_by=args.rank_by, allow_partial=args.allow_partial)
    _warn("leaderboard", list(args.runs))  # after the refusals: a refused run gets its one line
    written = write_leaderboard(args.out, record, figures=not args.no_figure)
    print(leaderboard_markdown(record), end="")
    print(f"{len(record['rows'])} models from {len(args.runs)} runs; {_written(written, args.out)}", file=sys.stderr)
    return 0


def add_compare_commands(commands: Any) -> None:
    """Register ``reasonmap compare`` and ``reasonmap leaderboard``."""
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
        "--modes", nargs=2, metavar=("MA", "MB"), help="compare mode MA with MB (e.g. full text-only: visual masking)"
    )
    compare.add_argument("--join", action="store_true", help="compare even over different questions or settings")
    compare.add_argument(
        "--allow-partial",
        action="store_true",
        help="compare a run that did not finish or scored part of a log (refused otherwise), marked partial",
    )
    compare.add_argument(
        "--resamples", type=int, default=2000, metavar="N", help="bootstrap resamples of the questions"
    )
    compare.add_argument(
        "--permutations", type=int, default=10_000, metavar="N", help="sign-flip patterns drawn (map scores)"
    )
    compare.add_argument("--seed", type=int, default=0, help="seed of the resamples and sign flips")
    compare.add_argument("--out", required=True, metavar="DIR", help="folder for comparison.md/.json/.csv/.png")
    compare.add_argument(
        "--no-figure",
        action="store_true",
        help="tables only (no plotting library imported); removes the figure an earlier compare wrote in --out",
    )
    compare.set_defaults(run=cmd_compare)

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
    leaderboard.add_argument("--out", required=True, metavar="DIR", help="folder for leaderboard.md/.json/.csv/.png")
    leaderboard.add_argument(
        "--no-figure",
        action="store_true",
        help="tables only (no plotting library imported); removes the figure an earlier leaderboard wrote in --out",
    )
    leaderboard.set_defaults(run=cmd_leaderboard)
