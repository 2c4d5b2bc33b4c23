"""graphkit: Metro Data to transit graph to reference routes.

The floor every other part of the toolkit stands on: load and validate a
city's Metro Data, compile it (with its topology overlay) into a transit
graph, and compute fewest-transfer reference routes (written for many
cities at once on a process pool or a Ray cluster: ``write_references``
with ``open_executor``), and random networks of a given shape
(``synthesize_network``).

The names in ``__all__`` are the public surface; the submodules are
internal (import from the package, not from them).

Examples
--------
>>> import graphkit
>>> graph = graphkit.city_graph("rome")
>>> route = graphkit.shortest_route(graph, "Termini", "Jonio Station")
>>> route.lines, route.transfers
(('Line B',), 0)
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

# Each name is imported from its module when first used: ``import graphkit.files`` (or any light
# module) must not load igraph and numpy with the graph modules.
__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
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
        "graphkit.executors": ("open_executor",),
        "graphkit.graph": ("TransitGraph", "compile_graph"),
        "graphkit.io": ("write_references",),
        "graphkit.matching": ("NameIndex", "Resolution"),
        "graphkit.metro": ("Line", "MetroData", "StationEntry", "load_metro"),
        "graphkit.names": ("fold",),
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
        "graphkit.settings": ("InvalidSetting", "folder_list", "name_list", "output_folder", "whole_number"),
        "graphkit.stats": ("CityStats", "all_city_stats", "city_stats"),
        "graphkit.synth": ("synthesize_network",),
    },
)

__version__ = "0.1.0"
