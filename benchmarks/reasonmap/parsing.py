"""Reading a model's route answer: tolerant, linear-time, never raises.

ReasonMap asks for blocks of ``Route Name:``, ``Departure Stop:`` and
``Arrival Stop:`` lines (long questions add ``Number of Via Stops:`` or
``Via Stops:``), one block per ride, separated by a line ``--``. Models wrap
that in reasoning, tags, LaTeX and markdown; the public evaluation code breaks
on all of them. This module peels the wrappers off, finds the field lines in
one pass and returns the sections as written: names are not matched to the
Metro Data here (that is the scorer's job), only stripped of quotes, markdown
and sentence punctuation.

Speed and safety: the regular expressions that search start with a literal
(so the engine skips ahead in C), the others are anchored, and all use
possessive quantifiers (so none backtracks). Python code runs per field line,
per separator and per line of a via-stop list, never per character, and the
lines read one by one are capped (``MAX_VIA_STOPS`` list entries per section,
ten times that per answer). A megabyte parses in tens of milliseconds,
whatever it holds.
"""

from __future__ import annotations

import bisect
import re
from typing import Literal

from benchmarks.answer_text import after_reasoning, mentions_refusal
from benchmarks.reasonmap.records import KINDS, LONG_TEMPLATES, ParsedAnswer, ParsedSection
from benchmarks.records import Invalid, record_builder
from graphkit.metro import strip_annotations

__all__ = ["MAX_VIA_STOPS", "parse_answer"]

MAX_VIA_STOPS = 1000
"""Via-stop list entries one section may hold; more makes the answer invalid (no real ride has that many)."""

# Field slots of a section being read.
_ROUTE, _DEPARTURE, _ARRIVAL, _COUNT, _VIA = range(5)
_FIELD_LABELS = ("Route Name", "Departure Stop", "Arrival Stop")
_NO_FIELDS = (None,) * 5

