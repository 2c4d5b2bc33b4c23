"""``reasonmap``: the toolkit's command line.

Each subcommand parses its options and calls one library function; heavy
imports happen inside the command so that ``reasonmap --help`` stays quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


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


def _report_skipped(problems) -> None:
    for problem in problems:
        print(f"skipped: {problem}", file=sys.stderr)


def _questions(path: str) -> dict:
    """Question records by id (ours or the public data set's); skipped records are reported."""
    from benchmarks.reasonmap.loading import load_questions

    questions, _, problems = load_questions(path)
    _report_skipped(problems)
    return questions


def _graph_of_city(args: argparse.Namespace):
    """A city's graph from ``--metro-dir`` (a synthetic benchmark's folder, say), else an embedded city."""
    from graphkit.cities import graphs_by_city

    return graphs_by_city(getattr(args, "metro_dir", None))


def _add_metro_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metro-dir", metavar="DIR", help="Metro Data of non-embedded cities: DIR/**/<city>.json (a synth set's DIR)"
    )


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
    from benchmarks.reasonmap.generate import format_distribution, generate_set, parse_quota, split_cities
    from graphkit.cities import city_graph, city_names, open_graph

    if args.metro:
        graphs = [open_graph(metro=args.metro, overlay=args.overlay)]
    elif args.cities:
        graphs = [city_graph(name.strip()) for name in args.cities.split(",") if name.strip()]
    else:
        graphs = [city_graph(name) for name in split_cities(args.split, city_names())]
    if args.kind == "plus":
        from benchmarks.plus.questions import format_type_counts, generate_plus_set

        records = generate_plus_set(graphs, seed=args.seed, per_type=args.per_type, progress=not args.quiet)
        count = write_jsonl(args.out, records)
        print(format_type_counts(records))
        print(f"wrote {count} plus questions from {len(graphs)} map(s) to {args.out}", file=sys.stderr)
        return 0
    questions = generate_set(
        graphs, seed=args.seed, per_city=args.per_city, quota=parse_quota(args.quota), progress=not args.quiet
    )
    count = write_jsonl(args.out, questions)
    print(format_distribution(questions))
    print(f"wrote {count} questions from {len(graphs)} map(s) to {args.out}", file=sys.stderr)
    return 0


def _compare_variants(text: str) -> tuple[str, str]:
    from reasonmap.evaluate import SCORING_VARIANTS

    names = tuple(name.strip() for name in text.split(","))
    if len(names) != 2 or names[0] == names[1] or not set(names) <= set(SCORING_VARIANTS):
        raise argparse.ArgumentTypeError(f"two different variants of {', '.join(SCORING_VARIANTS)}, got {text!r}")
    return names  # type: ignore[return-value]


def cmd_score(args: argparse.Namespace) -> int:
    from benchmarks.reasonmap.report import markdown_table
    from graphkit.cities import open_graph
    from reasonmap.batch import executor_from
    from reasonmap.evaluate import compare_files, evaluate_files

    graph = open_graph(metro=args.metro, overlay=args.overlay) if args.metro else None
    if args.compare:
        compared = compare_files(
            args.questions,
            args.predictions,
            out=args.out,
            report_dir=args.report,
            variants=args.compare,
            weighting=args.weighting,
            graph=graph,
            source=args.source,
            model=args.model,
            kind=args.kind,
            metro_dir=args.metro_dir,
        )
        first = compared.evaluations[args.compare[0]]
        for problem in first.problems[:20]:
            print(f"skipped: {problem}", file=sys.stderr)
        print(compared.files[-1].read_text(encoding="utf-8"), end="")
        print(f"compared {len(first.verdicts)} predictions; reports in {args.report}/", file=sys.stderr)
        return 0
    with executor_from(args) as executor:
        result = evaluate_files(
            args.questions,
            args.predictions,
            out=args.out,
            report_dir=args.report,
            weighting=args.weighting,
            variant=args.variant,
            graph=graph,
            source=args.source,
            model=args.model,
            kind=args.kind,
            metro_dir=args.metro_dir,
            executor=executor,
        )
    for problem in result.problems[:20]:
        print(f"skipped: {problem}", file=sys.stderr)
    if len(result.problems) > 20:
        print(f"skipped: ... and {len(result.problems) - 20} more (see {args.report}/summary.json)", file=sys.stderr)
    if result.summary.get("question_set") == "plus":
        from benchmarks.plus.report import plus_markdown_table

        print(plus_markdown_table(result.summary), end="")
    else:
        print(markdown_table(result.summary), end="")
    print(f"scored {len(result.verdicts)} predictions into {args.out}; report in {args.report}/", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from reasonmap.exports import export_hf

    result = export_hf(args.questions, args.out, maps=args.maps, metro=args.metro, overlay=args.overlay)
    _report_skipped(result.problems)
    print(f"wrote {result.count} questions as a Hugging Face dataset to {args.out}/", file=sys.stderr)
    return 0


def cmd_predictions(args: argparse.Namespace) -> int:
    from benchmarks.reasonmap.harnesses import convert_predictions

    count, problems = convert_predictions(args.file, args.source, args.out, model=args.model, kind=args.kind)
    _report_skipped(problems)
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


def cmd_baseline(args: argparse.Namespace) -> int:
    from baselines.solvers import Noise, run_solver
    from benchmarks.jsonl import write_jsonl

    questions = _questions(args.questions)
    options = {}
    if args.name == "noisy":
        options["noise"] = Noise(args.wrong_line, args.wrong_transfer, args.detour, args.miscount, misread=args.misread)
    if args.name == "text-oracle":
        options["textualization"] = args.textualization
    graph_of = _graph_of_city(args)
    predictions = run_solver(
        args.name, questions.values(), lambda question: graph_of(question.city), seed=args.seed, **options
    )
    count = write_jsonl(args.out, predictions)
    print(f"wrote {count} predictions of baseline:{args.name} to {args.out}", file=sys.stderr)
    return 0


def cmd_prompts(args: argparse.Namespace) -> int:
    from baselines.prompts import build_requests
    from benchmarks.jsonl import write_jsonl

    questions = _questions(args.questions)
    graph_of = _graph_of_city(args)
    requests = build_requests(
        questions.values(),
        graph_for=lambda question: graph_of(question.city),
        mode=args.mode,
        textualization=args.textualization,
        maps=args.maps,
        pixel_budget=args.pixel_budget,
        alias_strategy=args.alias_strategy,
    )
    count = write_jsonl(args.out, requests)
    print(f"wrote {count} {args.mode} requests to {args.out}", file=sys.stderr)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from baselines.client import run_requests
    from baselines.requests import Request
    from benchmarks.jsonl import read_jsonl
    from benchmarks.reasonmap.loading import load_questions

    if args.requests:
        requests, problems = read_jsonl(args.requests, Request.from_dict)
    elif args.mode:
        from baselines.prompts import build_requests

        questions, _, problems = load_questions(args.questions)
        requests = build_requests(
            questions.values(), mode=args.mode, textualization=args.textualization, maps=args.maps
        )
    else:
        raise ValueError("--questions needs --mode (or pass --requests FILE)")
    _report_skipped(problems)
    summary = run_requests(
        requests,
        endpoint=args.endpoint,
        model=args.model,
        out=args.out,
        concurrency=args.concurrency,
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        max_retries=args.max_retries,
        temperature=args.temperature,
        progress=not args.quiet,
        retry_errors=args.retry_errors,
    )
    print(f"{args.out}: {summary}", file=sys.stderr)
    if summary.all_failed:
        print(
            f"reasonmap run: error: not one of the {summary.total} requests has an answer in {args.out} "
            "(see the 'error' field of its rows; fix the cause, then rerun with --retry-errors)",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_mapqa_score(args: argparse.Namespace) -> int:
    from benchmarks.mapqa.report import markdown_table
    from reasonmap.evaluate import evaluate_files

    result = evaluate_files(args.questions, args.predictions, out=args.out, report_dir=args.report, task="mapqa")
    for problem in result.problems[:20]:
        print(f"skipped: {problem}", file=sys.stderr)
    if len(result.problems) > 20:
        print(f"skipped: ... and {len(result.problems) - 20} more (see {args.report}/summary.json)", file=sys.stderr)
    print(markdown_table(result.summary), end="")
    print(f"scored {len(result.verdicts)} predictions into {args.out}; report in {args.report}/", file=sys.stderr)
    return 0


def cmd_vdi(args: argparse.Namespace) -> int:
    from reasonmap.vdi import parse_budgets, run_vdi, vdi_table
    from reasonmap.vdi_samples import load_samples

    budgets = parse_budgets(args.budgets)
    samples = load_samples(args.questions, maps=args.maps, task=args.task)
    result = run_vdi(
        samples,
        endpoint=args.endpoint,
        model=args.model,
        budgets=budgets,
        out=args.out,
        pixel_budget=args.pixel_budget,
        answer_max_tokens=args.max_tokens,
        concurrency=args.concurrency,
        timeout=args.timeout,
        max_retries=args.max_retries,
        temperature=args.temperature,
        retry_errors=args.retry_errors,
        progress=not args.quiet,
    )
    for problem in result.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    for stage, summary in result.runs:
        print(f"{stage}: {summary}", file=sys.stderr)
    print(vdi_table(result.summary), end="")
    print(f"wrote {', '.join(path.name for path in result.files)} to {args.out}/", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from benchmarks.plus.questions import DEFAULT_PER_TYPE
    from graphkit.routes import DEFAULT_MAX_ROUTES
    from reasonmap.batch import add_executor_options, add_synth_command

    parser = argparse.ArgumentParser(prog="reasonmap", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    cities = commands.add_parser("cities", help="the embedded cities and their statistics")
    cities.add_argument("--json", action="store_true", help="print a JSON array")
    cities.set_defaults(run=cmd_cities)

    route = commands.add_parser("route", help="fewest-transfer routes between two stations")
    _add_city_options(route)
    route.add_argument("source", metavar="FROM")
    route.add_argument("target", metavar="TO")
    route.add_argument("--slack", type=int, default=0, help="extra stops allowed over the fewest (default 0)")
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

    generate = commands.add_parser("generate", help="ReasonMap questions with references, seeded")
    generate.add_argument(
        "--kind", choices=["route", "plus"], default="route", help="route questions, or ReasonMap-Plus questions"
    )
    where = generate.add_mutually_exclusive_group()
    where.add_argument("--cities", help="comma-separated embedded cities (default: the --split's)")
    where.add_argument("--metro", metavar="PATH", help="a Metro Data file")
    generate.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    generate.add_argument("--split", choices=["test", "train", "all"], default="test", help="cross-city split")
    generate.add_argument("--seed", type=int, default=0)
    generate.add_argument("--per-city", type=int, default=40, help="route: questions per map at most (default 40)")
    generate.add_argument(
        "--quota", default="20:15:5", help="route: EASY:MIDDLE:HARD questions per map (default 20:15:5)"
    )
    generate.add_argument(
        "--per-type",
        type=int,
        default=DEFAULT_PER_TYPE,
        help=f"plus: questions per type and map at most ({DEFAULT_PER_TYPE})",
    )
    generate.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file of question records")
    generate.add_argument("--quiet", action="store_true", help="no progress bar")
    generate.set_defaults(run=cmd_generate)

    score = commands.add_parser("score", help="score predictions: correctness, map score, weighting, report")
    score.add_argument(
        "--questions", required=True, metavar="Q", help="question records (ours, or the public data set's)"
    )
    score.add_argument(
        "--predictions", required=True, metavar="P", help="prediction records (JSON Lines), or another harness's file"
    )
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
    score.add_argument("--out", required=True, metavar="SCORED", help="scored rows to write (JSON Lines)")
    score.add_argument("--report", required=True, metavar="DIR", help="folder for summary.json, table.md, plots")
    score.add_argument("--weighting", choices=["paper", "city", "none"], default="paper")
    score.add_argument(
        "--variant",
        choices=["paper", "C1", "C2", "ungated", "official"],
        default="paper",
        help="map-score variant (official: the public evaluation code's numbers)",
    )
    score.add_argument(
        "--compare",
        type=_compare_variants,
        metavar="A,B",
        help="score with two variants (e.g. paper,official): both reports and compare.md/json, why they differ",
    )
    score.add_argument("--metro", metavar="PATH", help="score every question against this Metro Data file")
    score.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    _add_metro_dir(score)
    add_executor_options(score)
    score.set_defaults(run=cmd_score)

    export = commands.add_parser("export", help="a question set as a Hugging Face dataset (the public set's schema)")
    export.add_argument("--format", choices=["hf"], default="hf", help="hf: a folder for datasets.load_from_disk")
    export.add_argument("--questions", required=True, metavar="Q", help="question records (ours, or the public set's)")
    export.add_argument("--maps", metavar="DIR", help="map images (<city>.png), stored as each question's figure")
    export.add_argument("--metro", metavar="PATH", help="Metro Data for every question (default: the embedded city's)")
    export.add_argument("--overlay", metavar="PATH", help="its topology overlay (default: beside it)")
    export.add_argument("--out", required=True, metavar="D", help="the dataset folder to write (replaced)")
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
    predictions.add_argument("--out", required=True, metavar="P", help="prediction rows to write (JSON Lines)")
    predictions.set_defaults(run=cmd_predictions)

    demo = commands.add_parser("demo", help="the main job: test split, symbolic solvers, scores, report")
    demo.add_argument("--out", default="demo-out", metavar="DIR", help="output folder (default demo-out)")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(run=cmd_demo)

    baseline = commands.add_parser("baseline", help="answers of a symbolic solver, in the predictions format")
    baseline.add_argument("name", choices=["oracle", "text-oracle", "direct-line", "echo", "noisy"])
    baseline.add_argument("--questions", required=True, metavar="Q")
    baseline.add_argument("--out", required=True, metavar="P")
    baseline.add_argument("--seed", type=int, default=0)
    baseline.add_argument("--textualization", default="lines", help="for text-oracle")
    for name, default in (("wrong-line", 0.1), ("wrong-transfer", 0.1), ("detour", 0.1), ("miscount", 0.1)):
        baseline.add_argument(f"--{name}", type=float, default=default, help=f"noisy: probability (default {default})")
    baseline.add_argument("--misread", type=float, default=0.0, help="noisy: probability of a misspelt station (0)")
    _add_metro_dir(baseline)
    baseline.set_defaults(run=cmd_baseline)

    prompts = commands.add_parser("prompts", help="the exact requests of a prompt mode, for any harness")
    prompts.add_argument("--mode", required=True, choices=["full", "text-only", "symbolic", "alias"])
    prompts.add_argument("--questions", required=True, metavar="Q")
    prompts.add_argument("--out", required=True, metavar="FILE")
    prompts.add_argument("--textualization", default="lines", help="symbolic/alias: lines, adjacency or stations")
    prompts.add_argument("--maps", metavar="DIR", help="full: folder of map images (<city>.png)")
    prompts.add_argument("--pixel-budget", type=int, default=4_000_000, help="full: downscale larger maps to this")
    prompts.add_argument("--alias-strategy", choices=["romanize", "borrow"], default="romanize")
    _add_metro_dir(prompts)
    prompts.set_defaults(run=cmd_prompts)

    run = commands.add_parser("run", help="ask an OpenAI-compatible endpoint; resumable, appends to --out")
    run.add_argument("--endpoint", required=True, metavar="URL", help="base URL, e.g. http://host:8000/v1")
    run.add_argument("--model", required=True, help="model name served there (key: OPENAI_API_KEY)")
    given = run.add_mutually_exclusive_group(required=True)
    given.add_argument("--questions", metavar="Q", help="question records (with --mode)")
    given.add_argument("--requests", metavar="FILE", help="request records, as `reasonmap prompts` writes them")
    run.add_argument("--mode", choices=["full", "text-only", "symbolic", "alias"])
    run.add_argument("--textualization", default="lines", help="symbolic/alias: lines, adjacency or stations")
    run.add_argument("--maps", metavar="DIR", help="full: folder of map images (<city>.png)")
    run.add_argument("--out", required=True, metavar="P", help="prediction rows (JSON Lines), appended and resumed")
    run.add_argument("--concurrency", type=int, default=4)
    run.add_argument("--max-tokens", type=int)
    run.add_argument("--temperature", type=float)
    run.add_argument("--timeout", type=float, default=60.0, help="seconds per attempt (default 60)")
    run.add_argument("--max-retries", type=int, default=6)
    run.add_argument("--retry-errors", action="store_true", help="ask again where --out holds an error row")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(run=cmd_run)

    mapqa_score = commands.add_parser("mapqa-score", help="score map QA answers: exact match, Jaccard, Kendall tau")
    mapqa_score.add_argument("--questions", required=True, metavar="Q", help="map QA question records (JSON Lines)")
    mapqa_score.add_argument("--predictions", required=True, metavar="P", help="prediction rows (JSON Lines)")
    mapqa_score.add_argument("--out", required=True, metavar="SCORED", help="scored rows to write (JSON Lines)")
    mapqa_score.add_argument("--report", required=True, metavar="DIR", help="folder for summary.json and table.md")
    mapqa_score.set_defaults(run=cmd_mapqa_score)

    vdi = commands.add_parser("vdi", help="visual dependency (VDI) and descriptive saturation (DSI) per token budget")
    vdi.add_argument("--endpoint", required=True, metavar="URL", help="base URL, e.g. http://host:8000/v1")
    vdi.add_argument("--model", required=True, help="model name served there (key: OPENAI_API_KEY)")
    vdi.add_argument("--questions", required=True, metavar="Q", help="map QA, ReasonMap or ReasonMap-Plus questions")
    vdi.add_argument(
        "--maps", metavar="DIR", help="map images: <city>.png for ReasonMap; for map QA, the base of `image` paths"
    )
    vdi.add_argument("--task", choices=["route", "plus", "mapqa"], help="the questions' task (default: told from Q)")
    vdi.add_argument("--budgets", default="128,256,512,1024", help="description budgets k_max (default 128,...,1024)")
    vdi.add_argument("--out", required=True, metavar="DIR", help="output folder, resumed when it holds rows")
    vdi.add_argument("--concurrency", type=int, default=4)
    vdi.add_argument("--max-tokens", type=int, help="max_tokens of the answer calls (default: the server's)")
    vdi.add_argument("--temperature", type=float)
    vdi.add_argument("--timeout", type=float, default=60.0, help="seconds per attempt (default 60)")
    vdi.add_argument("--max-retries", type=int, default=6)
    vdi.add_argument("--retry-errors", action="store_true", help="ask again where a file holds an error row")
    vdi.add_argument("--pixel-budget", type=int, default=4_000_000, help="downscale larger maps to this")
    vdi.add_argument("--quiet", action="store_true", help="no progress bars")
    vdi.set_defaults(run=cmd_vdi)

    lint = commands.add_parser("lint", help="doubtful spots of the Metro Data")
    _add_city_options(lint, allow_all=True)
    lint.add_argument("--json", action="store_true")
    lint.set_defaults(run=cmd_lint)

    from reasonmap.vision_commands import add_vision_commands

    add_vision_commands(commands, _add_city_options)
    add_synth_command(commands)
    from reasonmap.eval import add_eval_command

    add_eval_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from graphkit.errors import TransitError
    from vision.errors import VisionError

    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except (TransitError, VisionError, ValueError, OSError) as error:
        print(f"reasonmap {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
