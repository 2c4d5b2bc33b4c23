"""The vision subcommands of ``reasonmap``: ``ocr``, ``render`` and ``diagnose``.

Kept beside :mod:`reasonmap.cli` so that each file stays short; like it,
each command parses options and calls one library function.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from reasonmap.options import seed_value


def _graph(args: argparse.Namespace):
    from graphkit.cities import open_graph

    return open_graph(city=args.city, metro=args.metro, overlay=args.overlay)


def _settings(args: argparse.Namespace):
    from vision.ocr import OcrSettings

    return OcrSettings(
        engine=args.engine,
        device=args.device,
        scale=args.scale,
        rotations=args.rotations,
        det_model_dir=args.det_model_dir,
        rec_model_dir=args.rec_model_dir,
    )


def _analyse(args: argparse.Namespace, path, graph, *, lines: bool):
    from vision.analyse import analyse_map

    return analyse_map(
        path,
        graph,
        settings=_settings(args),
        pixel_limit=args.pixel_limit,
        cache_dir=args.cache_dir,
        use_cache=not args.no_cache,
        lines=lines,
        progress=not args.quiet,
    )


def _check_cache(args: argparse.Namespace) -> None:
    """A ``--cache-dir`` that cannot be one is refused before any map is read."""
    from vision.ocr import check_cache_dir

    if args.cache_dir is not None and not args.no_cache:
        check_cache_dir(args.cache_dir)


def cmd_ocr(args: argparse.Namespace) -> int:
    """``reasonmap ocr``: read a map (or a folder of maps) and ground it in its city's data."""
    from vision.analyse import ocr_report, write_evidence

    _check_cache(args)
    if args.map is not None and args.map_file is not None:
        raise ValueError("give the map once: MAP or --map FILE")
    image = args.map if args.map is not None else args.map_file
    if args.maps:
        return _ocr_folder(args)
    if image is None or args.all or args.metro_dir:
        raise ValueError("give one MAP with --city or --metro, or a folder with --maps and --all or --metro-dir")
    graph = _graph(args)
    wants_lines = args.lines or args.evidence is not None
    analysis = _analyse(args, image, graph, lines=wants_lines)
    report = ocr_report(analysis, graph, pairs=args.lines)
    if args.evidence:
        write_evidence(args.evidence, analysis.evidence)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        found = sum(station["found"] for station in report["stations"])
        print(f"{report['map']}: {found}/{len(report['stations'])} stations found (recall {report['recall']:.1%})")
        print(f"{report['seconds']:.1f} s{' (OCR from the cache)' if report['ocr_cached'] else ''}")
        missing = [station["name"] for station in report["stations"] if not station["found"]]
        if missing:
            print("not found: " + ", ".join(missing))
        for name, line in report.get("lines", {}).items():
            print(f"{name}: {line['colour']} (seen at {line['support']:.0%} of its found stations)")
    return 0


def _networks(args: argparse.Namespace) -> dict:
    """City name to (Metro Data, overlay): the embedded cities (``--all``) or those under ``--metro-dir``."""
    from graphkit.cities import city_names, load_city, load_metro_file
    from reasonmap.batch import metro_files

    if args.all:
        return {name: load_city(name) for name in city_names()}
    return {path.stem: load_metro_file(path) for path in metro_files(args.metro_dir)}


