"""Names in answers and references, resolved against a city's graph, for scoring.

A route name resolves through ``graph.line_index``, a station name through
``graph.station_index`` (graphkit's rules: case, spacing, ``Station``/``站``,
pinyin, ``Line 1`` = ``1号线``). A station name that fits several stations is
settled by context: the question's own station for the first departure and
the last arrival when it is among the candidates, else the one candidate on
the section's line; otherwise it stays unresolved. Distinct stations are
never merged. Stations are the graph's identities: a name an overlay splits
(New York's ``125 St Station``) resolves within the section's line to that
line's station, and an alias's spellings resolve to its one station.

Everything is memoized per graph (the scorer meets the same names again and
again), and a question's references are resolved once per graph.
"""

from __future__ import annotations

from benchmarks.reasonmap.records import Question
from graphkit.graph import TransitGraph
from graphkit.names import fold, line_keys, station_keys

__all__ = [
    "Unresolved",
    "UNKNOWN",
    "AMBIGUOUS",
    "OFF_LINE",
    "GraphNames",
    "graph_names",
    "Reference",
    "PreparedQuestion",
    "clear_caches",
]


class Unresolved:
    """A station name that did not resolve; equal to nothing but itself.

    Parameters
    ----------
    failure : str
        The failure label it stands for (``unknown_station``, ``ambiguous_station``, ``station_not_on_line``).
    """

    __slots__ = ("failure",)

    def __init__(self, failure: str):
        self.failure = failure

    def __repr__(self) -> str:
        return f"<{self.failure}>"


UNKNOWN = Unresolved("unknown_station")
AMBIGUOUS = Unresolved("ambiguous_station")
OFF_LINE = Unresolved("station_not_on_line")  # fits several stations, none on the line
_NOT_CACHED = object()
_CACHE_LIMIT = 200_000
_GRAPHS_KEPT = 64


