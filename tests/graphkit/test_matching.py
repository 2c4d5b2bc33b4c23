"""Resolving what people write to the station and line names of the data."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph, city_names
from graphkit.errors import AmbiguousLine, AmbiguousStation, TransitError, UnknownLine, UnknownStation
from graphkit.matching import NameIndex, Resolution
from graphkit.metro import load_metro
from tests.networks import CHINESE, HOMONYMS, SUFFIX_VARIANTS

NOISE_CITIES = ("beijing", "new_york", "rome", "lisboa", "shanghai")
LINE_ONE_SPELLINGS = [
    "Line 1", "Route 1", "1", "1号线", "地铁1号线", "Linea 1", "Ligne 1", "Línea 1", "LINE-１", " line 1 ", "一号线",
]  # fmt: skip
NUMBERED_LINES = [f"Line {number}" for number in range(1, 13)]
STATUSES = {"exact", "matched", "ambiguous", "unknown"}

_SUFFIX = re.compile(r"(?:\s+station|站)$", re.IGNORECASE)
_FULL_WIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")


def _station_index(data: dict) -> NameIndex:
    return NameIndex(load_metro(data).station_names, kind="station")


# -- lines -------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", LINE_ONE_SPELLINGS)
def test_line_spellings_resolve_to_line_1(spelling):
    assert NameIndex(NUMBERED_LINES, kind="line").resolve(spelling) == "Line 1"


@pytest.mark.parametrize("spelling", LINE_ONE_SPELLINGS)
def test_line_spellings_resolve_to_new_yorks_bare_1(spelling):
    assert city_graph("new_york").line_index.resolve(spelling) == "1"


@pytest.mark.parametrize("number", range(1, 13))
def test_numbered_lines_do_not_bleed_into_each_other(number):
    index = NameIndex(NUMBERED_LINES, kind="line")
    assert index.resolve(f"{number}号线") == f"Line {number}"
    assert index.resolve(f"Route {number}") == f"Line {number}"


@pytest.mark.parametrize(
    ("spelling", "line"),
    [("2号线", "Line 2"), ("Changping Line", "昌平线"), ("昌平", "昌平线"), ("Line 19", "Line 19")],
)
def test_beijing_lines(spelling, line):
    assert city_graph("beijing").line_index.resolve(spelling) == line


def test_line_sharing_a_key_is_ambiguous_but_each_exact_name_is_not():
    index = NameIndex(["Line 1", "1号线", "Line 2"], kind="line", city="somewhere")
    assert index.resolve("Line 1") == "Line 1"
    assert index.resolve("1号线") == "1号线"
    with pytest.raises(AmbiguousLine) as raised:
        index.resolve("Route 1")
    assert set(raised.value.candidates) == {"Line 1", "1号线"}
    assert "somewhere" in str(raised.value)


def test_unknown_line_suggests_close_lines():
    with pytest.raises(UnknownLine) as raised:
        city_graph("beijing").line_index.resolve("Line 1O")
    assert raised.value.candidates
    assert all(name in city_graph("beijing").line_index.names for name in raised.value.candidates)
    assert repr(raised.value.candidates[0]) in str(raised.value)


# -- stations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "query", "station"),
    [
        ("oslo", "skadalen", "Skådalen Station"),
        ("oslo", "SKÅDALEN STATION", "Skådalen Station"),
        ("oslo", "Skådalen", "Skådalen Station"),
        ("beijing", "Xizhimen", "西直门站"),
        ("beijing", "xi zhi men station", "西直门站"),
        ("beijing", "Xizhimen Station", "西直门站"),
        ("beijing", "西直门", "西直门站"),
        ("beijing", "西直门站", "西直门站"),
        ("rome", "termini", "Termini Station"),
        ("rome", "conca d oro", "Conca d'Oro Station"),
        ("rome", "Porta Furba Quadraro", "Porta Furba-Quadraro Station"),
        ("rome", "CINECITTA", "Cinecittà Station"),
        ("lisboa", "colegio militar-luz", "Colégio Militar/Luz Station"),
    ],
)
def test_station_spellings(city, query, station):
    assert city_graph(city).station_index.resolve(query) == station


@pytest.mark.parametrize("variant", ["Cathedral Pkwy (110 St) Station", "Cathedral Pkwy(110 St) Station"])
def test_new_york_near_duplicates_resolve_exactly_to_each_variant(variant):
    index = city_graph("new_york").station_index
    assert index.resolve(variant) == variant
    assert index.lookup(variant) == Resolution(variant, "exact", (variant,))


def test_new_york_loose_spelling_of_the_near_duplicates_is_ambiguous():
    variants = {"Cathedral Pkwy (110 St) Station", "Cathedral Pkwy(110 St) Station"}
    index = city_graph("new_york").station_index
    with pytest.raises(AmbiguousStation) as raised:
        index.resolve("cathedral pkwy 110 st")
    error = raised.value
    assert set(error.candidates) == variants
    assert error.query == "cathedral pkwy 110 st"
    assert error.city == "new_york"
    for variant in variants:
        assert repr(variant) in str(error)
    assert index.lookup("cathedral pkwy 110 st").name is None


def test_homonyms_network():
    index = _station_index(HOMONYMS)
    assert index.resolve("86 st") == "86 St Station"  # one name, however many lines call there
    assert index.lookup("Cathedral Pkwy 110 St").status == "ambiguous"


def test_suffix_variants_exact_name_wins_and_loose_spelling_is_ambiguous():
    index = _station_index(SUFFIX_VARIANTS)
    assert index.resolve("西单") == "西单"
    assert index.resolve("西单站") == "西单站"
    with pytest.raises(AmbiguousStation) as raised:
        index.resolve("Xidan")
    assert set(raised.value.candidates) == {"西单", "西单站"}


def test_unknown_station_suggests_a_close_name():
    with pytest.raises(UnknownStation) as raised:
        city_graph("rome").station_index.resolve("Colloseo")
    assert "Colosseo Station" in raised.value.candidates
    assert "Colosseo Station" in str(raised.value)
    assert "rome" in str(raised.value)


def test_unknown_chinese_station_suggests_by_pinyin():
    with pytest.raises(UnknownStation) as raised:
        city_graph("beijing").station_index.resolve("Xizhimem")
    assert "西直门站" in raised.value.candidates


def test_nothing_close_gives_no_suggestion():
    found = city_graph("rome").station_index.lookup("zzzzzzzzzzzzzzzz")
    assert (found.status, found.names, found.name) == ("unknown", (), None)
    with pytest.raises(UnknownStation) as raised:
        city_graph("rome").station_index.resolve("zzzzzzzzzzzzzzzz")
    assert "did you mean" not in str(raised.value)


@pytest.mark.parametrize("query", ["", "   ", "Station", "站", "()", "-"])
def test_degenerate_queries_are_unknown(query):
    assert city_graph("beijing").station_index.lookup(query).status in {"unknown", "ambiguous"}
    with pytest.raises((UnknownStation, AmbiguousStation)):
        city_graph("beijing").station_index.resolve(query)


def test_errors_are_transit_and_lookup_errors():
    index = _station_index(CHINESE)
    for query in ["nowhere", ""]:
        with pytest.raises(TransitError):
            index.resolve(query)
        with pytest.raises(LookupError):
            index.resolve(query)


def test_index_keeps_each_name_once_in_order():
    index = NameIndex(["B", "A", "B"], kind="station")
    assert index.names == ("B", "A")


def test_kind_is_checked():
    with pytest.raises(ValueError, match="line.*station"):
        NameIndex(["A"], kind="stop")  # type: ignore[arg-type]


# -- properties over the real cities ---------------------------------------------------


@pytest.mark.parametrize("city", city_names())
def test_every_station_resolves_to_itself(city):
    index = city_graph(city).station_index
    assert {name: index.resolve(name) for name in index.names} == {name: name for name in index.names}


@pytest.mark.parametrize("city", city_names())
def test_every_line_resolves_to_itself(city):
    index = city_graph(city).line_index
    assert {name: index.resolve(name) for name in index.names} == {name: name for name in index.names}


def _plain(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _unsuffixed(text: str) -> str:
    return _SUFFIX.sub("", text.strip())


def _spelled_as_another(rewrite: str, name: str, names: tuple[str, ...]) -> bool:
    """The rewrite reads as another station's name with or without its suffix (西单 / 西单站)."""
    target = _plain(_unsuffixed(rewrite))
    return any(_plain(_unsuffixed(other)) == target for other in names if other != name)


