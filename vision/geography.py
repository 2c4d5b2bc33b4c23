"""A real city's map as its feed describes it: the line colours and station coordinates of the overlay.

A network compiled from GTFS (:mod:`graphkit.gtfs`) carries each line's ``route_color`` (the overlay's
``line_styles``) and each station's coordinates (its ``places``). The renderer draws such a network in
those colours and starts its schematic from the stations' geography: x follows longitude (scaled by the
cosine of the latitude), y latitude (north up), spread and snapped to the grid as any layout is, then
straightened. A network without them (every embedded city, every synthetic one) is drawn as before.
Colours a map cannot tell apart (CIEDE2000 below :data:`CONFUSABLE`) are reported, never changed.
"""

from __future__ import annotations

import math

from graphkit.graph import TransitGraph
from vision.evidence import ciede2000

__all__ = ["CONFUSABLE", "feed_colours", "geographic_coords", "confusable_colours"]

#: Line colours closer than this (CIEDE2000) are hard to tell apart on a map.
CONFUSABLE = 10.0


def feed_colours(graph: TransitGraph) -> dict[str, str] | None:
    """Each line's ``#rrggbb`` colour from the overlay's ``line_styles``; ``None`` unless every line has one.

    Parameters
    ----------
    graph : TransitGraph
        The city (a compiled GTFS feed's overlay has its lines' styles).

    Returns
    -------
    dict of str to str or None
        Each line's colour.
    """
    styles = {style.line: style.color.lower() for style in graph.overlay.line_styles}
    if not graph.lines or any(line not in styles for line in graph.lines):
        return None
    return {line: styles[line] for line in graph.lines}


def geographic_coords(graph: TransitGraph) -> list[tuple[float, float]] | None:
    """Each station's (x, y), in ``graph.stations`` order, from the overlay's ``places``: x east, y south
    (the grid's rows run down), in kilometres; ``None`` unless every station has a place.

    Parameters
    ----------
    graph : TransitGraph
        The city (a compiled GTFS feed's overlay has its stations' places).

    Returns
    -------
    list of (float, float) or None
        Each station's position.
    """
    places = {place.station: place for place in graph.overlay.places}
    if not graph.stations or any(station not in places for station in graph.stations):
        return None
    found = [places[station] for station in graph.stations]
    middle = math.radians(sum(place.lat for place in found) / len(found))
    return [(111.32 * place.lon * math.cos(middle), -110.57 * place.lat) for place in found]


def confusable_colours(colours: dict[str, str]) -> list[tuple[str, str, float]]:
    """The pairs of lines whose colours are closer than :data:`CONFUSABLE`, with their CIEDE2000 difference.

    Parameters
    ----------
    colours : dict of str to str
        Each line's ``#rrggbb`` colour.

    Returns
    -------
    list of (str, str, float)
        The close pairs, in the lines' order.

    Examples
    --------
    >>> confusable_colours({"1": "#ee352e", "2": "#ee352e", "7": "#b933ad"})
    [('1', '2', 0.0)]
    """
    lines = list(colours)
    found = []
    for i, a in enumerate(lines):
        for b in lines[i + 1 :]:
            difference = ciede2000(colours[a], colours[b])
            if difference < CONFUSABLE:
                found.append((a, b, round(difference, 2)))
    return found
