"""Textualized maps: a city's network as plain text for symbolic prompts, and back.

Each textualization is registered by name in :data:`TEXTUALIZATIONS` with a
renderer, a parser and a one-line description:

``lines``
    One row per transit line: its stations in order, a branch as its own
    sequence (``branch from X: ...``), a loop's closing note.
``adjacency``
    One row per transit line: its pairs of adjacent stations (``A -- B``).
``stations``
    One row per station: a transfer mark, and for each line serving it the
    station's place in the line's order and its neighbours on that line.

Each says all that a :class:`~graphkit.graph.TransitGraph` holds (stations and
lines in order; per line its stations in order, neighbours and shape), so
:func:`parse` rebuilds the :func:`identical` graph from the text alone, as
Metro Data plus a topology overlay. A name is written bare unless it holds
something the formats use (``, ; : | " \\``, ``--``, line breaks, edge spaces,
a suffix such as `` (loop)``); then it is a JSON string, so any name survives.

A prompt carries a textualization between ``<map name="NAME">`` and ``</map>``
lines (:func:`symbolic_context`); :func:`text_oracle_routes` answers a
question from such a prompt alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from baselines.errors import InvalidTextualization
from baselines.text_lines import LineSpec, build_graph, in_order, line_layout, spec_of
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph
from graphkit.routes import DEFAULT_MAX_ROUTES, RouteSet, shortest_routes

__all__ = [
    "InvalidTextualization",
    "Textualization",
    "TextFormat",
    "TEXTUALIZATIONS",
    "render",
    "parse",
    "identical",
    "symbolic_context",
    "find_map",
    "text_oracle_routes",
]

_SHAPE_LABELS = {"loop": "loop", "tree": "branched", "irregular": "irregular"}  # a path has none
_LABEL_SHAPES = {label: shape for shape, label in _SHAPE_LABELS.items()}
# A bare name holds no separator and does not end like a suffix the parser strips.
_NEEDS_QUOTES = re.compile(
    r'[,;:|"\\\x00-\x1f\x7f\x85\u2028\u2029]|--|^[#\s]|\s$| \((?:loop|branched|irregular|transfer)\)$| #\d+$'
)
_LABEL = re.compile(r"(?: \((loop|branched|irregular)\))?$")
_TRANSFER = re.compile(r"(?: \(transfer\))?$")
_POSITION = re.compile(r" #(\d+)$")
_END = re.compile("$")
_HEADER = re.compile(r"^# Metro map(?: of (.+))?: (\d+) lines?, (\d+) stations?\.$")
_MAP_BLOCK = re.compile(r'^<map name="([^"\n]*)">\n(.*?)\n</map>$', re.MULTILINE | re.DOTALL)
_DECODER = json.JSONDecoder()
_CLOSING = "the last station connects back to the first"
_LINES_LEGEND = {  # a text explains only the notes it uses
    "branch": '# "branch from X: ..." lists a branch that leaves the line at station X.',
    "separately": '# "separately: ..." lists stations joined to the rest only as "also adjacent" says.',
    "loop": f'# "{_CLOSING}" marks a loop.',
    "extra": '# "also adjacent: A -- B" joins two more stations of the line directly.',
}
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@dataclass(frozen=True, slots=True)
class Textualization:
    """A rendered map: the format's name, the text, its characters and tokens (``None`` without a tokenizer).

    Attributes
    ----------
    name : str
        The format.
    text : str
        The map as text.
    characters : int
        Its length.
    tokens : int or None
        Its tokens, where a tokenizer is installed.
    """

    name: str
    text: str
    characters: int
    tokens: int | None


class TextFormat(NamedTuple):
    """A registered format: ``render(graph) -> str``, ``parse(text) -> TransitGraph``, a one-line description."""

    render: Callable[[TransitGraph], str]
    parse: Callable[[str], TransitGraph]
    description: str


# -- names -------------------------------------------------------------------
def _quote(name: str) -> str:
    """The name bare when unambiguous, else a JSON string (with every kind of line break escaped)."""
    if not _NEEDS_QUOTES.search(name):
        return name
    text = json.dumps(name, ensure_ascii=False)
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _split(text: str, separator: str, maxsplit: int = -1) -> list[str]:
    """``text.split(separator, maxsplit)`` outside JSON strings."""
    if '"' not in text:
        return text.split(separator, maxsplit)
    parts, start, i, inside = [], 0, 0, False
    while i < len(text):
        if inside:
            if text[i] == "\\":
                i += 1  # an escaped character cannot end the string
            elif text[i] == '"':
                inside = False
        elif text[i] == '"':
            inside = True
        elif text.startswith(separator, i) and (maxsplit < 0 or len(parts) < maxsplit):
            parts.append(text[start:i])
            start = i + len(separator)
            i = start - 1
        i += 1
    return parts + [text[start:]]


def _split_once(text: str, separator: str, where: str) -> tuple[str, str]:
    parts = _split(text, separator, 1)
    if len(parts) != 2:
        raise InvalidTextualization(f"{where}: expected {separator.strip()!r} in {text[:60]!r}")
    return parts[0], parts[1]


def _unquote(piece: str, suffix: re.Pattern[str], where: str) -> tuple[str, re.Match[str]]:
    """A name, bare or quoted, and the match of the suffix that follows it."""
    if piece.startswith('"'):
        try:
            name, end = _DECODER.raw_decode(piece)
        except json.JSONDecodeError:
            raise InvalidTextualization(f"{where}: malformed quoted name {piece!r}") from None
        found = suffix.match(piece, end)
    else:
        found = suffix.search(piece)
        name = piece[: found.start()] if found else piece
    if not isinstance(name, str) or not name or found is None:
        raise InvalidTextualization(f"{where}: expected a name, got {piece!r}")
    return name, found


def _names(text: str, where: str) -> list[str]:
    return [_unquote(piece, _END, where)[0] for piece in _split(text, ", ")]


def _pair(piece: str, where: str) -> tuple[str, str]:
    parts = _split(piece, " -- ")
    if len(parts) != 2:
        raise InvalidTextualization(f"{where}: expected 'A -- B', got {piece!r}")
    a, b = (_unquote(part, _END, where)[0] for part in parts)
    if a == b:
        raise InvalidTextualization(f"{where}: a station cannot be adjacent to itself ({a!r})")
    return a, b


# -- what every format shares ------------------------------------------------
def _line_header(spec: LineSpec) -> str:
    label = _SHAPE_LABELS.get(spec.shape)
    return _quote(spec.name) + (f" ({label})" if label else "")


def _parse_line_header(piece: str, where: str) -> tuple[str, str]:
    name, found = _unquote(piece, _LABEL, where)
    return name, _LABEL_SHAPES.get(found.group(1) or "", "path")


def _text(graph: TransitGraph, legend: list[str], rows: list[str]) -> str:
    """Header, legend and rows; the header's counts let the parser notice a truncated text."""
    lines, stations = len(graph.lines), len(graph.stations)
    city = f" of {_quote(graph.city)}" if graph.city else ""
    header = f"# Metro map{city}: {lines} line{'s' * (lines != 1)}, {stations} station{'s' * (stations != 1)}."
    body = "\n".join(rows)
    quoting = ["# A name in double quotes is written as a JSON string."] if '"' in body else []
    return "\n".join([header, *legend, *quoting, body])


