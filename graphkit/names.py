"""Name normalization: the keys under which station and line names match.

Two names match when they share a key. Keys ignore case, spacing, hyphens and
other punctuation, full-width forms and diacritics; station keys also ignore a
trailing ``Station`` / ``站``, and Chinese names get romanized keys (pinyin) so
that ``Xizhimen`` reaches ``西直门站``. Line keys ignore the word for "line" in
several languages (``Line 1`` = ``Route 1`` = ``1`` = ``1号线`` = ``Linea 1``).

Keys never decide alone: :mod:`graphkit.matching` turns a key shared by
several distinct names into an ambiguity instead of merging them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

__all__ = [
    "fold",
    "station_keys",
    "line_keys",
    "has_cjk",
    "romanize",
    "unsafe_character",
    "lookalike_key",
    "pinyin_table",
]

_CJK = re.compile(r"[\u3400-\u9fff]")
# Bidi controls (embeddings, overrides, isolates, marks) change how a name looks, not what it folds to.
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# a bidi control, or a character of category Cc (which is U+0000 to U+001F and U+007F to U+009F, no more)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(_BIDI)) + "]")
_STATION_SUFFIX = re.compile(r"(?:\s+(?:station|stn\.?)|站)$")
_LINE_WORDS = re.compile(
    r"\b(?:line|lines|route|linea|ligne|linha|linie|lijn|metro|metrorail|subway|train|mrt|lrt)(?=\d|\b)"
)
_LINE_CJK = re.compile(r"地铁|轨道交通|线路|号线|线|号")
_PARENTHESISED = re.compile(r"[(（][^()（）]*[)）]")
_SEPARATORS = re.compile(r"[\s\-‐‑‒–—_/]+")
_ASCII_SEPARATORS = re.compile(r"[\s\-_/]+")
_ASCII_PUNCTUATION = re.compile(r"[^0-9a-z]+")  # after lower(): what str.isalnum() rejects in ASCII
_ASCII_DELETIONS = dict.fromkeys(code for code in range(128) if not chr(code).isalnum() and chr(code) != " ")
# ASCII and the CJK ideographs of _CJK (most Chinese names): NFKC, NFKD and casefold leave each ideograph as it is,
# none is a combining mark or a blank, each is alphanumeric, so fold's ASCII path is right for these texts too
_ASCII_OR_CJK = re.compile(r"[\x00-\x7f\u3400-\u9fff]*+")
_ASCII_OR_CJK_PUNCTUATION = re.compile(r"[^0-9a-z\u3400-\u9fff]+")
_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_NUMBER = re.compile(r"[零一二两三四五六七八九十]+(?=号线|号|线)")
# English words for the generic endings of Chinese station names, so that the
# English names the benchmark accepts (绿汀路 = Lvting Road) reach them.
_GENERIC_ENDINGS = (
    ("大道", "avenue"),
    ("广场", "square"),
    ("公园", "park"),
    ("大街", "street"),
    ("路", "road"),
    ("街", "street"),
    ("桥", "bridge"),
    ("东", "east"),
    ("西", "west"),
    ("南", "south"),
    ("北", "north"),
)


@lru_cache(maxsize=65536)
def fold(text: str, *, keep_spaces: bool = False) -> str:
    """Case-, width-, accent- and punctuation-insensitive form of ``text``.

    Examples
    --------
    >>> fold("Línea-２ ")
    'linea2'
    >>> fold("Conca d'Oro", keep_spaces=True)
    'conca doro'
    """
    return _fold(text, keep_spaces)


def _fold(text: str, keep_spaces: bool) -> str:
    """:func:`fold` without its cache (for the keys of a name, cached themselves)."""
    if text.isascii():  # most names: normalization changes nothing and the filter runs in C
        text = text.lower()
        if keep_spaces:
            # separators are single spaces between the words once collapsed, so deleting the punctuation in
            # place leaves what joining the words without it gives (a word of punctuation alone, two spaces)
            return _ASCII_SEPARATORS.sub(" ", text).translate(_ASCII_DELETIONS).strip()
        return _ASCII_PUNCTUATION.sub("", text)
    if _ASCII_OR_CJK.fullmatch(text) is not None:  # Chinese names: the same, the ideographs kept
        text = text.lower()
        if keep_spaces:
            return _ASCII_SEPARATORS.sub(" ", text).translate(_ASCII_DELETIONS).strip()
        return _ASCII_OR_CJK_PUNCTUATION.sub("", text)
    return _fold_unicode(text, keep_spaces)


def _fold_unicode(text: str, keep_spaces: bool) -> str:
    """:func:`fold` character by character: any text (the ASCII path must agree with it)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    if keep_spaces:
        text = _SEPARATORS.sub(" ", text)
        return " ".join("".join(ch for ch in word if ch.isalnum()) for word in text.split()).strip()
    return "".join(ch for ch in text if ch.isalnum())


