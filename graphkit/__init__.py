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

import importlib
from typing import Any

# Each name is imported from its module when first used: ``import graphkit.files`` (or any light
# module) must not load igraph and numpy with the graph modules.
_HOMES: dict[str, tuple[str, ...]] = {
    "graphkit.cities": ("city_graph", "city_names", "city_path", "graph_from_file", "load_city", "load_metro_file"),
    "graphkit.errors": (
        "AmbiguousLine",
        "AmbiguousStation",
        "InvalidMetroData",
        "InvalidOverlay",
        "NoRoute",
        "TransitError",
        "UnknownCity",
        "UnknownLine",
        "UnknownStation",
    ),
    "graphkit.graph": ("TransitGraph", "compile_graph"),
    "graphkit.matching": ("NameIndex", "Resolution"),
    "graphkit.metro": ("Line", "MetroData", "StationEntry", "load_metro"),
    "graphkit.overlays": ("Overlay", "load_overlay"),
    "graphkit.routes": (
        "DEFAULT_MAX_ROUTES",
        "RouteSet",
        "reference_routes",
        "shortest_route",
        "shortest_route_length",
        "shortest_routes",
    ),
    "graphkit.segments": ("Route", "Segment"),
    "graphkit.stats": ("CityStats", "all_city_stats", "city_stats"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF, key=str.casefold)


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'graphkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__version__ = "0.1.0"
