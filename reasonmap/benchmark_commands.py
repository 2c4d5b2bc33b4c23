"""The subcommands of ``reasonmap`` about question sets and scores: ``generate``, ``score``, ``export``,
``predictions``, ``demo`` and ``mapqa-score``.

Like every subcommand module, it adds its own parsers
(:func:`add_benchmark_commands`); each command parses its options and calls
one library function. Every one takes any task's question file
(:mod:`benchmarks.tasks`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reasonmap.options import RegistryHelp, report_skipped, seed_value

if TYPE_CHECKING:
    from reasonmap.score_files import ScoreSettings

__all__ = ["add_benchmark_commands"]


def cmd_generate(args: argparse.Namespace) -> int:
    from benchmarks.jsonl import write_jsonl
    from benchmarks.splits import split_cities
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
    if args.truth is not None and "truth" not in generation.defaults:
        raise ValueError(f"--truth {args.truth}: {task.name} questions are not tied to a map's truth")
    records = generation.make(graphs, seed=args.seed, progress=not args.quiet, **settings)
    count = write_jsonl(args.out, records)
    print(generation.describe(records))
    print(f"wrote {count} {generation.noun} from {len(graphs)} map(s) to {args.out}", file=sys.stderr)
    return 0


def _explained_variants(text: str) -> tuple[str, str]:
    """The two variants of ``score --explain A,B`` (and its former spelling ``--compare A,B``).

    Parameters
    ----------
    text : str
        ``A,B``: two different names among every task's variants.

    Returns
    -------
    (str, str)
        The two names, as given (the task resolves former names).

    Raises
    ------
    argparse.ArgumentTypeError
        Not two different known names; the message lists them.
    """
    from reasonmap.options import VARIANTS as known

    names = tuple(name.strip() for name in text.split(","))
    if len(names) != 2 or names[0] == names[1] or not set(names) <= set(known):
        raise argparse.ArgumentTypeError(f"two different variants of {', '.join(known)}, got {text!r}")
    return names  # type: ignore[return-value]


def _nothing_scored(args: argparse.Namespace, problems: Sequence[str]) -> int:
    """Exit status 1: not one prediction could be scored (the skipped records say why)."""
    why = f"; {len(problems)} records skipped (see above)" if problems else ""
    print(
        f"reasonmap {args.command}: nothing scored: no prediction of {', '.join(args.predictions)} answers a question"
        f" of {args.questions}{why}",
        file=sys.stderr,
    )
    return 1


def score_settings(args: argparse.Namespace) -> ScoreSettings:
    """The :class:`~reasonmap.score_files.ScoreSettings` of ``score``'s options (``--official-model`` read,
    ``--metro`` opened)."""
    from graphkit.cities import open_graph
    from reasonmap.score_files import ScoreSettings, read_official_model

    return ScoreSettings(
        task=args.task,
        weighting=args.weighting,
        variant=args.variant,
        source=args.source,
        model=args.model,
        kind=args.kind,
        partial=args.partial,
        cluster=args.cluster,
        figures=args.figures,
        options={  # the tasks' own options, those given (each task takes those it declares)
            name: value
            for name, value in (
                ("graph", open_graph(metro=args.metro, overlay=args.overlay) if args.metro else None),
                ("metro_dir", args.metro_dir),
                ("official_model", read_official_model(args.official_model) if args.official_model else None),
            )
            if value is not None
        },
    )


def cmd_score(args: argparse.Namespace) -> int:
    from benchmarks.tasks import get_task
    from reasonmap.batch import executor_from
    from reasonmap.score_files import evaluate_files, explain_files

    settings = score_settings(args)
    files = dict(out=args.out, report_dir=args.report)
    if args.explain:
        explained = explain_files(args.questions, args.predictions, variants=args.explain, settings=settings, **files)
        name, first = next(iter(explained.evaluations.items()))  # by the names the task resolved (plus's paper)
        _print_notes(first.notes)
        report_skipped(first.problems, see=f"{args.report}/{name}/summary.json")
        if not first.verdicts:
            return _nothing_scored(args, first.problems)
        print(explained.files[-1].read_text(encoding="utf-8"), end="")
        print(f"explained {len(first.verdicts)} predictions; reports in {args.report}/", file=sys.stderr)
        return 0
    with executor_from(args) as executor:
        result = evaluate_files(args.questions, args.predictions, settings=settings, executor=executor, **files)
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
    from reasonmap.exports import export_gtfs, export_hf

    if args.format == "gtfs":
        if args.questions or args.maps:
            raise ValueError("--format gtfs writes a network: give --city C or --metro PATH, not --questions or --maps")
        if (args.city is None) == (args.metro is None):
            raise ValueError("--format gtfs: give one of --city C or --metro PATH")
        lines, stations = export_gtfs(args.out, city=args.city, metro=args.metro, overlay=args.overlay)
        print(f"wrote {args.out}: a GTFS feed of {lines} lines and {stations} stations", file=sys.stderr)
        return 0
    if args.questions is None or args.city is not None:
        raise ValueError("--format hf writes questions: give --questions Q (and no --city)")
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
    from reasonmap.convert import convert_predictions

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
        "--predictions",
        required=True,
        action="append",
        metavar="P",
        help="prediction records (JSON Lines), or another harness's file; repeat it for several files"
        " (lmms-eval: the short and the long log, or the model's folder of them)",
    )
    parser.add_argument("--out", required=True, metavar="SCORED", help="scored rows to write (JSON Lines)")
    parser.add_argument("--report", required=True, metavar="DIR", help="folder for summary.json, table.md, plots")


def _generation_help(setting: str, text: str) -> RegistryHelp:
    """A ``generate`` option's help, led by the tasks whose generation takes it (read when the help is shown)."""
    return RegistryHelp(f"{{takers_{setting}}}: {text}")


