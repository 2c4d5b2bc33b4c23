"""One map, end to end: OCR, grounding, line colours and paths, line pairs.

:func:`analyse_map` is what ``reasonmap ocr`` and ``reasonmap diagnose --map``
run; its :class:`MapAnalysis` carries the :class:`~vision.evidence.MapEvidence`
the diagnosis reads.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphkit.graph import TransitGraph
from vision.evidence import MapEvidence
from vision.ocr import OcrResult, OcrSettings

__all__ = [
    "MapAnalysis",
    "analyse_map",
    "ocr_report",
    "write_evidence",
    "read_evidence",
    "MAP_SUFFIXES",
    "map_files",
    "folder_evidence",
]


@dataclass(frozen=True, slots=True)
class MapAnalysis:
    """What the vision side found on one map.

    Attributes
    ----------
    evidence : MapEvidence
        The stations found and grounded, and the lines' colours and paths.
    ocr : OcrResult
        The texts read.
    seconds : float
        How long reading and grounding took.
    """

    evidence: MapEvidence
    ocr: OcrResult
    seconds: float

    @property
    def recall(self) -> float:
        """The share of the city's stations found on the map."""
        stations = self.evidence.stations
        return sum(found.found for found in stations.values()) / len(stations) if stations else 0.0


def analyse_map(
    path: str | Path,
    graph: TransitGraph,
    *,
    settings: OcrSettings | None = None,
    pixel_limit: int | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    lines: bool = True,
    progress: bool = False,
) -> MapAnalysis:
    """Read a map and ground it in ``graph``'s Metro Data.

    Parameters
    ----------
    path : str or Path
        The map image.
    graph : TransitGraph
        The city the map shows.
    settings, pixel_limit, cache_dir, use_cache, progress
        As :func:`vision.ocr.read_map_texts`.
    lines : bool
        Also estimate each line's colour and path (reads the image once more).

    Returns
    -------
    MapAnalysis
        The grounded evidence, the OCR result it came from, and the seconds it took.

    Raises
    ------
    InvalidImage, ImageTooLarge, EngineUnavailable
        As :func:`vision.ocr.read_map_texts`.
    """
    from vision.grounding import ground_stations
    from vision.ocr import read_map_texts

    started = time.perf_counter()
    ocr = read_map_texts(
        path,
        settings or OcrSettings(),
        pixel_limit=pixel_limit,
        cache_dir=cache_dir,
        use_cache=use_cache,
        progress=progress,
    )
    grounding = ground_stations(ocr.texts, graph.stations, shown={s: graph.display_name(s) for s in graph.stations})
    found_lines: dict = {}
    if lines:
        from vision.colours import with_lines
        from vision.images import read_rgb

        found_lines = with_lines(grounding.stations, read_rgb(path, pixel_limit=pixel_limit), graph)
    evidence = MapEvidence(graph.city, grounding.stations, found_lines, grounding.unmatched_texts, str(path))
    return MapAnalysis(evidence, ocr, time.perf_counter() - started)


def ocr_report(analysis: MapAnalysis, graph: TransitGraph, *, pairs: bool = False) -> dict[str, Any]:
    """The JSON ``reasonmap ocr`` prints.

    ``recall``, ``seconds`` (OCR and grounding; ``ocr_cached`` says whether the
    OCR came from the cache), ``stations`` (``name``, ``found``, ``box``,
    ``score``, ``text``), ``unmatched_texts``; with line estimates, ``lines``
    (``colour``, ``support``, ``path``) and, with ``pairs``, ``colour_pairs``
    (CIEDE2000, most alike first) and ``close_runs`` (where lines run within
    the diagnosis's layout threshold, three median label heights).

    Parameters
    ----------
    analysis : MapAnalysis
        What :func:`analyse_map` found.
    graph : TransitGraph
        The city.
    pairs : bool, optional
        Add the colour pairs and the close runs.

    Returns
    -------
    dict
        The report, JSON-ready.
    """
    evidence = analysis.evidence
    report: dict[str, Any] = {
        "map": evidence.source,
        "city": evidence.city,
        "recall": round(analysis.recall, 4),
        "seconds": round(analysis.seconds, 3),
        "ocr_seconds": round(analysis.ocr.seconds, 3),
        "ocr_cached": analysis.ocr.cached,
        "scale": analysis.ocr.scale,
        "engine": analysis.ocr.engine,
        "device": analysis.ocr.device,
        "stations": [
            {
                "name": found.name,
                "found": found.found,
                "box": None if found.box is None else [round(v, 1) for v in found.box],
                "score": round(found.score, 4),
                "text": found.text,
            }
            for found in evidence.stations.values()
        ],
        "unmatched_texts": list(evidence.unmatched_texts),
    }
    if evidence.lines:
        report["lines"] = {name: line.to_dict() for name, line in evidence.lines.items()}
    if pairs and evidence.lines:
        from vision.colours import colour_pairs
        from vision.diagnose import layout_threshold_of
        from vision.geometry import close_runs, line_stations

        # "close" as the diagnosis means it for a layout confusion
        within = layout_threshold_of(evidence) or 0.0
        served = {name: set(stations) for name, stations in line_stations(graph).items()}
        report["colour_pairs"] = [
            {"lines": [pair.line_a, pair.line_b], "ciede2000": round(pair.difference, 2)}
            for pair in colour_pairs(evidence.lines)
        ]
        report["close_runs"] = [
            {
                "lines": [run.line_a, run.line_b],
                "distance": round(run.distance, 1),
                "near_a": list(run.near_a),
                "near_b": list(run.near_b),
            }
            for run in close_runs(evidence, within=within, served=served)
        ]
    return report


