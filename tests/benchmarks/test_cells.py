"""Names as table cells (:mod:`benchmarks.cells`): no formula in a CSV cell, no row, column, heading or HTML in a
Markdown one, for the hostile names of the fourth adversarial campaign (``reports/campaign-4.md``, classes A, B).

The CSV rule is OWASP's (www-community, ``pages/attacks/CSV_Injection.md``: no cell may begin with ``=``, ``+``,
``-``, ``@``, tab, CR or LF; prepend a single quote; mind the field separator), with NUL from ASVS 1.2.10. The
Markdown table rule is GitHub Flavored Markdown's: a cell ends at a ``|`` not escaped by a backslash, and a row at
the line's end.
"""

from __future__ import annotations

import csv
import io

import pytest

from benchmarks.cells import csv_cell, csv_table, markdown_code, markdown_text, same_name

#: the names the campaign used (A1-A6, B8-B16), verbatim
HOSTILE = (
    '=HYPERLINK("http://evil.example/x","click")',
    "+cmd|/C calc!A0",
    '@SUM(1+1)*cmd|"/C calc"!A0',
    "-2+3\t\r=1",
    "evil\n| 1 | fake-model | 100.00 |\n\n# Injected heading",
    "<script>alert(1)</script><img src=x onerror=alert(2)>",
    '=HYPERLINK("http://x","y")|a\nb',
    "\tleading tab",
    "\rleading CR",
    "\x00nul",
)


def markdown_cells(line: str) -> list[str]:
    """A GFM table row's cells: split at each ``|`` no backslash escapes (a backslash escapes the next character)."""
    text = line.strip()
    cells, current, escaped = [], None, False
    for ch in text:
        if escaped:
            current, escaped = (current or "") + ch, False
        elif ch == "\\":
            current, escaped = (current or "") + ch, True
        elif ch == "|":
            if current is not None:
                cells.append(current)
            current = ""
        else:
            current = (current or "") + ch
    if current is not None and current.strip():
        cells.append(current)  # a row need not end with a pipe
    return cells


@pytest.mark.parametrize("name", HOSTILE)
def test_no_csv_cell_starts_a_formula_and_each_reads_back_as_one_cell(name):
    text = csv_table(["model", "value"], [[name, 0.5], ["plain", -0.25]])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 3 and all(len(row) == 2 for row in rows)
    # the whole name, behind the quote a spreadsheet reads as "text" where it would start a formula
    assert rows[1][0] == ("'" + name if name[0] in "=+-@\t\r\n\0" else name)
    assert rows[2] == ["plain", "-0.25"]  # numbers (a negative one too) as they are


def test_a_separator_of_another_locale_cannot_open_a_cell():
    # OWASP: "take care of the field separator": a spreadsheet splitting on ';' must not see '=1+2' start a cell
    assert csv_table(["m"], [["a;=1+2"], ["b\t=1"]]) == 'm\n"a;=1+2"\n"b\t=1"\n'


def test_plain_cells_keep_the_bytes_the_csv_module_writes():
    rows = [["gpt-4o", "route", None, 0.6, 400, True, "a,b", 'say "x"']]
    expected = io.StringIO()
    csv.writer(expected, lineterminator="\n").writerows([["h"] * 8, *rows])
    assert csv_table(["h"] * 8, rows) == expected.getvalue()


def test_csv_cell_by_hand():
    assert [csv_cell(value) for value in ("=1", "+1", "-1", "@a", "\t", "\r", "\n", "a=1", "", None, -3, 1.5)] == [
        "'=1",
        "'+1",
        "'-1",
        "'@a",
        "'\t",
        "'\r",
        "'\n",
        "a=1",
        "",
        "",
        "-3",
        "1.5",
    ]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_markdown_cell_holds_one_cell_on_one_line_with_no_html(name):
    line = f"| 1 | {markdown_text(name)} | 100.00 |"
    assert "\n" not in line and "\r" not in line
    assert len(markdown_cells(line)) == 3
    assert "<" not in line and ">" not in line


def test_markdown_text_by_hand():
    # B11-B13: the forged row and heading stay inside the cell; B14: the tags become entities
    assert markdown_text("evil\n| 1 | fake-model | 100.00 |\n\n# Injected heading") == (
        "evil \\| 1 \\| fake-model \\| 100.00 \\|  # Injected heading"
    )
    assert markdown_text("<b>&</b>") == "&lt;b&gt;&amp;&lt;/b&gt;"
    assert markdown_text("a\\|b") == "a\\\\\\|b"  # a backslash of the name cannot unescape the pipe after it
    assert markdown_text("\u202egpt\x1b[2J") == "\ufffdgpt\ufffd[2J"  # bidi and terminal controls
    assert markdown_text("gpt-4o") == "gpt-4o" and markdown_text("Qwen2.5-VL-72B") == "Qwen2.5-VL-72B"


def test_markdown_code_stays_one_span_on_one_line():
    assert markdown_code("runs/x") == "`runs/x`"
    assert markdown_code("a``b") == "```a``b```"
    assert markdown_code("`x") == "`` `x ``"
    assert markdown_code("r\n# H") == "`r # H`"


def test_names_in_nfc_and_nfd_are_the_same_name():
    assert same_name("mode\u0300le") == same_name("mod\u00e8le") == "mod\u00e8le"
    assert same_name("gpt-4\u043e") != same_name("gpt-4o")  # a homoglyph is a look-alike, not the same name