def _harness_names() -> tuple[str, ...]:
    """The harnesses ``reasonmap predictions`` converts from: every task's readers but the toolkit's own rows."""
    from benchmarks.tasks import source_names

    return tuple(name for name in source_names() if name != "jsonl")


def _add_generate(commands) -> None:
    from reasonmap.options import DEFAULT_PER_TYPE, GENERATED_TASKS

    generate = commands.add_parser("generate", help="questions of a task with references, seeded")
    generate.add_argument(
        "--task", choices=GENERATED_TASKS, help="the task whose questions are generated (default: route)"
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
    generate.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the station pairs and templates (default: 0)"
    )
    generate.add_argument(
        "--per-city", type=int, default=40, help=_generation_help("per_city", "questions per map at most")
    )
    generate.add_argument(
        "--quota", default="20:15:5", help=_generation_help("quota", "EASY:MIDDLE:HARD questions per map")
    )
    generate.add_argument(
        "--per-type",
        type=int,
        default=DEFAULT_PER_TYPE,
        help=_generation_help("per_type", "questions per type and map at most"),
    )
    generate.add_argument(
        "--truth",
        metavar="MAP.truth.json",
        help=_generation_help("truth", "the map's truth (lines named as drawn, its knobs recorded)"),
    )
    generate.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file of question records")
    generate.add_argument("--quiet", action="store_true", help="no progress bar")
    generate.set_defaults(run=cmd_generate)


def _add_score(commands) -> None:
    from reasonmap.batch import add_executor_options
    from reasonmap.options import KINDS, SOURCES, TASKS, VARIANTS, WEIGHTINGS, add_cluster_option, add_metro_dir

    score = commands.add_parser("score", help="score predictions of any task: metrics, weighting, report")
    _add_score_files(score)
    score.add_argument("--task", choices=TASKS, help="the questions' task (default: told from Q)")
    score.add_argument(
        "--from",
        dest="source",
        choices=SOURCES,
        default="jsonl",
        help=RegistryHelp(
            "who wrote P: the toolkit (jsonl), or another harness whose files the task reads ({harnesses})"
        ),
    )
    score.add_argument("--model", help="--from: the model's name, where the file does not say it")
    score.add_argument("--kind", choices=KINDS, help="--from: the question kind, where the file does not say it")
    score.add_argument(
        "--partial", action="store_true", help="--from inspect: score the finished samples of a run that failed"
    )
    score.add_argument("--weighting", choices=WEIGHTINGS, help=RegistryHelp("default: the task's ({weightings})"))
    score.add_argument(
        "--variant",
        choices=VARIANTS,
        default="paper",
        help=RegistryHelp("scoring variant, one of the task's, its default first ({variants})"),
    )
    score.add_argument(
        "--explain",
        type=_explained_variants,
        metavar="A,B",
        help="score with two variants (e.g. paper,official): both reports and compare.md/json, why they differ",
    )
    # the option's old name, for older scripts (``reasonmap compare`` is the paired comparison of two runs)
    score.add_argument("--compare", dest="explain", type=_explained_variants, help=argparse.SUPPRESS)
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
    add_cluster_option(score)
    add_executor_options(score)
    score.set_defaults(run=cmd_score)


