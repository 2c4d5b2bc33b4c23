"""Batch work of the command line: the executor options every batch command shares (``--executor``,
``--workers``, ``--ray-address``), the ``synth`` command, and the per-map jobs of ``render`` and ``ocr``
over folders.

Jobs carry what a worker needs (Metro Data travels with the job; a map to read is a path every worker
must see) and hand back texts and bytes; the command writes the files, in order, so the outputs are the
same whichever executor ran the jobs.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonmap.options import seed_value

if TYPE_CHECKING:
    from graphkit.metro import MetroData
    from graphkit.overlays import Overlay


def _workers(text: str) -> int:
    """``--workers``: a positive integer (argparse names the option in its error)."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {count}")
    return count


def add_executor_options(parser: argparse.ArgumentParser, *, local_workers: str | None = None) -> None:
    """Add the options that choose where a batch command's work runs (see :mod:`graphkit.executors`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    local_workers : str, optional
        The command's own default of ``--workers`` on the local executor, as its help says it (the command
        applies it); otherwise every CPU.
    """
    from reasonmap.options import EXECUTORS

    default = f"{local_workers}; every CPU on Ray" if local_workers else "every CPU; 1: inline"
    parser.add_argument("--executor", choices=EXECUTORS, default="local", help="a local process pool or a Ray cluster")
    parser.add_argument("--workers", type=_workers, help=f"processes, or Ray tasks at once (default: {default})")
    parser.add_argument("--ray-address", metavar="ADDR", help="the Ray cluster to join (default: start a local one)")


def executor_from(args: argparse.Namespace):
    """The executor the options ask for (use it in a ``with`` block).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    Executor
        :func:`graphkit.executors.open_executor` of ``--executor``, ``--workers`` and ``--ray-address``.

    Raises
    ------
    ValueError
        No Ray cluster at ``--ray-address`` (or ``RAY_ADDRESS``), in our option's words, not Ray's.
    """
    import os

    from graphkit.executors import open_executor

    try:
        return open_executor(args.executor, workers=args.workers, address=args.ray_address)
    except ConnectionError as error:
        if args.executor != "ray":
            raise
        # Ray's message tells the user to set its own `--address` flag: the toolkit's option is --ray-address
        reason = str(error).split(" Please specify", 1)[0].strip() or type(error).__name__
        where = (
            f"--ray-address {args.ray_address}"
            if args.ray_address
            else f"RAY_ADDRESS={os.environ.get('RAY_ADDRESS', '')} (from the environment)"
        )
        raise ValueError(
            f"{where}: no Ray cluster to join ({reason}); give the address of a running one with --ray-address,"
            " or leave --ray-address out (and RAY_ADDRESS unset) to start a local one"
        ) from None


def add_knob_options(parser: argparse.ArgumentParser) -> None:
    """Add the visual knobs a map is drawn with (:mod:`vision.knobs`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    """
    parser.add_argument(
        "--label-scale", type=float, default=1.0, metavar="F", help="label size relative to today's (default 1)"
    )
    parser.add_argument(
        "--colour-distance",
        type=float,
        metavar="DE",
        help="line colours whose closest two are DE CIEDE2000 apart (small: confusable; default: the palette's)",
    )
    parser.add_argument(
        "--crossings",
        type=int,
        metavar="N",
        help="lines crossing away from stations N times, as near as a tangled layout gets (default: the tidy one)",
    )


def knobs_from(args: argparse.Namespace):
    """The :class:`vision.knobs.Knobs` the options ask for.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    Knobs
        The knobs (a knob not given is ``None``: the renderer's default).

    Raises
    ------
    ValueError
        A knob out of range, named by its option.
    """
    from vision.knobs import Knobs

    for option, value, low, high in (
        ("--label-scale", args.label_scale, 0, 4),
        ("--colour-distance", args.colour_distance, 0, 100),
    ):
        if value is not None and not low < value <= high:
            raise ValueError(f"{option} {value:g}: must be above {low} and at most {high}")
    if args.crossings is not None and not 0 <= args.crossings <= 1000:
        raise ValueError(f"--crossings {args.crossings}: must be from 0 to 1000")
    return Knobs(args.label_scale, args.colour_distance, args.crossings)


