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

With ``sweep`` (one knob of :mod:`vision.knobs` and its values) every network is drawn once per value,
with the same questions and probes, only the picture changing, so results across values are paired::

    DIR/maps/<knob>=<value>/synth_0000.png    the map at that value, and its truth (with the realised knobs)
    DIR/probes/<knob>=<value>.jsonl           the probes tied to those maps (ids and texts equal at every value)
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

    Attributes
    ----------
    stations, lines : int
        Each network's stations and lines (:func:`graphkit.synth.synthesize_network`).
    transfers : int or None
        Its interchange stations (``None``: :func:`graphkit.synth.default_transfers`).
    loops, branches : int
        Its lines that are loops, and lines with one branch (each line at most one of them; capped at its
        lines).
    script : str
        The script of the station names (:data:`graphkit.synth.SCRIPTS`).
    difficulty : str or None
        A map tier: each network then takes the lines, stations and transfers of an embedded city of that
        tier, drawn with the seed (``stations``, ``lines`` and ``transfers`` are then ignored).
    seed : int
        Seeds the networks, their questions and their maps.
    questions : bool
        Ask each network's route and ReasonMap-Plus questions (the tasks' generation records).
    render : bool
        Draw each network's map, with its truth.
    per_city, quota : int, str
        The route questions' generation settings (``generate --per-city``, ``--quota``).
    per_type : int
        The ReasonMap-Plus questions' and the probes' per type and map.
    probes : bool
        Ask perception probes (tied to the map's truth with ``render``).
    label_scale, colour_distance, crossings : float, float or None, int or None
        The map's knobs (:mod:`vision.knobs`).
    sweep : (str, tuple of float) or None
        One knob and its values: every network drawn once per value, with the same questions and probes.
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
    label_scale: float = 1.0
    colour_distance: float | None = None
    crossings: int | None = None
    sweep: tuple[str, tuple[float, ...]] | None = None


@dataclass(frozen=True, slots=True)
class SynthResult:
    """What one worker made of one network (texts and bytes, ready to write).

    Attributes
    ----------
    city : str
        The network's name (:func:`network_name`).
    stats : dict
        Its statistics (:func:`graphkit.stats.city_stats`), its lines' shapes and, with a sweep, each map's knobs.
    metro_json, overlay_json : str, str or None
        Its Metro Data and topology overlay (``None``: none needed).
    questions, plus, probes : str
        Its route questions, ReasonMap-Plus questions and probes as JSON Lines (empty: not asked).
    png, truth : bytes or None, str or None
        Its map and the map's truth (``None``: not drawn, or drawn per value of a sweep).
    drawn : tuple of (str, bytes, str, str)
        A sweep's maps: per value, the folder name, PNG, truth and probes.
    """

    city: str
    stats: dict[str, Any]
    metro_json: str
    overlay_json: str | None
    questions: str
    plus: str
    png: bytes | None
    truth: str | None
    probes: str = ""
    drawn: tuple[tuple[str, bytes, str, str], ...] = ()  # a sweep: (folder name, PNG, truth, probes) per value


def network_name(index: int) -> str:
    """The city name of the ``index``-th network of a set.

    Parameters
    ----------
    index : int
        The network's position in the set, from 0.

    Returns
    -------
    str
        ``synth_`` and the index in four digits.

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
        from benchmarks.tasks import get_task

        route, plus_set = get_task("route").generation, get_task("plus").generation
        seeded = {"seed": options.seed, "progress": False}
        questions = _jsonl(route.make([graph], **seeded, per_city=options.per_city, quota=options.quota))
        plus = _jsonl(plus_set.make([graph], **seeded, per_type=options.per_type))
    png = truth = None
    probes = ""
    drawn: list[tuple[str, bytes, str, str]] = []
    for folder, knobs in sweep_knobs(options) if options.render else [("", None)]:
        if knobs is not None:
            from vision.render import png_bytes, render_map, truth_json

            rendered = render_map(graph, seed=options.seed, knobs=knobs)
            if folder and "knobs" not in rendered.truth:  # a sweep's value that is today's map: knobs recorded too
                from vision.knobs import realised_knobs

                rendered.truth["knobs"] = realised_knobs(rendered.truth)
            png, truth = png_bytes(rendered), truth_json(rendered.truth)
        if options.probes:
            from benchmarks.tasks import get_task

            record = json.loads(truth) if truth is not None else None  # lines named as the map draws them
            make = get_task("probe").generation.make
            probes = _jsonl(make([graph], seed=options.seed, progress=False, per_type=options.per_type, truth=record))
        if folder and png is not None and truth is not None:
            drawn.append((folder, png, truth, probes))
    if drawn:
        png = truth = None
        probes = ""
    stats = city_stats(network.metro).to_dict()
    stats["shapes"] = {name: topology.shape for name, topology in graph.lines.items() if topology.shape != "path"}
    if drawn:
        stats["knobs"] = {folder: json.loads(text)["knobs"] for folder, _, text, _ in drawn}
    return SynthResult(
        city, stats, network.metro_json, network.overlay_json, questions, plus, png, truth, probes, tuple(drawn)
    )


def sweep_knobs(options: SynthOptions) -> list[tuple[str, Any]]:
    """The maps to draw of each network: ``(folder under maps/, Knobs)``; one map, folder ``""``, without a sweep.

    Examples
    --------
    >>> [folder for folder, _ in sweep_knobs(SynthOptions(render=True, sweep=("label_scale", (0.5, 1.0))))]
    ['label_scale=0.5', 'label_scale=1']
    """
    from dataclasses import replace

    from vision.knobs import Knobs

    base = Knobs(options.label_scale, options.colour_distance, options.crossings)
    if options.sweep is None:
        return [("", base)]
    knob, values = options.sweep
    return [(f"{knob}={value:g}", replace(base, **{knob: value})) for value in values]


def parse_sweep(text: str) -> tuple[str, tuple[float, ...]]:
    """``KNOB=v1,v2,...`` (``--sweep``) as the knob's name and its values.

    Raises
    ------
    ValueError
        Not of that form, an unknown knob (the message lists them), a value not a number, or one repeated.

    Examples
    --------
    >>> parse_sweep("colour-distance=2,5,20")
    ('colour_distance', (2.0, 5.0, 20.0))
    """
    from vision.knobs import KNOBS

    name, sign, values = text.partition("=")
    knob = name.strip().replace("-", "_")
    if not sign or not values.strip():
        raise ValueError(f"--sweep {text}: give KNOB=v1,v2,... (knobs: {', '.join(sorted(KNOBS))})")
    if knob not in KNOBS:
        raise ValueError(f"--sweep {text}: unknown knob {name.strip()!r} (knobs: {', '.join(sorted(KNOBS))})")
    try:
        numbers = tuple(float(value) for value in values.split(","))
    except ValueError:
        raise ValueError(f"--sweep {text}: each value must be a number ({KNOBS[knob]})") from None
    if knob == "crossings":
        if not all(number.is_integer() for number in numbers):
            raise ValueError(f"--sweep {text}: crossings are whole numbers")
        numbers = tuple(int(number) for number in numbers)
    if len(set(numbers)) < len(numbers):
        raise ValueError(f"--sweep {text}: a value is repeated")
    return knob, numbers


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
    for name, png, truth, _ in result.drawn:
        with atomic_writer(maps / name / f"{result.city}.png", binary=True) as stream:
            stream.write(png)
        _write_text(maps / name / f"{result.city}.truth.json", truth)


def _manifest(count: int, options: SynthOptions, networks: list[dict[str, Any]], swept: list[str]) -> dict[str, Any]:
    """The manifest of :func:`build_synthetic_set`: ``count``, the options asked, the networks and the sweep."""
    asked = asdict(options)
    for name, default in (
        ("probes", False),
        ("label_scale", 1.0),
        ("colour_distance", None),
        ("crossings", None),
        ("sweep", None),
    ):
        if asked[name] == default:  # a set without them keeps the manifest it always had
            del asked[name]
    manifest = {"count": count, "options": asked, "networks": networks}
    if options.sweep is not None:
        knob, values = options.sweep
        manifest["sweep"] = {
            "knob": knob,
            "values": list(values),
            "maps": [f"maps/{name}" for name in swept],
            **({"probes": [f"probes/{name}.jsonl" for name in swept]} if options.probes else {}),
        }
    return manifest


def build_synthetic_set(
    out: str | Path,
    count: int,
    options: SynthOptions = SynthOptions(),
    *,
    executor: Executor | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Write a synthetic benchmark of ``count`` networks into the folder ``out``; returns the manifest.

    Parameters
    ----------
    out : str or Path
        The folder to write (the module docstring lists its files).
    count : int
        How many networks.
    options : SynthOptions, optional
        What every network is made of, and what is made from it.
    executor : Executor, optional
        Runs one job per network (:mod:`graphkit.executors`; default: this process); the folder is the same
        byte for byte whichever ran them.
    progress : bool, optional
        Show a progress bar.

    Returns
    -------
    dict
        The manifest written to ``manifest.json``: ``count``, the ``options`` asked (those left at the
        defaults of later options omitted), each network's statistics and, with a sweep, its maps and probes.

    Raises
    ------
    ValueError
        ``count`` is not positive, or the options cannot make a network.
    """
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    if options.sweep is not None and not options.render:
        raise ValueError("a sweep draws each network at each value: it needs render (--render)")
    swept = [name for name, _ in sweep_knobs(options)] if options.sweep is not None else []
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
            if options.probes:  # a sweep's probes: one file per value, each tied to that value's maps
                names += tuple(f"probes/{name}.jsonl" for name in swept) or ("probes.jsonl",)
            streams = [stack.enter_context(atomic_writer(folder / name)) for name in names]
            for result in results:
                _write_result(folder, result)
                probes = [text for *_, text in result.drawn] if swept else [result.probes]
                texts = ((result.questions, result.plus) if options.questions else ()) + (
                    tuple(probes) if options.probes else ()
                )
                for stream, text in zip(streams, texts):
                    stream.write(text)
                networks.append(result.stats | {"questions": result.questions.count("\n")})
    finally:
        if own:
            executor.close()
    manifest = _manifest(count, options, networks, swept)
    _write_text(folder / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    return manifest