def unsafe_character(text: str) -> str | None:
    """The first control (Unicode category Cc) or bidi control character of ``text``, described; else ``None``.

    Parameters
    ----------
    text : str
        A name (a station's, a model's).

    Returns
    -------
    str or None
        The character's code point and kind, for a message.

    Examples
    --------
    >>> unsafe_character("\\u202eTermini"), unsafe_character("Termini"), unsafe_character("A\\x07B")
    ('U+202E (a bidi control character)', None, 'U+0007 (a control character)')
    """
    if _UNSAFE.search(text) is None:  # the common case, without a look at each character
        return None
    for ch in text:
        if ch in _BIDI:
            return f"U+{ord(ch):04X} (a bidi control character)"
        if unicodedata.category(ch) == "Cc":
            return f"U+{ord(ch):04X} (a control character)"
    return None


# Cyrillic and Greek letters that common fonts draw like one Latin letter, each with that letter: the homoglyphs
# of a spoofed name (gpt-4о). A hand-picked part of Unicode's confusables (UTS #39), checked by eye in DejaVu Sans
_HOMOGLYPHS = str.maketrans(
    "аеорсухѕіјһԁԛԝӏАВЕКМНОРСТХУЅІЈԚԜοαινΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxsijhdqwlABEKMHOPCTXYSIJQWoaivABEZHIKMNOPTYX",
)


