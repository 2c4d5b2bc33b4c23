"""The answer parser: realistic model outputs, invalid answers, refusals, noise invariance, work on huge input."""

from __future__ import annotations

import doctest
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import answer_text
from benchmarks.reasonmap import parsing
from benchmarks.reasonmap.parsing import MAX_VIA_STOPS, parse_answer
from benchmarks.reasonmap.records import ParsedAnswer, ParsedSection
from benchmarks.records import Invalid
from graphkit import metro

S = ParsedSection

BEIJING = S("Line 2", "Xizhimen Station", "Chegongzhuang Station")


def beijing(count: int | None, via: tuple[str, ...] | None = None) -> ParsedSection:
    return S(BEIJING.route_name, BEIJING.departure_stop, BEIJING.arrival_stop, count, via)


TWO = (S("Line 2", "Xizhimen Station", "Jishuitan Station"), S("Line 4", "Jishuitan Station", "Xinjiekou Station"))
CANONICAL = "Route Name: Line 2\nDeparture Stop: Xizhimen Station\nArrival Stop: Chegongzhuang Station"
TWO_TEXT = (
    "Route Name: Line 2\nDeparture Stop: Xizhimen Station\nArrival Stop: Jishuitan Station\n"
    "{sep}\n"
    "Route Name: Line 4\nDeparture Stop: Jishuitan Station\nArrival Stop: Xinjiekou Station"
)


def sections(text: str, **options) -> tuple[ParsedSection, ...]:
    answer = parse_answer(text, **options)
    assert isinstance(answer, ParsedAnswer), answer
    return answer.sections