@st.composite
def noisy_stations(draw):
    city = draw(st.sampled_from(NOISE_CITIES))
    name = draw(st.sampled_from(city_graph(city).stations))
    text = city_graph(city).display_name(name)  # a station split from a shared name is spelt by that name
    if draw(st.booleans()):
        text = _SUFFIX.sub("", text) if _SUFFIX.search(text) else text + draw(st.sampled_from([" Station", " station"]))
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    text = "".join(ch.swapcase() if flip else ch for ch, flip in zip(text, flips, strict=True))
    text = text.replace(" ", " " * draw(st.integers(min_value=1, max_value=3)))
    if draw(st.booleans()):
        text = text.translate(_FULL_WIDTH_DIGITS)
    text = " " * draw(st.integers(0, 2)) + text + " " * draw(st.integers(0, 2))
    return city, name, text


@settings(max_examples=100, deadline=None)
@given(noisy_stations())
def test_noisy_spelling_is_the_station_or_an_ambiguity_including_it(case):
    city, name, text = case
    index = city_graph(city).station_index
    if _spelled_as_another(text, name, index.names):
        return  # the data spells two stations this way: the exact name decides (see the suffix-variant test)
    found = index.lookup(text)
    assert found.status in {"exact", "matched", "ambiguous"}, found
    assert name in found.names
    if found.status != "ambiguous":
        assert index.resolve(text) == name


