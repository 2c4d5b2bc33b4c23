"""Speed and recall of map OCR: seconds per megapixel, rotated passes included.

Run ``python -m benchmarks.speed.ocr [--maps DIR] [--only rome,miami] [--limit N] [--threads 1,all]
[--device cpu|cuda]``.
It reads each ``<country>__<city>.png`` under ``--maps`` (default: the
workplace's ``../shared/data/maps``) with :func:`vision.ocr.read_map_texts`,
the cache off, grounds the readings in the city's Metro Data and prints one
line per map. With no real maps at hand (``--rendered``, or when the folder
is missing) it renders synthetic maps of a few embedded cities instead. The
last line printed is one JSON object: ``seconds_per_megapixel`` (all the
maps' seconds over all their megapixels; the engine is loaded first and
its loading time reported apart as ``engine_seconds``), ``cpu_seconds_per_megapixel``
(the process's CPU time over the same megapixels: on one thread, what the wall seconds would be on an idle
machine), ``mean_recall``, ``device`` and per-map figures under ``maps``. On rendered maps it also checks the line
colours estimated from the OCR's label boxes against the truth
(``colours_within_10``: the share of lines within CIEDE2000 10).

``--threads`` reads the maps once per thread count given (default ``1,all``:
one core, then every core; OpenCV's threads follow), and reports each
reading's ``seconds_per_megapixel`` under ``by_threads``, as
``seconds_per_megapixel_one_core`` and ``seconds_per_megapixel_all_cores``
too (``cores``: how many there are); the per-map figures, recall and
``seconds_per_megapixel`` are the last reading's. ``--limit N`` reads the
first N maps only (by file name), for a quick run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from graphkit.cities import city_graph, city_names
from vision.grounding import ground_stations
from vision.ocr import OcrSettings, read_map_texts


def _shared_data(checkout: Path) -> Path:
    """The workplace's copy of the benchmark's data: where $REASONMAP_SHARED_DATA says, else ``shared/data``
    beside the checkout or beside a folder above it (a worktree in a folder of worktrees), nearest first."""
    if "REASONMAP_SHARED_DATA" in os.environ:
        return Path(os.environ["REASONMAP_SHARED_DATA"])
    for folder in checkout.parents:
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    return checkout.parent / "shared" / "data"


SHARED_DATA = _shared_data(Path(__file__).resolve().parents[2])
DEFAULT_MAPS = SHARED_DATA / "maps"
RENDERED_CITIES = ("rome", "geneva", "hefei")


def _real_maps(folder: Path, only: set[str] | None) -> list[tuple[str, Path]]:
    found = []
    known = set(city_names())
    for path in sorted(folder.glob("*.png")):
        city = path.stem.split("__")[-1]
        if city in known and (only is None or city in only):
            found.append((city, path))
    return found


def _rendered_maps(folder: Path, only: set[str] | None, palette: str = "normal") -> list[tuple[str, Path]]:
    from vision.render import render_map, write_rendered

    cities = RENDERED_CITIES if not only else city_names() if "all" in only else sorted(only)
    made = []
    for city in cities:
        image, _ = write_rendered(render_map(city_graph(city), seed=0, palette=palette), folder / f"{city}.png")
        made.append((city, image))
    return made


def _colour_check(path: Path, grounding, graph) -> tuple[int, int] | None:
    """Lines whose estimated colour is within CIEDE2000 10 of a rendered map's truth, and all its lines."""
    from vision.colours import with_lines
    from vision.evidence import ciede2000, read_truth
    from vision.images import read_rgb
    from vision.render import truth_path

    if not truth_path(path).is_file():
        return None
    truth = read_truth(truth_path(path))
    lines = with_lines(grounding.stations, read_rgb(path), graph)
    good = sum(
        line.colour is not None and ciede2000(line.colour, truth.lines[name].colour) <= 10
        for name, line in lines.items()
    )
    return good, len(lines)


def _warm(settings: OcrSettings) -> float:
    """Load the engine and run it once, so that no map's figure carries the one-off model loading."""
    import numpy

    from vision.engines import open_engine

    started = time.perf_counter()
    open_engine(settings.engine_config()).read(numpy.full((64, 256, 3), 255, numpy.uint8))
    return time.perf_counter() - started


def _threads(text: str) -> list[int | None]:
    """``1,all`` as thread counts (``None``: every core)."""
    counts = []
    for part in text.split(","):
        if part == "all":
            counts.append(None)
        elif part.isdigit() and 1 <= int(part) <= (os.cpu_count() or 1):
            counts.append(int(part))
        else:
            raise argparse.ArgumentTypeError(f"--threads: {part!r} is not 'all' nor 1..{os.cpu_count() or 1}")
    return counts