SHORT_CASES = {
    "plain": (CANONICAL, (BEIJING,)),
    "bold keys": (
        "**Route Name:** Line 2\n**Departure Stop:** Xizhimen Station\n**Arrival Stop:** Chegongzhuang Station",
        (BEIJING,),
    ),
    "bold keys, colon outside": (
        "**Route Name**: Line 2\n**Departure Stop**: Xizhimen Station\n**Arrival Stop**: Chegongzhuang Station",
        (BEIJING,),
    ),
    "underscore emphasis and bold values": (
        "__Route Name:__ **Line 2**\n_Departure Stop:_ *Xizhimen Station*\n__Arrival Stop__: Chegongzhuang Station",
        (BEIJING,),
    ),
    "dash bullets": (
        "- Route Name: Line 2\n- Departure Stop: Xizhimen Station\n- Arrival Stop: Chegongzhuang Station",
        (BEIJING,),
    ),
    "star and dot bullets": (
        "* Route Name: Line 2\n• Departure Stop: Xizhimen Station\n  * Arrival Stop: Chegongzhuang Station",
        (BEIJING,),
    ),
    "numbered list": (
        "1. Route Name: Line 2\n2. Departure Stop: Xizhimen Station\n3) Arrival Stop: Chegongzhuang Station",
        (BEIJING,),
    ),
    "heading and bold bullets": (
        "### Route 1\n- **Route Name:** Line 2\n- **Departure Stop:** Xizhimen Station\n"
        "- **Arrival Stop:** Chegongzhuang Station",
        (BEIJING,),
    ),
    "think block": (
        "<think>\nRoute Name: Line 13\nDeparture Stop: Wrong\nArrival Stop: Wrong\n</think>\n\n" + CANONICAL,
        (BEIJING,),
    ),
    "only a closing think tag": ("The map shows Line 2 directly.\n</think>\n" + CANONICAL, (BEIJING,)),
    "Kimi think tags": ("◁think▷Line 2 goes there.◁/think▷" + CANONICAL, (BEIJING,)),
    "answer tags": ("I will answer now.\n<answer>\n" + CANONICAL + "\n</answer>", (BEIJING,)),
    "last answer block wins": (
        "<answer>Route Name: Line 9\nDeparture Stop: X\nArrival Stop: Y</answer>\n"
        "Wait, that is wrong.\n<ANSWER>" + CANONICAL + "</ANSWER>",
        (BEIJING,),
    ),
    "think then answer tags": ("<think>hmm</think><answer>" + CANONICAL + "</answer>", (BEIJING,)),
    "boxed block": ("\\boxed{\n" + CANONICAL + "\n}", (BEIJING,)),
    "boxed text with LaTeX breaks": (
        "$$\\boxed{\\text{Route Name: Line 2} \\\\ \\text{Departure Stop: Xizhimen Station} \\\\ "
        "\\text{Arrival Stop: Chegongzhuang Station}}$$",
        (BEIJING,),
    ),
    "boxed inline after prose": (
        "The answer is $\\boxed{\\textbf{Route Name:} \\text{Line 2}\\newline \\textbf{Departure Stop:} "
        "Xizhimen Station \\\\ \\textbf{Arrival Stop:} Chegongzhuang Station}$.",
        (BEIJING,),
    ),
    "code fence": ("```\n" + CANONICAL + "\n```", (BEIJING,)),
    "code fence with language": ("```text\n" + CANONICAL + "\n```\nDone.", (BEIJING,)),
    "blockquote": (
        "> Route Name: Line 2\n> Departure Stop: Xizhimen Station\n> Arrival Stop: Chegongzhuang Station",
        (BEIJING,),
    ),
    "double quotes": (
        'Route Name: "Line 2"\nDeparture Stop: "Xizhimen Station"\nArrival Stop: "Chegongzhuang Station"',
        (BEIJING,),
    ),
    "smart quotes, corner brackets, single quotes": (
        "Route Name: “Line 2”\nDeparture Stop: 「Xizhimen Station」\nArrival Stop: 'Chegongzhuang Station'",
        (BEIJING,),
    ),
    "full-width colons": (
        "Route Name：Line 2\nDeparture Stop：Xizhimen Station\nArrival Stop： Chegongzhuang Station",
        (BEIJING,),
    ),
    "CRLF": (CANONICAL.replace("\n", "\r\n") + "\r\n", (BEIJING,)),
    "CR": (CANONICAL.replace("\n", "\r"), (BEIJING,)),
    "unicode line separator": (CANONICAL.replace("\n", "\u2028"), (BEIJING,)),
    "HTML breaks": (CANONICAL.replace("\n", "<br>"), (BEIJING,)),
    "prose around": (
        "Looking at the map, Line 2 connects both stations directly.\n\n"
        + CANONICAL
        + "\n\nThis route needs no transfer. Let me know if you need more help!",
        (BEIJING,),
    ),
    "sentence periods": (
        "Route Name: Line 2.\nDeparture Stop: Xizhimen Station.\nArrival Stop: Chegongzhuang Station.",
        (BEIJING,),
    ),
    "case and name variants": (
        "ROUTE: Line 2\nfrom: Xizhimen Station\nTO: Chegongzhuang Station",
        (BEIJING,),
    ),
    "station variants": (
        "Line Name: Line 2\nDeparture Station: Xizhimen Station\nArrival Station: Chegongzhuang Station",
        (BEIJING,),
    ),
    "fields in another order": (
        "Departure Stop: Xizhimen Station\nArrival Stop: Chegongzhuang Station\nRoute Name: Line 2",
        (BEIJING,),
    ),
    "value on the next line": (
        "**Route Name:**\nLine 2\n**Departure Stop:**\nXizhimen Station\n**Arrival Stop:**\nChegongzhuang Station",
        (BEIJING,),
    ),
    "blank lines between fields": (
        "Route Name: Line 2\n\nDeparture Stop: Xizhimen Station\n\nArrival Stop: Chegongzhuang Station",
        (BEIJING,),
    ),
    "Chinese names": (
        "Route Name: 2号线\nDeparture Stop: 西直门站\nArrival Stop: 车公庄站",
        (S("2号线", "西直门站", "车公庄站"),),
    ),
    "parentheses kept": (
        "Route Name: 1 (Broadway-7 Av Local)\nDeparture Stop: Cathedral Pkwy (110 St) Station\n"
        "Arrival Stop: 137 St-City College",
        (S("1 (Broadway-7 Av Local)", "Cathedral Pkwy (110 St) Station", "137 St-City College"),),
    ),
    "apostrophes inside names kept": (
        "Route Name: Blue Line\nDeparture Stop: O'Hare\nArrival Stop: Clark/Lake",
        (S("Blue Line", "O'Hare", "Clark/Lake"),),
    ),
    "template echoed before the answer": (
        "Use this format:\nRoute Name:\nDeparture Stop:\nArrival Stop:\n--\n" + CANONICAL,
        (BEIJING,),
    ),
    "via fields ignored for short questions": (CANONICAL + "\nNumber of Via Stops: 4\nVia Stops: A, B", (BEIJING,)),
}


