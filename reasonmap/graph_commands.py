"""The subcommands of ``reasonmap`` about the transit graphs: ``cities``, ``route``, ``references``, ``lint``
and ``gtfs``.

Like every subcommand module, it adds its own parsers (:func:`add_graph_commands`);
each command parses its options and calls one library function.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_city_options", "add_graph_commands"]


def add_city_options(
    parser: argparse.ArgumentParser, *, allow_all: bool = False, allow_dir: bool = False, required: bool = True
) -> None:
    """Add the options that name a network: ``--city`` or ``--metro`` (or ``--all``, ``--metro-dir``); ``--overlay``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    allow_all : bool, optional
        Offer ``--all`` (every embedded city).
    allow_dir : bool, optional
        Offer ``--metro-dir`` (every Metro Data file of a folder).
    required : bool, optional
        One of them must be given.
    """
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
    if args.workers is None and args.executor == "local":
        # a local pool hands every byte of the text back to this process through a pipe, which costs more than
        # making it (the 30 cities, back to back: 6.1 to 6.9 CPU s on two workers, 1.8 to 2.2 inline); --workers N
        # still asks for a pool
        args = argparse.Namespace(**{**vars(args), "workers": 1})
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


def cmd_gtfs(args: argparse.Namespace) -> int:
    import datetime as dt
    from pathlib import Path

    from graphkit.gtfs.compiler import CompileJob, CompileOptions, compile_job
    from graphkit.gtfs.writing import write_city
    from reasonmap.batch import executor_from

    if args.city and len(args.feeds) > 1:
        raise ValueError("--city names one feed's city: give it with one FEED (several take their files' names)")
    try:
        date = dt.date.fromisoformat(args.date) if args.date else None
    except ValueError:
        raise ValueError(f"--date {args.date}: not a date (YYYY-MM-DD)") from None
    from graphkit.choices import check_choice
    from reasonmap.options import RAIL_MODES

    for mode in args.modes:
        check_choice(mode, RAIL_MODES, what="--modes mode")
    options = CompileOptions(city=args.city, date=date, modes=tuple(args.modes), routes=tuple(args.route or ()))
    stems = [Path(feed).name.removesuffix(".zip") for feed in args.feeds]
    twice = sorted({stem for stem in stems if stems.count(stem) > 1})
    if twice and not args.city:
        raise ValueError(f"FEED: several feeds are named {', '.join(twice)}; each city's files take its feed's name")
    failed = 0
    with executor_from(args) as executor:
        jobs = [CompileJob(feed, options) for feed in args.feeds]
        for found in executor.map(compile_job, jobs):
            if isinstance(found, str):
                if len(args.feeds) == 1:
                    raise ValueError(found)
                print(f"reasonmap gtfs: error: {found} (skipped)", file=sys.stderr)
                failed += 1
                continue
            files = write_city(args.out, found.city, found.metro_json, found.overlay_json)
            print(
                f"wrote {' and '.join(map(str, files))}: {found.lines} lines, {found.stations} stations ({found.date})",
                file=sys.stderr,
            )
            _report_colours(found.city, found.overlay_json)
    if failed:
        print(f"reasonmap gtfs: {failed} of {len(args.feeds)} feeds skipped", file=sys.stderr)
    return 2 if failed else 0


def _report_colours(city: str, overlay_json: str) -> None:
    """Lines whose feed colours a map cannot tell apart, reported (the map keeps the feed's colours)."""
    from vision.geography import confusable_colours

    styles = json.loads(overlay_json).get("line_styles", [])
    for a, b, difference in confusable_colours({style["line"]: style["color"] for style in styles}):
        print(
            f"reasonmap gtfs: note: {city}: lines {a!r} and {b!r} have colours a map cannot tell apart"
            f" (CIEDE2000 {difference:g}); render draws them so",
            file=sys.stderr,
        )


def add_graph_commands(commands, only: str | None = None) -> None:
    """Add ``cities``, ``route``, ``references``, ``lint`` and ``gtfs`` to the subcommands.

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


def _add_cities(commands) -> None:
    cities = commands.add_parser("cities", help="the embedded cities and their statistics")
    cities.add_argument("--json", action="store_true", help="print a JSON array")
    cities.set_defaults(run=cmd_cities)


def _add_route(commands) -> None:
    from reasonmap.options import DEFAULT_MAX_ROUTES

    route = commands.add_parser("route", help="fewest-transfer routes between two stations")
    add_city_options(route)
    route.add_argument("source", metavar="FROM", help="the departure station (a name, pinyin, or NAME@LINE)")
    route.add_argument("target", metavar="TO", help="the arrival station")
    route.add_argument("--slack", type=int, default=0, help="extra stops allowed over the fewest")
    route.add_argument(
        "--max-routes",
        type=int,
        default=DEFAULT_MAX_ROUTES,
        help="fewest-transfer routes shown at most (default: %(default)s)",
    )
    route.add_argument("--json", action="store_true", help='print {"transfers": N, "routes": [[segment, ...], ...]}')
    route.set_defaults(run=cmd_route)


def _add_references(commands) -> None:
    from reasonmap.batch import add_executor_options
    from reasonmap.options import DEFAULT_MAX_ROUTES

    references = commands.add_parser("references", help="reference routes of every ordered station pair")
    add_city_options(references, allow_all=True, allow_dir=True)
    references.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file to write")
    references.add_argument(
        "--max-routes",
        type=int,
        default=DEFAULT_MAX_ROUTES,
        help="references kept per pair at most (default: %(default)s)",
    )
    references.add_argument("--quiet", action="store_true", help="no progress bar")
    add_executor_options(references, local_workers="1, inline: a pool would hand the text back through pipes")
    references.set_defaults(run=cmd_references)


def _add_lint(commands) -> None:
    lint = commands.add_parser("lint", help="doubtful spots of the Metro Data")
    add_city_options(lint, allow_all=True)
    lint.add_argument("--json", action="store_true", help="print the findings as JSON")
    lint.set_defaults(run=cmd_lint)


def _add_gtfs(commands) -> None:
    from reasonmap.batch import add_executor_options
    from reasonmap.options import comma_list

    gtfs = commands.add_parser("gtfs", help="compile GTFS feeds into Metro Data and overlays (one city each)")
    gtfs.add_argument("feeds", nargs="+", metavar="FEED", help="a GTFS feed: a zip archive or a folder")
    gtfs.add_argument("--out", required=True, metavar="DIR", help="writes DIR/<city>.json and DIR/<city>.overlay.json")
    gtfs.add_argument("--city", help="the city's name (default: the feed's file name)")
    gtfs.add_argument("--date", metavar="YYYY-MM-DD", help="the service day (default: the day with the most trips)")
    gtfs.add_argument(
        "--modes",
        type=comma_list,
        metavar="M,..",
        default="metro,light-rail,tram,rail,monorail,funicular",
        help="the transit modes to compile, comma-separated: metro, light-rail, tram, rail, monorail, funicular,"
        " cable-tram, aerial-lift, ferry (never a bus; default: %(default)s)",
    )
    gtfs.add_argument("--route", nargs="+", metavar="ID", help="only these route ids")
    add_executor_options(gtfs)
    gtfs.set_defaults(run=cmd_gtfs)


#: the builder of each subcommand, in the order ``reasonmap --help`` lists them
_BUILDERS = {
    "cities": _add_cities,
    "route": _add_route,
    "references": _add_references,
    "lint": _add_lint,
    "gtfs": _add_gtfs,
}
