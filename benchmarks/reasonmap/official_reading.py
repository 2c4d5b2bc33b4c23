"""How the public evaluation code (``main.py`` of fscdc/ReasonMap) reads an answer text: its sections and the
names as it compares them. :mod:`~benchmarks.reasonmap.official_scoring` (variant ``official``) scores what is
read here, and its notes say what the public code does step by step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["OfficialSection", "clean_name", "official_sections"]

Kind = Literal["short", "long"]

_DROPPED = ("Metro", "metro", ",", "*", "\n")
_OPENER = re.compile(r"[(（]")
_CLOSER = re.compile(r"[)）]")
_BLANKS = re.compile(r"[\s\-]+")


def clean_name(name: str) -> str:
    """A name as the public code compares it.

    Parameters
    ----------
    name : str
        A station or line name.

    Returns
    -------
    str
        Without its annotation marks, bracketed parts and blanks, lower-cased.

    Examples
    --------
    >>> clean_name("Metro Line-B (Transfer Station)"), clean_name("徐家汇站（换乘站）")
    ('lineb', '徐家汇站')
    """
    for dropped in _DROPPED:
        name = name.replace(dropped, "")
    return _BLANKS.sub("", _unbracketed(name)).lower()


def _unbracketed(name: str) -> str:
    """``name`` without each opening bracket and the text up to the first closing one after it.

    The public code does this with a regular expression that takes quadratic time on many unclosed
    brackets; this scan gives the same result in one pass.
    """
    kept = []
    start = 0
    while True:
        opener = _OPENER.search(name, start)
        closer = _CLOSER.search(name, opener.end()) if opener else None
        if closer is None:
            break
        kept.append(name[start : opener.start()])
        start = closer.end()
    kept.append(name[start:])
    return "".join(kept)


@dataclass(frozen=True, slots=True)
class OfficialSection:
    """One section as the public code reads it (``Wrong`` for a field it could not read).

    Parameters
    ----------
    route_name, departure, arrival : str
        The route name as written; the stops through :func:`clean_name` (``Wrong`` is not).
    extra : str, optional
        The raw via text or count text of a long answer, ``None`` for a short one.
    labelled : bool, optional
        Whether its label was there (when not, the public code takes the whole section).
    """

    route_name: str
    departure: str
    arrival: str
    extra: str | None = None
    labelled: bool = False


def _line_field(part: str, label: str) -> str | None:
    """The text from ``label`` to the next line break, or ``None`` when no line break follows."""
    start = part.find(label)
    if start < 0:
        return None
    start += len(label)
    end = part.find("\n", start)
    return None if end < 0 else part[start:end]


def official_sections(text: str, *, kind: Kind, counts: bool = False) -> tuple[OfficialSection, ...]:
    """The sections the public code reads from an answer text (never raises).

    ``counts`` says the long question asks for via counts (its text holds
    ``Number of Via Stops:``); it chooses which label the long answer's
    ``extra`` follows.

    Parameters
    ----------
    text : str
        The answer text (after the rule took it from the response).
    kind : {"short", "long"}
        The question's kind.
    counts : bool, optional
        As above.

    Returns
    -------
    tuple of OfficialSection
        The sections with all three labels, in order.

    Examples
    --------
    >>> official_sections("Route Name: Line 1\\nDeparture Stop: A\\nArrival Stop: B.", kind="short")
    (OfficialSection(route_name='Line 1', departure='a', arrival='b.', extra=None, labelled=False),)
    """
    long = kind == "long"
    sections = []
    for part in text.split("--"):
        if not part.strip() or any(label not in part for label in ("Route Name:", "Departure Stop:", "Arrival Stop:")):
            continue
        route = _line_field(part, "Route Name: ")
        departure = _line_field(part, "Departure Stop: ")
        if long:
            arrival = _line_field(part, "Arrival Stop: ")
            arrival_text = "Wrong" if arrival is None else clean_name(arrival)
            label = "Number of Via Stops: " if counts else "Via Stops: "
            extra: str | None = part.rsplit(label, 1)[-1].strip()
            labelled = label in part
        else:
            arrival_text = clean_name(part.rsplit("Arrival Stop:", 1)[-1].strip())
            extra, labelled = None, False
        sections.append(
            OfficialSection(
                "Wrong" if route is None else route.strip(),
                "Wrong" if departure is None else clean_name(departure),
                arrival_text,
                extra,
                labelled,
            )
        )
    return tuple(sections)
