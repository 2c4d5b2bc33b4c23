"""Exceptions raised by graphkit.

Every error names what was wrong and where (file, transit line, station), so a
user can fix a Metro Data file or a query without reading the source.
"""

from __future__ import annotations

__all__ = [
    "shorten",
    "TransitError",
    "InvalidMetroData",
    "InvalidOverlay",
    "UnknownCity",
    "UnknownStation",
    "AmbiguousStation",
    "UnknownLine",
    "AmbiguousLine",
    "NoRoute",
    "InvalidName",
]

#: How much of a given text an error echoes.
ECHO_LIMIT = 80


def shorten(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters for an error message, saying how long it was.

    Parameters
    ----------
    text : str
        What a message quotes (a name, a value given).
    limit : int, optional
        The most characters kept.

    Returns
    -------
    str
        ``text``, or its start and its length.

    Examples
    --------
    >>> shorten("Termini")
    'Termini'
    >>> shorten("x" * 1000, 5)
    'xxxxx…(1000 chars)'
    """
    return text if len(text) <= limit else f"{text[:limit]}…({len(text)} chars)"


class TransitError(Exception):
    """Base class of every error graphkit raises."""


class InvalidMetroData(TransitError, ValueError):
    """A Metro Data file or object does not follow the format."""


class InvalidOverlay(TransitError, ValueError):
    """A topology overlay is malformed or contradicts its Metro Data."""


class UnknownCity(TransitError, LookupError):
    """No embedded city has this name."""


class _NameLookupError(TransitError, LookupError):
    """A name that fits no entry, or several; carries the candidates."""

    kind = "name"
    ambiguous = False

    def __init__(self, query: str, candidates: tuple[str, ...] = (), *, city: str = "", hint: str = ""):
        self.query = query
        self.candidates = tuple(candidates)
        self.city = city
        where = f" in {city}" if city else ""
        listed = shorten(hint, 4 * ECHO_LIMIT) or ", ".join(repr(shorten(name)) for name in self.candidates)
        shown = shorten(query)
        if self.ambiguous:
            message = f"ambiguous {self.kind} {shown!r}{where}: it fits {listed}"
        elif self.candidates:
            message = f"unknown {self.kind} {shown!r}{where}; did you mean {listed}?"
        else:
            message = f"unknown {self.kind} {shown!r}{where}"
        super().__init__(message)


class UnknownStation(_NameLookupError):
    """A station name that fits no station; ``candidates`` are close matches."""

    kind = "station"


class AmbiguousStation(_NameLookupError):
    """A station name that fits several distinct stations (``candidates``)."""

    kind = "station"
    ambiguous = True


class UnknownLine(_NameLookupError):
    """A line name that fits no line; ``candidates`` are close matches."""

    kind = "line"


class AmbiguousLine(_NameLookupError):
    """A line name that fits several lines (``candidates``)."""

    kind = "line"
    ambiguous = True


class InvalidName(TransitError, ValueError):
    """A name to look up holds a control or bidi character (which would match, invisibly, another name)."""

    def __init__(self, query: str, character: str, *, kind: str = "station"):
        self.query = query
        super().__init__(
            f"{kind} name {shorten(query)!r} contains {character}; names may hold no control or bidi characters"
        )


class NoRoute(TransitError):
    """The two stations are not connected by the network."""

    def __init__(self, source: str, target: str, *, city: str = ""):
        self.source = source
        self.target = target
        where = f" in {city}" if city else ""
        super().__init__(f"no route from {shorten(source)!r} to {shorten(target)!r}{where}: they are not connected")