def lookalike_key(text: str) -> str:
    """What ``text`` looks like: its compatibility form (NFKC: full-width and styled letters as plain ones),
    without invisible format characters (zero-width spaces and joiners, soft hyphens), and with each Cyrillic
    or Greek letter drawn like a Latin one replaced by it. Case and punctuation are kept: two texts with the
    same key print alike, two with different keys can be told apart by eye.

    Parameters
    ----------
    text : str
        A name.

    Returns
    -------
    str
        Its look-alike key.

    Examples
    --------
    >>> lookalike_key("gpt-4\u043e") == lookalike_key("gpt-4o") != lookalike_key("GPT-4o")
    True
    >>> lookalike_key("mode\u0300le") == lookalike_key("mod\u00e8le"), lookalike_key("ｇｐｔ\u200b")
    (True, 'gpt')
    """
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").translate(_HOMOGLYPHS)
    return text


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains Chinese characters.

    Parameters
    ----------
    text : str

    Returns
    -------
    bool

    Examples
    --------
    >>> has_cjk("西直门站"), has_cjk("Termini")
    (True, False)
    """
    return _CJK.search(text) is not None


#: the pinyin of the embedded cities' names (:func:`pinyin_table`), read instead of importing pypinyin (a second)
PINYIN_FILE = "pinyin.json"


@lru_cache(maxsize=1)
def _known_pinyin() -> dict[str, str]:
    path = resources.files("graphkit") / "data" / PINYIN_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _pinyin(text: str) -> str:
    known = _known_pinyin().get(text)
    return known if known is not None else _computed_pinyin(text)


def _computed_pinyin(text: str) -> str:
    from pypinyin import lazy_pinyin  # heavy: loaded only for Chinese names the table lacks

    # pinyin's "v" stands for "ü", which people type as "u", "v" or "ü"
    return " ".join(lazy_pinyin(text)).replace("ü", "u").replace("v", "u")


def _romanized_parts(name: str) -> list[tuple[str, str]]:
    """What :func:`romanize` renders: (Chinese text put in pinyin, English words after it)."""
    name = name.strip()
    base = _STATION_SUFFIX.sub("", name) or name
    parts = [(base, "")]
    if name.endswith("火车站") and len(name) > 3:  # 站 here is part of the generic ending
        parts.append((name[:-3], " railway station"))
    else:
        for ending, english in _GENERIC_ENDINGS:
            if base.endswith(ending) and len(base) > len(ending):
                parts.append((base[: -len(ending)], f" {english}"))
                break
    return parts


def pinyin_table(station_names: Iterable[str], line_names: Iterable[str]) -> dict[str, str]:
    """The pinyin that the keys of these names ask for, computed with pypinyin, sorted by text.

    ``graphkit/data/pinyin.json`` holds this table for the embedded cities (their names and spellings,
    and each station name without 站, as answers write it), so that matching them never imports pypinyin.

    Parameters
    ----------
    station_names, line_names : iterable of str
        The names whose Chinese parts are looked up.

    Returns
    -------
    dict of str to str
        Each Chinese text to its pinyin, sorted by text.
    """
    texts = {text for name in station_names if has_cjk(name) for text, _ in _romanized_parts(name)}
    texts.update(key for name in line_names if has_cjk(key := _first_line_key(name)))
    return {text: _computed_pinyin(text) for text in sorted(texts)}


@lru_cache(maxsize=65536)
def romanize(name: str) -> tuple[str, ...]:
    """Pinyin renderings of a Chinese station name, as spaced lowercase text.

    The first is the whole name in pinyin; the second, where the name has a
    generic ending (路, 大道, 火车站, ...), translates that ending.

    Examples
    --------
    >>> romanize("西直门站")
    ('xi zhi men',)
    >>> romanize("绿汀路站")
    ('lu ting lu', 'lu ting road')
    """
    forms = (_pinyin(text) + english for text, english in _romanized_parts(name))
    return tuple(dict.fromkeys(_fold(form, True) for form in forms))


def _strip_station_suffix(spaced: str) -> str:
    if "st" not in spaced and "站" not in spaced:  # no suffix can be there: most names, told in C
        return spaced.strip() or spaced
    stripped = _STATION_SUFFIX.sub("", spaced).strip()
    return stripped or spaced


@lru_cache(maxsize=65536)
def station_keys(name: str) -> tuple[str, ...]:
    """Match keys of a station name, most specific first.

    Examples
    --------
    >>> station_keys("Sta. Maria del Soccorso Station")
    ('stamariadelsoccorso',)
    >>> station_keys("西直门站")
    ('西直门', 'xizhimen')
    >>> station_keys("Xizhimen Station")
    ('xizhimen',)
    """
    key = _fold(_strip_station_suffix(_fold(name, True)), False)
    if _CJK.search(name) is not None:
        keys = [key, *(_fold(_strip_station_suffix(form), False) for form in romanize(name))]
        return tuple(dict.fromkeys(key for key in keys if key))
    if "v" in key:
        return (key, key.replace("v", "u"))  # pinyin typed with v for ü (Lvting = 绿汀)
    return (key,) if key else ()


def _cjk_number(match: re.Match[str]) -> str:
    text = match.group(0)
    if "十" not in text:
        return "".join(str(_DIGITS[ch]) for ch in text)
    tens, _, units = text.partition("十")
    return str((_DIGITS.get(tens, 1) if tens else 1) * 10 + (_DIGITS[units] if units else 0))


@lru_cache(maxsize=65536)
def line_keys(name: str) -> tuple[str, ...]:
    """Match keys of a line name, most specific first.

    Examples
    --------
    >>> {line_keys(n)[0] for n in ["Line 1", "Route 1", "1", "1号线", "地铁1号线", "Línea 1", "一号线"]}
    {'1'}
    >>> line_keys("Metrorail Green Line")
    ('green',)
    >>> line_keys("昌平线")
    ('昌平', 'changping')
    """
    text = _numbered(name)
    keys = [_line_key(text)]
    # route planners add the termini in parentheses: 地铁5号线(后关--虎滩新区)
    plain = _PARENTHESISED.sub(" ", text).strip()
    if plain and plain != text:
        keys.append(_line_key(plain))
    if has_cjk(keys[0]):
        keys.append(fold(_pinyin(keys[0])))
    return tuple(dict.fromkeys(k for k in keys if k))


def _numbered(name: str) -> str:
    """``name`` in NFKC with Chinese numerals before 号线/号/线 as digits."""
    return _CJK_NUMBER.sub(_cjk_number, unicodedata.normalize("NFKC", name))


def _first_line_key(name: str) -> str:
    """The first of :func:`line_keys` (the one romanized when Chinese)."""
    return _line_key(_numbered(name))


def _line_key(text: str) -> str:
    spaced = fold(text, keep_spaces=True)
    bare = _LINE_WORDS.sub(" ", spaced)
    bare = _LINE_CJK.sub("", bare) if has_cjk(bare) else bare
    return fold(bare) or fold(spaced)
