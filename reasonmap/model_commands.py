"""The subcommands of ``reasonmap`` that answer questions: ``baseline``, ``prompts``, ``run`` and ``vdi``.

Kept beside :mod:`reasonmap.cli` so that each file stays short; like it,
each command parses options and calls one library function. Every one takes
any task's question file (:mod:`benchmarks.tasks`): the task is told from the
file, or named with ``--task``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from graphkit.choices import UnknownChoice, check_choice
from reasonmap.options import (
    MODES,
    SERVED_SOLVERS,
    SOLVERS,
    TEXTUALIZATIONS,
    RegistryHelp,
    add_client_options,
    add_metro_dir,
    add_prompt_options,
    add_repeat_options,
    add_task_option,
    client_options,
    seed_value,
)


def _load(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The task of ``--questions`` and its questions by id; skipped records are reported."""
    from reasonmap.options import report_skipped
    from reasonmap.score_files import task_of

    task = task_of(args.questions, args.task)
    loaded = task.load(args.questions)
    report_skipped(loaded.problems)
    return task, dict(loaded.questions)


def _graph_for(args: argparse.Namespace):
    """A question's graph: its city's, from ``--metro-dir`` or the embedded cities."""
    from graphkit.cities import graphs_by_city

    graph_of = graphs_by_city(getattr(args, "metro_dir", None))
    return lambda question: graph_of(question.city)


def _nothing(command: str, reason: str) -> int:
    """Exit status 1, with the reason on stderr: the command ran but produced nothing."""
    print(f"reasonmap {command}: {reason}", file=sys.stderr)
    return 1


