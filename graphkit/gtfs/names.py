"""Names as riders read them, and the route types a rail map draws.

A name of several words written in capitals (``OWINGS MILLS METRO``, ``DUPONT CIRCLE METRORAIL STATION``) is set in
title case and loses the mode word the agency appends (``Owings Mills``, ``Dupont Circle Station``);
any other name is kept as written, spaces tidied. The feed's own spelling stays in the overlay.
"""

from __future__ import annotations

import re

__all__ = ["rider_name", "MODES", "MODE_NAMES", "DEFAULT_MODES", "route_modes", "hex_color"]

_SPACES = re.compile(r"\s+")
# mode words an agency appends to a station's name in capitals (longest first)
_MODE_WORDS = re.compile(r"\s+(?:METRORAIL|METRO\s+RAIL|LIGHT\s+RAIL|SUBWAY|METRO|LRT|MRT)(?=\s+STATION$|$)")
# words kept in capitals when a capitalised name is set in title case
_ACRONYMS = frozenset({"BWI", "MICA", "LAX", "USC", "UCLA", "NYU", "JFK", "DC", "II", "III", "IV", "WTC", "PATH"})

#: Mode names and the GTFS route types (basic and extended) each covers.
MODES: dict[str, frozenset[int]] = {
    "metro": frozenset({1, 400, 401, 402, 403, 404}),
    "light-rail": frozenset({0, 900, 901, 902, 903, 904, 906}),
    "tram": frozenset({0, 900, 905, 906}),
    "rail": frozenset({2, *range(100, 118)}),
    "monorail": frozenset({12, 405}),
    "funicular": frozenset({7, 1400}),
    "cable-tram": frozenset({5}),
    "aerial-lift": frozenset({6, *range(1300, 1308)}),
    "ferry": frozenset({4, 1000, 1200}),
}
#: The mode names ``--modes`` takes.
MODE_NAMES = tuple(MODES)
#: The rail modes compiled unless ``--modes`` says otherwise (never a bus).
DEFAULT_MODES = ("metro", "light-rail", "tram", "rail", "monorail", "funicular")


def route_modes(modes: tuple[str, ...]) -> frozenset[int]:
    """The route types of ``modes``.

    Parameters
    ----------
    modes : tuple of str
        Names of :data:`MODES`.

    Returns
    -------
    frozenset of int
        The GTFS ``route_type`` values (basic and extended) of those modes.

    Raises
    ------
    ValueError
        A mode that is not one of :data:`MODES`.
    """
    types: set[int] = set()
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"--modes: unknown mode {mode!r}; valid: {', '.join(MODES)}")
        types |= MODES[mode]
    return frozenset(types)


def _title_word(word: str) -> str:
    if word in _ACRONYMS or not any(c.isalpha() for c in word):
        return word
    if word[0].isdigit():
        return word.lower()  # 125TH -> 125th
    return "-".join(part[:1].upper() + part[1:].lower() for part in word.split("-"))


def rider_name(name: str) -> str:
    """The station's name as riders read it.

    Parameters
    ----------
    name : str
        The feed's ``stop_name``.

    Returns
    -------
    str
        The name, spaces and capitals tidied and mode words (``METRO``, ``METRORAIL``) left out.

    Examples
    --------
    >>> rider_name("OWINGS MILLS METRO"), rider_name("DUPONT CIRCLE METRORAIL STATION")
    ('Owings Mills', 'Dupont Circle Station')
    >>> rider_name("  7th Street /  Metro Center Station ")
    '7th Street / Metro Center Station'
    """
    text = _SPACES.sub(" ", name).strip()
    letters = [c for c in text if c.isalpha()]
    # capitals only, and more than one word: a single capitalised word may be an acronym (KLCC), and a
    # letter without case (黄花机场T1T2站) is no capitalised name
    if " " in text and letters and all(c.isupper() for c in letters):
        text = _MODE_WORDS.sub("", text)
        text = " ".join(_title_word(word) for word in text.split(" "))
    return text


def hex_color(value: str, default: str) -> str:
    """A GTFS colour (``RRGGBB``) as ``#RRGGBB``; ``default`` where it is empty or not a colour.

    Parameters
    ----------
    value : str
        The feed's colour (a leading ``#`` is accepted).
    default : str
        The colour used instead, as ``RRGGBB``.

    Returns
    -------
    str
        ``#RRGGBB``, in capitals.

    Examples
    --------
    >>> hex_color("ff00aa", "000000"), hex_color("", "FFFFFF")
    ('#FF00AA', '#FFFFFF')
    """
    value = value.strip().lstrip("#")
    if re.fullmatch(r"[0-9A-Fa-f]{6}", value):
        return "#" + value.upper()
    return "#" + default
