"""``reasonmap``: the toolkit's command line.

Each subcommand parses its options and calls one library function; heavy
imports happen inside the command so that ``reasonmap --help`` stays quick.
"""

from __future__ import annotations

import argparse
import errno
import functools
import json
import os
import signal
import sys
from collections.abc import Sequence

from reasonmap.options import report_skipped


def _add_city_options(
    parser: argparse.ArgumentParser, *, allow_all: bool = False, allow_dir: bool = False, required: bool = True
) -> None:
    where = parser.add_mutually_exclusive_group(required=required)
    where.add_argument("--city", help="an embedded city (beijing, new_york, kl, ...; see `reasonmap cities`)")
    where.add_argument("--metro", metavar="PATH", help="a Metro Data file ({line: [stations]} JSON)")
    if allow_all:
        where.add_argument("--all", action="store_true", help="all 30 embedded cities")
    if allow_dir:
        where.add_argument(
            "--metro-dir", metavar="DIR", help="every Metro Data file under DIR (a synthetic set's DIR/metro)"
        )
    parser.add_argument(
        "--overlay", metavar="PATH", help="a topology overlay (default: <metro stem>.overlay.json beside it)"
    )


def _graphs(args: argparse.Namespace) -> list:
    from graphkit.cities import city_graph, city_names, open_graph

    if getattr(args, "all", False):
        return [city_graph(name) for name in city_names()]
    if getattr(args, "metro_dir", None):
        from graphkit.cities import graph_from_file
        from reasonmap.batch import metro_files

        return [graph_from_file(path) for path in metro_files(args.metro_dir)]
    return [open_graph(city=args.city, metro=args.metro, overlay=args.overlay)]


def _print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def cmd_cities(args: argparse.Namespace) -> int:
    from graphkit.stats import all_city_stats

    stats = all_city_stats()
    if args.json:
        _print_json([s.to_dict() for s in stats])
        return 0
    print(f"{'city':<12} {'country':<22} {'lines':>5} {'stations':>8} {'transfers':>9}  difficulty")
    for s in stats:
        print(f"{s.city:<12} {s.country:<22} {s.lines:>5} {s.stations:>8} {s.transfer_stations:>9}  {s.difficulty}")
    return 0


def cmd_route(args: argparse.Namespace) -> int:
    from graphkit.routes import shortest_routes

    (graph,) = _graphs(args)
    found = shortest_routes(graph, args.source, args.target, slack=args.slack, max_routes=args.max_routes)
    if args.json:
        _print_json({"transfers": found.transfers, "routes": [route.to_list() for route in found.routes]})
    else:
        print(found.to_text())
    return 0


def cmd_references(args: argparse.Namespace) -> int:
    from graphkit.io import write_references
    from reasonmap.batch import executor_from

    graphs = _graphs(args)
    with executor_from(args) as executor:
        count = write_references(
            args.out, graphs, max_routes=args.max_routes, progress=not args.quiet, executor=executor
        )
    print(f"wrote {count} station pairs to {args.out}", file=sys.stderr)
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    from graphkit.lint import format_findings, lint_graph

    findings = [finding for graph in _graphs(args) for finding in lint_graph(graph)]
    if args.json:
        _print_json([finding.to_dict() for finding in findings])
    else:
        print(format_findings(findings))
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import split_cities
    from benchmarks.tasks import get_task
    from graphkit.cities import city_graph, city_names, open_graph

    if args.deprecated_kind is not None:
        print("reasonmap generate: warning: --kind is deprecated; use --task", file=sys.stderr)
        if args.task is not None and args.task != args.deprecated_kind:
            raise ValueError(f"--kind {args.deprecated_kind} and --task {args.task} disagree; give --task alone")
    task = get_task(args.task or args.deprecated_kind or "route")
    if task.generation is None:
        raise ValueError(f"{task.name} questions are not generated: they are read from their files")
    if args.metro:
        graphs = [open_graph(metro=args.metro, overlay=args.overlay)]
    elif args.cities:
        graphs = [city_graph(name.strip()) for name in args.cities.split(",") if name.strip()]
    else:
        graphs = [city_graph(name) for name in split_cities(args.split, city_names())]
    generation = task.generation
    # the task's own settings, each one option of `generate` (per_city: --per-city)
    settings = {key: getattr(args, key) for key in generation.defaults}
    records = generation.make(graphs, seed=args.seed, progress=not args.quiet, **settings)
    count = write_jsonl(args.out, records)
    print(generation.describe(records))
    print(f"wrote {count} {generation.noun} from {len(graphs)} map(s) to {args.out}", file=sys.stderr)
    return 0


