"""The embedded Metro Data of the 30 ReasonMap cities, and loading any other file.

Cities are addressed by their file name (``beijing``, ``new_york``, ``kl``);
spaces, hyphens and case do not matter (``New York`` works too).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from graphkit.errors import UnknownCity, shorten
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import MetroData, load_metro
from graphkit.names import fold, pinyin_table, unsafe_character
from graphkit.overlays import Overlay, load_overlay, overlay_path_for

__all__ = [
    "city_names",
    "city_title",
    "city_path",
    "load_city",
    "city_graph",
    "load_metro_file",
    "graph_from_file",
    "open_graph",
    "graphs_by_city",
    "CityGraphs",
    "embedded_pinyin",
]


def _data_root() -> Path:
    return Path(str(resources.files("graphkit") / "data" / "metro"))


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Path]:
    return {
        path.stem: path for path in sorted(_data_root().glob("*/*.json")) if not path.name.endswith(".overlay.json")
    }


def city_names() -> tuple[str, ...]:
    """Names of the embedded cities, sorted.

    Returns
    -------
    tuple of str
        The city names (the file names of the embedded Metro Data, without ``.json``).

    Examples
    --------
    >>> len(city_names()), city_names()[:2]
    (30, ('auckland', 'beijing'))
    """
    return tuple(sorted(_catalogue()))


#: embedded cities whose file name is not their name with spaces and capitals
_TITLES = {"kl": "Kuala Lumpur", "xian": "Xi'an"}


def city_title(name: str) -> str:
    """The name a reader knows a city by, for figures and tables (a city id otherwise title-cased).

    Parameters
    ----------
    name : str
        A city id (an embedded city's file name, or any other).

    Returns
    -------
    str
        Its title.

    Examples
    --------
    >>> city_title("los_angeles"), city_title("kl"), city_title("xian"), city_title("my_net-3")
    ('Los Angeles', 'Kuala Lumpur', "Xi'an", 'My Net-3')
    """
    return _TITLES.get(name) or " ".join(part[:1].upper() + part[1:] for part in name.split("_"))


def city_path(name: str) -> Path:
    """The embedded Metro Data file of a city.

    Parameters
    ----------
    name : str
        The city's name, compared folded (case, accents and spaces do not matter).

    Returns
    -------
    Path
        Its Metro Data file inside the package.

    Raises
    ------
    UnknownCity
        No embedded city has that name; the error lists the close ones.
    """
    unsafe = unsafe_character(name)
    if unsafe is not None:  # spaces do not matter, but a control character is no part of a name
        raise UnknownCity(f"no embedded city named {shorten(name)!r}: it holds {unsafe}")
    catalogue = _catalogue()
    wanted = fold(name)
    for city, path in catalogue.items():
        if fold(city) == wanted:
            return path
    from graphkit.choices import close_choices

    folded = {fold(city): city for city in catalogue}
    # a city name is short: half alike is close (difflib's 0.5, which this replaced)
    close = [folded[key] for key in close_choices(wanted, folded, limit=3, cutoff=50)]
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known cities: {', '.join(sorted(catalogue))}"
    raise UnknownCity(f"no embedded city named {shorten(name)!r}{hint}")


def load_metro_file(path: str | Path, *, overlay: str | Path | None = None) -> tuple[MetroData, Overlay]:
    """Load a Metro Data file and its overlay (given, or found beside it as ``<stem>.overlay.json``).

    Parameters
    ----------
    path : str or Path
        The Metro Data file.
    overlay : str or Path, optional
        Its overlay file; by default ``<stem>.overlay.json`` beside it when that exists, else none.

    Returns
    -------
    metro : MetroData
        The checked data.
    overlay : Overlay
        The checked overlay (empty when there is none).

    Raises
    ------
    InvalidMetroData, InvalidOverlay
        Naming the file, the record and the field that are wrong.
    """
    path = Path(path)
    overlay_file = Path(overlay) if overlay is not None else overlay_path_for(path)
    found = load_overlay(overlay_file if overlay is not None or overlay_file.exists() else None)
    metro = load_metro(path, allowed_repeats=found.allowed_repeats)
    return metro, found


def load_city(name: str) -> tuple[MetroData, Overlay]:
    """The embedded Metro Data of a city and its overlay.

    Parameters
    ----------
    name : str
        The city's name (see :func:`city_path`).

    Returns
    -------
    metro : MetroData
        Its Metro Data.
    overlay : Overlay
        Its embedded overlay.

    Raises
    ------
    UnknownCity
        No embedded city has that name.

    Examples
    --------
    >>> metro, overlay = load_city("rome")
    >>> metro.city, len(metro.lines)
    ('rome', 3)
    """
    return load_metro_file(city_path(name))


@lru_cache(maxsize=64)
def city_graph(name: str) -> TransitGraph:
    """The compiled transit graph of an embedded city (cached).

    Examples
    --------
    >>> city_graph("rome")
    <TransitGraph rome: 3 lines, 73 stations>
    """
    return compile_graph(*load_city(city_path(name).stem))


def graph_from_file(path: str | Path, *, overlay: str | Path | None = None) -> TransitGraph:
    """Compile any Metro Data file (and its overlay) into a transit graph.

    Parameters
    ----------
    path : str or Path
        The Metro Data file.
    overlay : str or Path, optional
        Its overlay file (by default the one beside it, as :func:`load_metro_file` finds it).

    Returns
    -------
    TransitGraph
        The compiled graph (not cached, unlike :func:`city_graph`).

    Raises
    ------
    InvalidMetroData, InvalidOverlay
        The file or its overlay is wrong.
    """
    return compile_graph(*load_metro_file(path, overlay=overlay))


def open_graph(
    *, city: str | None = None, metro: str | Path | None = None, overlay: str | Path | None = None
) -> TransitGraph:
    """The graph of an embedded city (``city``) or of a Metro Data file (``metro``), exactly one of them.

    Parameters
    ----------
    city : str, optional
        An embedded city's name.
    metro : str or Path, optional
        A Metro Data file.
    overlay : str or Path, optional
        An overlay to use instead of the city's own (or of the one beside the file).

    Returns
    -------
    TransitGraph
        The compiled graph (an embedded city's own overlay: the cached one of :func:`city_graph`).

    Raises
    ------
    ValueError
        Neither or both of ``city`` and ``metro``.
    UnknownCity, InvalidMetroData, InvalidOverlay
        As :func:`city_path` and :func:`load_metro_file`.
    """
    if (city is None) == (metro is None):
        raise ValueError("give exactly one of city or metro")
    if city is not None:
        if overlay is not None:
            return compile_graph(load_metro(city_path(city)), load_overlay(overlay))
        return city_graph(city)
    return graph_from_file(metro, overlay=overlay)


class CityGraphs:
    """A city name to its graph: a Metro Data file ``<city>.json`` anywhere under ``folder``
    (with its overlay beside it), else an embedded city. Each graph is compiled once.

    A synthetic benchmark's folder (``reasonmap synth --count``) is such a folder. It pickles as its
    folder alone, so it (and :meth:`question_graph`) can travel to an executor's workers.

    Parameters
    ----------
    folder : str or Path, optional
        The folder searched for Metro Data files (``None``: the embedded cities only).

    Raises
    ------
    UnknownCity
        The folder does not exist; (on a call) the city is neither in the folder nor embedded.
    """

    __slots__ = ("folder", "_files", "_compiled")

    def __init__(self, folder: str | Path | None = None):
        self.folder = None if folder is None else str(folder)
        self._files: dict[str, Path] = {}
        self._compiled: dict[str, TransitGraph] = {}
        if self.folder is not None:
            root = Path(self.folder)
            if not root.is_dir():
                raise UnknownCity(f"{root}: no such folder of Metro Data")
            for path in sorted(root.rglob("*.json")):
                if not path.name.endswith(".overlay.json"):
                    self._files.setdefault(path.stem, path)

    def __call__(self, city: str) -> TransitGraph:
        if city not in self._files:
            return city_graph(city)
        if city not in self._compiled:
            self._compiled[city] = graph_from_file(self._files[city])
        return self._compiled[city]

    def question_graph(self, question) -> TransitGraph:
        """The graph of ``question.city`` (the ``graph_for`` that scorers and the diagnosis take)."""
        return self(question.city)

    def __reduce__(self):
        return (CityGraphs, (self.folder,))


def graphs_by_city(folder: str | Path | None = None) -> CityGraphs:
    """:class:`CityGraphs` of ``folder`` (``None``: the embedded cities only).

    Parameters
    ----------
    folder : str or Path, optional
        A folder of Metro Data files.

    Returns
    -------
    CityGraphs
        The lookup, a city's name to its graph.

    Raises
    ------
    UnknownCity
        The folder does not exist.

    Examples
    --------
    >>> graphs_by_city()("rome")
    <TransitGraph rome: 3 lines, 73 stations>
    """
    return CityGraphs(folder)


def embedded_pinyin() -> dict[str, str]:
    """:func:`~graphkit.names.pinyin_table` of every embedded city: what ``graphkit/data/pinyin.json`` holds.

    Station names and their spellings, each also without 站 (as answers write them), and line names.
    Rewrite the file with ``python -c "import json; from graphkit.cities import embedded_pinyin;
    print(json.dumps(embedded_pinyin(), ensure_ascii=False, indent=0))" > graphkit/data/pinyin.json``.

    Returns
    -------
    dict of str to str
        Each Chinese text of those names (a name, or a part of one) to its pinyin, sorted by text.
    """
    stations: list[str] = []
    lines: list[str] = []
    for name in city_names():
        graph = city_graph(name)
        for station in graph.stations:
            for text in graph.spellings(station):
                stations += [text, text.removesuffix("站")]
        lines += graph.lines
    return pinyin_table(stations, lines)