def cmd_synth(args: argparse.Namespace) -> int:
    """``reasonmap synth``: one synthetic network (its files and its statistics), or a set with ``--count``."""
    if args.count is None:
        from graphkit.io import write_network
        from graphkit.stats import city_stats
        from graphkit.synth import synthesize_network

        if args.difficulty or args.render or args.questions or args.probes or args.sweep:
            raise ValueError(
                "--difficulty, --render, --questions, --probes and --sweep make a set: add --count M and --out DIR"
            )
        network = synthesize_network(
            stations=args.stations,
            lines=args.lines,
            transfers=args.transfers,
            loops=args.loops,
            branches=args.branches,
            seed=args.seed,
            script=args.script,
            city=Path(args.out).stem,
        )
        files = write_network(network, args.out)
        stats = city_stats(network.metro)
        print(
            f"wrote {' and '.join(map(str, files))}: {stats.lines} lines, {stats.stations} stations, "
            f"{stats.transfer_stations} transfers ({stats.difficulty} map)",
            file=sys.stderr,
        )
        return 0
    from reasonmap.synthetic import SynthOptions, build_synthetic_set, parse_sweep

    knobs = knobs_from(args)
    if (args.sweep or not knobs.default) and not args.render:
        raise ValueError("--sweep, --label-scale, --colour-distance and --crossings change the maps: add --render")
    sweep = parse_sweep(args.sweep) if args.sweep else None
    if sweep is not None:
        for value in sweep[1]:  # each value checked as its option would be, before any network is made
            knobs_from(argparse.Namespace(**(vars(args) | {sweep[0]: value})))
    options = SynthOptions(
        stations=args.stations,
        lines=args.lines,
        transfers=args.transfers,
        loops=args.loops,
        branches=args.branches,
        script=args.script,
        difficulty=args.difficulty,
        seed=args.seed,
        questions=args.questions,
        render=args.render,
        probes=args.probes,
        per_city=args.per_city,
        quota=args.quota,
        per_type=args.per_type,
        label_scale=knobs.label_scale,
        colour_distance=knobs.colour_distance,
        crossings=knobs.crossings,
        sweep=sweep,
    )
    with executor_from(args) as executor:
        manifest = build_synthetic_set(args.out, args.count, options, executor=executor, progress=not args.quiet)
    tiers = ", ".join(f"{n['city']} {n['difficulty']}" for n in manifest["networks"][:5])
    more = " ..." if args.count > 5 else ""
    questions = sum(n["questions"] for n in manifest["networks"])
    print(
        f"wrote {args.count} networks ({tiers}{more}) and {questions} route questions to {args.out}/", file=sys.stderr
    )
    return 0


def add_synth_command(commands) -> None:
    """Add ``synth``: one synthetic network, or a whole synthetic benchmark with ``--count``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The command line's subcommands.
    """
    from reasonmap.options import SCRIPTS, TIERS

    synth = commands.add_parser("synth", help="synthetic networks (Metro Data), or a whole benchmark with --count")
    synth.add_argument("--stations", type=int, default=60, help="stations per network (default 60)")
    synth.add_argument("--lines", type=int, default=4, help="lines per network (default 4)")
    synth.add_argument("--transfers", type=int, help="interchange stations (default: 12%% of the stations)")
    synth.add_argument("--loops", type=int, default=0, help="loop lines (default 0)")
    synth.add_argument("--branches", type=int, default=0, help="lines with a branch (default 0)")
    synth.add_argument("--script", choices=SCRIPTS, default="latin", help="station names: latin or cjk (Chinese)")
    synth.add_argument(
        "--seed", type=seed_value, default=0, metavar="S", help="seeds the networks, maps and questions (default: 0)"
    )
    synth.add_argument("--count", type=int, metavar="M", help="make a benchmark of M networks in the folder --out")
    synth.add_argument("--difficulty", choices=TIERS, help="--count: each network shaped like a city of this tier")
    synth.add_argument("--render", action="store_true", help="--count: draw each map with its truth (DIR/maps)")
    synth.add_argument("--questions", action="store_true", help="--count: route and Plus questions with references")
    synth.add_argument("--per-city", type=int, default=40, help="--questions: route questions per map at most")
    synth.add_argument("--quota", default="20:15:5", help="--questions: EASY:MIDDLE:HARD per map (default 20:15:5)")
    synth.add_argument("--per-type", type=int, default=10, help="--questions, --probes: questions per type and map")
    synth.add_argument(
        "--probes",
        action="store_true",
        help="--count: perception probes (DIR/probes.jsonl; lines as drawn with --render)",
    )
    add_knob_options(synth)
    synth.add_argument(
        "--sweep",
        metavar="KNOB=v1,v2,...",
        help="--render: draw every network at each value of one knob (label-scale, colour-distance or crossings),"
        " the same questions and probes at each: DIR/maps/KNOB=v/, DIR/probes/KNOB=v.jsonl",
    )
    synth.add_argument("--out", required=True, metavar="PATH", help="city.json, or with --count a folder")
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    add_executor_options(synth)
    synth.set_defaults(run=cmd_synth)