def _ocr_folder(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reasonmap.batch import OcrJob, executor_from, map_files, ocr_job
    from vision.analyse import write_evidence

    if not (args.all or args.metro_dir) or not args.evidence_dir:
        raise ValueError("--maps needs --all or --metro-dir (the maps' cities) and --evidence-dir")
    networks = _networks(args)
    maps = []
    for city, path in map_files(args.maps):
        if city in networks:
            maps.append(path)
        else:
            print(f"skipped: {path}: no Metro Data for city {city!r}", file=sys.stderr)
    cache_dir = str(args.cache_dir) if args.cache_dir else None
    jobs = (
        OcrJob(
            str(path),
            *networks[path.stem.split("__")[-1]],
            _settings(args),
            args.pixel_limit,
            cache_dir,
            not args.no_cache,
        )
        for path in maps
    )
    with executor_from(args) as executor:
        for path, (evidence, recall, seconds) in zip(maps, executor.map(ocr_job, jobs)):
            written = write_evidence(Path(args.evidence_dir) / f"{path.stem}.evidence.json", evidence)
            print(f"{path.name}: recall {recall:.1%} in {seconds:.1f} s -> {written}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """``reasonmap render``: draw a city's map (or many) with its ground truth."""
    from reasonmap.batch import knobs_from
    from vision.render import render_map, write_rendered

    if args.all or args.metro_dir:
        return _render_folder(args)
    show = _LabelProgress(disable=args.quiet)
    try:
        rendered = render_map(
            _graph(args),
            seed=args.seed,
            size=args.size,
            palette=args.palette,
            rotate_labels=args.rotate_labels,
            progress=show,
            knobs=knobs_from(args),
        )
    finally:
        show.close()
    image, truth = write_rendered(rendered, args.out)
    width, height = rendered.image.size
    print(f"wrote {image} ({width}x{height}) and {truth}", file=sys.stderr)
    return 0


class _LabelProgress:
    """A progress bar on stderr of the labels placed, shown once a map has taken ``after`` seconds (a crowded
    city takes several; a small one is done before a bar would help). Each try on a sparser grid starts it
    afresh, named by the map's size."""

    def __init__(self, *, disable: bool = False, after: float = 2.0, clock=None):
        import time

        self.disable, self.after = disable, after
        self.clock = clock or time.perf_counter
        self.started = self.clock()
        self.bar = None
        self.size: int | None = None

    def __call__(self, done: int, total: int, size: int) -> None:
        from tqdm import tqdm

        if self.disable or (self.bar is None and self.clock() - self.started < self.after):
            return
        if self.bar is None or size != self.size or done < self.bar.n:  # a new try
            self.close()
            self.size = size
            self.bar = tqdm(total=total, unit="label", desc=f"labels of the {size} px map", file=sys.stderr)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _render_folder(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tqdm import tqdm

    from graphkit.files import atomic_writer
    from reasonmap.batch import RenderJob, executor_from, knobs_from, render_job

    folder = Path(args.out)
    networks = _networks(args)
    jobs = (
        RenderJob(metro, overlay, args.seed, args.size, args.palette, args.rotate_labels, knobs_from(args))
        for metro, overlay in networks.values()
    )
    count = 0
    with executor_from(args) as executor:
        rendered = executor.map(render_job, jobs)
        bar = tqdm(rendered, total=len(networks), unit="map", desc="rendering", file=sys.stderr, disable=args.quiet)
        for city, png, truth in bar:
            with atomic_writer(folder / f"{city}.png", binary=True) as stream:
                stream.write(png)
            with atomic_writer(folder / f"{city}.truth.json") as stream:
                stream.write(truth)
            count += 1
    print(f"wrote {count} maps with their truth to {folder}/", file=sys.stderr)
    return 0


def _check_route_questions(path: str) -> None:
    """Refuse another task's question file: every answer would be left out, and an empty diagnosis written."""
    from benchmarks.tasks import detect_task
    from vision.diagnosis_report import DIAGNOSED_TASK

    if os.path.isfile(path) and (task := detect_task(path)).name != DIAGNOSED_TASK:
        raise ValueError(
            f"--questions {path}: {task.name} questions; diagnose labels {DIAGNOSED_TASK} answers"
            f" ({DIAGNOSED_TASK} questions)"
        )


def cmd_diagnose(args: argparse.Namespace) -> int:
    """``reasonmap diagnose``: label why each answer went wrong, with the map evidence behind it."""
    from graphkit.cities import CityGraphs
    from graphkit.names import fold
    from reasonmap.batch import executor_from
    from vision.analyse import folder_evidence, read_evidence
    from vision.diagnosis_report import OneNetwork, diagnose_files
    from vision.evidence import read_truth
    from vision.render import truth_path

    _check_cache(args)
    _check_route_questions(args.questions)
    if (args.probes is None) != (args.probe_questions is None):
        raise ValueError("--probes and --probe-questions go together (the scored probes and the probes they answer)")
    if args.draw and os.path.exists(args.draw) and not os.path.isdir(args.draw):
        raise ValueError(f"--draw {args.draw}: not a folder (the drawings go into one)")
    if args.evidence_dir:
        if not args.metro_dir:
            raise ValueError("--evidence-dir needs --metro-dir (the maps' cities)")
        return _diagnose_folder(args)
    given = _graph(args) if args.city or args.metro else None
    if given is None and not args.maps and not (args.metro_dir and args.map and args.truth):
        raise ValueError(
            "diagnose: --map and --evidence need --city or --metro (or use --maps DIR; --map with --truth may take"
            " --metro-dir)"
        )
    # the cities' graphs: embedded, or the Metro Data under --metro-dir (a synthetic set's)
    cities = CityGraphs(args.metro_dir)

    if args.maps:
        evidence = folder_evidence(
            args.maps,
            cities if given is None else lambda city: given,
            lambda path, graph: _analyse(args, path, graph, lines=True).evidence,
            use_truth=args.truth,
        )
    elif args.evidence:
        evidence = read_evidence(args.evidence)
        if given is not None and given.city and evidence.city and fold(evidence.city) != fold(given.city):
            raise ValueError(f"--evidence {args.evidence}: read from a map of {evidence.city!r}, not of {given.city!r}")
    elif args.truth:
        evidence = read_truth(truth_path(args.map), city=given.city if given is not None else "")
    else:
        evidence = _analyse(args, args.map, given, lines=True).evidence
    with executor_from(args) as executor:
        run = diagnose_files(
            args.questions,
            args.predictions,
            evidence,
            # one network, or the cities' graphs, travel to workers
            OneNetwork(given.metro, given.overlay) if given is not None else cities.question_graph,
            out=args.out,
            # a graph given by name (or one map) is one city: other cities' answers are neither diagnosed nor counted
            cities=[given.city] if given is not None and given.city else None,
            colour_threshold=args.colour_threshold,
            layout_threshold=args.layout_threshold,
            executor=executor,
            draw=args.draw,
            images=_map_images(args),
            progress=not args.quiet,
        )
    code = _report_diagnosis(run)
    if args.probes is not None:
        graph_for = (lambda question: given) if given is not None else cities.question_graph
        _report_probes(args, run, graph_for)
    return code


def _report_probes(args: argparse.Namespace, run, graph_for) -> None:
    """Each wrong route put down to line following or reasoning by the same model's probes (printed, written)."""
    from reasonmap.options import report_skipped
    from vision.probe_attribution import ATTRIBUTIONS, probe_attribution_files

    path, found, problems = probe_attribution_files(
        run.diagnoses,
        args.questions,
        args.predictions,
        graph_for,
        probe_questions=args.probe_questions,
        probe_scored=args.probes,
        out=args.out,
    )
    report_skipped(problems)
    print("\n| Model | wrong routes | " + " | ".join(ATTRIBUTIONS) + " |")
    print("|---|" + "---:|" * (len(ATTRIBUTIONS) + 1))
    for model, row in found["models"].items():
        print(f"| {model} | {row['wrong']} | " + " | ".join(str(row[name]) for name in ATTRIBUTIONS) + " |")
    print(f"wrote {path}", file=sys.stderr)


def _map_images(args: argparse.Namespace):
    """A city's map image for ``--draw``: the one ``--map`` names, or the city's in ``--maps``; else none."""
    from graphkit.names import fold
    from vision.analyse import map_files

    if args.map:
        return lambda city: args.map
    if args.maps:
        files = map_files(args.maps)
        return lambda city: files.get(fold(city), {}).get("image")
    return None


def _report_diagnosis(run) -> int:
    from reasonmap.options import report_skipped
    from vision.diagnosis_report import summary_markdown

    report_skipped(run.problems)
    print(summary_markdown(run.summary), end="")
    print(f"wrote {', '.join(str(path) for path in run.outputs)}", file=sys.stderr)
    return 0


def _diagnose_folder(args: argparse.Namespace) -> int:
    """Diagnose answers about many cities: graphs from ``--metro-dir``, evidence from ``--evidence-dir``."""
    from pathlib import Path

    from graphkit.cities import CityGraphs
    from reasonmap.batch import executor_from
    from vision.analyse import read_evidence
    from vision.diagnosis_report import diagnose_files

    evidence = {}
    for path in sorted(Path(args.evidence_dir).glob("*.evidence.json")):
        found = read_evidence(path)
        evidence[found.city or path.name.removesuffix(".evidence.json").split("__")[-1]] = found
    with executor_from(args) as executor:
        run = diagnose_files(
            args.questions,
            args.predictions,
            evidence,
            CityGraphs(args.metro_dir).question_graph,
            out=args.out,
            colour_threshold=args.colour_threshold,
            layout_threshold=args.layout_threshold,
            executor=executor,
            draw=args.draw,
            progress=not args.quiet,
        )
    code = _report_diagnosis(run)
    if args.probes is not None:
        _report_probes(args, run, CityGraphs(args.metro_dir).question_graph)
    return code


def _add_map_options(parser: argparse.ArgumentParser) -> None:
    from reasonmap.options import BYTES_PER_PIXEL, DEFAULT_PIXEL_LIMIT, DEVICES, ENGINES, ROTATIONS

    parser.add_argument("--device", choices=DEVICES, default="auto", help="OCR on cpu or cuda (auto: cuda if present)")
    parser.add_argument("--engine", choices=ENGINES, default="rapidocr", help="OCR engine (default rapidocr)")
    parser.add_argument("--det-model-dir", help="paddleocr engine: local text-detection model folder")
    parser.add_argument("--rec-model-dir", help="paddleocr engine: local text-recognition model folder")
    parser.add_argument("--scale", type=float, help="working scale (default: chosen from the labels' height)")
    parser.add_argument("--rotations", choices=ROTATIONS, default="auto", help="passes for slanted labels")
    parser.add_argument(
        "--pixel-limit",
        type=int,
        help=f"refuse images with more pixels (default: available memory / {BYTES_PER_PIXEL} bytes,"
        f" at most {DEFAULT_PIXEL_LIMIT:,})",
    )
    parser.add_argument("--cache-dir", help="OCR cache (default $REASONMAP_CACHE/ocr or ~/.cache/reasonmap/ocr)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the OCR cache")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_vision_commands(commands, add_city_options=None, only: str | None = None) -> None:
    """Add ``ocr``, ``render`` and ``diagnose`` to the subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The command line's subcommands.
    add_city_options : callable, optional
        :func:`reasonmap.graph_commands.add_city_options` (the default).
    only : str, optional
        Add this one of them only (the command asked for: the others' options are not built).
    """
    if add_city_options is None:
        from reasonmap.graph_commands import add_city_options
    for name, add in _BUILDERS.items():
        if only in (None, name):
            add(commands, add_city_options)


def _add_ocr(commands, add_city_options) -> None:
    from reasonmap.batch import add_executor_options

    ocr = commands.add_parser("ocr", help="read a map: station recall, boxes, unmatched texts (and line colours)")
    ocr.add_argument("map", metavar="MAP", nargs="?", help="the map image (as --map FILE)")
    ocr.add_argument("--map", dest="map_file", metavar="FILE", help="the map image, spelt as diagnose spells it")
    add_city_options(ocr, allow_all=True, allow_dir=True)
    _add_map_options(ocr)
    ocr.add_argument("--json", action="store_true", help="print the JSON report")
    ocr.add_argument("--lines", action="store_true", help="also estimate line colours, paths and alike pairs")
    ocr.add_argument("--evidence", metavar="FILE", help="write the map evidence for `diagnose --evidence`")
    ocr.add_argument("--maps", metavar="DIR", help="read every map in DIR (<city>.png or <country>__<city>.png)")
    ocr.add_argument("--evidence-dir", metavar="DIR", help="--maps: one <map>.evidence.json per map")
    add_executor_options(ocr)
    ocr.set_defaults(run=cmd_ocr)


def _add_render(commands, add_city_options) -> None:
    from reasonmap.batch import add_executor_options, add_knob_options
    from reasonmap.options import PALETTES

    render = commands.add_parser("render", help="draw a synthetic map with its ground truth (MAP.truth.json)")
    add_city_options(render, allow_all=True, allow_dir=True)
    render.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the layout's tie-breaks and colours (default: 0)"
    )
    render.add_argument("--size", type=int, help="longest side in px, up to 8000 (default: from the station count)")
    render.add_argument(
        "--palette", choices=PALETTES, default="normal", help="line colours: normal, or confusable (near-equal pairs)"
    )
    render.add_argument("--rotate-labels", action="store_true", help="draw every third label at 45°")
    add_knob_options(render)
    render.add_argument(
        "--out",
        required=True,
        metavar="MAP.png",
        help="the map: .png, or .jpg/.jpeg for JPEG bytes; with --all or --metro-dir: a folder",
    )
    render.add_argument("--quiet", action="store_true", help="no progress bar")
    add_executor_options(render)
    render.set_defaults(run=cmd_render)


def _add_diagnose(commands, add_city_options) -> None:
    from reasonmap.batch import add_executor_options

    diagnose = commands.add_parser("diagnose", help="label each answer: a grounding or a reasoning failure")
    diagnose.add_argument("--questions", required=True, help="the question records the answers are to")
    diagnose.add_argument("--predictions", required=True, help="the answers to diagnose (prediction records)")
    source = diagnose.add_mutually_exclusive_group(required=True)
    source.add_argument("--map", metavar="FILE", help="the map image the model saw (read with OCR; cached)")
    source.add_argument("--evidence", help="map evidence written by `reasonmap ocr --evidence`")
    source.add_argument("--evidence-dir", help="with --metro-dir: the evidence of many maps (`ocr --maps`)")
    source.add_argument(
        "--maps",
        metavar="DIR",
        help="one map per city: CITY.evidence.json, CITY.truth.json (with --truth) or CITY.png/.jpg"
        " (country__ prefixes allowed); graphs from the embedded cities unless --city/--metro",
    )
    diagnose.add_argument(
        "--truth",
        action="store_true",
        help="with --map or --maps: use MAP.truth.json of a rendered map (graphs: --city, --metro or --metro-dir)",
    )
    add_city_options(diagnose, allow_dir=True, required=False)
    _add_map_options(diagnose)
    diagnose.add_argument(
        "--colour-threshold", type=float, default=10.0, help="CIEDE2000 under which colours are alike"
    )
    diagnose.add_argument("--layout-threshold", type=float, help="px under which a line runs near (default: 3 labels)")
    diagnose.add_argument("--out", required=True, help="diagnoses (JSON Lines); summaries are written beside it")
    diagnose.add_argument(
        "--draw",
        metavar="DIR",
        help="draw each wrong answer's route and the reference on its map: DIR/<id>__<model>__<kind>.png",
    )
    diagnose.add_argument(
        "--probes",
        metavar="SCORED",
        help="the same models' scored probes (`score --task probe --out`): each wrong route put down to line"
        " following or reasoning, in OUT's stem.probes.json (needs --probe-questions)",
    )
    diagnose.add_argument("--probe-questions", metavar="FILE", help="with --probes: the probes they answer")
    add_executor_options(diagnose)
    diagnose.set_defaults(run=cmd_diagnose)


#: the builder of each subcommand, in the order ``reasonmap --help`` lists them
_BUILDERS = {
    "ocr": _add_ocr,
    "render": _add_render,
    "diagnose": _add_diagnose,
}