_ANY_TEXT = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="西直门车公庄站号线地铁 ()（）-ＬｉｎｅStation1234567890", max_size=15),
)


@settings(max_examples=100, deadline=None)
@given(city=st.sampled_from(("beijing", "new_york")), kind=st.sampled_from(("station", "line")), query=_ANY_TEXT)
def test_lookup_never_raises_and_resolve_agrees_with_it(city, kind, query):
    graph = city_graph(city)
    index = graph.station_index if kind == "station" else graph.line_index
    found = index.lookup(query)
    assert isinstance(found, Resolution)
    assert found.query == query
    assert found.status in STATUSES
    assert set(found.names) <= set(index.names)
    if found.status in {"exact", "matched"}:
        assert len(found.names) == 1
        assert index.resolve(query) == found.name
        return
    assert found.name is None
    if found.status == "ambiguous":
        assert len(found.names) >= 2
    unknown, ambiguous = (UnknownStation, AmbiguousStation) if kind == "station" else (UnknownLine, AmbiguousLine)
    expected = ambiguous if found.status == "ambiguous" else unknown
    with pytest.raises(expected) as raised:
        index.resolve(query)
    assert raised.value.candidates == found.names


def test_equally_close_names_are_suggested_in_the_datas_order():
    # "lin" against "line1".."line4": each keeps the 3 letters of 8 (2 * 3 / (3 + 5) = 75 of 100), a tie that
    # the names' own order breaks (difflib broke it by the reverse spelling: Line 4, Line 3, Line 2)
    index = NameIndex(["Line 1", "Line 2", "Line 3", "Line 4"], kind="line")
    assert index.suggest("Lin") == ("Line 1", "Line 2", "Line 3")


def test_a_city_spelt_with_two_letters_swapped_is_suggested():
    from graphkit.cities import city_path
    from graphkit.errors import UnknownCity

    # "maimi" and "miami" share the 4 letters m, a, m, i in order: 2 * 4 / 10 = 80 of 100, over the cutoff of 50
    # (difflib's matching blocks, "mi" and one letter, fell under its 0.5 and suggested nothing)
    with pytest.raises(UnknownCity, match=r"did you mean miami\?"):
        city_path("maimi")


@pytest.mark.parametrize("name", ["ro\nme", "rome\x1b[31m", "\u202erome"])
def test_a_city_name_with_a_control_character_is_no_city(name):
    # spaces do not matter in a city's name ("new york" is new_york), but a control character is no part of one
    from graphkit.errors import UnknownCity

    with pytest.raises(UnknownCity, match=r"it holds U\+"):
        city_graph(name)
    assert city_graph(" Rome ").city == "rome"