def _rows(text: str) -> tuple[str, int, int, list[tuple[int, str]]]:
    """City, line and station counts from the header, and the numbered data rows."""
    rows = text.replace("\r\n", "\n").split("\n")
    header = _HEADER.match(rows[0])
    if header is None:
        raise InvalidTextualization("row 1: expected '# Metro map of CITY: N lines, M stations.'")
    city = _unquote(header.group(1), _END, "row 1")[0] if header.group(1) else ""
    data = [(number, row) for number, row in enumerate(rows, start=1) if row.strip() and not row.startswith("#")]
    return city, int(header.group(2)), int(header.group(3)), data


# -- lines -------------------------------------------------------------------
def _render_lines(graph: TransitGraph) -> str:
    rows, notes = [], set()
    for line in graph.lines:
        spec = spec_of(graph, line)
        layout = line_layout(spec.stations, spec.edges)
        clauses = [", ".join(map(_quote, layout.runs[0]))]
        for run, attach in zip(layout.runs[1:], layout.attaches):
            notes.add("branch" if attach is not None else "separately")
            lead = f"branch from {_quote(attach)}" if attach is not None else "separately"
            clauses.append(f"{lead}: {', '.join(map(_quote, run))}")
        if layout.closing:
            notes.add("loop")
            clauses.append(_CLOSING)
        if layout.extras:
            notes.add("extra")
            clauses.append("also adjacent: " + ", ".join(f"{_quote(a)} -- {_quote(b)}" for a, b in layout.extras))
        rows.append(f"{_line_header(spec)}: {'; '.join(clauses)}")
    legend = ["# Each row is one line: its stations in order, separated by commas."]
    return _text(graph, legend + [sentence for key, sentence in _LINES_LEGEND.items() if key in notes], rows)


