"""Writing routes in the benchmark's answer format."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.reasonmap.records import Kind, LongTemplate
from graphkit.segments import Segment

__all__ = ["render_answer"]


def render_answer(segments: Sequence[Segment], kind: Kind, template: LongTemplate | None = None) -> str:
    """The answer text for a route, in the format the questions ask for.

    Parameters
    ----------
    segments : sequence of Segment
        The route's rides, in order.
    kind : {"short", "long"}
        The question kind: each ride gives its line, departure and arrival; a long answer adds its via stops.
    template : {"via_count", "via_stops"}, optional
        For ``long``: whether a ride gives its number of via stops or lists them.

    Returns
    -------
    str
        The answer, one ``Key: value`` line per field and a ``--`` line between rides.

    Examples
    --------
    >>> print(render_answer([Segment("Line 2", "A", "C", ("B",))], "long", "via_count"))
    Route Name: Line 2
    Departure Stop: A
    Arrival Stop: C
    Number of Via Stops: 1
    """
    blocks = []
    for segment in segments:
        lines = [
            f"Route Name: {segment.route_name}",
            f"Departure Stop: {segment.departure_stop}",
            f"Arrival Stop: {segment.arrival_stop}",
        ]
        if kind == "long" and template == "via_count":
            lines.append(f"Number of Via Stops: {len(segment.via_stops)}")
        elif kind == "long":
            lines.append(f"Via Stops: {', '.join(segment.via_stops) if segment.via_stops else 'None'}")
        blocks.append("\n".join(lines))
    return "\n--\n".join(blocks)