@pytest.mark.parametrize("text, expected", SHORT_CASES.values(), ids=SHORT_CASES.keys())
def test_realistic_short_answers(text, expected):
    assert sections(text) == expected


@pytest.mark.parametrize("separator", ["--", "---", "-", "—", "——", "–", "***", "===", "", "#### Section 2"])
def test_every_section_separator(separator):
    assert sections(TWO_TEXT.format(sep=separator)) == TWO


def test_a_new_route_name_starts_a_section_without_separator():
    text = TWO_TEXT.replace("\n{sep}\n", "\n")
    assert sections(text) == TWO


def test_sections_separated_by_blank_lines_with_prose_between():
    text = TWO_TEXT.format(sep="\nThen transfer to Line 4 at Jishuitan.\n")
    assert sections(text) == TWO


LONG = "Route Name: Line 2\nDeparture Stop: Xizhimen Station\nArrival Stop: Chegongzhuang Station\n"
VIA = ("Jishuitan Station", "Gulou Dajie Station")
LONG_CASES = {
    "count": (LONG + "Number of Via Stops: 2", beijing(2)),
    "count with unit": (LONG + "Number of Via Stops: 2 stops", beijing(2)),
    "count in words": (LONG + "Num Via Stops: Two", beijing(2)),
    "count variant": (LONG + "**Via Stop Count:** 0", beijing(0)),
    "unreadable count": (LONG + "Number of Via Stops: several", beijing(None)),
    "comma list": (
        LONG + "Via Stops: Jishuitan Station, Gulou Dajie Station",
        beijing(None, VIA),
    ),
    "full-width comma list": (
        LONG + "Via Stops: Jishuitan Station，Gulou Dajie Station。",
        beijing(None, VIA),
    ),
    "enumeration comma list": (
        "Route Name: 2号线\nDeparture Stop: 西直门\nArrival Stop: 鼓楼大街\nVia Stops: 积水潭、车公庄",
        S("2号线", "西直门", "鼓楼大街", None, ("积水潭", "车公庄")),
    ),
    "semicolon list": (
        LONG + "Via Stations: Jishuitan Station; Gulou Dajie Station;",
        beijing(None, VIA),
    ),
    "arrow list": (
        LONG + "Via Stops: Jishuitan Station -> Gulou Dajie Station",
        beijing(None, VIA),
    ),
    "unicode arrow list": (
        LONG + "Via Stops: Jishuitan Station → Gulou Dajie Station.",
        beijing(None, VIA),
    ),
    "and before the last item": (
        LONG + "Via Stops: Jishuitan Station and Gulou Dajie Station, Andingmen, and Guloudajie",
        beijing(None, ("Jishuitan Station and Gulou Dajie Station", "Andingmen", "Guloudajie")),
    ),
    "quoted items in brackets": (
        LONG + 'Via Stops: ["Jishuitan Station", "Gulou Dajie Station"]',
        beijing(None, VIA),
    ),
    "bulleted list on following lines": (
        LONG + "Via Stops:\n- Jishuitan Station\n- Gulou Dajie Station\n\nThat is the whole route.",
        beijing(None, VIA),
    ),
    "numbered list after a blank line": (
        LONG + "**Via Stops:**\n\n1. Jishuitan Station\n2. Gulou Dajie Station\nEnjoy the ride.",
        beijing(None, VIA),
    ),
    "plain lines": (
        LONG + "Via Stops:\nJishuitan Station\nGulou Dajie Station",
        beijing(None, VIA),
    ),
    "list wrapped after a comma": (
        LONG + "Via Stops: Jishuitan Station,\n  Gulou Dajie Station\nThis is correct.",
        beijing(None, VIA),
    ),
    "none": (LONG + "Via Stops: None", beijing(None, ())),
    "N/A": (LONG + "Via Stops: N/A", beijing(None, ())),
    "dash": (LONG + "Via Stops: -", beijing(None, ())),
    "empty": (LONG + "Via Stops:", beijing(None, ())),
    "empty before the separator": (LONG + "Via Stops:\n\n--\n", beijing(None, ())),
    "both fields": (
        LONG + "Number of Via Stops: 2\nVia Stops: Jishuitan Station, Gulou Dajie Station",
        beijing(2, VIA),
    ),
}


