"""A whole synthetic benchmark: networks, maps with their truth, questions with references.

``build_synthetic_set`` makes ``count`` networks (:mod:`graphkit.synth`),
each network one job for an executor (:mod:`graphkit.executors`): the worker
generates it, asks its route and ReasonMap-Plus questions and draws its map,
and hands the texts and bytes back; this process writes them, in network
order, so the folder is the same byte for byte whichever executor ran it::

    DIR/metro/synthetic/synth_0000.json   Metro Data (+ .overlay.json with loops or branches)
    DIR/maps/synth_0000.png               the map, and synth_0000.truth.json (with render)
    DIR/questions.jsonl                   route questions with references (with questions)
    DIR/plus.jsonl                        ReasonMap-Plus questions (with questions)
    DIR/probes.jsonl                      perception probes (with probes; tied to the map's truth with render)
    DIR/manifest.json                     what was asked, and each network's statistics
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from graphkit.executors import Executor, open_executor
from graphkit.files import atomic_writer

__all__ = ["SynthOptions", "SynthResult", "build_synthetic_set", "network_name", "COUNTRY"]

COUNTRY = "synthetic"


@dataclass(frozen=True, slots=True)
class SynthOptions:
    """What every network of a set is made of, and what is made from it.

    With ``difficulty``, each network takes the lines, stations and transfers of
    an embedded city of that map tier, drawn with the seed (``stations``,
    ``lines`` and ``transfers`` are then ignored).
    """

    stations: int = 60
    lines: int = 4
    transfers: int | None = None
    loops: int = 0
    branches: int = 0
    script: str = "latin"
    difficulty: str | None = None
    seed: int = 0
    questions: bool = True
    render: bool = False
    per_city: int = 40
    quota: str = "20:15:5"
    per_type: int = 10
    probes: bool = False


@dataclass(frozen=True, slots=True)
class SynthResult:
    """What one worker made of one network (texts and bytes, ready to write)."""

    city: str
    stats: dict[str, Any]
    metro_json: str
    overlay_json: str | None
    questions: str
    plus: str
    png: bytes | None
    truth: str | None
    probes: str = ""


def network_name(index: int) -> str:
    """The city name of the ``index``-th network of a set.

    Examples
    --------
    >>> network_name(7)
    'synth_0007'
    """
    return f"synth_{index:04d}"


def _jsonl(records) -> str:
    return "".join(json.dumps(record.to_dict(), ensure_ascii=False) + "\n" for record in records)


def build_network(job: tuple[SynthOptions, int]) -> SynthResult:
    """Make one network of a set and all that comes from it (run by a worker)."""
    from graphkit.graph import compile_graph
    from graphkit.stats import city_stats
    from graphkit.synth import synthesize_network, tier_shapes

    options, index = job
    city = network_name(index)
    stations, lines, transfers = options.stations, options.lines, options.transfers
    if options.difficulty is not None:
        rng = random.Random(f"reasonmap.synthetic:{options.seed}:{options.difficulty}:{index}")
        lines, stations, transfers = rng.choice(tier_shapes(options.difficulty))
    network = synthesize_network(
        stations=stations,
        lines=lines,
        transfers=transfers,
        loops=min(options.loops, lines),
        branches=min(options.branches, max(0, lines - options.loops)),
        seed=options.seed,
        script=options.script,  # type: ignore[arg-type]
        city=city,
        country=COUNTRY,
    )
    graph = compile_graph(network.metro, network.overlay)
    questions = plus = ""
    if options.questions:
        from benchmarks.plus.questions import generate_plus_set
        from benchmarks.reasonmap.generate import generate_questions, parse_quota

        quota = parse_quota(options.quota)
        questions = _jsonl(generate_questions(graph, seed=options.seed, per_city=options.per_city, quota=quota))
        plus = _jsonl(generate_plus_set([graph], seed=options.seed, per_type=options.per_type))
    png = truth = None
    if options.render:
        from vision.render import png_bytes, render_map, truth_json

        rendered = render_map(graph, seed=options.seed)
        png, truth = png_bytes(rendered), truth_json(rendered.truth)
    probes = ""
    if options.probes:
        from benchmarks.probe.questions import generate_probe_set

        drawn = json.loads(truth) if truth is not None else None  # lines named as the map draws them
        probes = _jsonl(generate_probe_set([graph], seed=options.seed, per_type=options.per_type, truth=drawn))
    stats = city_stats(network.metro).to_dict()
    stats["shapes"] = {name: topology.shape for name, topology in graph.lines.items() if topology.shape != "path"}
    return SynthResult(city, stats, network.metro_json, network.overlay_json, questions, plus, png, truth, probes)


def _write_text(path: Path, text: str) -> None:
    with atomic_writer(path) as stream:
        stream.write(text)


def _write_result(folder: Path, result: SynthResult) -> None:
    metro_folder, maps = folder / "metro" / COUNTRY, folder / "maps"
    _write_text(metro_folder / f"{result.city}.json", result.metro_json)
    if result.overlay_json is not None:
        _write_text(metro_folder / f"{result.city}.overlay.json", result.overlay_json)
    if result.png is not None and result.truth is not None:
        with atomic_writer(maps / f"{result.city}.png", binary=True) as stream:
            stream.write(result.png)
        _write_text(maps / f"{result.city}.truth.json", result.truth)


def build_synthetic_set(
    out: str | Path,
    count: int,
    options: SynthOptions = SynthOptions(),
    *,
    executor: Executor | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Write a synthetic benchmark of ``count`` networks into the folder ``out``; returns the manifest.

    Raises
    ------
    ValueError
        ``count`` is not positive, or the options cannot make a network.
    """
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    folder = Path(out)
    own = executor is None
    executor = executor or open_executor("local", workers=1)
    networks: list[dict[str, Any]] = []
    try:
        results: Iterator[SynthResult] = executor.map(build_network, ((options, index) for index in range(count)))
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=count, unit="network", desc="synthesizing")
        with contextlib.ExitStack() as stack:
            names = ("questions.jsonl", "plus.jsonl") if options.questions else ()
            names += ("probes.jsonl",) if options.probes else ()
            streams = [stack.enter_context(atomic_writer(folder / name)) for name in names]
            for result in results:
                _write_result(folder, result)
                texts = ((result.questions, result.plus) if options.questions else ()) + (
                    (result.probes,) if options.probes else ()
                )
                for stream, text in zip(streams, texts):
                    stream.write(text)
                networks.append(result.stats | {"questions": result.questions.count("\n")})
    finally:
        if own:
            executor.close()
    asked = asdict(options)
    if not options.probes:  # a set without probes keeps the manifest it always had
        del asked["probes"]
    manifest = {"count": count, "options": asked, "networks": networks}
    _write_text(folder / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    return manifest