def cmd_serve(args: argparse.Namespace) -> int:
    """``reasonmap serve``: an OpenAI-compatible chat endpoint answered by a symbolic solver, until stopped."""
    import functools

    from graphkit.cities import city_graph, city_names, graph_from_file
    from reasonmap.serve import SolverServer

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0 to 65535, got {args.port}")
    if args.metro is not None:
        graph = graph_from_file(args.metro)  # read now: a bad file is refused before serving
        graphs = {graph.city or "custom": lambda: graph}
    else:
        names = city_names() if args.city is None else [name.strip() for name in args.city.split(",") if name.strip()]
        for name in names:
            city_graph(name)  # an unknown city is refused before serving (the graphs are cached)
        graphs = {name: functools.partial(city_graph, name) for name in names}
    server = SolverServer(args.solver, graphs, seed=args.seed, host=args.host, port=args.port)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"reasonmap serve: warning: listening on {args.host}: anyone who reaches it can ask", file=sys.stderr)
    print(
        f"reasonmap serve: the {args.solver} solver answers on {server.url} (model baseline:{args.solver});"
        " Ctrl-C stops it",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    finally:
        server.close()
        print(f"reasonmap serve: {server.answered} answers given", file=sys.stderr)
    return 0


def cmd_baseline(args: argparse.Namespace) -> int:
    """``reasonmap baseline``: a symbolic solver's answers to a question file, as prediction rows."""
    from benchmarks.jsonl import write_jsonl

    task, questions = _load(args)
    if not task.solvers:
        raise ValueError(f"{task.name} questions have no solver ({args.questions})")
    try:
        check_choice(args.name, task.solvers, what=f"{task.name} solver")
    except UnknownChoice as error:
        raise ValueError(f"{error} ({args.questions})") from None
    # what the solvers may take; each task's solver entry uses what applies to it
    settings = {
        "wrong_line": args.wrong_line,
        "wrong_transfer": args.wrong_transfer,
        "detour": args.detour,
        "miscount": args.miscount,
        "misread": args.misread,
        "textualization": args.textualization,
    }
    predictions = task.solver()(args.name, questions.values(), _graph_for(args), seed=args.seed, settings=settings)
    count = write_jsonl(args.out, predictions)
    if not count:
        return _nothing("baseline", f"no prediction written: {args.questions} holds no {task.name} question to answer")
    print(f"wrote {count} {task.name} predictions of baseline {args.name} to {args.out}", file=sys.stderr)
    return 0


def _requests(args: argparse.Namespace) -> list:
    from baselines.prompts import build_requests
    from reasonmap.options import report_skipped

    task, questions = _load(args)
    missing: list[str] = []  # a missing or unreadable map skips its questions, as in `eval`
    requests = build_requests(
        questions.values(),
        mode=args.mode,
        task=task,
        graph_for=_graph_for(args),
        textualization=args.textualization,
        maps=args.maps,
        pixel_budget=args.pixel_budget,
        alias_strategy=args.alias_strategy,
        missing_maps=missing,
    )
    report_skipped(missing)
    return requests


def cmd_prompts(args: argparse.Namespace) -> int:
    """``reasonmap prompts``: the requests of a question file in one prompt mode, as request records."""
    from benchmarks.jsonl import write_jsonl
    from reasonmap.options import check_prompt_options

    check_prompt_options(args)
    count = write_jsonl(args.out, _requests(args))
    if not count:
        why = "no question's map could be read (see above)" if args.mode == "full" else "holds no question to ask"
        return _nothing("prompts", f"no request written: {args.questions}: {why}")
    print(f"wrote {count} {args.mode} requests to {args.out}", file=sys.stderr)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """``reasonmap run``: a model's answers to the requests of a question file (or a request file), resumable."""
    from baselines.client import EndpointUnreachable, run_requests
    from baselines.requests import Request
    from benchmarks.jsonl import read_jsonl
    from reasonmap.options import report_skipped

    options = client_options(args)  # checked before anything is read or asked
    if args.requests:
        requests, problems = read_jsonl(args.requests, Request.from_dict)
        report_skipped(problems)
    elif args.mode:
        requests = _requests(args)
    else:
        raise ValueError("--questions needs --mode (or pass --requests FILE)")
    try:
        summary = run_requests(requests, out=args.out, **options)
    except EndpointUnreachable as error:  # nothing could be done: exit 1, as when every request failed
        return _nothing("run", f"error: {error}")
    print(f"{args.out}: {summary}", file=sys.stderr)
    if not summary.total:
        return _nothing("run", "no request to ask")
    if summary.all_failed:
        return _nothing(
            "run",
            f"error: not one of the {summary.total} requests has an answer in {args.out} "
            "(see the 'error' field of its rows; fix the cause, then rerun with --retry-errors)",
        )
    return 0


def cmd_vdi(args: argparse.Namespace) -> int:
    """``reasonmap vdi``: the visual dependency index of a question file for one model."""
    from benchmarks.vdi import parse_budgets, vdi_table
    from reasonmap.options import report_skipped
    from reasonmap.vdi import run_vdi
    from reasonmap.vdi_samples import load_samples

    budgets = parse_budgets(args.budgets)
    options = client_options(args)  # checked before anything is read or asked
    samples = load_samples(args.questions, maps=args.maps, task=args.task)
    # the answer calls' max_tokens is --max-tokens; the descriptions' is each budget
    answer_max_tokens = options.pop("max_tokens")
    result = run_vdi(
        samples,
        budgets=budgets,
        out=args.out,
        pixel_budget=args.pixel_budget,
        answer_max_tokens=answer_max_tokens,
        **options,
    )
    report_skipped(result.problems, see=f"{args.out}/vdi.json")
    for stage, summary in result.runs:
        print(f"{stage}: {summary}", file=sys.stderr)
    if not result.summary["n"]:
        return _nothing("vdi", f"no question could be asked: {args.questions} gave none with a readable map")
    if not any(summary.answered or summary.answered_before for _, summary in result.runs):
        return _nothing("vdi", f"error: not one request was answered (see the 'error' field of {args.out}/*.jsonl)")
    print(vdi_table(result.summary), end="")
    print(f"wrote {', '.join(path.name for path in result.files)} to {args.out}/", file=sys.stderr)
    return 0


def _add_questions(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    if required:
        parser.add_argument(
            "--questions", required=True, metavar="Q", help=RegistryHelp("question records of any task ({tasks})")
        )
    add_task_option(parser)


def add_model_commands(commands, only: str | None = None) -> None:
    """Add ``baseline``, ``prompts``, ``run``, ``vdi`` and ``serve`` to the subcommands.

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


def _add_baseline(commands) -> None:
    baseline = commands.add_parser("baseline", help="answers of a symbolic solver, in the predictions format")
    baseline.add_argument("name", choices=SOLVERS, help=RegistryHelp("each task's: {solvers}"))
    _add_questions(baseline)
    baseline.add_argument("--out", required=True, metavar="P", help="prediction rows to write (JSON Lines)")
    baseline.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the noisy solver's errors (default: 0)"
    )
    baseline.add_argument("--textualization", choices=TEXTUALIZATIONS, default="lines", help="text-oracle: its input")
    for name in ("wrong-line", "wrong-transfer", "detour", "miscount"):
        baseline.add_argument(f"--{name}", type=float, default=0.1, metavar="P", help="noisy: probability")
    baseline.add_argument(
        "--misread", type=float, default=0.0, metavar="P", help="noisy: probability of a misspelt station"
    )
    add_metro_dir(baseline)
    baseline.set_defaults(run=cmd_baseline)


def _add_prompts(commands) -> None:
    prompts = commands.add_parser("prompts", help="the exact requests of a prompt mode, for any harness")
    prompts.add_argument("--mode", required=True, choices=MODES, help=RegistryHelp("one of the task's modes ({modes})"))
    _add_questions(prompts)
    prompts.add_argument("--out", required=True, metavar="FILE", help="request records to write (JSON Lines)")
    add_prompt_options(prompts)
    add_metro_dir(prompts)
    prompts.set_defaults(run=cmd_prompts)


def _add_run(commands) -> None:
    run = commands.add_parser("run", help="ask an OpenAI-compatible endpoint; resumable, appends to --out")
    add_client_options(run)
    given = run.add_mutually_exclusive_group(required=True)
    given.add_argument("--questions", metavar="Q", help="question records of any task (with --mode)")
    given.add_argument("--requests", metavar="FILE", help="request records, as `reasonmap prompts` writes them")
    _add_questions(run, required=False)
    run.add_argument("--mode", choices=MODES, help="--questions: one of the task's modes")
    add_prompt_options(run)
    add_metro_dir(run)
    run.add_argument("--out", required=True, metavar="P", help="prediction rows (JSON Lines), appended and resumed")
    add_repeat_options(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(run=cmd_run)


def _add_vdi(commands) -> None:
    vdi = commands.add_parser("vdi", help="visual dependency (VDI) and descriptive saturation (DSI) per token budget")
    add_client_options(vdi, max_tokens_help="max_tokens of the answer calls (default: the server's)")
    _add_questions(vdi)
    add_prompt_options(
        vdi, images_only=True, maps_help="map images: <city>.png for route and plus; for map QA, the base of `image`"
    )
    vdi.add_argument("--budgets", default="128,256,512,1024", metavar="K,...", help="description budgets k_max")
    vdi.add_argument("--out", required=True, metavar="DIR", help="output folder, resumed when it holds rows")
    vdi.add_argument("--quiet", action="store_true", help="no progress bars")
    vdi.set_defaults(run=cmd_vdi)


def _add_serve(commands) -> None:
    serve = commands.add_parser(
        "serve", help="an OpenAI-compatible chat endpoint answered by a symbolic solver, to try eval on any machine"
    )
    serve.add_argument("--solver", default="oracle", choices=SERVED_SOLVERS, help="who answers (default: %(default)s)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free one)")
    serve.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the noisy solver's errors (default: 0)"
    )
    where = serve.add_mutually_exclusive_group()
    where.add_argument("--city", help="answer from these embedded cities only (comma-separated)")
    where.add_argument("--metro", help="answer from this Metro Data file (and its overlay) only")
    serve.set_defaults(run=cmd_serve)


#: the builder of each subcommand, in the order ``reasonmap --help`` lists them
_BUILDERS = {
    "baseline": _add_baseline,
    "prompts": _add_prompts,
    "run": _add_run,
    "vdi": _add_vdi,
    "serve": _add_serve,
}