@pytest.mark.parametrize("text, expected", LONG_CASES.values(), ids=LONG_CASES.keys())
def test_realistic_long_answers(text, expected):
    assert sections(text, kind="long") == (expected,)


def test_long_sections_each_keep_their_via_stops():
    text = (
        "Route Name: Line 2\nDeparture Stop: A\nArrival Stop: B\nVia Stops:\n- X\n- Y\n--\n"
        "Route Name: Line 4\nDeparture Stop: B\nArrival Stop: C\nVia Stops: None"
    )
    assert sections(text, kind="long") == (S("Line 2", "A", "B", None, ("X", "Y")), S("Line 4", "B", "C", None, ()))


def test_via_count_template_reads_a_bare_number_under_via_stops():
    text = LONG + "Via Stops: 3"
    assert sections(text, kind="long", template="via_count")[0].num_via_stops == 3
    assert sections(text, kind="long", template="via_stops")[0].via_stops == ("3",)


INVALID_CASES = {
    "empty": ("", "empty response"),
    "whitespace": (" \n\t\r\n ", "empty response"),
    "unclosed think": ("<think>Let me look at Line 2 and Line 4...", "no answer after reasoning"),
    "nothing after think": ("<think>" + CANONICAL + "</think>\n\n", "no answer after reasoning"),
    "new think after the answer cut": ("<think>a</think><think>" + CANONICAL, "no answer after reasoning"),
    "prose only": ("Take Line 2 from Xizhimen to Chegongzhuang.", "no route section"),
    "empty answer tags": ("<answer></answer>", "no route section"),
    "echoed template only": ("Route Name:\nDeparture Stop:\nArrival Stop:", "no route section"),
    "missing departure": ("Route Name: Line 2\nArrival Stop: B", "section 1: no Departure Stop"),
    "missing route": ("Departure Stop: A\nArrival Stop: B", "section 1: no Route Name"),
    "empty arrival": ("Route Name: Line 2\nDeparture Stop: A\nArrival Stop:", "section 1: no Arrival Stop"),
    "second section incomplete": (
        TWO_TEXT.format(sep="--").replace("Departure Stop: Jishuitan", "Note: Jishuitan"),
        "section 2: no Departure Stop",
    ),
    "via count alone after a separator": (CANONICAL + "\n--\nNumber of Via Stops: 3", "section 2: no Route Name"),
    "one-line answer": (
        "Route Name: Line 2, Departure Stop: A, Arrival Stop: B",
        "section 1: no Departure Stop",
    ),
}


@pytest.mark.parametrize("text, reason", INVALID_CASES.values(), ids=INVALID_CASES.keys())
def test_invalid_answers_say_why(text, reason):
    assert parse_answer(text, kind="long") == Invalid(reason)


@pytest.mark.parametrize(
    "text",
    [
        "I cannot determine the route from this image.",
        "I'm sorry, but I can't help with that.",
        "I’m not able to read the station names.",
        "Unfortunately I am unable to identify the stations.",
        "抱歉，我无法识别地图。",
        "<think>The image is blurry.</think>Sorry, the map is unreadable.",
    ],
)
def test_refusals(text):
    assert parse_answer(text) == Invalid("refusal", refusal=True)


def test_a_refusal_word_beside_fields_is_not_a_refusal():
    assert sections("Sorry for the delay.\n" + CANONICAL) == (BEIJING,)


def test_not_text():
    assert parse_answer(None) == Invalid("not text")  # type: ignore[arg-type]
    assert parse_answer(b"Route Name: Line 2") == Invalid("not text")  # type: ignore[arg-type]


def test_options_are_checked_and_listed():
    with pytest.raises(ValueError, match="short"):
        parse_answer(CANONICAL, kind="medium")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="via_count"):
        parse_answer(CANONICAL, kind="long", template="via")  # type: ignore[arg-type]


def test_too_many_via_stops_is_invalid():
    text = LONG + "Via Stops: " + ", ".join(f"S{n}" for n in range(MAX_VIA_STOPS + 5))
    assert parse_answer(text, kind="long") == Invalid(f"section 1: more than {MAX_VIA_STOPS} via stops")
    under = LONG + "Via Stops: " + ", ".join(f"S{n}" for n in range(MAX_VIA_STOPS))
    assert len(sections(under, kind="long")[0].via_stops) == MAX_VIA_STOPS