class GraphNames:
    """Memoized name resolution against one graph, and the references of its questions, prepared.

    Get the one for a graph with :func:`graph_names`.

    Parameters
    ----------
    graph : TransitGraph
        The city's graph, whose line and station indexes it reads.

    Examples
    --------
    >>> from graphkit import compile_graph, load_metro
    >>> graph = compile_graph(load_metro({
    ...     "1": ["79 St Station", "Cathedral Pkwy (110 St) Station"],
    ...     "4": ["86 St Station", "Cathedral Pkwy(110 St) Station"],
    ... }))
    >>> names = graph_names(graph)
    >>> names.line("Line 1"), names.station("86 st")
    ('1', '86 St Station')
    >>> names.station("Cathedral Pkwy 110 St", "4")
    'Cathedral Pkwy(110 St) Station'
    >>> names.station("Cathedral Pkwy 110 St"), names.station("Times Sq")
    (<ambiguous_station>, <unknown_station>)
    """

    __slots__ = (
        "graph",
        "on_line",
        "_stations",
        "_station_keys",
        "_line_keys",
        "_lines",
        "_plain",
        "_context",
        "_questions",
    )

    def __init__(self, graph: TransitGraph):
        self.graph = graph
        self.on_line = {name: frozenset(topology.stations) for name, topology in graph.lines.items()}
        self._stations = frozenset(graph.stations)
        # every key of every name: a query that shares none is unknown, and is told so without asking
        # the index (which would compute close-match suggestions: milliseconds for each new name)
        self._station_keys = graph.station_index.keys()
        self._line_keys = graph.line_index.keys()
        self._lines: dict[str, str | None] = {}
        self._plain: dict[str, str | Unresolved | None] = {}  # None: fits several stations, context decides
        self._context: dict[tuple[str, str | None, str | None], str | Unresolved] = {}
        self._questions: dict[int, tuple[Question, PreparedQuestion]] = {}

    def line(self, text: str) -> str | None:
        """The line ``text`` names, or ``None`` (none or several)."""
        found = self._lines.get(text, _NOT_CACHED)
        if found is _NOT_CACHED:
            if len(self._lines) > _CACHE_LIMIT:
                self._lines.clear()
            found = self._lines[text] = self._line(text)
        return found

    def _line(self, text: str) -> str | None:
        stripped = text.strip()
        if stripped in self.on_line:
            return stripped
        if self._line_keys.isdisjoint(line_keys(stripped)):
            return None
        return self.graph.line_index.lookup(stripped).name

    def station(self, text: str, line: str | None = None, prefer: str | None = None) -> str | Unresolved:
        """The station ``text`` names (among several: ``prefer``, or the one on ``line``), or why none."""
        found = self._plain.get(text, _NOT_CACHED)
        if found is _NOT_CACHED:
            if len(self._plain) > _CACHE_LIMIT:
                self._plain.clear()
                self._context.clear()
            found = self._plain[text] = self._unconditional(text)
        if found is not None:
            return found
        key = (text, line, prefer)
        found = self._context.get(key)
        if found is None:
            found = self._context[key] = self._in_context(text, line, prefer)
        return found

    def sections(
        self, sections: tuple, station_1: str, station_2: str
    ) -> tuple[list[str | None], list[str | Unresolved], list[str | Unresolved]]:
        """The lines, departures and arrivals of an answer's sections, resolved in context."""
        lines_cache, plain = self._lines, self._plain
        lines, departures, arrivals = [], [], []
        last = len(sections) - 1
        for index, section in enumerate(sections):
            line = lines_cache.get(section.route_name, _NOT_CACHED)
            if line is _NOT_CACHED:
                line = self.line(section.route_name)
            departure = plain.get(section.departure_stop)
            if departure is None:
                departure = self.station(section.departure_stop, line, station_1 if index == 0 else None)
            arrival = plain.get(section.arrival_stop)
            if arrival is None:
                arrival = self.station(section.arrival_stop, line, station_2 if index == last else None)
            lines.append(line)
            departures.append(departure)
            arrivals.append(arrival)
        return lines, departures, arrivals

    def identity(self, text: str, line: str | None, prefer: str | None = None) -> str:
        """The station ``text`` names, or ``text`` itself (stripped) when it names none for sure.

        Used where a name must stand for something comparable: a reference's
        names, and via stops (an unresolved via stop still counts in a union).
        """
        found = self._plain.get(text)
        if found is None or found.__class__ is Unresolved:
            found = self.station(text, line, prefer)
            if found.__class__ is Unresolved:
                return text.strip()
        return found

    def identities(self, texts: tuple[str, ...], line: str | None) -> set[str]:
        """The :meth:`identity` of each of ``texts`` on ``line``, as a set (a section's via stops)."""
        plain = self._plain
        found = set()
        for text in texts:
            station = plain.get(text)
            if station is None or station.__class__ is Unresolved:
                station = self.identity(text, line)
            found.add(station)
        return found

    def _unconditional(self, text: str) -> str | Unresolved | None:
        stripped = text.strip()
        if stripped in self._stations:
            return stripped
        if self._station_keys.isdisjoint(station_keys(stripped)):
            return UNKNOWN
        resolution = self.graph.station_index.lookup(stripped)
        if resolution.status == "ambiguous":
            return None
        return resolution.names[0] if resolution.status != "unknown" else UNKNOWN

    def _in_context(self, text: str, line: str | None, prefer: str | None) -> str | Unresolved:
        candidates = self.graph.station_index.lookup(text.strip()).names
        if prefer is not None and prefer in candidates:
            return prefer
        if line is None:
            return AMBIGUOUS
        on_line = [name for name in candidates if name in self.on_line[line]]
        if len(on_line) == 1:
            return on_line[0]
        return AMBIGUOUS if on_line else OFF_LINE

    def prepared(self, question: Question) -> PreparedQuestion:
        """The question's endpoints and references, resolved (cached while the question lives here)."""
        entry = self._questions.get(id(question))
        if entry is not None and entry[0] is question:
            return entry[1]
        if len(self._questions) > _CACHE_LIMIT // 10:
            self._questions.clear()
        found = _prepare(self, question)
        self._questions[id(question)] = (question, found)
        return found


