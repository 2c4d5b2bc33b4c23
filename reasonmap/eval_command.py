"""``reasonmap eval``'s command line: its parser, and the settings record it builds for the pipeline.

The pipeline (:mod:`reasonmap.eval`) takes an :class:`~reasonmap.eval.EvalSettings`
record, never the parsed arguments; the client's options are checked here,
once, before anything is read or asked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from reasonmap.options import RegistryHelp, comma_list, seed_value

__all__ = ["add_eval_command"]


def add_eval_command(commands: Any) -> None:
    """Register ``reasonmap eval``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The command line's subcommands.
    """
    from reasonmap.options import (
        SPLITS,
        add_client_options,
        add_cluster_option,
        add_metro_dir,
        add_prompt_options,
        add_repeat_options,
    )

    parser = commands.add_parser(
        "eval",
        help="evaluate a model on every task and prompt mode in one command (resumable)",
        description="One model, every (task, prompt mode), in one resumable command: questions, requests, answers,"
        " scores, results.json and results.md in --out.",
    )
    add_client_options(parser)
    parser.add_argument("--out", required=True, metavar="DIR", help="the run's folder (resumed when it holds one)")
    parser.add_argument(
        "--tasks",
        metavar="T,..",
        help=RegistryHelp("among {tasks} (default: those generated, {generated}; with --questions, their tasks)"),
    )
    parser.add_argument(
        "--modes", type=comma_list, default="full,text-only", metavar="M,..", help="full, text-only, symbolic, alias"
    )
    parser.add_argument(
        "--split", choices=SPLITS, default="test", help=RegistryHelp("{generated}: the questions generated")
    )
    parser.add_argument(
        "--questions", action="append", metavar="FILE", help="a question file of any task (repeatable); else generated"
    )
    add_prompt_options(parser, several_budgets=True)
    add_repeat_options(parser)
    add_metro_dir(parser)
    parser.add_argument("--limit", type=int, metavar="N", help="N questions per task, drawn by a seeded hash of ids")
    parser.add_argument("--seed", type=seed_value, default=0, metavar="S", help="question generation and --limit")
    parser.add_argument("--require-maps", action="store_true", help="full: a missing map is an error, not a skip")
    add_cluster_option(parser)
    parser.add_argument("--force", action="store_true", help="start a new run in place of the one in --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(run=cmd_eval)


def _names(text: str) -> tuple[str, ...]:
    """A comma-separated option's names (blanks dropped)."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def cmd_eval(args: Any) -> int:
    from reasonmap.eval import OPERATIONAL, EvalError, eval_settings, run_eval
    from reasonmap.options import client_options, report_skipped

    if not args.quiet:  # the tasks load the transit graphs' library first: a few seconds on a busy machine
        print(f"eval: checking the settings of the run in {args.out}/", file=sys.stderr)
    options = client_options(args)  # checked before anything is read or asked: a typo is never recorded
    settings, files = eval_settings(
        endpoint=args.endpoint,
        model=args.model,
        name=args.name,
        tasks=_names(args.tasks) if args.tasks else None,
        modes=args.modes,
        split=args.split,
        questions=args.questions or (),
        maps=args.maps,
        metro_dir=args.metro_dir,
        limit=args.limit,
        seed=args.seed,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        pixel_budget=args.pixel_budget,
        textualization=args.textualization,
        alias_strategy=args.alias_strategy,
        require_maps=args.require_maps,
        repeats=args.repeats,
    )
    client = {key: options[key] for key in (*OPERATIONAL, "progress", "force_repeats")}
    client["endpoint_with_key"] = args.endpoint
    try:
        result = run_eval(settings, files, args.out, client=client, force=args.force, cluster=args.cluster)
    except EvalError as error:
        print(f"reasonmap eval: error: {error}", file=sys.stderr)
        return error.status
    report_skipped(result.problems, see=f"{args.out}/*/*/report/summary.json")
    print(Path(result.files[1]).read_text(encoding="utf-8"), end="")
    print(f"results in {args.out}/results.json and results.md", file=sys.stderr)
    return 0