def test_via_stop_lines_are_capped_per_answer():
    block = LONG + "Via Stops:\n" + "- S\n" * (MAX_VIA_STOPS - 1) + "--\n"
    assert isinstance(parse_answer(block * 9, kind="long"), ParsedAnswer)
    assert parse_answer(block * 11, kind="long") == Invalid(f"more than {10 * MAX_VIA_STOPS} lines of via stops")


def test_values_on_the_next_line_are_not_capped():
    block = "**Route Name:**\nLine 2\n**Departure Stop:**\nA\n**Arrival Stop:**\nB\n--\n"
    assert len(sections(block * 5000)) == 5000


def test_docstring_examples_run():
    assert doctest.testmod(parsing, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0


# --- properties --------------------------------------------------------------------------------------------

FIELD_LINES = [
    "Route Name: Line 2",
    "**Departure Stop:** A",
    "Arrival Stop：B",
    "Via Stops:",
    "Via Stops: A, B",
    "Number of Via Stops: 3",
    "- X",
    "--",
    "",
    "<think>",
    "</think>",
    "<answer>",
    "</answer>",
    "\\boxed{",
    "}",
    "```",
    "# Route",
    "Route:",
    "To:",
    "> 1. **From:** “A”",
]


@settings(max_examples=100, deadline=None)
@given(st.text(), st.sampled_from(["short", "long"]), st.sampled_from([None, "via_count", "via_stops"]))
def test_never_raises_on_any_text(text, kind, template):
    assert isinstance(parse_answer(text, kind=kind, template=template), ParsedAnswer | Invalid)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(FIELD_LINES), st.text(max_size=12)), max_size=30),
    st.sampled_from(["\n", "\r\n", "\r", "\u2028"]),
    st.sampled_from(["short", "long"]),
)
def test_never_raises_on_field_lines_mixed_with_junk(lines, newline, kind):
    answer = parse_answer(newline.join(lines), kind=kind)
    if isinstance(answer, ParsedAnswer):
        assert answer.sections
        for section in answer.sections:
            assert section.route_name and section.departure_stop and section.arrival_stop
            assert section.route_name == section.route_name.strip()
    else:
        assert answer.reason


WORDS = ["Line", "2", "Xizhimen", "Station", "Cathedral", "Pkwy", "(110", "St)", "O'Hare", "Saint-Michel", "Av"]
WORDS += ["西直门", "站", "東京駅", "1号线", "Gare", "du", "Nord", "12", "Raffles Place", "Clark/Lake"]
names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
section_values = st.tuples(names, names, names, st.integers(0, 40), st.lists(names, max_size=5).map(tuple))

KEYS = {
    "route": ["Route Name", "route name", "ROUTE NAME", "Route", "Line Name"],
    "departure": ["Departure Stop", "departure stop", "Departure Station", "From"],
    "arrival": ["Arrival Stop", "ARRIVAL STOP", "Arrival Station", "To"],
    "count": ["Number of Via Stops", "Num Via Stops", "Via Stop Count", "number of via stations"],
    "via": ["Via Stops", "via stops", "Via Stations"],
}
QUOTES = [("", ""), ('"', '"'), ("“", "”"), ("「", "」"), ("'", "'")]
SEPARATORS = ["--", "---", "-", "—", "——", "–", "", None]  # None: the next section just starts
PROSE_BEFORE = ["", "Here is the route:\n", "Looking at the map, two lines are needed.\n\n", "Sorry for the wait.\n"]
PROSE_AFTER = ["", "\n\nHope this helps!", "\n\nNote: trains run every 5 minutes."]
THINK = ["", "<think>\nRoute Name: Line 99\nDeparture Stop: Nowhere\n</think>\n", "</think>\n\n"]