_GRAPH_NAMES: dict[int, GraphNames] = {}


def graph_names(graph: TransitGraph) -> GraphNames:
    """The name resolver of ``graph`` (one per graph, kept for the most recent graphs).

    Parameters
    ----------
    graph : TransitGraph
        The city's graph.

    Returns
    -------
    GraphNames
        The same resolver for the same graph object while it is among the most recent.

    Raises
    ------
    TypeError
        ``graph`` is not a :class:`~graphkit.graph.TransitGraph`.
    """
    names = _GRAPH_NAMES.get(id(graph))
    if names is None or names.graph is not graph:
        if not isinstance(graph, TransitGraph):
            raise TypeError(f"graph must be a TransitGraph, got {type(graph).__name__}")
        if len(_GRAPH_NAMES) >= _GRAPHS_KEPT:
            del _GRAPH_NAMES[next(iter(_GRAPH_NAMES))]
        names = _GRAPH_NAMES[id(graph)] = GraphNames(graph)
    return names


class Reference:
    """One reference route with its names resolved (an unresolvable name stays as written).

    Parameters
    ----------
    names : GraphNames
        The resolver of the question's graph.
    route : tuple of segments
        The reference route's segments (``route_name``, ``departure_stop``, ``arrival_stop``, ``via_stops``).
    station_1, station_2 : str
        The question's endpoints as resolved, which settle a shared name at the route's two ends.
    """

    __slots__ = ("lines", "contexts", "departures", "arrivals", "via_sets", "via_counts", "size")

    def __init__(self, names: GraphNames, route: tuple, station_1: str, station_2: str):
        contexts = tuple(names.line(segment.route_name) for segment in route)
        last = len(route) - 1
        self.contexts = contexts
        self.lines = tuple(line or segment.route_name for line, segment in zip(contexts, route))
        self.departures = tuple(
            names.identity(segment.departure_stop, line, station_1 if index == 0 else None)
            for index, (line, segment) in enumerate(zip(contexts, route))
        )
        self.arrivals = tuple(
            names.identity(segment.arrival_stop, line, station_2 if index == last else None)
            for index, (line, segment) in enumerate(zip(contexts, route))
        )
        self.via_sets = tuple(
            frozenset(names.identity(stop, line) for stop in segment.via_stops)
            for line, segment in zip(contexts, route)
        )
        self.via_counts = tuple(len(segment.via_stops) for segment in route)
        self.size = len(route)


class PreparedQuestion:
    """A question's endpoints and references, resolved against its graph.

    Parameters
    ----------
    station_1, station_2 : str
        The endpoints' identities.
    references : tuple of Reference
        The reference routes, resolved.
    """

    __slots__ = ("station_1", "station_2", "references")

    def __init__(self, station_1: str, station_2: str, references: tuple[Reference, ...]):
        self.station_1, self.station_2, self.references = station_1, station_2, references


def _prepare(names: GraphNames, question: Question) -> PreparedQuestion:
    """Resolve a question against the graph; a graph of another city is the caller's mistake."""
    city = names.graph.city
    if city and question.city and fold(city) != fold(question.city):
        raise ValueError(f"question {question.id!r} is about {question.city!r} but the graph is {city!r}")
    # a name several stations share (New York's 125 St) is the one on the reference's first / last line
    first = question.routes[0] if question.routes else ()
    station_1 = names.identity(question.station_1, names.line(first[0].route_name) if first else None)
    station_2 = names.identity(question.station_2, names.line(first[-1].route_name) if first else None)
    references = tuple(Reference(names, route, station_1, station_2) for route in question.routes)
    if not references:
        raise ValueError(f"question {question.id!r} has no reference route")
    return PreparedQuestion(station_1, station_2, references)


def clear_caches() -> None:
    """Forget every memoized name and prepared question (graphkit's name keys too): the next
    answer is cold.

    For measuring the scorer on answers it has never met, as RL rollouts are.
    """
    _GRAPH_NAMES.clear()
    for function in (fold, line_keys, station_keys):
        function.cache_clear()
