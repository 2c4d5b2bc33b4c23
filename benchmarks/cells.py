"""Names as table cells: the one place a name from another tool's file is made safe for a CSV, Markdown or figure.

Model, run, task, city and station names come from files other tools wrote (a
prediction file's ``model``, an Inspect log's model, a VLMEvalKit sheet's name,
a run folder's name), so every writer of a table passes them through here:

- :func:`csv_table`: CSV text in which no text cell starts a spreadsheet
  formula. A text cell that starts with ``=``, ``+``, ``-``, ``@``, TAB, CR, LF
  or NUL gets a leading ``'`` (OWASP's CSV injection remedy, the characters of
  its page and of ASVS 1.2.10); numbers are written as they are. A text cell
  holding ``,``, ``;``, TAB, a quote or a line break is quoted, so that a
  spreadsheet reading ``;`` as its separator cannot start a cell inside it.
- :func:`markdown_text`: a name inside a Markdown table cell or line. ``\\`` and
  ``|`` are escaped (a pipe no longer adds a column), ``&``, ``<`` and ``>``
  become entities (no raw HTML reaches a viewer), and line breaks and other
  control or bidi characters become a space or U+FFFD (no forged row or
  heading, nothing that rewrites a terminal).
- :func:`markdown_code`: a name or path as an inline code span, on one line,
  fenced by more backticks than it holds.

Figures draw text with matplotlib's math parsing off (``text.parse_math`` in
:data:`benchmarks.plotting.STYLE`), so a ``$…$`` name is drawn as it is.
Unicode forms: :func:`same_name` is the NFC form under which names from two
runs are one model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_table", "markdown_text", "markdown_code", "figure_text", "same_name"]

#: The first characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = frozenset("=+-@\t\r\n\0")
# a text cell holding one of these is quoted: the CSV separator and quote, the separator of ';' locales, breaks
_QUOTED = re.compile(r'[,;"\t\r\n]')
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# bidi controls reorder what a reader sees around them (graphkit.names.unsafe_character names the same ones)
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_MARKDOWN = {"\\": "\\\\", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


def csv_cell(value: Any) -> str:
    """``value`` as a CSV field's text: ``None`` empty, numbers as they are, text that starts a formula with ``'``.

    Parameters
    ----------
    value : Any
        A cell's value.

    Returns
    -------
    str
        The field's text (quoting is the CSV writer's).

    Examples
    --------
    >>> csv_cell("=HYPERLINK(1)"), csv_cell("-2+3"), csv_cell("gpt-4o"), csv_cell(-0.5), csv_cell(None)
    ("'=HYPERLINK(1)", "'-2+3", 'gpt-4o', '-0.5', '')
    """
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    text = str(value)
    return "'" + text if text[:1] in FORMULA_STARTS else text


def _field(value: Any) -> str:
    text = csv_cell(value)
    if isinstance(value, str) and _QUOTED.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV table (``\\n`` line ends): ``header``, then one line per row, each cell through :func:`csv_cell`.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : iterable of sequence
        The rows' values.

    Returns
    -------
    str
        The table.

    Examples
    --------
    >>> print(csv_table(["model", "value"], [["=1+2", 0.5], ["a;=1", -1], ["a,b", None]]), end="")
    model,value
    '=1+2,0.5
    "a;=1",-1
    "a,b",
    """
    lines = [",".join(_field(cell) for cell in header)]
    lines += [",".join(_field(cell) for cell in row) for row in rows]
    return "".join(line + "\n" for line in lines)


def _one_line(text: str) -> str:
    text = _LINE_BREAKS.sub(" ", text)
    return "".join(
        "\ufffd" if ch in _BIDI or (unicodedata.category(ch) == "Cc" and ch != "\t") else ch for ch in text
    ).replace("\t", " ")


def markdown_text(value: Any) -> str:
    """``value`` as text inside a Markdown table cell or line: one line, no column, heading or HTML of its own.

    Parameters
    ----------
    value : Any
        A name or figure (shown as ``str(value)``).

    Returns
    -------
    str
        The text, line breaks turned to spaces and ``|``, ``#``, ``<``, ``>`` and ``&`` escaped.

    Examples
    --------
    >>> markdown_text("evil\\n| 1 | fake-model | 100.00 |\\n\\n# Injected heading")
    'evil \\\\| 1 \\\\| fake-model \\\\| 100.00 \\\\|  # Injected heading'
    >>> markdown_text("<script>alert(1)</script> & co"), markdown_text("gpt-4o")
    ('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co', 'gpt-4o')
    """
    text = _one_line(str(value))
    if not any(ch in text for ch in _MARKDOWN):
        return text
    return "".join(_MARKDOWN.get(ch, ch) for ch in text)


def figure_text(value: Any) -> str:
    """``value`` as a figure draws it: one line, control and direction-override characters shown as U+FFFD
    (a font has no glyph for them, and an override would reverse the rest of the label).

    Parameters
    ----------
    value : Any
        A name or figure.

    Returns
    -------
    str
        The text drawn.

    Examples
    --------
    >>> figure_text(chr(9) + "=1+1") == chr(0xFFFD) + "=1+1", figure_text("two" + chr(10) + "lines")
    (True, 'two lines')
    >>> figure_text(""), figure_text(" "), figure_text("_hidden")  # matplotlib's legend leaves these out
    ("''", "' '", ' _hidden')
    """
    text = _one_line(str(value).replace("\t", "\x00"))
    if not text.strip():
        return repr(text)  # a blank name drawn as nothing could not be told from another
    return " " + text if text.startswith("_") else text


def markdown_code(value: Any) -> str:
    """``value`` as an inline code span on one line (raw HTML stays literal inside one).

    Parameters
    ----------
    value : Any
        A name (a run folder, a model).

    Returns
    -------
    str
        The code span, its backtick fence longer than any run of backticks inside.

    Examples
    --------
    >>> markdown_code("runs/a"), markdown_code("a`b"), markdown_code("x\\n# H")
    ('`runs/a`', '``a`b``', '`x # H`')
    """
    text = _one_line(str(value))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def same_name(name: str) -> str:
    """The form under which two names are one model: Unicode NFC (``modèle`` composed or decomposed).

    Parameters
    ----------
    name : str
        A model's name.

    Returns
    -------
    str
        Its NFC form.

    Examples
    --------
    >>> same_name("mode\\u0300le") == same_name("mod\\u00e8le")
    True
    """
    return unicodedata.normalize("NFC", name)
