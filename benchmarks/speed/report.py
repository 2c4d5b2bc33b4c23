"""Speed and memory of writing a scoring report for many models: summary, table and figures.

Run ``python -m benchmarks.speed.report [--models 300 7803] [--cities rome,geneva] [--per-city 6]``.
For each model count it generates questions on the cities, makes seeded
synthetic verdicts (every model answers every question, short and long),
then times :func:`benchmarks.reasonmap.report.summarize` and
:func:`~benchmarks.reasonmap.report.write_report` (``summary.json``,
``table.md`` and the two figures, whose plots draw at most
:data:`~benchmarks.plotting.PLOT_MODELS` models) into a temporary folder.
Each count runs in a fresh process, so its ``peak_rss_mb`` (the process's
peak resident memory, Python and the imports included; ``base_rss_mb`` is
that peak before the work) is its own. One line per count goes to stderr;
the last line printed is one JSON object with the figures per count under
``runs``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context


def _peak_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:  # not on this system (Windows)
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)  # bytes on macOS, KiB on Linux


def measure(models: int, cities: tuple[str, ...], per_city: int, seed: int) -> dict:
    """Summarize and write the report of ``models`` synthetic models; the figures of this one run."""
    import matplotlib

    matplotlib.use("Agg")
    from benchmarks.reasonmap.generate import generate_set
    from benchmarks.reasonmap.records import Verdict
    from benchmarks.reasonmap.report import summarize, write_report
    from graphkit import city_graph

    questions = generate_set([city_graph(city) for city in cities], seed=seed, per_city=per_city)
    base = _peak_rss_mb()
    rng = random.Random(seed)
    verdicts = [
        Verdict(question.id, f"model-{number:05}", kind, None, int(rng.random() < 0.4), 0.0, weight=1.0)
        for number in range(models)
        for question in questions
        for kind in ("short", "long")
    ]
    started = time.perf_counter()
    summary = summarize(verdicts, {question.id: question for question in questions}, weighting="paper")
    summarized = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        write_report(folder, summary)
    written = time.perf_counter()
    return {
        "models": models,
        "questions": len(questions),
        "verdicts": len(verdicts),
        "summarize_seconds": round(summarized - started, 3),
        "write_seconds": round(written - summarized, 3),
        "seconds": round(written - started, 3),
        "base_rss_mb": base,
        "peak_rss_mb": _peak_rss_mb(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.report", description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, nargs="+", default=[300, 7803], help="model counts (default 300 7803)")
    parser.add_argument("--cities", default="rome,geneva", help="comma-separated cities (default rome,geneva)")
    parser.add_argument("--per-city", type=int, default=6, help="questions per city (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if any(count < 1 for count in args.models):
        parser.error("--models: each count must be at least 1")
    cities = tuple(args.cities.split(","))
    runs = []
    for count in args.models:
        # a fresh process per count: its peak memory is its own
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            figures = pool.submit(measure, count, cities, args.per_city, args.seed).result()
        runs.append(figures)
        print(
            f"{count:,} models: report written in {figures['seconds']:.2f} s "
            f"(summary {figures['summarize_seconds']:.2f} s), peak RSS {figures['peak_rss_mb']} MB",
            file=sys.stderr,
        )
    print(json.dumps({"runs": runs}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