def write_evidence(path: str | Path, evidence: MapEvidence) -> Path:
    """Write map evidence as JSON (atomically), for ``reasonmap diagnose --evidence``.

    Parameters
    ----------
    path : str or Path
        The file.
    evidence : MapEvidence
        The evidence.

    Returns
    -------
    Path
        ``path``.
    """
    from graphkit.files import atomic_writer

    with atomic_writer(path) as handle:
        json.dump(evidence.to_dict(), handle, ensure_ascii=False, sort_keys=True, indent=1)
        handle.write("\n")
    return Path(path)


def read_evidence(path: str | Path) -> MapEvidence:
    """Read what :func:`write_evidence` wrote.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    MapEvidence
        The evidence.

    Raises
    ------
    InvalidTruth
        The file is not map evidence; the message names it.
    """
    from graphkit.reading import read_json_file
    from vision.errors import InvalidTruth

    value = read_json_file(path, what="map evidence", error=InvalidTruth)
    try:
        return MapEvidence.from_dict(value)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise InvalidTruth(f"{path}: not a map evidence file ({type(error).__name__}: {error})") from None


MAP_SUFFIXES = (".png", ".jpg", ".jpeg")
_KINDS = {".evidence.json": "evidence", ".truth.json": "truth", **dict.fromkeys(MAP_SUFFIXES, "image")}


def map_files(folder: str | Path) -> dict[str, dict[str, Path]]:
    """The maps of a folder by city: ``{folded city: {"evidence" | "truth" | "image": path}}``.

    A city's files are ``CITY.evidence.json`` (``reasonmap ocr --evidence``), ``CITY.truth.json`` (a
    rendered map's truth) and ``CITY.png`` / ``.jpg`` / ``.jpeg``; each name may carry the benchmark's
    ``<country>__`` prefix (``italy__rome.png``). Names are matched folded (case and accents ignored).

    Parameters
    ----------
    folder : str or Path
        The folder of maps.

    Returns
    -------
    dict
        Each folded city name to its files, by kind (``"evidence"``, ``"truth"``, ``"image"``).

    Raises
    ------
    NotADirectoryError
        ``folder`` is not a folder.
    """
    from graphkit.names import fold

    root = Path(folder)
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a folder of maps")
    found: dict[str, dict[str, Path]] = {}
    for path in sorted(root.iterdir()):
        name = path.name.lower()
        suffix = next((s for s in _KINDS if name.endswith(s)), None)
        if suffix is None or not path.is_file():
            continue
        city = fold(path.name[: -len(suffix)].split("__")[-1])
        found.setdefault(city, {}).setdefault(_KINDS[suffix], path)
    return found


def folder_evidence(
    folder: str | Path,
    graph_for_city: Callable[[str], TransitGraph],
    read_map: Callable[[Path, TransitGraph], MapEvidence],
    *,
    use_truth: bool = False,
) -> Callable[[str], MapEvidence | None]:
    """A lookup ``city -> MapEvidence | None`` over a folder of maps (:func:`map_files`), read on first use.

    Each city's evidence is its saved ``CITY.evidence.json`` if there is one; else, with ``use_truth``,
    its rendered map's ``CITY.truth.json``; else what ``read_map(image_path, graph_for_city(city))``
    (OCR, cached) finds on its image; else ``None``. Each city is read at most once.

    Parameters
    ----------
    folder : str or Path
        The folder of maps.
    graph_for_city : callable
        A city's name to its graph (for reading an image).
    read_map : callable
        How an image is read: ``(image path, graph) -> MapEvidence``.
    use_truth : bool, optional
        Take a rendered map's truth before reading its image.

    Returns
    -------
    callable
        The lookup: a city's name to its evidence, or ``None`` when the folder has nothing for it.

    Raises
    ------
    NotADirectoryError
        ``folder`` is not a folder.
    """
    from graphkit.names import fold
    from vision.evidence import read_truth

    files = map_files(folder)
    cache: dict[str, MapEvidence | None] = {}

    def lookup(city: str) -> MapEvidence | None:
        key = fold(city)
        if key not in cache:
            found = files.get(key, {})
            if "evidence" in found:
                cache[key] = read_evidence(found["evidence"])
            elif use_truth and "truth" in found:
                cache[key] = read_truth(found["truth"], city=city)
            elif "image" in found:
                cache[key] = read_map(found["image"], graph_for_city(city))
            else:
                cache[key] = None
        return cache[key]

    return lookup