def _compare_variants(text: str) -> tuple[str, str]:
    from reasonmap.options import VARIANTS as known

    names = tuple(name.strip() for name in text.split(","))
    if len(names) != 2 or names[0] == names[1] or not set(names) <= set(known):
        raise argparse.ArgumentTypeError(f"two different variants of {', '.join(known)}, got {text!r}")
    return names  # type: ignore[return-value]


def _nothing_scored(args: argparse.Namespace, problems: Sequence[str]) -> int:
    """Exit status 1: not one prediction could be scored (the skipped records say why)."""
    why = f"; {len(problems)} records skipped (see above)" if problems else ""
    print(
        f"reasonmap {args.command}: nothing scored: no prediction of {args.predictions} answers a question"
        f" of {args.questions}{why}",
        file=sys.stderr,
    )
    return 1


def cmd_score(args: argparse.Namespace) -> int:
    from benchmarks.tasks import get_task
    from graphkit.cities import open_graph
    from reasonmap.batch import executor_from
    from reasonmap.evaluate import compare_files, evaluate_files, read_official_model

    graph = open_graph(metro=args.metro, overlay=args.overlay) if args.metro else None
    given = dict(
        out=args.out,
        report_dir=args.report,
        task=args.task,
        weighting=args.weighting,
        graph=graph,
        source=args.source,
        model=args.model,
        kind=args.kind,
        metro_dir=args.metro_dir,
        official_model=read_official_model(args.official_model) if args.official_model else None,
        figures=args.figures,
        partial=args.partial,
    )
    if args.compare:
        compared = compare_files(args.questions, args.predictions, variants=args.compare, **given)
        first = compared.evaluations[args.compare[0]]
        _print_notes(first.notes)
        report_skipped(first.problems, see=f"{args.report}/{args.compare[0]}/summary.json")
        if not first.verdicts:
            return _nothing_scored(args, first.problems)
        print(compared.files[-1].read_text(encoding="utf-8"), end="")
        print(f"compared {len(first.verdicts)} predictions; reports in {args.report}/", file=sys.stderr)
        return 0
    with executor_from(args) as executor:
        result = evaluate_files(args.questions, args.predictions, variant=args.variant, executor=executor, **given)
    _print_notes(result.notes)
    report_skipped(result.problems, see=f"{args.report}/summary.json")
    if not result.verdicts:
        return _nothing_scored(args, result.problems)
    # the rows went to standard output: the table goes to the error stream, so as not to mix into them
    table_to = sys.stderr if str(args.out) in ("-", "/dev/stdout") else sys.stdout
    print(get_task(result.task).table(result.summary), end="", file=table_to)
    print(f"scored {len(result.verdicts)} predictions into {args.out}; report in {args.report}/", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from reasonmap.exports import export_hf

    result = export_hf(args.questions, args.out, maps=args.maps, metro=args.metro, overlay=args.overlay)
    report_skipped(result.problems)
    if not result.count:
        print(f"reasonmap export: nothing exported: {args.questions} holds no route question", file=sys.stderr)
        return 1
    print(f"wrote {result.count} questions as a Hugging Face dataset to {args.out}/", file=sys.stderr)
    return 0


def _print_notes(notes: Sequence[object]) -> None:
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def cmd_predictions(args: argparse.Namespace) -> int:
    from benchmarks.jsonl import Note
    from benchmarks.reasonmap.harnesses import convert_predictions

    count, problems = convert_predictions(
        args.file,
        args.source,
        args.out,
        model=args.model,
        kind=args.kind,
        questions=args.questions,
        partial=args.partial,
    )
    _print_notes([problem for problem in problems if isinstance(problem, Note)])
    report_skipped([problem for problem in problems if not isinstance(problem, Note)])
    print(f"wrote {count} prediction rows from {args.source} to {args.out}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from benchmarks.reasonmap.report import markdown_table
    from reasonmap.demo import run_demo

    result = run_demo(args.out, seed=args.seed, progress=not args.quiet)
    print(markdown_table(result.evaluation.summary), end="")
    print(
        f"{result.questions} questions, {result.predictions} answers scored in {result.seconds:.1f} s;"
        f" outputs in {result.out}/ (report: {result.out}/report/)",
        file=sys.stderr,
    )
    return 0


def _add_score_files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--questions", required=True, metavar="Q", help="question records of any task (ours, or the public sets')"
    )
    parser.add_argument(
        "--predictions", required=True, metavar="P", help="prediction records (JSON Lines), or another harness's file"
    )
    parser.add_argument("--out", required=True, metavar="SCORED", help="scored rows to write (JSON Lines)")
    parser.add_argument("--report", required=True, metavar="DIR", help="folder for summary.json, table.md, plots")


def build_parser() -> argparse.ArgumentParser:
    # nothing heavy here (no graphkit: it loads igraph): the libraries' choices and defaults are in options
    from reasonmap.batch import add_executor_options, add_synth_command
    from reasonmap.model_commands import add_model_commands
    from reasonmap.options import (
        DEFAULT_MAX_ROUTES,
        DEFAULT_PER_TYPE,
        GENERATED_TASKS,
        TASKS,
        VARIANTS,
        WEIGHTINGS,
        Help,
        Parser,
        add_metro_dir,
    )

    parser = Parser(prog="reasonmap", description=__doc__.splitlines()[0], formatter_class=Help)
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=functools.partial(Parser, formatter_class=Help),
    )

    cities = commands.add_parser("cities", help="the embedded cities and their statistics")
    cities.add_argument("--json", action="store_true", help="print a JSON array")
    cities.set_defaults(run=cmd_cities)

    route = commands.add_parser("route", help="fewest-transfer routes between two stations")
    _add_city_options(route)
    route.add_argument("source", metavar="FROM")
    route.add_argument("target", metavar="TO")
    route.add_argument("--slack", type=int, default=0, help="extra stops allowed over the fewest")
    route.add_argument("--max-routes", type=int, default=DEFAULT_MAX_ROUTES)
    route.add_argument("--json", action="store_true")
    route.set_defaults(run=cmd_route)

    references = commands.add_parser("references", help="reference routes of every ordered station pair")
    _add_city_options(references, allow_all=True, allow_dir=True)
    references.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file to write")
    references.add_argument("--max-routes", type=int, default=DEFAULT_MAX_ROUTES)
    references.add_argument("--quiet", action="store_true", help="no progress bar")
    add_executor_options(references)
    references.set_defaults(run=cmd_references)

    generate = commands.add_parser("generate", help="questions of a task with references, seeded")
    generate.add_argument(
        "--task", choices=GENERATED_TASKS, help="route questions, or ReasonMap-Plus questions (default: route)"
    )
    # the old spelling of --task, kept for the commands already written with it (`score --kind` is short/long)
    generate.add_argument("--kind", dest="deprecated_kind", choices=GENERATED_TASKS, help=argparse.SUPPRESS)
    where = generate.add_mutually_exclusive_group()
    where.add_argument(
        "--city", "--cities", dest="cities", help="embedded cities, comma-separated (default: the --split's)"
    )
    where.add_argument("--metro", metavar="PATH", help="a Metro Data file")
    generate.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    generate.add_argument("--split", choices=["test", "train", "all"], default="test", help="cross-city split")
    generate.add_argument("--seed", type=int, default=0)
    generate.add_argument("--per-city", type=int, default=40, help="route: questions per map at most")
    generate.add_argument("--quota", default="20:15:5", help="route: EASY:MIDDLE:HARD questions per map")
    generate.add_argument(
        "--per-type", type=int, default=DEFAULT_PER_TYPE, help="plus: questions per type and map at most"
    )
    generate.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file of question records")
    generate.add_argument("--quiet", action="store_true", help="no progress bar")
    generate.set_defaults(run=cmd_generate)

    score = commands.add_parser("score", help="score predictions of any task: metrics, weighting, report")
    _add_score_files(score)
    score.add_argument("--task", choices=TASKS, help="the questions' task (default: told from Q)")
    score.add_argument(
        "--from",
        dest="source",
        choices=["jsonl", "lmms-eval", "vlmevalkit", "inspect"],
        default="jsonl",
        help="who wrote P: the toolkit (jsonl), an lmms-eval samples log, a VLMEvalKit sheet, an Inspect eval log",
    )
    score.add_argument("--model", help="--from: the model's name, where the file does not say it")
    score.add_argument(
        "--kind", choices=["short", "long"], help="--from: the question kind, where the file does not say it"
    )
    score.add_argument(
        "--partial", action="store_true", help="--from inspect: score the finished samples of a run that failed"
    )
    score.add_argument(
        "--weighting",
        choices=WEIGHTINGS,
        help="default: the task's (route paper, plus city, mapqa none)",
    )
    score.add_argument(
        "--variant",
        choices=VARIANTS,
        default="paper",
        help="scoring variant (official: the public evaluation code's numbers;"
        " plus: paper, official or vlmevalkit, VLMEvalKit's own rule)",
    )
    score.add_argument(
        "--compare",
        type=_compare_variants,
        metavar="A,B",
        help="score with two variants (e.g. paper,official): both reports and compare.md/json, why they differ",
    )
    score.add_argument(
        "--official-model",
        metavar="PATH|FILE",
        help="official: the public scripts' model path of every model (e.g. Qwen/QVQ-72B-Preview), or a JSON"
        " file of run names to paths (default: each model's own name, else the closed-model script's rule)",
    )
    score.add_argument(
        "--figures", action="store_true", help="draw the report's figures too (PNG and PDF; default: tables only)"
    )
    score.add_argument("--metro", metavar="PATH", help="score every question against this Metro Data file")
    score.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    add_metro_dir(score)
    add_executor_options(score)
    score.set_defaults(run=cmd_score)

    export = commands.add_parser("export", help="a question set as a Hugging Face dataset (the public set's schema)")
    export.add_argument("--format", choices=["hf"], default="hf", help="hf: a folder for datasets.load_from_disk")
    export.add_argument("--questions", required=True, metavar="Q", help="question records (ours, or the public set's)")
    export.add_argument("--maps", metavar="DIR", help="map images (<city>.png), stored as each question's figure")
    export.add_argument("--metro", metavar="PATH", help="Metro Data for every question (default: the embedded city's)")
    export.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    export.add_argument(
        "--out", required=True, metavar="D", help="the dataset folder to write: new, empty, or a dataset (replaced)"
    )
    export.set_defaults(run=cmd_export)

    predictions = commands.add_parser(
        "predictions", help="another harness's predictions as the toolkit's rows (for diagnose and the rest)"
    )
    predictions.add_argument("file", metavar="FILE", help="an lmms-eval samples log, VLMEvalKit sheet or Inspect log")
    predictions.add_argument("--from", dest="source", required=True, choices=["lmms-eval", "vlmevalkit", "inspect"])
    predictions.add_argument("--model", help="the model's name, where the file does not say it")
    predictions.add_argument(
        "--kind", choices=["short", "long"], help="the question kind, where the file does not say it"
    )
    predictions.add_argument(
        "--questions", metavar="Q", help="lmms-eval: the question file the log's doc_id positions refer to"
    )
    predictions.add_argument("--partial", action="store_true", help="inspect: the finished samples of a failed run")
    predictions.add_argument("--out", required=True, metavar="P", help="prediction rows to write (JSON Lines)")
    predictions.set_defaults(run=cmd_predictions)

    demo = commands.add_parser("demo", help="the main job: test split, symbolic solvers, scores, report")
    demo.add_argument("--out", default="demo-out", metavar="DIR", help="output folder")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(run=cmd_demo)

    add_model_commands(commands)

    mapqa_score = commands.add_parser(
        "mapqa-score",
        help="score map QA answers (exact match, Jaccard, Kendall tau): `score --task mapqa`",
        description="An alias of `reasonmap score --task mapqa`, kept for the commands already written with it.",
    )
    _add_score_files(mapqa_score)
    mapqa_score.set_defaults(
        run=cmd_score,
        task="mapqa",
        source="jsonl",
        model=None,
        kind=None,
        partial=False,
        weighting=None,
        variant="paper",
        compare=None,
        official_model=None,
        figures=False,
        metro=None,
        overlay=None,
        metro_dir=None,
        executor="local",
        workers=1,
        ray_address=None,
    )

    lint = commands.add_parser("lint", help="doubtful spots of the Metro Data")
    _add_city_options(lint, allow_all=True)
    lint.add_argument("--json", action="store_true")
    lint.set_defaults(run=cmd_lint)

    from reasonmap.vision_commands import add_vision_commands

    add_vision_commands(commands, _add_city_options)
    add_synth_command(commands)
    from reasonmap.eval import add_eval_command

    add_eval_command(commands)
    from reasonmap.compare_commands import add_compare_commands

    add_compare_commands(commands)
    return parser


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that every ``finally`` runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


#: commands that pick up where an interrupted run stopped
_RESUMED = frozenset({"run", "eval", "vdi"})


def _interrupted(command: str, signal_name: str) -> str:
    """The one line an interrupted command ends with: what was kept, and how to go on."""
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


def main(argv: Sequence[str] | None = None) -> int:
    _mend_standard_streams()
    args = build_parser().parse_args(argv)
    # after parsing: `--help` and usage errors import no library
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


if __name__ == "__main__":
    sys.exit(main())
