"""Name normalization: fold, station keys, line keys, romanization."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.names import (
    _STATION_SUFFIX,
    _fold_unicode,
    _strip_station_suffix,
    fold,
    has_cjk,
    line_keys,
    romanize,
    station_keys,
)

_FULL_WIDTH = str.maketrans(
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "".join(chr(ord(ch) + 0xFEE0) for ch in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
)
_CJK_DIGITS = "零一二三四五六七八九"
_ASCII_TEXT = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -", max_size=30)


def _cjk_number(number: int) -> str:
    """Chinese numerals as station maps write line numbers (1 to 99)."""
    tens, units = divmod(number, 10)
    if not tens:
        return _CJK_DIGITS[units]
    return ("" if tens == 1 else _CJK_DIGITS[tens]) + "十" + (_CJK_DIGITS[units] if units else "")


# -- fold -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "plain"),
    [
        ("Línea-２", "Linea 2"),
        ("SKÅDALEN", "skadalen"),
        ("Colégio  Militar/Luz", "colegio militar luz"),
        ("Conca d'Oro", "Conca dOro"),
        ("ＬＩＮＥ　１", "line 1"),
        ("Cathedral Pkwy(110 St)", "cathedral pkwy 110 st"),
    ],
)
def test_fold_ignores_case_width_accents_spaces_and_punctuation(variant, plain):
    assert fold(variant) == fold(plain)


@settings(max_examples=100)
@given(_ASCII_TEXT)
def test_fold_is_idempotent_and_ignores_case_and_width(text):
    folded = fold(text)
    assert fold(folded) == folded
    assert fold(text.swapcase()) == folded
    assert fold(text.translate(_FULL_WIDTH)) == folded
    assert " " not in folded and "-" not in folded


@settings(max_examples=100)
@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8), min_size=1))
def test_fold_keeping_spaces_collapses_separators(words):
    assert fold(" -  ".join(words), keep_spaces=True) == " ".join(words)
    assert fold("_".join(words), keep_spaces=True) == " ".join(words)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_ascii_fast_path_folds_as_the_unicode_path_does(text, keep_spaces):
    # every ASCII character, controls and separators included: the regex path must agree with the per-character one
    assert fold(text, keep_spaces=keep_spaces) == _fold_unicode(text, keep_spaces)


_IDEOGRAPHS = "".join(map(chr, [*range(0x3400, 0x4DC0), *range(0x4E00, 0xA000)]))


@given(
    st.text(alphabet=st.characters(max_codepoint=127) | st.sampled_from("西直门站号线路一十二（）·　"), max_size=30),
    st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_the_ascii_and_cjk_fast_path_folds_as_the_unicode_path_does(text, keep_spaces):
    # ASCII mixed with ideographs takes the regex path; anything else (full-width brackets, a middle dot, an
    # ideographic space) the per-character one: both must agree
    assert fold(text, keep_spaces=keep_spaces) == _fold_unicode(text, keep_spaces)


@pytest.mark.parametrize("keep_spaces", [False, True])
def test_every_ideograph_of_the_fast_path_folds_to_itself(keep_spaces):
    # what the fast path assumes of each ideograph (no normalization, case or combining change; alphanumeric;
    # no blank), checked against the per-character path for this Python's Unicode, in one text and one by one
    assert _fold_unicode(_IDEOGRAPHS, keep_spaces) == _IDEOGRAPHS
    assert fold.__wrapped__(_IDEOGRAPHS, keep_spaces=keep_spaces) == _IDEOGRAPHS
    assert all(
        _fold_unicode(f"a-{ch}. B", keep_spaces) == fold.__wrapped__(f"a-{ch}. B", keep_spaces=keep_spaces)
        for ch in _IDEOGRAPHS[::97]
    )


@given(st.text(alphabet="stationSTN.站 \n\tx", max_size=16))
@settings(max_examples=300, deadline=None)
def test_the_station_suffix_is_stripped_as_its_pattern_says(text):
    # _strip_station_suffix looks for "st" or "站" before it runs its pattern: never another result
    assert _strip_station_suffix(text) == (_STATION_SUFFIX.sub("", text).strip() or text)


def test_has_cjk():
    assert has_cjk("西直门站") and has_cjk("Line 昌平")
    assert not has_cjk("Skådalen Station") and not has_cjk("ＬＩＮＥ１")


# -- station keys -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "name"),
    [
        ("Skådalen Station", "skadalen"),
        ("Bologna", "Bologna Station"),
        ("bologna station", "BOLOGNA"),
        ("西直门", "西直门站"),
        ("Xizhimen", "西直门站"),
        ("xi zhi men station", "西直门站"),
        ("Xi-Zhi-Men Stn", "西直门站"),
        ("Cathedral Pkwy 110 St", "Cathedral Pkwy (110 St) Station"),
        ("Colegio Militar Luz", "Colégio Militar/Luz Station"),
    ],
)
def test_station_variants_share_their_first_key(variant, name):
    assert station_keys(variant)[0] in station_keys(name)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Cathedral Pkwy (110 St) Station", "Cathedral Pkwy Station (110 St)"),
        ("34 St-Penn Station Station", "34 St-Penn Station"),
        ("Union Station Station", "Union"),
        ("西单站", "西站"),
    ],
)
def test_only_a_trailing_suffix_is_ignored(one, other):
    assert not set(station_keys(one)) & set(station_keys(other))


_BASE_WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).filter(
        lambda w: w not in {"station", "stn"}
    ),
    min_size=1,
    max_size=4,
).map(" ".join)


@settings(max_examples=100)
@given(base=_BASE_WORDS, suffix=st.sampled_from([" Station", " station", " STATION", "  Station", " Stn", " Stn."]))
def test_station_suffix_does_not_change_the_key(base, suffix):
    assert station_keys(base + suffix) == station_keys(base)
    assert station_keys(base.title() + suffix) == station_keys(base)


@settings(max_examples=50)
@given(st.text(alphabet="西直门车公庄阜成复兴长椿街苹果园古城单", min_size=1, max_size=5))
def test_chinese_station_keys_hold_the_name_and_its_pinyin(base):
    keys = station_keys(base + "站")
    assert keys == station_keys(base)
    assert keys[0] == fold(base)
    assert fold(romanize(base + "站")[0]) in keys
    assert all(not has_cjk(key) for key in keys[1:])


def test_keys_are_never_empty():
    for name in ["Station", "站", "A Station", "-", "西直门站"]:
        assert all(station_keys(name)), name
        assert all(line_keys(name)), name


# -- romanization -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "forms"),
    [
        ("西直门站", ("xi zhi men",)),
        ("西直门", ("xi zhi men",)),
        ("绿汀路站", ("lu ting lu", "lu ting road")),
        ("人民广场站", ("ren min guang chang", "ren min square")),
        ("北京南站", ("bei jing nan", "bei jing south")),
        ("长沙火车南站", ("chang sha huo che nan", "chang sha huo che south")),
    ],
)
def test_romanize(name, forms):
    assert romanize(name) == forms


def test_romanize_reads_u_umlaut_as_u():
    assert romanize("绿地站")[0].startswith("lu ")
    assert station_keys("Lüdi")[0] == station_keys("Ludi")[0]
    assert station_keys("Ludi")[0] in station_keys("绿地站")


# -- line keys ------------------------------------------------------------------------


LINE_ONE_SPELLINGS = [
    "Line 1", "Route 1", "1", "1号线", "地铁1号线", "Linea 1", "Ligne 1", "Línea 1", "LINE-１", "一号线",
    "Metro Line 1", "Linha 1", "Lijn 1", "Linie 1", "轨道交通1号线", "MRT 1",
]  # fmt: skip


@pytest.mark.parametrize("spelling", LINE_ONE_SPELLINGS)
def test_line_spellings_share_the_key_of_line_1(spelling):
    assert line_keys(spelling)[0] == line_keys("Line 1")[0]


@settings(max_examples=100)
@given(
    number=st.integers(min_value=1, max_value=99),
    template=st.sampled_from(
        ["Line {}", "Route {}", "{}", "{}号线", "地铁{}号线", "Linea {}", "Ligne {}", "Línea {}", "LINE-{}", "{}线"]
    ),
    full_width=st.booleans(),
)
def test_numbered_line_spellings_share_one_key(number, template, full_width):
    digits = str(number).translate(_FULL_WIDTH) if full_width else str(number)
    key = line_keys(f"Line {number}")[0]
    assert line_keys(template.format(digits))[0] == key
    assert line_keys(f"{_cjk_number(number)}号线")[0] == key


@settings(max_examples=100)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=1, max_value=99))
def test_different_numbers_never_share_a_key(one, other):
    if one != other:
        assert not set(line_keys(f"Line {one}")) & set(line_keys(f"{other}号线"))


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("Red", "Red Line"),
        ("red line", "Red Line"),
        ("Green Line", "Metrorail Green Line"),
        ("Changping", "昌平线"),
        ("昌平", "昌平线"),
        ("Line B", "B"),
        ("Linea B", "Line B"),
    ],
)
def test_named_line_spellings_share_a_key(spelling, name):
    assert line_keys(spelling)[0] in line_keys(name)


def test_line_words_inside_a_name_are_kept():
    # "Airport" must not lose "port", nor "Trainsville" its "train": only whole words go
    assert line_keys("Airport Line")[0] == "airport"
    assert line_keys("Trainsville")[0] == "trainsville"


def test_the_pinyin_table_is_what_pypinyin_gives_for_the_embedded_cities_and_is_used():
    import json
    from importlib import resources

    from graphkit import names
    from graphkit.cities import embedded_pinyin

    stored = json.loads((resources.files("graphkit") / "data" / names.PINYIN_FILE).read_text(encoding="utf-8"))
    assert stored == embedded_pinyin(), "stale: rewrite it as graphkit.cities.embedded_pinyin's docstring says"
    assert stored["西直门"] == "xi zhi men" and stored["昌平"] == "chang ping"
    # a name the table holds is romanized from it; one it lacks, by pypinyin, the same way
    assert names._pinyin("西直门") == names._computed_pinyin("西直门")
    assert "嘿嘿嘿" not in stored and names._pinyin("嘿嘿嘿") == "hei hei hei"


def test_matching_the_embedded_cities_chinese_names_never_imports_pypinyin():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from graphkit import city_graph\n"
        "graph = city_graph('beijing')\n"
        "assert graph.station_index.resolve('Xizhimen') == graph.station_index.resolve('西直门') == '西直门站'\n"
        "assert graph.line_index.resolve('changping') == graph.line_index.resolve('昌平线')\n"
        "assert 'pypinyin' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_unsafe_character_flags_exactly_the_control_and_bidi_characters():
    # against unicodedata itself, character by character over the Basic Multilingual Plane and the planes' ends:
    # Cc is the C0 and C1 controls and DEL, the bidi controls are the embeddings, overrides, isolates and marks
    import unicodedata

    from graphkit.names import unsafe_character

    bidi = set("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    for code in [*range(0x10000), *range(0x10FFF0, 0x110000)]:
        ch = chr(code)
        unsafe = ch in bidi or unicodedata.category(ch) == "Cc"
        assert (unsafe_character(f"a{ch}b") is not None) == unsafe, hex(code)
    assert unsafe_character("Termini\u0085") == "U+0085 (a control character)"
