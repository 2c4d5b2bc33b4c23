"""The subcommands of ``reasonmap`` about the transit graphs: ``cities``, ``route``, ``references`` and ``lint``.

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


def add_graph_commands(commands) -> None:
    """Add ``cities``, ``route``, ``references`` and ``lint`` to the subcommands."""
    from reasonmap.batch import add_executor_options
    from reasonmap.options import DEFAULT_MAX_ROUTES

    cities = commands.add_parser("cities", help="the embedded cities and their statistics")
    cities.add_argument("--json", action="store_true", help="print a JSON array")
    cities.set_defaults(run=cmd_cities)

    route = commands.add_parser("route", help="fewest-transfer routes between two stations")
    add_city_options(route)
    route.add_argument("source", metavar="FROM")
    route.add_argument("target", metavar="TO")
    route.add_argument("--slack", type=int, default=0, help="extra stops allowed over the fewest")
    route.add_argument("--max-routes", type=int, default=DEFAULT_MAX_ROUTES)
    route.add_argument("--json", action="store_true")
    route.set_defaults(run=cmd_route)

    references = commands.add_parser("references", help="reference routes of every ordered station pair")
    add_city_options(references, allow_all=True, allow_dir=True)
    references.add_argument("--out", required=True, metavar="FILE", help="JSON Lines file to write")
    references.add_argument("--max-routes", type=int, default=DEFAULT_MAX_ROUTES)
    references.add_argument("--quiet", action="store_true", help="no progress bar")
    add_executor_options(references)
    references.set_defaults(run=cmd_references)

    lint = commands.add_parser("lint", help="doubtful spots of the Metro Data")
    add_city_options(lint, allow_all=True)
    lint.add_argument("--json", action="store_true")
    lint.set_defaults(run=cmd_lint)