def _line_rows(rows: list[tuple[int, str]]):
    """Per row of a one-row-per-line format: where it is, the line's name and shape, and the rest."""
    for number, row in rows:
        head, body = _split_once(row, ": ", f"row {number}")
        yield f"row {number}", *_parse_line_header(head, f"row {number}"), body


def _parse_lines(text: str) -> TransitGraph:
    city, line_count, station_count, rows = _rows(text)
    specs = []
    for where, name, shape, body in _line_rows(rows):
        clauses = _split(body, "; ")
        stations = _names(clauses[0], where)
        edges = {frozenset(pair) for pair in zip(stations, stations[1:])}
        for clause in clauses[1:]:
            if clause == _CLOSING:
                edges.add(frozenset((stations[0], stations[-1])))
            elif clause.startswith("also adjacent: "):
                edges.update(frozenset(_pair(piece, where)) for piece in _split(clause[15:], ", "))
            elif clause.startswith(("branch from ", "separately: ")):
                lead, listed = _split_once(clause, ": ", where)
                run = _names(listed, where)
                if lead != "separately":
                    edges.add(frozenset((_unquote(lead[12:], _END, where)[0], run[0])))
                edges.update(frozenset(pair) for pair in zip(run, run[1:]))
                stations += run
            else:
                raise InvalidTextualization(f"{where}: unknown clause {clause[:60]!r}")
        specs.append(LineSpec(name, tuple(stations), frozenset(edges), shape))
    return build_graph(city, specs, line_count, station_count)


# -- adjacency ---------------------------------------------------------------
def _render_adjacency(graph: TransitGraph) -> str:
    rows, legend = [], ['# Each row is one line: its pairs of adjacent stations ("A -- B": a direct ride).']
    for line in graph.lines:
        spec = spec_of(graph, line)
        pairs = in_order(spec.edges, {name: index for index, name in enumerate(spec.stations)})
        clauses = [", ".join(f"{_quote(a)} -- {_quote(b)}" for a, b in pairs)] if pairs else []
        if tuple(dict.fromkeys(name for pair in pairs for name in pair)) != spec.stations:
            clauses.insert(0, "stations in order: " + ", ".join(map(_quote, spec.stations)))
            legend[1:] = ['# "stations in order: ..." gives the order where the pairs, read in turn, do not.']
        rows.append(f"{_line_header(spec)}: {'; '.join(clauses)}")
    return _text(graph, legend, rows)


def _parse_adjacency(text: str) -> TransitGraph:
    city, line_count, station_count, rows = _rows(text)
    specs = []
    for where, name, shape, body in _line_rows(rows):
        clauses = _split(body, "; ")
        order = _names(clauses.pop(0)[19:], where) if clauses[0].startswith("stations in order: ") else None
        if len(clauses) > 1 or (order is None and clauses == [""]):
            raise InvalidTextualization(f"{where}: expected the line's adjacent pairs, got {body[:60]!r}")
        pairs = [_pair(piece, where) for piece in _split(clauses[0], ", ")] if clauses else []
        # unless given, the order is that of first mention (pairs come by their later station)
        stations = order if order is not None else list(dict.fromkeys(name for pair in pairs for name in pair))
        specs.append(LineSpec(name, tuple(stations), frozenset(map(frozenset, pairs)), shape))
    return build_graph(city, specs, line_count, station_count)


# -- stations ----------------------------------------------------------------
def _render_stations(graph: TransitGraph) -> str:
    specs = [spec_of(graph, line) for line in graph.lines]
    places = {spec.name: {name: place for place, name in enumerate(spec.stations, start=1)} for spec in specs}
    rows = ["Lines: " + ", ".join(map(_line_header, specs))]
    for station in graph.stations:
        lines = graph.lines_at(station)
        fields = [_quote(station) + (" (transfer)" if len(lines) > 1 else "")]
        for line in lines:
            near = ", ".join(map(_quote, graph.lines[line].adjacency[station]))
            fields.append(f"{_quote(line)} #{places[line][station]}" + (f": {near}" if near else ""))
        rows.append(" | ".join(fields))
    legend = [
        "# One row per station; (transfer) marks a station served by two or more lines.",
        '# "LINE #N: A, B": the station is number N in the line\'s order; A and B are its neighbours on the line.',
    ]
    return _text(graph, legend, rows)


