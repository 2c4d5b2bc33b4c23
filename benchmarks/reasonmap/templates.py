"""The question templates of the paper's Appendix A.1.

Wording as published; fields go on their own lines and route sections are
separated by a ``--`` line, as the parser and the paper's format expect.
"""

from __future__ import annotations

from benchmarks.reasonmap.records import LongTemplate

__all__ = ["short_question", "long_question", "TEMPLATE_FIELDS", "TEMPLATE_ASKS"]

_OPENING = "According to the subway map, how do I get from {start} to {end}? "
_SHORT_ASK = "Provide only one optimal route, with only the line name and the departure and arrival stations. "
_VIA_COUNT_ASK = (
    "Provide only one optimal route, and include the number of via stops for each route section "
    "(excluding the departure and arrival stops). "
)
_VIA_STOPS_ASK = "Provide only one optimal route, including all the via stops. "
_STRICT = "The format should be strictly followed:"
_BLOCK = "Route Name: Line x\nDeparture Stop: xx Station\nArrival Stop: xx Station"

TEMPLATE_FIELDS: dict[str, str] = {
    "short": _BLOCK,
    "via_count": _BLOCK + "\nNumber of Via Stops: x",
    "via_stops": _BLOCK + "\nVia Stops: xx Station, xx Station",
}


#: What each question asks for, after its opening: ``short``, and the long question's two templates.
TEMPLATE_ASKS: dict[str, str] = {"short": _SHORT_ASK, "via_count": _VIA_COUNT_ASK, "via_stops": _VIA_STOPS_ASK}


def _format(block: str) -> str:
    return f"{block}\n--\n{block}"


def short_question(start: str, end: str) -> str:
    """The short question: line names and the departure and arrival stations only.

    Parameters
    ----------
    start, end : str
        The departure and arrival stations.

    Returns
    -------
    str
        The question, with its answer format.

    Examples
    --------
    >>> print(short_question("A Station", "B Station"))
    According to the subway map, how do I get from A Station to B Station? Provide only one optimal route, with only the line name and the departure and arrival stations. The format should be strictly followed:
    Route Name: Line x
    Departure Stop: xx Station
    Arrival Stop: xx Station
    --
    Route Name: Line x
    Departure Stop: xx Station
    Arrival Stop: xx Station
    """  # noqa: E501
    return _OPENING.format(start=start, end=end) + _SHORT_ASK + _STRICT + "\n" + _format(TEMPLATE_FIELDS["short"])


def long_question(start: str, end: str, template: LongTemplate) -> str:
    """The long question: with the number of via stops (``via_count``) or the via stops themselves (``via_stops``).

    Parameters
    ----------
    start, end : str
        The departure and arrival stations.
    template : {"via_count", "via_stops"}
        What each section must give besides the line and its ends.

    Returns
    -------
    str
        The question, with its answer format.

    Raises
    ------
    ValueError
        ``template`` is neither ``"via_count"`` nor ``"via_stops"``.
    """
    if template == "via_count":
        ask = _VIA_COUNT_ASK
    elif template == "via_stops":
        ask = _VIA_STOPS_ASK
    else:
        raise ValueError(f"template must be one of ['via_count', 'via_stops'], got {template!r}")
    return _OPENING.format(start=start, end=end) + ask + _STRICT + "\n" + _format(TEMPLATE_FIELDS[template])
