"""Font files for drawing station labels: a Latin font and a CJK (Simplified Chinese) font.

Where a font comes from, in order: an environment variable (``REASONMAP_FONT``
for Latin, ``REASONMAP_CJK_FONT`` for CJK), ``fc-match`` when fontconfig is
installed, then a scan of the usual font folders. A font is accepted only if it
has glyphs for the script (checked in its character map), so a fontconfig
fallback to a Latin-only font is never taken for CJK.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Literal

from graphkit.choices import check_choice
from vision.errors import EngineUnavailable, MissingGlyphs

__all__ = ["Script", "SCRIPTS", "check_drawable", "find_font", "font_index", "load_font", "missing_glyphs", "script_of"]

Script = Literal["latin", "cjk"]
SCRIPTS: frozenset[str] = frozenset({"latin", "cjk"})

_ENVIRONMENT = {"latin": "REASONMAP_FONT", "cjk": "REASONMAP_CJK_FONT"}
_FC_PATTERNS = {"latin": ("DejaVu Sans", "sans-serif"), "cjk": ("sans-serif:lang=zh-cn", ":lang=zh")}
# file names tried in the folder scan, best first
_KNOWN = {
    "latin": ("DejaVuSans.ttf", "NotoSans-Regular.ttf", "LiberationSans-Regular.ttf", "FreeSans.ttf"),
    "cjk": (
        "NotoSansCJK-Regular.ttc",
        "NotoSansCJKsc-Regular.otf",
        "NotoSansSC-Regular.otf",
        "wqy-microhei.ttc",
        "wqy-zenhei.ttc",
        "NotoSerifCJK-Regular.ttc",
    ),
}
_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts", "/Library/Fonts")
# characters a font must have: a few letters, or common station-name characters (站 is "station")
_PROBES = {"latin": "AZaz09", "cjk": "站门路西"}
_ADVICE = {
    "latin": "install fonts-dejavu-core (apt-get install fonts-dejavu-core) or set REASONMAP_FONT to a .ttf file",
    "cjk": "install fonts-noto-cjk (apt-get install fonts-noto-cjk) or set REASONMAP_CJK_FONT to a .ttf/.ttc/.otf file",
}


def _check_script(script: str) -> None:
    check_choice(script, sorted(SCRIPTS), what="script")


def script_of(text: str) -> Script:
    """``"cjk"`` when ``text`` has a CJK ideograph or kana, else ``"latin"``.

    Parameters
    ----------
    text : str

    Returns
    -------
    {"cjk", "latin"}

    Examples
    --------
    >>> script_of("西直门站"), script_of("Colosseo Station"), script_of("T2航站楼")
    ('cjk', 'latin', 'cjk')
    """
    for char in text:
        code = ord(char)
        if 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code:
            return "cjk"
    return "latin"


_UNREADABLE = (OSError, KeyError, AssertionError, ValueError)


def _collection(path: str) -> bool:
    return path.lower().endswith((".ttc", ".otc"))


@lru_cache(maxsize=64)
def _face_names(path: str) -> tuple[str, ...]:
    """The family name of each face of a font file (empty when unreadable); reads only the name tables."""
    from fontTools.ttLib import TTCollection, TTFont, TTLibError

    try:
        fonts = list(TTCollection(path, lazy=True).fonts) if _collection(path) else [TTFont(path, lazy=True)]
        return tuple(str(font["name"].getDebugName(1) or "") for font in fonts)
    except (TTLibError, *_UNREADABLE):
        return ()


@lru_cache(maxsize=256)
def _face_probes(path: str, index: int) -> frozenset[int]:
    """The probe characters face ``index`` of a font file maps (empty when unreadable).

    A face's character map is the costly part of a font to read (a CJK collection's ten faces take seconds),
    so it is read for one face at a time, only when that face is asked about.
    """
    from fontTools.ttLib import TTFont, TTLibError

    probes = frozenset(ord(char) for text in _PROBES.values() for char in text)
    try:
        font = TTFont(path, lazy=True, fontNumber=index if _collection(path) else -1)
        cmap = font["cmap"].getBestCmap() or {}
    except (TTLibError, *_UNREADABLE):
        return frozenset()
    return frozenset(code for code in probes if code in cmap)


def _simplified(name: str) -> bool:
    return name.endswith(" SC") or " SC " in name or "Simplified" in name or "GB" in name


def font_index(path: str | Path, script: Script = "cjk") -> int | None:
    """The face of ``path`` to use for ``script`` (Simplified Chinese preferred for CJK), or ``None`` if none fits.

    Parameters
    ----------
    path : str or Path
        A font file (a collection may hold several faces).
    script : {"cjk", "latin"}, optional
        The script to draw.

    Returns
    -------
    int or None
        The face's index in the file.
    """
    _check_script(script)
    needed = {ord(char) for char in _PROBES[script]}
    names = _face_names(str(path))
    order = list(range(len(names)))
    if script == "cjk":  # the Noto and Source Han collections hold JP, KR, SC, TC faces: SC draws mainland names
        order.sort(key=lambda index: not _simplified(names[index]))  # stable: SC faces first, each group in order
    return next((index for index in order if needed <= _face_probes(str(path), index)), None)


def _fc_match(pattern: str) -> Path | None:
    program = shutil.which("fc-match")
    if program is None:
        return None
    try:
        found = subprocess.run(
            [program, "--format=%{file}", pattern], capture_output=True, text=True, timeout=10, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(found) if found and Path(found).is_file() else None


def _scan(script: str) -> Path | None:
    found: dict[str, Path] = {}
    for folder in _FOLDERS:
        root = Path(folder).expanduser()
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.name in _KNOWN[script] and path.name not in found:
                    found[path.name] = path
    for name in _KNOWN[script]:
        if name in found and font_index(found[name], script) is not None:
            return found[name]
    return None


@lru_cache(maxsize=4)
def find_font(script: Script) -> Path:
    """A font file that draws ``script`` (``"latin"`` or ``"cjk"``).

    Raises
    ------
    ValueError
        ``script`` is not one of the two.
    EngineUnavailable
        No such font is installed; the message says what to install or set.

    Examples
    --------
    >>> find_font("latin").suffix.lower() in {".ttf", ".otf", ".ttc"}
    True
    """
    _check_script(script)
    variable = _ENVIRONMENT[script]
    chosen = os.environ.get(variable)
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise EngineUnavailable(f"{variable}={chosen}: no such font file; {_ADVICE[script]}")
        if font_index(path, script) is None:
            raise EngineUnavailable(f"{variable}={chosen}: the font has no {script} glyphs; {_ADVICE[script]}")
        return path
    for pattern in _FC_PATTERNS[script]:
        path = _fc_match(pattern)
        if path is not None and font_index(path, script) is not None:
            return path
    path = _scan(script)
    if path is None:
        raise EngineUnavailable(f"no {script} font found; {_ADVICE[script]}")
    return path


@lru_cache(maxsize=256)
def load_font(script: Script, size: int):
    """A Pillow ``FreeTypeFont`` of :func:`find_font` at ``size`` pixels (the right face of a collection)."""
    from PIL import ImageFont

    path = find_font(script)
    return ImageFont.truetype(str(path), size=size, index=font_index(path, script) or 0)


@lru_cache(maxsize=8)
def _character_map(path: str, index: int) -> frozenset[int]:
    """Every character face ``index`` of a font file maps (read once per face: a CJK face takes a moment)."""
    from fontTools.ttLib import TTFont, TTLibError

    try:
        font = TTFont(path, lazy=True, fontNumber=index if _collection(path) else -1)
        return frozenset((font["cmap"].getBestCmap() or {}).keys())
    except (TTLibError, *_UNREADABLE):
        return frozenset()


def _ignorable(char: str) -> bool:
    """Drawn as nothing whatever the font: spaces, format characters (ZWJ, ZWNJ, marks of direction) and
    variation selectors, which the text shaper leaves out when the font has no glyph for them."""
    import unicodedata

    code = ord(char)
    return (
        char.isspace() or unicodedata.category(char) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF
    )


def missing_glyphs(text: str) -> tuple[str, ...]:
    """The characters of ``text`` that the font :func:`load_font` draws it with has no glyph for (each once,
    in order): they would be drawn as empty boxes.

    Parameters
    ----------
    text : str
        A label.

    Returns
    -------
    tuple of str
        The characters without a glyph (spaces, joiners and variation selectors are never asked for).

    Raises
    ------
    EngineUnavailable
        No font of the text's script is installed.

    Examples
    --------
    >>> missing_glyphs("Colosseo"), missing_glyphs("\N{METRO} Termini")
    ((), ('\U0001f687',))
    """
    path = find_font(script_of(text))
    mapped = _character_map(str(path), font_index(path, script_of(text)) or 0)
    return tuple(dict.fromkeys(char for char in text if not _ignorable(char) and ord(char) not in mapped))


def check_drawable(names: Iterable[tuple[str, str]], *, where: str) -> None:
    """Refuse a name (``(kind, name)`` pairs: ``("station", "Termini")``) that its label font cannot draw.

    Parameters
    ----------
    names : iterable of (str, str)
        What each name is, and the name.
    where : str
        What the names come from, for the message (a file).

    Raises
    ------
    MissingGlyphs
        Naming ``where``, the kind and the name, the characters (the first five) and the font.
    EngineUnavailable
        No font of a name's script is installed.
    """
    from graphkit.errors import shorten

    for kind, name in names:
        missing = missing_glyphs(name)
        if missing:
            shown = ", ".join(f"U+{ord(char):04X} {char!r}" for char in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            script = script_of(name)
            raise MissingGlyphs(
                f"{where}: {kind} {shorten(name)!r} holds characters its label font ({find_font(script).name}) has"
                f" no glyph for: {shown}{more}; they would be drawn as boxes: rename it, or set"
                f" {_ENVIRONMENT[script]} to a font that has them"
            )