def _parse_stations(text: str) -> TransitGraph:
    city, line_count, station_count, rows = _rows(text)
    if not rows or not rows[0][1].startswith("Lines: "):
        raise InvalidTextualization("expected a row 'Lines: LINE, LINE, ...' before the stations")
    number, first = rows[0]
    shapes = dict(_parse_line_header(piece, f"row {number}") for piece in _split(first[7:], ", "))
    placed: dict[str, dict[int, str]] = {line: {} for line in shapes}
    pairs: dict[str, set[tuple[str, str]]] = {line: set() for line in shapes}
    for number, row in rows[1:]:
        where = f"row {number}"
        fields = _split(row, " | ")
        station = _unquote(fields[0], _TRANSFER, where)[0]
        for field in fields[1:]:
            head, *near = _split(field, ": ", 1)
            line, found = _unquote(head, _POSITION, where)
            if line not in placed:
                raise InvalidTextualization(f"{where}: line {line!r} is not in the 'Lines:' row")
            place = int(found.group(1))
            if placed[line].setdefault(place, station) != station:
                raise InvalidTextualization(f"{where}: {line!r} #{place} is {placed[line][place]!r} already")
            pairs[line].update((station, other) for other in (_names(near[0], where) if near else ()))
    specs = []
    for line, shape in shapes.items():
        if sorted(placed[line]) != list(range(1, len(placed[line]) + 1)):
            raise InvalidTextualization(f"line {line!r}: numbers {sorted(placed[line])} are not 1..N")
        lopsided = sorted((a, b) for a, b in pairs[line] if (b, a) not in pairs[line])
        if lopsided:
            raise InvalidTextualization(f"line {line!r}: {lopsided[0][1]!r} neighbours {lopsided[0][0]!r}, not back")
        stations = tuple(placed[line][place] for place in sorted(placed[line]))
        specs.append(LineSpec(line, stations, frozenset(map(frozenset, pairs[line])), shape))
    return build_graph(city, specs, line_count, station_count)


# -- registry and public API -------------------------------------------------
TEXTUALIZATIONS: dict[str, TextFormat] = {
    "lines": TextFormat(_render_lines, _parse_lines, "one row per line: stations in order, branches and loops noted"),
    "adjacency": TextFormat(_render_adjacency, _parse_adjacency, "one row per line: its pairs of adjacent stations"),
    "stations": TextFormat(_render_stations, _parse_stations, "one row per station: per line, place and neighbours"),
}


def _format(name: str) -> TextFormat:
    return TEXTUALIZATIONS[check_choice(name, TEXTUALIZATIONS, what="textualization")]


@lru_cache(maxsize=1)
def _default_token_counter() -> Callable[[str], int] | None:
    """tiktoken's ``cl100k_base`` when installed with its encoding already on disk; it never downloads."""
    try:
        import tiktoken
    except ImportError:
        return None
    # where tiktoken caches encodings (tiktoken.load.read_file_cached): no file there means a download
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    folder = folder or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not os.path.exists(os.path.join(folder, hashlib.sha1(_CL100K_URL.encode()).hexdigest())):
        return None
    try:
        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # a damaged cache or another tiktoken layout: no count rather than a failure
        return None
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def render(graph: TransitGraph, name: str, *, count_tokens: Callable[[str], int] | None = None) -> Textualization:
    """A city's network as text in the named format (the same graph always gives the same text).

    Parameters
    ----------
    graph : TransitGraph
    name : str
        A key of :data:`TEXTUALIZATIONS`: ``lines``, ``adjacency`` or ``stations``.
    count_tokens : callable, optional
        Counts a text's tokens. By default tiktoken's ``cl100k_base`` when it
        is installed with its encoding already on disk (nothing is ever
        downloaded); otherwise ``tokens`` is ``None``.

    Returns
    -------
    Textualization

    Raises
    ------
    ValueError
        Unknown format; the message lists the valid ones.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> found = render(city_graph("rome"), "lines", count_tokens=lambda text: len(text.split()))
    >>> print(found.text.splitlines()[0])
    # Metro map of rome: 3 lines, 73 stations.
    >>> found.characters == len(found.text), found.tokens > 0
    (True, True)
    """
    text = _format(name).render(graph)
    counter = count_tokens or _default_token_counter()
    return Textualization(name, text, len(text), counter(text) if counter else None)