@st.composite
def noisy_answers(draw):
    kind = draw(st.sampled_from(["short", "long"]))
    with_count = kind == "long" and draw(st.booleans())
    with_via = kind == "long" and draw(st.booleans())
    values = draw(st.lists(section_values, min_size=1, max_size=4))
    bold = draw(st.sampled_from(["", "key", "key-colon", "underscore", "value"]))
    bullet = draw(st.sampled_from(["", "- ", "* ", "• ", "1. ", "> "]))
    opening, closing = draw(st.sampled_from(QUOTES))
    colon = draw(st.sampled_from([":", "：", " :"]))
    separator = draw(st.sampled_from(SEPARATORS))
    via_style = draw(st.sampled_from([", ", "，", "、", "; ", " -> ", " → ", "bullets"]))
    none_style = draw(st.sampled_from(["None", "N/A", "-", ""]))
    key_choice = draw(st.integers(0, 3))
    shuffle = draw(st.randoms(use_true_random=False))

    def line(key: str, value: str) -> str:
        name = KEYS[key][key_choice % len(KEYS[key])]
        if bold == "key":
            head = f"**{name}{colon}**"
        elif bold == "key-colon":
            head = f"**{name}**{colon}"
        elif bold == "underscore":
            head = f"__{name}{colon}__"
        else:
            head = f"{name}{colon}"
        if value and bold == "value":
            value = f"**{value}**"
        return f"{bullet}{head} {value}".rstrip()

    blocks, expected = [], []
    for route, departure, arrival, count, via in values:
        fields = [line("route", opening + route + closing), line("departure", departure), line("arrival", arrival)]
        if with_count:
            fields.append(line("count", str(count)))
        if with_via:
            if not via:
                fields.append(line("via", none_style))
            elif via_style == "bullets":
                fields.append(line("via", "") + "".join(f"\n  - {opening}{stop}{closing}" for stop in via))
            else:
                fields.append(line("via", via_style.join(via)))
        shuffle.shuffle(fields)
        blocks.append("\n".join(fields))
        expected.append(S(route, departure, arrival, count if with_count else None, tuple(via) if with_via else None))
    joiner = "\n" if separator is None else f"\n{separator}\n"
    body = joiner.join(blocks)
    wrapper = draw(st.sampled_from(["", "fence", "answer", "boxed"]))
    if wrapper == "fence":
        body = f"```\n{body}\n```"
    elif wrapper == "answer":
        body = f"<answer>\n{body}\n</answer>"
    elif wrapper == "boxed":
        body = f"\\boxed{{\n{body}\n}}"
    text = (
        draw(st.sampled_from(THINK)) + draw(st.sampled_from(PROSE_BEFORE)) + body + draw(st.sampled_from(PROSE_AFTER))
    )
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    return text, kind, tuple(expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_answers())
def test_parse_is_invariant_under_formatting_noise(case):
    text, kind, expected = case
    assert sections(text, kind=kind) == expected


# The one-pass reader and the line-by-line one must agree wherever the first answers: lines that leave a value
# or a via-stop list open, and what may follow them (blank lines, bullets, breaks a list may swallow, fences).
READER_LINES = [
    *FIELD_LINES,
    "Route Name:",
    "Departure Stop:  ",
    "**Arrival Stop:**",
    "Via Stops: A,",
    "Via Stops: A →",
    "- Via Stops:",
    "Via Stops: None",
    "Number of Via Stops:",
    "Via Stop Count: two",
    "  - B",
    "1. C",
    "D",
    "   ",
    ">",
    "> ",
    "\u200b",
    "---",
    "~~~",
    "***",
    "=====",
    "$",
    "\\[",
    'Departure Stop: "Termini".',
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(READER_LINES), st.text(alphabet="AB -,:\n", max_size=6)), max_size=14),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, "via_count", "via_stops"]),
)
def test_the_one_pass_reader_agrees_with_the_line_by_line_one_wherever_it_answers(lines, latex, long, template):
    text = "\n".join(lines)
    fast = parsing._Reader(latex, long=long, template=template)
    slow = parsing._Reader(latex, long=long, template=template)
    found, expected = fast.read_fast(text), slow.read(text)
    if found is not None:
        assert found == expected
        assert fast.saw_field == slow.saw_field or isinstance(expected, Invalid)


@pytest.mark.parametrize("blanks", ["", "\n", "\n\n", "\n \n>\n"])
@pytest.mark.parametrize("opener", ["Route Name: 1\nVia Stops:", "Route Name: 1\nVia Stops: A,", "Route Name:"])
@pytest.mark.parametrize("rule", ["~~~", "---", "# Next"])
def test_the_one_pass_reader_agrees_where_a_rule_follows_an_open_line(opener, blanks, rule):
    # "~~~" after an open line is a fence to the line-by-line reader (no break) until blank lines closed it
    text = f"{opener}\n{blanks}{rule}\nDeparture Stop: A\nArrival Stop: B"
    found = parsing._Reader(False, long=True, template=None).read_fast(text)
    assert found is None or found == parsing._Reader(False, long=True, template=None).read(text)