def _add_export(commands) -> None:
    export = commands.add_parser(
        "export", help="a question set as a Hugging Face dataset (the public set's schema), or a network as GTFS"
    )
    export.add_argument(
        "--format",
        choices=["hf", "gtfs"],
        default="hf",
        help="hf: a folder for datasets.load_from_disk; gtfs: a network (--city or --metro) as a GTFS feed (zip)",
    )
    export.add_argument("--questions", metavar="Q", help="hf: question records (ours, or the public set's)")
    export.add_argument("--city", help="gtfs: an embedded city (or --metro PATH)")
    export.add_argument("--maps", metavar="DIR", help="map images (<city>.png), stored as each question's figure")
    export.add_argument("--metro", metavar="PATH", help="Metro Data for every question (default: the embedded city's)")
    export.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    export.add_argument(
        "--out",
        required=True,
        metavar="D",
        help="hf: the dataset folder to write: new, empty, or a dataset (replaced); gtfs: the feed (FEED.zip)",
    )
    export.set_defaults(run=cmd_export)


def _add_predictions(commands) -> None:
    from graphkit.choices import Choices
    from reasonmap.options import KINDS

    predictions = commands.add_parser(
        "predictions", help="another harness's predictions as the toolkit's rows (for diagnose and the rest)"
    )
    predictions.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help="an lmms-eval samples log (several: the short and the long, or the model's folder), VLMEvalKit sheet"
        " or Inspect log",
    )
    predictions.add_argument(
        "--from",
        dest="source",
        required=True,
        choices=Choices("reasonmap.benchmark_commands:_harness_names"),
        help="the harness that wrote FILE (every task's readers but the toolkit's own rows)",
    )
    predictions.add_argument("--model", help="the model's name, where the file does not say it")
    predictions.add_argument("--kind", choices=KINDS, help="the question kind, where the file does not say it")
    predictions.add_argument(
        "--questions", metavar="Q", help="lmms-eval: the question file the log's doc_id positions refer to"
    )
    predictions.add_argument("--partial", action="store_true", help="inspect: the finished samples of a failed run")
    predictions.add_argument("--out", required=True, metavar="P", help="prediction rows to write (JSON Lines)")
    predictions.set_defaults(run=cmd_predictions)


def _add_demo(commands) -> None:
    demo = commands.add_parser("demo", help="the main job: test split, symbolic solvers, scores, report")
    demo.add_argument("--out", default="demo-out", metavar="DIR", help="output folder")
    demo.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the questions and the noisy solver (default: 0)"
    )
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(run=cmd_demo)


def _add_mapqa_score(commands) -> None:
    from reasonmap.options import add_cluster_option

    mapqa_score = commands.add_parser(
        "mapqa-score",
        help="score map QA answers (exact match, Jaccard, Kendall tau): `score --task mapqa`",
        description="An alias of `reasonmap score --task mapqa`, kept for the commands already written with it.",
    )
    _add_score_files(mapqa_score)
    add_cluster_option(mapqa_score)
    mapqa_score.set_defaults(
        run=cmd_score,
        task="mapqa",
        source="jsonl",
        model=None,
        kind=None,
        partial=False,
        weighting=None,
        variant="toolkit",
        explain=None,
        official_model=None,
        figures=False,
        metro=None,
        overlay=None,
        metro_dir=None,
        executor="local",
        workers=1,
        ray_address=None,
    )


#: the builder of each subcommand, in the order ``reasonmap --help`` lists them
_BUILDERS = {
    "generate": _add_generate,
    "score": _add_score,
    "export": _add_export,
    "predictions": _add_predictions,
    "demo": _add_demo,
    "mapqa-score": _add_mapqa_score,
}


def add_benchmark_commands(commands, only: str | None = None) -> None:
    """Add ``generate``, ``score``, ``export``, ``predictions``, ``demo`` and ``mapqa-score`` to the subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The ``reasonmap`` parser's subcommands.
    only : str, optional
        Add this one of them only (the command asked for: the others' options are not built).

    Returns
    -------
    None
    """
    for name, add in _BUILDERS.items():
        if only in (None, name):
            add(commands)