def parse(text: str, name: str) -> TransitGraph:
    """Rebuild the network from a textualization's text alone, as Metro Data and a topology overlay.

    Parameters
    ----------
    text : str
        The textualization's text.
    name : str
        Its format (:data:`TEXTUALIZATIONS`).

    Returns
    -------
    TransitGraph
        The network, :func:`identical` to the one rendered.

    Raises
    ------
    ValueError
        Unknown format.
    InvalidTextualization
        The text is malformed or truncated, or a line cannot be expressed as
        Metro Data; the message names the row or the line.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> graph = city_graph("rome")
    >>> identical(parse(render(graph, "stations").text, "stations"), graph)
    True
    """
    return _format(name).parse(text)


def identical(graph_a: TransitGraph, graph_b: TransitGraph) -> bool:
    """Whether two graphs are the same network, orders included.

    Same stations in the same order (it breaks ties between equally short
    routes), same lines in the same order, and per line the same stations in
    the same order, the same neighbours and the same shape.

    Parameters
    ----------
    graph_a, graph_b : TransitGraph

    Returns
    -------
    bool

    Examples
    --------
    >>> from graphkit.graph import compile_graph
    >>> from graphkit.metro import load_metro
    >>> one, again = (compile_graph(load_metro({"L": ["A", "B", "C"]})) for _ in range(2))
    >>> identical(one, again), identical(one, compile_graph(load_metro({"L": ["C", "B", "A"]})))
    (True, False)
    """
    return (
        graph_a.stations == graph_b.stations
        and tuple(graph_a.lines) == tuple(graph_b.lines)
        and all(spec_of(graph_a, line) == spec_of(graph_b, line) for line in graph_a.lines)
    )


def symbolic_context(textualization: Textualization) -> str:
    """The textualization as prompts carry it: between ``<map name="NAME">`` and ``</map>`` lines.

    Parameters
    ----------
    textualization : Textualization
        A rendered map.

    Returns
    -------
    str
        The block.

    Examples
    --------
    >>> print(symbolic_context(Textualization("lines", "# Metro map: 1 line, 1 station.\\nL: A", 36, None)))
    <map name="lines">
    # Metro map: 1 line, 1 station.
    L: A
    </map>
    """
    return f'<map name="{textualization.name}">\n{textualization.text}\n</map>'


def find_map(prompt_text: str, name: str | None = None) -> tuple[str, str]:
    """``(name, text)`` of a prompt's first map block, or first of format ``name``; raises if there is none.

    Parameters
    ----------
    prompt_text : str
        A prompt (:func:`symbolic_context` blocks in it).
    name : str, optional
        Only a block of this format.

    Returns
    -------
    name, text : str
        The block's format and text.

    Raises
    ------
    InvalidTextualization
        The prompt has no such block.

    Examples
    --------
    >>> find_map('Map:\\n<map name="lines">\\nL: A, B\\n</map>\\nFrom A to B?')
    ('lines', 'L: A, B')
    """
    for found in _MAP_BLOCK.finditer(prompt_text.replace("\r\n", "\n")):
        if name is None or found.group(1) == name:
            return found.group(1), found.group(2)
    raise InvalidTextualization(f'the prompt has no <map name="{name or "..."}"> ... </map> block')


@lru_cache(maxsize=16)
def _parsed(text: str, name: str) -> TransitGraph:
    return parse(text, name)  # a solver asks many questions about one map


def text_oracle_routes(
    prompt_text: str, station_1: str, station_2: str, name: str | None = None, *, max_routes: int = DEFAULT_MAX_ROUTES
) -> RouteSet:
    """Shortest routes read from a symbolic prompt alone: its map block is parsed, then searched.

    Parameters
    ----------
    prompt_text : str
        A prompt holding a :func:`symbolic_context` block (and the question).
    station_1, station_2 : str
        Departure and arrival, as :func:`graphkit.routes.shortest_routes` takes them.
    name : str, optional
        The format of the block to read; by default the first block.
    max_routes : int, optional
        Keep at most this many routes.

    Returns
    -------
    RouteSet
        :func:`graphkit.routes.shortest_routes` on the rebuilt graph.

    Raises
    ------
    InvalidTextualization
        No map block, or a malformed one (``UnknownStation``, ``NoRoute`` as ``shortest_routes``).

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> prompt = symbolic_context(render(city_graph("rome"), "lines")) + "\\nFrom Termini to Jonio?"
    >>> text_oracle_routes(prompt, "Termini Station", "Jonio Station").routes[0].lines
    ('Line B',)
    """
    found_name, text = find_map(prompt_text, name)
    return shortest_routes(_parsed(text, found_name), station_1, station_2, max_routes=max_routes)