def run(maps: list[tuple[str, Path]], settings: OcrSettings, *, pixel_limit: int | None) -> dict:
    import cv2

    cv2.setNumThreads(settings.threads or -1)  # -1: OpenCV's default, every core
    engine_seconds = _warm(settings)
    figures: dict[str, dict] = {}
    total_seconds = total_megapixels = total_cpu = 0.0
    for city, path in maps:
        started, cpu_started = time.perf_counter(), time.process_time()
        result = read_map_texts(path, settings, pixel_limit=pixel_limit, use_cache=False, progress=True)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
        graph = city_graph(city)
        grounding = ground_stations(
            result.texts, graph.stations, shown={s: graph.display_name(s) for s in graph.stations}
        )
        megapixels = result.width * result.height / 1e6
        colours = _colour_check(path, grounding, graph)
        total_seconds += seconds
        total_cpu += cpu_seconds
        total_megapixels += megapixels
        figures[path.stem] = {
            "city": city,
            "megapixels": round(megapixels, 2),
            "seconds": round(seconds, 2),
            "seconds_per_megapixel": round(seconds / megapixels, 3),
            "cpu_seconds": round(cpu_seconds, 2),
            "recall": round(grounding.recall, 4),
            "stations": len(graph.stations),
            "scale": result.scale,
            "passes": result.passes,
            "missing": [name for name, found in grounding.stations.items() if not found.found],
        }
        if colours is not None:
            figures[path.stem]["colours_within_10"] = colours
        print(
            f"{path.stem}: {megapixels:.1f} MP in {seconds:.1f} s ({seconds / megapixels:.2f} s/MP, scale"
            f" {result.scale}), recall {grounding.recall:.1%} of {len(graph.stations)}",
            file=sys.stderr,
        )
        device = result.device
    recalls = [entry["recall"] for entry in figures.values()]
    checked = [entry["colours_within_10"] for entry in figures.values() if "colours_within_10" in entry]
    return {
        "maps": figures,
        "megapixels": round(total_megapixels, 2),
        "seconds": round(total_seconds, 2),
        "seconds_per_megapixel": round(total_seconds / total_megapixels, 3) if total_megapixels else None,
        "cpu_seconds": round(total_cpu, 2),
        "cpu_seconds_per_megapixel": round(total_cpu / total_megapixels, 3) if total_megapixels else None,
        "mean_recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
        "device": device if figures else None,
        "engine_seconds": round(engine_seconds, 2),
        "colours_within_10": [sum(good for good, _ in checked), sum(lines for _, lines in checked)]
        if checked
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.ocr", description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=Path, default=DEFAULT_MAPS, help="folder of <country>__<city>.png maps")
    parser.add_argument("--only", help="comma-separated cities (e.g. rome,miami; with --rendered, 'all' for 30)")
    parser.add_argument("--rendered", action="store_true", help="render synthetic maps instead of reading --maps")
    parser.add_argument("--palette", choices=("normal", "confusable"), default="normal", help="of rendered maps")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--rotations", choices=("auto", "all", "none"), default="auto")
    parser.add_argument("--pixel-limit", type=int, help="default: what the available memory allows")
    parser.add_argument("--limit", type=int, metavar="N", help="read only the first N maps (by file name)")
    parser.add_argument(
        "--threads", type=_threads, default="1,all", help="thread counts to read with, in turn (default: 1,all)"
    )
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit must be at least 1, got {args.limit}")
    only = set(args.only.split(",")) if args.only else None
    with tempfile.TemporaryDirectory() as scratch:
        if args.rendered or not args.maps.is_dir():
            if not args.rendered:
                print(f"no maps at {args.maps}: rendering synthetic ones", file=sys.stderr)
            maps = _rendered_maps(Path(scratch), only, args.palette)
            source = "rendered"
        else:
            maps = _real_maps(args.maps, only)
            source = str(args.maps)
        by_threads = {}
        for threads in args.threads:
            settings = OcrSettings(device=args.device, rotations=args.rotations, threads=threads)
            figures = run(maps[: args.limit], settings, pixel_limit=args.pixel_limit)
            by_threads[str(threads or "all")] = {
                "seconds": figures["seconds"],
                "seconds_per_megapixel": figures["seconds_per_megapixel"],
                "cpu_seconds_per_megapixel": figures["cpu_seconds_per_megapixel"],
            }
    figures["source"] = source
    figures["by_threads"] = by_threads
    figures["cores"] = os.cpu_count()
    for key, name in (("1", "one_core"), ("all", "all_cores")):
        if key in by_threads:
            figures[f"seconds_per_megapixel_{name}"] = by_threads[key]["seconds_per_megapixel"]
    print(json.dumps(figures, ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