def test_the_one_pass_reader_hands_on_what_goes_on_over_lines():
    # a list that goes on, a value on the next line: the one-pass reader declines, the line-by-line one reads them
    for text in ("Via Stops:\n- A\n- B", "Via Stops: A,\nB", "Departure Stop:\nTermini", "Via Stops:\n\n---"):
        assert parsing._Reader(False, long=True, template=None).read_fast(text) is None
    # what stays on its lines: read in one pass, as the line-by-line reader reads it
    text = "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nVia Stops:\n\n\n--\nRoute Name: 2\nDeparture Stop: B"
    fast = parsing._Reader(False, long=True, template=None).read_fast(text + "\nArrival Stop: C")
    assert fast == [S("1", "A", "B", None, ()), S("2", "B", "C", None, None)]


# Reading whole sections (one match a section) must agree with the readers it stands in for wherever it answers:
# runs of field lines that make whole sections, or fall short of one (out of order, a field missing or twice, a
# value left open, a list going on), between prose, breaks and wrappers.
WHOLE_SECTIONS = [
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B",
    "**Route Name:** Line 2\n**Departure Stop:** “A”.\n**Arrival Stop:** B (Transfer Station)",
    "- Route: 3\n- From: A\n- To: B\n- Number of Via Stops: 2",
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nVia Stops: C, D, and E",
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nVia Stop Count: 1\nVia Stops: [C]",
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nVia Stops: None\nNumber of Via Stops: 0",
    "Route Name: 2\nDeparture Stop: B\nArrival Stop: C",
]
NEAR_SECTIONS = [
    "Route Name: 1\nDeparture Stop: A\nArrival Stop:",
    "Route Name: 1\nDeparture Stop: **\nArrival Stop: B",
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nNumber of Via Stops: ''",
    "Route Name: 1\nDeparture Stop: A\nArrival Stop: B\nVia Stops: C,",
    "Route Name: 1\nArrival Stop: B\nDeparture Stop: A",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            *[st.sampled_from(WHOLE_SECTIONS)] * 3,  # mostly sections, for most cases to be read here
            st.sampled_from(NEAR_SECTIONS + READER_LINES),
            st.text(alphabet="AB -,:\n", max_size=6),
        ),
        max_size=8,
    ),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, "via_count", "via_stops"]),
)
def test_whole_sections_agree_with_the_line_readers_wherever_they_answer(lines, latex, long, template):
    text = "\n".join(lines)
    found = parsing._whole_sections(text, parsing._LATEX_EDGE if latex else parsing._EDGE, long, template)
    reader = parsing._Reader(latex, long=long, template=template)
    expected = reader.read_fast(text)
    if expected is None:
        reader = parsing._Reader(latex, long=long, template=template)
        expected = reader.read(text)
    if found is not None:
        assert found == expected
        assert bool(found) == reader.saw_field


def test_whole_sections_read_the_forms_answers_take():
    # what models write is read a section a match: no reader behind it (prose, breaks and tags are no field lines)
    text = (
        "Therefore the route is:\n\n**Route Name:** Line 2\n**Departure Stop:** A\n**Arrival Stop:** B\n---\n"
        "- Route Name: Line 4\n- Departure Stop: B\n- Arrival Stop: C (Transfer Station).\n\nNote: 1 transfer."
    )
    assert parsing._whole_sections(text, parsing._EDGE, False, None) == [S("Line 2", "A", "B"), S("Line 4", "B", "C")]
    # a field out of a whole section: the line readers' turn
    assert parsing._whole_sections(text + "\nVia Stops: D", parsing._EDGE, True, None) is None


# --- work: a guard against super-linear scans, counted rather than timed (speed belongs to benchmarks/speed) ---