# -- the vision batch jobs: one map per job; the driver writes every file, in map order --------------------


@dataclass(frozen=True, slots=True)
class RenderJob:
    """One map to draw: the network (its data travels with the job, no shared disk needed) and the options.

    Attributes
    ----------
    metro : MetroData
    overlay : Overlay
        The network.
    seed : int
        Seeds the layout.
    size : int or None
        The map's longest side in pixels (``None``: the renderer's default).
    palette : str
        The line colours' palette.
    rotate_labels : bool
        Labels may be drawn slanted.
    knobs : Knobs or None
        The visual knobs.
    """

    metro: MetroData
    overlay: Overlay
    seed: int
    size: int | None
    palette: str
    rotate_labels: bool
    knobs: Any = None


def render_job(job: RenderJob) -> tuple[str, bytes, str]:
    """The city, the PNG bytes and the truth text of one map (run by a worker).

    Parameters
    ----------
    job : RenderJob
        The map to draw.

    Returns
    -------
    city : str
    png : bytes
        The map.
    truth : str
        Its truth, JSON.
    """
    from graphkit.graph import compile_graph
    from vision.render import png_bytes, render_map, truth_json

    rendered = render_map(
        compile_graph(job.metro, job.overlay),
        seed=job.seed,
        size=job.size,
        palette=job.palette,  # type: ignore[arg-type]
        rotate_labels=job.rotate_labels,
        **({"knobs": job.knobs} if job.knobs is not None else {}),
    )
    return job.metro.city, png_bytes(rendered), truth_json(rendered.truth)


@dataclass(frozen=True, slots=True)
class OcrJob:
    """One map to read: its image's path (every worker must see it) and its city's network.

    Attributes
    ----------
    map_path : str
        The image.
    metro : MetroData
    overlay : Overlay
        Its city's network.
    settings : OcrSettings or None
        The OCR's settings.
    pixel_limit : int or None
        The most pixels decoded.
    cache_dir : str or None
        The OCR cache's folder.
    use_cache : bool
        Read and write the cache.
    """

    map_path: str
    metro: MetroData
    overlay: Overlay
    settings: Any
    pixel_limit: int | None
    cache_dir: str | None
    use_cache: bool


def ocr_job(job: OcrJob) -> tuple[Any, float, float]:
    """The map evidence, the station recall and the seconds of one map (run by a worker; one OCR engine
    per worker process, loaded by its first map).

    Parameters
    ----------
    job : OcrJob
        The map to read.

    Returns
    -------
    evidence : MapEvidence
        What the map shows.
    recall : float
        The share of the city's stations found.
    seconds : float
        How long it took.
    """
    from graphkit.graph import compile_graph
    from vision.analyse import analyse_map

    analysis = analyse_map(
        job.map_path,
        compile_graph(job.metro, job.overlay),
        settings=job.settings,
        pixel_limit=job.pixel_limit,
        cache_dir=job.cache_dir,
        use_cache=job.use_cache,
        lines=True,
    )
    return analysis.evidence, analysis.recall, analysis.seconds


def metro_files(folder: str | Path) -> list[Path]:
    """The Metro Data files under ``folder`` (overlays left out), sorted.

    Parameters
    ----------
    folder : str or Path

    Returns
    -------
    list of Path

    Raises
    ------
    ValueError
        ``folder`` is no folder, or holds no Metro Data file.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: no such folder of Metro Data")
    found = [path for path in sorted(root.rglob("*.json")) if not path.name.endswith(".overlay.json")]
    if not found:  # an empty output would be written as if the folder held networks without pairs
        raise ValueError(f"{root}: no Metro Data file (*.json, overlays aside) in this folder")
    return found


def map_files(folder: str | Path) -> list[tuple[str, Path]]:
    """``(city, path)`` of the maps in ``folder``: ``<city>.png`` or the benchmark's ``<country>__<city>.png``.

    Parameters
    ----------
    folder : str or Path

    Returns
    -------
    list of (str, Path)
        Sorted by file name.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: no such folder of maps")
    return [(path.stem.split("__")[-1], path) for path in sorted(root.glob("*.png"))]