# Line breaks are all "\n" before scanning, so these classes never cross a line.
_WS = " \t\u00a0\u3000\u200b\ufeff"
_RULE = "-—–―‐‑−─━=*_~"
_S = r"[ \t\u00a0\u3000]*+"
_STOPS = r"(?:stops?|stations?)"
_VIA_WORD = r"(?:via|intermediate)"
# A field line, matched from the "\n" before it: list, quote, heading or emphasis marks, a field name,
# emphasis, a colon (ASCII or full-width); the value runs to the end of the line. The lookaheads turn most
# other lines away at their first character.
_FIELD_HEAD = (
    rf"(?=[{_WS}>#*_`•·▪◦+\-\dadfilnrtv])"
    rf"[{_WS}>#*_`•·▪◦+\-]*+(?:\d{{1,3}}[.)、]{_S})?+[*_`]*+(?=[adfilnrtv])"
)
_FIELD = re.compile(
    rf"\n{_FIELD_HEAD}"
    rf"(route(?:{_S}name)?+|line{_S}name"
    rf"|departure(?:{_S}(?:stop|station)s?)?+|from"
    rf"|arrival(?:{_S}(?:stop|station)s?)?+|to"
    rf"|(?:number|num\.?|no\.){_S}(?:of{_S})?{_VIA_WORD}{_S}{_STOPS}"
    rf"|{_VIA_WORD}{_S}{_STOPS}(?:{_S}count)?+)"
    rf"[{_WS}*_`]*+[:：]",
    re.IGNORECASE,
)
# The field a matched name stands for, by its first letter ("via ... count" is told by its last).
_FIELD_BY_INITIAL = {"r": _ROUTE, "l": _ROUTE, "d": _DEPARTURE, "f": _DEPARTURE, "a": _ARRIVAL, "t": _ARRIVAL}
_FIELD_BY_INITIAL |= {"n": _COUNT, "v": _VIA, "i": _VIA}
# A line that ends a section: a markdown heading or a rule of dashes, equals signs, stars...
_BREAK_BODY = rf"[{_WS}>]*+(?:#|[{re.escape(_RULE)}][{re.escape(_RULE)}{_WS}>]*+(?=\n|\Z))"
_BREAK = re.compile("\n" + _BREAK_BODY)
_VALUE = rf"[{_WS}*_`]*+[:：]([^\n]*+)"
# The names of each slot's field, as _TOKEN and _SECTIONS tell them apart (a count is tried before a list).
_ROUTE_NAME = rf"(?:route(?:{_S}name)?+|line{_S}name)"
_DEPARTURE_NAME = rf"(?:departure(?:{_S}(?:stop|station)s?)?+|from)"
_ARRIVAL_NAME = rf"(?:arrival(?:{_S}(?:stop|station)s?)?+|to)"
_COUNT_NAME = rf"(?:(?:number|num\.?|no\.){_S}(?:of{_S})?{_VIA_WORD}{_S}{_STOPS}|{_VIA_WORD}{_S}{_STOPS}{_S}count)"
_VIA_NAME = rf"{_VIA_WORD}{_S}{_STOPS}"
_SLOT_NAMES = (_ROUTE_NAME, _DEPARTURE_NAME, _ARRIVAL_NAME, _COUNT_NAME, _VIA_NAME)
# The field lines and section breaks of an answer in one pass: a field line's value is the group of its slot
# plus one (the names of _FIELD, a via-stop count told apart by its word), a break matches no group.
_TOKEN = re.compile(
    rf"\n(?:{_FIELD_HEAD}(?:{'|'.join(name + _VALUE for name in _SLOT_NAMES)})|{_BREAK_BODY})", re.IGNORECASE
)
# Whole sections, for _whole_sections: a Route Name, a Departure Stop and an Arrival Stop line in a row, then maybe
# a via-stop count line and a via-stop list line (groups 1 to 5, as _TOKEN's); else a field line that starts no
# such run (group 6: where _TOKEN finds a lone field) or a section break (no group). The field head is read once
# for both (it is possessive: what follows it cannot change where it ends).
_DEPARTURE_LINE, _ARRIVAL_LINE, _COUNT_LINE, _VIA_LINE = (f"{_FIELD_HEAD}{name}{_VALUE}" for name in _SLOT_NAMES[1:])
_SECTIONS = re.compile(
    rf"\n(?:{_FIELD_HEAD}(?:{_ROUTE_NAME}{_VALUE}\n{_DEPARTURE_LINE}\n{_ARRIVAL_LINE}(?:\n{_COUNT_LINE})?+(?:\n{_VIA_LINE})?+"
    rf"|((?:{'|'.join(_SLOT_NAMES)})[{_WS}*_`]*+[:：]))"
    rf"|{_BREAK_BODY})",
    re.IGNORECASE,
)
_LONE_FIELD = 6
_BLANK = "\n" + _WS + ">"  # what blank lines hold, as _Reader.line strips them
_BREAK_LINE = re.compile(_BREAK_BODY)
_BULLET = re.compile(r"(?:[-*•·▪◦+]|\d{1,3}[.)、])[ \t\u00a0\u3000]++")
_VIA_SPLIT = re.compile(r",|，|、|;|；|->|=>|→|⟶|➔|➜|➡|⇒")
_LEADING_INT = re.compile(r"\d++")
_ANSWER_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_ANSWER_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
_LATEX_WRAPPER = re.compile(r"\\(?:boxed|text|textbf|textit|textrm|mathrm|mathbf|mbox|fbox)\s*+\{")
_LATEX_BREAK = re.compile(r"\\\\|\\newline")
_HTML_BREAK = re.compile(r"<br\s*+/?>", re.IGNORECASE)
_ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines() also splits on