MB = 1 << 20
SECTION = "Route Name: Line 2\nDeparture Stop: Xizhimen Station\nArrival Stop: Chegongzhuang Station\n--\n"
# Each input is a head, a unit repeated to fill the size, and a tail.
HOSTILE = {
    "sections": ("", SECTION, ""),
    "one long line": ("", "x", ""),
    "one long value": ("Route Name: ", "a", ""),
    "prose lines with colons": ("", "Step one: look at the map\n", ""),
    "bullet prefixes without a field": ("", "- ", "Route Nam"),
    "stars": ("", "*", ""),
    "dashes and spaces": ("", "- -\n", ""),
    "colons": ("", ":", ""),
    "many think tags": ("", "<think></think>", ""),
    "unclosed answers": ("", "<answer>", ""),
    "unclosed boxes": ("", "\\boxed{\\text{", ""),
    "repeated field names": ("", "Route Name:", ""),
    "a field per line, no values": ("", "Departure Stop:\n", ""),
    "long via list": ("Route Name: a\nDeparture Stop: b\nArrival Stop: c\nVia Stops: ", "a, ", ""),
    "long bulleted via list": ("Route Name: a\nDeparture Stop: b\nArrival Stop: c\nVia Stops:\n", "- a\n", ""),
    "empty list entries": ("Route Name: a\nDeparture Stop: b\nArrival Stop: c\nVia Stops:\n", "- ,\n", ""),
    "pending values": ("Route Name:\n", "\n", ""),
    "spaces inside a key": ("Route", " ", "Name: x"),
    "digits": ("Number of Via Stops: ", "9", ""),
}


class _CountedPattern:
    """A compiled pattern that adds the length of the text it is asked to scan to a tally, then scans it."""

    _POSITIONS = {"search", "match", "fullmatch", "finditer", "findall"}  # (string, pos, endpos)

    def __init__(self, pattern: re.Pattern, tally: list[int]) -> None:
        self._pattern, self._tally = pattern, tally

    def __getattr__(self, name: str):
        method = getattr(self._pattern, name)
        if not callable(method):
            return method

        def counted(*args, **kwargs):
            if name in self._POSITIONS:
                string = args[0] if args else kwargs["string"]
                pos = args[1] if len(args) > 1 else kwargs.get("pos", 0)
                endpos = args[2] if len(args) > 2 else kwargs.get("endpos", len(string))
                self._tally[0] += max(min(endpos, len(string)) - pos, 0)
            elif name in ("sub", "subn"):
                self._tally[0] += len(args[1] if len(args) > 1 else kwargs["string"])
            elif name == "split":
                self._tally[0] += len(args[0] if args else kwargs["string"])
            return method(*args, **kwargs)

        return counted


@pytest.fixture
def work(monkeypatch):
    """``work(text, **options)``: the parser's answer, and the Python calls and lines it runs plus the characters
    its regular expressions are given to scan. A scan repeated per line, or a loop in a loop, shows as work
    growing faster than the text; what a regular expression or a string method does inside one call is not
    counted (possessive quantifiers keep the former linear)."""
    tally = [0]
    for module in (parsing, answer_text, metro):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                monkeypatch.setattr(module, name, _CountedPattern(value, tally))

    def count(text: str, **options) -> tuple[ParsedAnswer | Invalid, int]:
        tally[0] = steps = 0

        def trace(frame, event, arg):
            nonlocal steps
            steps += 1  # a call, or a line of Python run
            return trace

        sys.settrace(trace)
        try:
            answer = parse_answer(text, **options)
        finally:
            sys.settrace(None)
        return answer, steps + tally[0]

    return count


@pytest.mark.parametrize(("head", "unit", "tail"), HOSTILE.values(), ids=HOSTILE.keys())
def test_huge_hostile_input_takes_work_linear_in_its_size(head, unit, tail, work):
    # a quarter of a megabyte, then half: linear work (a fixed part plus a part per unit) about doubles, where
    # a scan repeated per line or per unit would make it four times
    units = MB // 4 // len(unit)
    small, small_work = work(head + unit * units + tail, kind="long")
    large, large_work = work(head + unit * 2 * units + tail, kind="long")
    assert isinstance(small, ParsedAnswer | Invalid) and isinstance(large, ParsedAnswer | Invalid)
    assert large_work <= 2.05 * small_work, (small_work, large_work)


def test_ten_thousand_sections_are_all_read_with_linear_work(work):
    small, small_work = work(SECTION * 5_000)
    large, large_work = work(SECTION * 10_000)
    assert isinstance(small, ParsedAnswer) and len(small.sections) == 5_000
    assert isinstance(large, ParsedAnswer) and len(large.sections) == 10_000
    assert large_work <= 2.05 * small_work, (small_work, large_work)
