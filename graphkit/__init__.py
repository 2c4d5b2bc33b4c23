"""graphkit: Metro Data to transit graph to reference routes.

The floor every other part of the toolkit stands on: load and validate a
city's Metro Data, compile it (with its topology overlay) into a transit
graph, and compute fewest-transfer reference routes.

Examples
--------
>>> import graphkit
>>> graph = graphkit.city_graph("rome")
>>> route = graphkit.shortest_route(graph, "Termini", "Jonio Station")
>>> route.lines, route.transfers
(('Line B',), 0)
"""

from __future__ import annotations

from graphkit.cities import city_graph, city_names, city_path, graph_from_file, load_city, load_metro_file
from graphkit.errors import (
    AmbiguousLine,
    AmbiguousStation,
    InvalidMetroData,
    InvalidOverlay,
    NoRoute,
    TransitError,
    UnknownCity,
    UnknownLine,
    UnknownStation,
)
from graphkit.graph import TransitGraph, compile_graph
from graphkit.matching import NameIndex, Resolution
from graphkit.metro import Line, MetroData, StationEntry, load_metro
from graphkit.overlays import Overlay, load_overlay
from graphkit.routes import (
    DEFAULT_MAX_ROUTES,
    RouteSet,
    reference_routes,
    shortest_route,
    shortest_route_length,
    shortest_routes,
)
from graphkit.segments import Route, Segment
from graphkit.stats import CityStats, all_city_stats, city_stats

__all__ = [
    "AmbiguousLine",
    "AmbiguousStation",
    "CityStats",
    "DEFAULT_MAX_ROUTES",
    "InvalidMetroData",
    "InvalidOverlay",
    "Line",
    "MetroData",
    "NameIndex",
    "NoRoute",
    "Overlay",
    "Resolution",
    "Route",
    "RouteSet",
    "Segment",
    "StationEntry",
    "TransitError",
    "TransitGraph",
    "UnknownCity",
    "UnknownLine",
    "UnknownStation",
    "all_city_stats",
    "city_graph",
    "city_names",
    "city_path",
    "city_stats",
    "compile_graph",
    "graph_from_file",
    "load_city",
    "load_metro",
    "load_metro_file",
    "load_overlay",
    "reference_routes",
    "shortest_route",
    "shortest_route_length",
    "shortest_routes",
]

__version__ = "0.1.0"