_EDGE = _WS + "*_`"
_LATEX_EDGE = _EDGE + "{}$\\"
_TRAILING = ".。,，;；"
_QUOTES = frozenset("\"'“”‘’„‟「」『』«»＂＇")
_LIST_ENDS = (",", "，", "、", ";", "；", "->", "=>", "→", "⟶", "➔", "➜", "➡", "⇒")
_NO_STOPS = frozenset({"", "none", "n/a", "na", "nil", "null", "-", "--", "—", "–", "no", "no via stops", "无", "没有"})
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        " sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"no": 0, "none": 0}
_MAX_COUNT_DIGITS = 9
_new_section = record_builder(ParsedSection)  # ParsedSection(*fields), made once per section read
_new_answer = record_builder(ParsedAnswer)
_MAX_LIST_LINES = 10 * MAX_VIA_STOPS

# States of a via-stop list that may go on over the following lines.
_VIA_CLOSED, _VIA_OPEN, _VIA_GAP, _VIA_BULLETS, _VIA_PLAIN, _VIA_TRAILING = range(6)


def parse_answer(
    text: str,
    *,
    kind: Literal["short", "long"] = "short",
    template: Literal["via_count", "via_stops"] | None = None,
) -> ParsedAnswer | Invalid:
    """Read the route sections of a model's answer.

    Parameters
    ----------
    text : str
        The model's response, as returned. Anything else gives ``Invalid("not text")``.
    kind : {"short", "long"}
        The question asked. Via-stop fields are read only for ``"long"``; for
        ``"short"`` they are left ``None`` even when the model gave them.
    template : {"via_count", "via_stops"} or None
        The long question's template. Both via fields are read whenever
        present; with ``"via_count"`` a ``Via Stops:`` value that is a bare
        integer is taken as the count when no count field was given.

    Returns
    -------
    ParsedAnswer or Invalid
        The sections in order, or why none could be read: ``"empty
        response"``, ``"no answer after reasoning"`` (an unclosed ``<think>``
        or nothing after the last ``</think>``), ``"refusal"`` (with
        ``refusal=True``), ``"no route section"``, or ``"section N: no
        Departure Stop"`` for the first section missing a required field.

    Raises
    ------
    ValueError
        ``kind`` or ``template`` is not one of the choices (a caller's
        mistake; the text itself never makes this function raise).

    Notes
    -----
    Accepted around the fields: ``<think>`` blocks, ``<answer>`` tags (the
    last non-empty one), ``\\boxed{}``/``\\text{}`` wrappers, markdown
    emphasis, bullets, numbered lists, headings, code fences and block
    quotes, quoted values, full-width colons, any line ending, and prose
    before, between and after the sections. Field names are case-insensitive
    and have variants (``Route``/``Line Name``, ``Departure Station``/``From``,
    ``Arrival Station``/``To``, ``Num Via Stops``/``Via Stop Count``,
    ``Via Stations``). A section ends at a separator line (dashes, rules,
    headings) or where a field it already has appears again; blank lines
    alone do not split sections. A section whose fields are all empty (an
    echoed template) is dropped.

    Examples
    --------
    >>> answer = parse_answer('''<think>Line 2 is direct.</think>
    ... **Route Name:** Line 2
    ... **Departure Stop:** "Xizhimen Station"
    ... **Arrival Stop:** Chegongzhuang Station
    ... ''')
    >>> answer.sections[0].departure_stop
    'Xizhimen Station'
    >>> parse_answer("Route Name: Line 1\\nDeparture Stop: A\\nVia Stops: B, C\\nArrival Stop: D", kind="long")
    ParsedAnswer(sections=(ParsedSection(route_name='Line 1', departure_stop='A', arrival_stop='D', \
num_via_stops=None, via_stops=('B', 'C')),))
    >>> parse_answer("Route Name: Line 1\\nArrival Stop: D")
    Invalid(reason='section 1: no Departure Stop', refusal=False)
    >>> parse_answer("Sorry, I cannot read this map.")
    Invalid(reason='refusal', refusal=True)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if template is not None and template not in LONG_TEMPLATES:
        raise ValueError(f"template must be one of {list(LONG_TEMPLATES)} or None, got {template!r}")
    return read_answer(text, kind == "long", template)


def read_answer(text: str, long: bool, template: str | None) -> ParsedAnswer | Invalid:
    """:func:`parse_answer` on options already checked (the scorer's per-answer call)."""
    if not isinstance(text, str):
        return Invalid("not text")
    if not text or text.isspace():
        return Invalid("empty response")
    answer = after_reasoning(text)
    if answer is None:
        return Invalid("no answer after reasoning")
    answer, latex = _unwrap_markup(_last_answer_block(answer))
    found = _whole_sections(answer, _LATEX_EDGE if latex else _EDGE, long, template)
    saw_field = bool(found)
    if found is None:  # fields out of a whole section's order, or a value that may go on: read them one by one
        reader = _Reader(latex, long=long, template=template)
        found = reader.read_fast(answer)
        if found is None:  # a value or a via-stop list may go on over the next lines: read those lines too
            reader = _Reader(latex, long=long, template=template)
            found = reader.read(answer)
        if isinstance(found, Invalid):
            return found
        saw_field = reader.saw_field
    if not found:
        if not saw_field and mentions_refusal(answer):
            return Invalid("refusal", refusal=True)
        return Invalid("no route section")
    return _new_answer(tuple(found))


def _last_answer_block(text: str) -> str:
    """The content of the last non-empty ``<answer>`` block, or the text when there is none."""
    if "<" not in text:
        return text
    openings = [match.end() for match in _ANSWER_OPEN.finditer(text)]
    if not openings:
        return text
    closings = [match.start() for match in _ANSWER_CLOSE.finditer(text)]
    for index in range(len(openings) - 1, -1, -1):
        start = openings[index]
        end = len(text) if index + 1 == len(openings) else openings[index + 1]
        after = bisect.bisect_left(closings, start)
        if after < len(closings):
            end = min(end, closings[after])
        content = text[start:end]
        if content and not content.isspace():
            return content
    return text


def _unwrap_markup(text: str) -> tuple[str, bool]:
    """One kind of line break; LaTeX wrappers dropped, LaTeX and HTML breaks as newlines; whether LaTeX was seen."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    for odd in _ODD_BREAKS:
        if odd in text:
            text = text.replace(odd, "\n")
    latex = False
    if "\\" in text:
        # a wrapper becomes a line break: "$\\boxed{Route Name: ..." puts the field at a line start
        unwrapped = _LATEX_WRAPPER.sub("\n", text)
        latex = unwrapped != text
        text = _LATEX_BREAK.sub("\n", unwrapped)
    if "<" in text:
        text = _HTML_BREAK.sub("\n", text)
    return text, latex


def _clean(value: str, edge: str) -> str:
    """A value without surrounding whitespace, markdown, quotes and sentence punctuation."""
    value = value.strip(edge)
    if not value or not (value[-1] in _TRAILING or value[0] in _QUOTES or "**" in value or "__" in value):
        return value  # the common case, kept cheap
    value = value.replace("**", "").replace("__", "").strip(edge)
    for _ in range(2):  # quotes inside punctuation and punctuation inside quotes
        if value and value[-1] in _TRAILING:
            value = value.rstrip(_TRAILING).strip(edge)
        if len(value) >= 2 and value[0] in _QUOTES and value[-1] in _QUOTES:
            value = value[1:-1].strip(edge)
    return value


def _whole_sections(text: str, edge: str, long: bool, template: str | None) -> list[ParsedSection] | None:
    """What :class:`_Reader` reads in ``text`` when its field lines are all in whole sections, else ``None``.

    A whole section is a Route Name, a Departure Stop and an Arrival Stop line in a row, maybe a via-stop count
    line and a via-stop list line after them, every value complete on its line (not empty, no list left open):
    the form answers take. Python runs per section here, not per field line.
    """
    sections = []
    for match in _SECTIONS.finditer("\n" + text):
        found = match.lastindex
        if found is None:  # a section break: the section before it is kept already
            continue
        if found == _LONE_FIELD:
            return None
        route, departure, arrival, count, via = match.group(1, 2, 3, 4, 5)
        # _clean's common case inline (a value without quotes, bold marks or a full stop): once per field
        route, departure, arrival = route.strip(edge), departure.strip(edge), arrival.strip(edge)
        if not (route and departure and arrival):
            return None
        if route[-1] in _TRAILING or route[0] in _QUOTES or "**" in route or "__" in route:
            route = _clean(route, edge)
        if departure[-1] in _TRAILING or departure[0] in _QUOTES or "**" in departure or "__" in departure:
            departure = _clean(departure, edge)
        if arrival[-1] in _TRAILING or arrival[0] in _QUOTES or "**" in arrival or "__" in arrival:
            arrival = _clean(arrival, edge)
        if not (route and departure and arrival):
            return None
        if count is not None:
            count = _clean(count, edge)
            if not count:
                return None
        elif via is None and not long:  # _section's short case inline
            if "(" in departure or "（" in departure:
                departure = strip_annotations(departure)
            if "(" in arrival or "（" in arrival:
                arrival = strip_annotations(arrival)
            sections.append(_new_section(route, departure, arrival, None, None))
            continue
        stops = None
        if via is not None:
            stops = []
            if not via.strip(edge) or _add_stops(via, edge, stops) > MAX_VIA_STOPS:
                return None
            if stops and via.rstrip(_EDGE).endswith(_LIST_ENDS):
                return None
        sections.append(_section(route, departure, arrival, count, stops, long, template))
    return sections


class _Reader:
    """The state of one scan: sections read so far and the section being read."""

    __slots__ = (
        "edge",
        "latex",
        "long",
        "template",
        "sections",
        "current",
        "saw_field",
        "pending",
        "via_state",
        "via_entries",
        "budget",
    )

    def __init__(self, latex: bool, *, long: bool, template: str | None) -> None:
        self.edge = _LATEX_EDGE if latex else _EDGE
        self.latex = latex
        self.long = long
        self.template = template
        self.sections: list[ParsedSection] = []
        self.current: list = list(_NO_FIELDS)
        self.saw_field = False
        self.pending: int | None = None  # a field whose value is on the next line
        self.via_state = _VIA_CLOSED
        self.via_entries = 0  # in the current section's via-stop list
        self.budget = _MAX_LIST_LINES  # via-stop list lines read one by one, for the whole answer

    def read(self, text: str) -> list[ParsedSection] | Invalid:
        """Every non-empty section, or the first section's problem."""
        text = "\n" + text
        size = len(text)
        position = 0  # the newline that ends the last field line read
        edge = self.edge
        current = self.current
        for match in _FIELD.finditer(text):
            start, end = match.span()
            if start != position:
                problem = self.gap(text, position, start)
                if problem is not None:
                    return problem
            position = text.find("\n", end)
            if position < 0:
                position = size
            self.pending = None
            self.via_state = _VIA_CLOSED
            name = match.group(1)
            slot = _FIELD_BY_INITIAL[name[0].lower()]
            if slot == _VIA and name[-1] in "tT":
                slot = _COUNT
            if current[slot] is not None:  # a field seen again starts the next section
                problem = self.close()
                if problem is not None:
                    return problem
            raw = text[end:position]
            if slot == _VIA:
                self.via_entries = 0
                current[_VIA] = []
                problem = self.add_stops(raw)
                if problem is not None:
                    return problem
                if not raw.strip(edge):
                    self.via_state = _VIA_OPEN
                elif current[_VIA] and raw.rstrip(_EDGE).endswith(_LIST_ENDS):
                    self.via_state = _VIA_TRAILING
            else:
                value = raw.strip(edge)
                if value and (value[-1] in _TRAILING or value[0] in _QUOTES or "**" in value or "__" in value):
                    value = _clean(value, edge)
                current[slot] = value
                if not value:
                    self.pending = slot
        self.saw_field = position != 0
        if position != size:
            problem = self.gap(text, position, size)
            if problem is not None:
                return problem
        problem = self.close()
        return problem if problem is not None else self.sections

    def read_fast(self, text: str) -> list[ParsedSection] | Invalid | None:
        """:meth:`read` in one pass over the field lines and breaks, or ``None`` where it needs :meth:`read`.

        That is where a value or a via-stop list may go on over the next lines (an empty value, an empty or
        unfinished list) and those lines are not all blank, or too few are blank before a break (a fence
        ``~~~`` there is no break to :meth:`line`).
        """
        text = "\n" + text
        edge = self.edge
        current = self.current
        open_end = -1  # where the line that left a value or a list open ends
        blanks = 0  # blank lines after it that close what it left open before a break
        saw_field = False
        for match in _TOKEN.finditer(text):
            slot = match.lastindex
            if open_end >= 0:
                gap = text[open_end : match.start()]
                if gap.strip(_BLANK) or (slot is None and (self.latex or gap.count("\n") < blanks)):
                    return None
                open_end = -1
            if slot is None:  # a section break
                problem = self.close()
                if problem is not None:
                    return problem
                continue
            saw_field = True
            raw = match[slot]
            slot -= 1
            if current[slot] is not None:  # a field seen again starts the next section
                problem = self.close()
                if problem is not None:
                    return problem
            if slot == _VIA:
                self.via_entries = 0
                current[_VIA] = []
                problem = self.add_stops(raw)
                if problem is not None:
                    return problem
                if not raw.strip(edge):  # one blank line may come before a bulleted list
                    open_end, blanks = match.end(), 2
                elif current[_VIA] and raw.rstrip(_EDGE).endswith(_LIST_ENDS):
                    open_end, blanks = match.end(), 1
            else:
                value = raw.strip(edge)
                if value and (value[-1] in _TRAILING or value[0] in _QUOTES or "**" in value or "__" in value):
                    value = _clean(value, edge)
                current[slot] = value
                if not value:
                    open_end, blanks = match.end(), 1
        if open_end >= 0 and text[open_end:].strip(_BLANK):
            return None
        self.saw_field = saw_field
        problem = self.close()
        return problem if problem is not None else self.sections

    def close(self) -> Invalid | None:
        """End the current section: keep it, drop it when all empty, or say what it lacks."""
        current = self.current
        if current[_ROUTE] and current[_DEPARTURE] and current[_ARRIVAL]:
            self.sections.append(_section(*current, self.long, self.template))
        elif any(current):
            for slot, label in enumerate(_FIELD_LABELS):
                if not current[slot]:
                    return Invalid(f"section {len(self.sections) + 1}: no {label}")
        current[:] = _NO_FIELDS
        return None

    def gap(self, text: str, start: int, end: int) -> Invalid | None:
        """The lines between two field lines; ``text[start]`` is the newline that ends the previous one."""
        # Line by line only while a value or a via-stop list may go on (a few lines, or a list's length)...
        while start < end and (self.pending is not None or self.via_state != _VIA_CLOSED):
            if self.via_state != _VIA_CLOSED:  # a pending value takes one line per field line: no budget
                self.budget -= 1
                if self.budget < 0:
                    return Invalid(f"more than {_MAX_LIST_LINES} lines of via stops")
            stop = text.find("\n", start + 1, end)
            if stop < 0:
                stop = end
            problem = self.line(text[start + 1 : stop])
            if problem is not None:
                return problem
            start = stop
        # ... then only a section break matters: found in C, however long the prose.
        if start < end and _BREAK.search(text, start, end):
            return self.close()
        return None

    def line(self, line: str) -> Invalid | None:
        """One line that is not a field line, read while a value or a via-stop list may go on."""
        stripped = line.strip(_WS + ">")
        if (
            not stripped
            or stripped.startswith(("```", "~~~"))
            or (self.latex and not stripped.strip(_LATEX_EDGE + "[]"))
        ):
            self.pending = None
            # one blank line may come between "Via Stops:" and a bulleted list
            self.via_state = _VIA_GAP if self.via_state == _VIA_OPEN else _VIA_CLOSED
            return None
        if _BREAK_LINE.match(stripped):
            self.pending = None
            self.via_state = _VIA_CLOSED
            return self.close()
        bullet = _BULLET.match(stripped)
        item = stripped[bullet.end() :] if bullet else stripped
        state = self.via_state
        if state == _VIA_CLOSED:
            if self.pending is not None:
                self.current[self.pending] = _clean(item, self.edge)
                self.pending = None
            return None
        if state == _VIA_OPEN:
            state = _VIA_BULLETS if bullet else _VIA_PLAIN
        elif state == _VIA_GAP or state == _VIA_BULLETS:
            state = _VIA_BULLETS if bullet else _VIA_CLOSED
        elif state == _VIA_TRAILING and not item.rstrip(_EDGE).endswith(_LIST_ENDS):
            state = _VIA_CLOSED
        if state != _VIA_CLOSED or self.via_state == _VIA_TRAILING:
            problem = self.add_stops(item)
            if problem is not None:
                return problem
        self.via_state = state
        return None

    def add_stops(self, value: str) -> Invalid | None:
        """Add the stop names of a via-stop value to the current section's."""
        self.via_entries += _add_stops(value, self.edge, self.current[_VIA])
        if self.via_entries > MAX_VIA_STOPS:
            return Invalid(f"section {len(self.sections) + 1}: more than {MAX_VIA_STOPS} via stops")
        return None


def _add_stops(value: str, edge: str, stops: list[str]) -> int:
    """Add the stop names of a via-stop value (``None``, ``N/A``, ``-`` or nothing: no stops); its entries.

    Past ``MAX_VIA_STOPS`` entries the rest of the value stays unsplit (the caller rejects the list anyway).
    """
    value = value.strip(edge)
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    if len(value) <= 16 and _clean(value, edge).lower() in _NO_STOPS:
        return 1
    parts = _VIA_SPLIT.split(value, maxsplit=MAX_VIA_STOPS)
    if len(parts) > MAX_VIA_STOPS:
        return len(parts)
    if len(parts) > 1 and parts[-1].lstrip(edge)[:4].lower() == "and ":  # "X, Y, and Z"
        parts[-1] = parts[-1].lstrip(edge)[4:]
    for part in parts:
        stop = _clean(part, edge)
        if stop:
            stops.append(stop)
    return len(parts)


def _count(value: str) -> int | None:
    """The leading integer (or number word, zero to twenty) of a via-stop count."""
    digits = _LEADING_INT.match(value)
    if digits is not None:
        return int(digits.group()) if len(digits.group()) <= _MAX_COUNT_DIGITS else None
    words = value.split(None, 1)
    return _NUMBER_WORDS.get(words[0].lower().strip(_TRAILING + ":")) if words else None


def _section(
    route: str, departure: str, arrival: str, count: str | None, via: list[str] | None, long: bool, template: str | None
) -> ParsedSection:
    """The record of a complete section; via-stop fields only for long questions.

    Station names lose the annotations an answer copied from the Metro Data (``（换乘站）``), as the data's do.
    """
    departure, arrival = strip_annotations(departure), strip_annotations(arrival)
    if not long:
        return _new_section(route, departure, arrival, None, None)
    number = _count(count) if count else None
    stops = None if via is None else tuple(strip_annotations(stop) for stop in via)
    if template == "via_count" and number is None and stops is not None and len(stops) == 1:
        bare = _LEADING_INT.fullmatch(stops[0])
        if bare is not None and len(stops[0]) <= _MAX_COUNT_DIGITS:
            number, stops = int(stops[0]), None
    return _new_section(route, departure, arrival, number, stops)
