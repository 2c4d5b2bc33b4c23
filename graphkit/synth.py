"""Synthetic transit networks: Metro Data that exists nowhere, of any size, from a seed.

A network has ``stations`` stations on ``lines`` lines, ``transfers`` of them
interchanges where two lines cross, and optionally loop lines and lines with
one branch. It is built so that it validates, lints clean and is connected:

- the lines' crossings first form a random tree over the lines (so every line
  reaches every other), then more crossings join random pairs of lines;
- each line's own stations are shared out by random weights, at least two
  per line (its terminals, which never are interchanges, so no line's ends
  look like an undeclared loop to lint);
- interchanges carry a transfer mark on every line, a branch's junction a
  branch-start mark, and loops and branches are declared in an overlay;
- station names are drawn from syllables (``script="latin"``) or from the
  characters of Chinese place names (``script="cjk"``), any two at least two
  edits apart, so lint's near-duplicate check never fires.

Map difficulty: :func:`tier_shapes` lists the (lines, stations, transfers) of
the 30 embedded cities in a tier; a network of one of those shapes falls in
the same tier (``graphkit.stats.difficulty_of`` ranks by lines and transfers).

Examples
--------
>>> network = synthesize_network(stations=12, lines=2, seed=1)
>>> len(network.metro.station_names), len(network.metro.lines)
(12, 2)
>>> network.metro_json == synthesize_network(stations=12, lines=2, seed=1).metro_json
True
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Literal

from graphkit.choices import check_choice
from graphkit.errors import shorten
from graphkit.metro import MetroData, load_metro
from graphkit.names import fold
from graphkit.overlays import Overlay, load_overlay

__all__ = [
    "SCRIPTS",
    "Script",
    "SyntheticNetwork",
    "synthesize_network",
    "default_transfers",
    "tier_shapes",
    "MAX_STATIONS",
]

Script = Literal["latin", "cjk"]
SCRIPTS: tuple[Script, ...] = ("latin", "cjk")
# share of interchange stations in the median embedded city
_TRANSFER_SHARE = 0.12
_BRANCH_SHARE = 0.3
_MAX_NAME_TRIES = 1000
_NEAR_LENGTH = 6  # graphkit.lint.NEAR_DUPLICATE_MIN_LENGTH (lint imports the graph; this module need not)
_NEAR_RATIO = 0.92  # graphkit.lint.NEAR_DUPLICATE_RATIO
#: The most stations a network may have: names and routes of a larger one would take hours.
MAX_STATIONS = 20_000

_ONSETS = ("b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "pr", "r", "s", "st", "t")
_ONSETS += ("tr", "v", "w", "y", "z", "sh", "th", "cl", "fl", "bl")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "ay", "ie")
_CODAS = ("", "", "", "", "n", "r", "l", "s", "m", "nd", "rt", "ck")
_SUFFIXES = ("", "", "", "Park", "Square", "Street", "Road", "Gate", "Bridge", "Hill", "Cross", "Market", "Green")
_SUFFIXES += ("Lane", "Avenue", "Harbour", "Central", "Fields", "Quay", "Common", "Heights", "Plaza", "Wharf")
_CJK = (
    "东西南北中山海湖河江桥门口园林城新安平和华光明春秋金银玉龙凤天文德兴福寿宁康乐永长青石水云花台港湾岭"
    "坪洲塘沙田家庄堡营屯寺塔楼阁宫府坊街巷市场庙泉溪峰岗坡滨津渡关堤坝源丰盛泰昌隆嘉瑞祥和顺通达远望"
)
_CJK_ENDINGS = ("", "", "", "路", "桥", "门", "口", "园", "村", "湾", "里", "广场", "公园", "大街")
_MARKS = {
    "latin": (" (Transfer Station)", " (Branch-starting Station)"),
    "cjk": ("（换乘站）", "（支线起始站）"),
}


@dataclass(frozen=True, slots=True)
class SyntheticNetwork:
    """A generated network: its Metro Data and overlay, parsed and as the JSON texts to write.

    Attributes
    ----------
    metro : MetroData
    overlay : Overlay
        Empty when the network has neither loops nor branches.
    metro_json : str
        The Metro Data file's text (``{line: [stations]}``).
    overlay_json : str or None
        The overlay file's text, ``None`` when there is nothing to declare.
    """

    metro: MetroData
    overlay: Overlay
    metro_json: str
    overlay_json: str | None


def default_transfers(stations: int, lines: int) -> int:
    """Interchanges of a network of this size: the embedded cities' median share, at least ``lines - 1``.

    Parameters
    ----------
    stations, lines : int
        The network's size.

    Returns
    -------
    int
        Its interchange stations (enough to connect the lines).

    Examples
    --------
    >>> default_transfers(100, 6), default_transfers(20, 1)
    (12, 0)
    """
    return max(lines - 1, round(stations * _TRANSFER_SHARE)) if lines > 1 else 0


def tier_shapes(difficulty: str) -> tuple[tuple[int, int, int], ...]:
    """``(lines, stations, transfers)`` of the embedded cities of a map-difficulty tier.

    Parameters
    ----------
    difficulty : {"easy", "middle", "hard"}
        The tier (:func:`graphkit.stats.difficulty_of`).

    Returns
    -------
    tuple of (int, int, int)
        One shape per embedded city of that tier.

    Examples
    --------
    >>> (1, 21, 0) in tier_shapes("easy")
    True
    """
    from graphkit.cities import city_names, load_city
    from graphkit.stats import TIERS, city_stats

    check_choice(difficulty, TIERS, what="difficulty")
    shapes = []
    for name in city_names():
        stats = city_stats(load_city(name)[0])
        if stats.difficulty == difficulty:
            shapes.append((stats.lines, stats.stations, stats.transfer_stations))
    return tuple(sorted(set(shapes)))


def _check(stations: int, lines: int, transfers: int, loops: int, branches: int, script: str) -> None:
    for name, value, least in (("stations", stations, 2), ("lines", lines, 1), ("transfers", transfers, 0)):
        if not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer of at least {least}, got {shorten(repr(value))}")
    if stations > MAX_STATIONS:
        raise ValueError(f"stations must be at most {MAX_STATIONS:,}, got {shorten(repr(stations))}")
    for name, value in (("loops", loops), ("branches", branches)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    check_choice(script, SCRIPTS, what="script")
    if lines > 1 and transfers < lines - 1:
        raise ValueError(f"{lines} lines need at least {lines - 1} transfers to be connected, got {transfers}")
    if lines == 1 and transfers:
        raise ValueError("one line has no transfers; ask for transfers=0 or more lines")
    if loops + branches > lines:
        raise ValueError(f"{loops} loop(s) and {branches} branch(es) need as many lines, got {lines}")
    needed = transfers + 2 * lines + loops + 3 * branches
    if stations < needed:
        raise ValueError(
            f"{stations} stations are too few for {lines} lines with {transfers} transfers, {loops} loop(s) and "
            f"{branches} branch(es): at least {needed} needed"
        )


def _kinds(rng: random.Random, lines: int, loops: int, branches: int) -> list[str]:
    """Each line's kind: ``loops`` loops and ``branches`` branched lines drawn at random, the rest paths."""
    kinds = ["path"] * lines
    special = rng.sample(range(lines), loops + branches)
    for index in special[:loops]:
        kinds[index] = "loop"
    for index in special[loops:]:
        kinds[index] = "branch"
    return kinds


def _crossing_at(lines: int, crossings: list[tuple[int, int]], names: list[str]) -> list[list[str]]:
    """Per line, the interchange stations on it, in the order of ``crossings`` (pairs of lines, each named by
    its station in ``names``)."""
    crossing_at: list[list[str]] = [[] for _ in range(lines)]
    for name, (a, b) in zip(names, crossings):
        crossing_at[a].append(name)
        crossing_at[b].append(name)
    return crossing_at


def synthesize_network(
    *,
    stations: int,
    lines: int,
    transfers: int | None = None,
    loops: int = 0,
    branches: int = 0,
    seed: int = 0,
    script: Script = "latin",
    city: str = "synthetic",
    country: str = "synthetic",
) -> SyntheticNetwork:
    """Generate a connected network of exactly ``stations`` stations on ``lines`` lines.

    Parameters
    ----------
    stations, lines : int
        Sizes of the network.
    transfers : int, optional
        Interchange stations (each where two lines cross); default :func:`default_transfers`.
    loops, branches : int
        Lines that are loops, and lines with one branch (each line is at most one of them).
    seed : int
        Everything random comes from it: the same arguments give the same bytes.
    script : {"latin", "cjk"}
        Station names in Latin letters, or Chinese characters ending in 站.
    city, country : str
        Names recorded in the Metro Data (the file's stem and folder when written).

    Returns
    -------
    SyntheticNetwork

    Raises
    ------
    ValueError
        The sizes cannot make a connected network; the message says what is missing.

    Examples
    --------
    >>> network = synthesize_network(stations=12, lines=3, seed=1)
    >>> network.metro.line_names, len(network.metro.station_names)
    (('Line 1', 'Line 2', 'Line 3'), 12)
    """
    transfers = default_transfers(stations, lines) if transfers is None else transfers
    _check(stations, lines, transfers, loops, branches, script)
    rng = random.Random(f"graphkit.synth:{seed}:{city}:{stations}:{lines}:{transfers}:{loops}:{branches}:{script}")
    kinds = _kinds(rng, lines, loops, branches)
    crossings = _crossings(rng, lines, transfers)
    own = _own_counts(rng, kinds, stations - transfers)
    names = iter(_station_names(rng, stations, script))
    crossing_names = [next(names) for _ in crossings]
    crossing_at = _crossing_at(lines, crossings, crossing_names)
    transfer_mark, branch_mark = _MARKS[script]
    interchanges = set(crossing_names)
    data: dict[str, list[str]] = {}
    overlay: dict[str, list[dict[str, str]]] = {}
    for index, kind in enumerate(kinds):
        line_name = f"Line {index + 1}"
        listed, junction, branch_first = _line_stations(
            rng, kind, [next(names) for _ in range(own[index])], crossing_at[index]
        )
        data[line_name] = [
            name + (transfer_mark if name in interchanges else "") + (branch_mark if name == junction else "")
            for name in listed
        ]
        if kind == "loop":
            note = f"{line_name} is a loop; the list is open and its ends {listed[0]} and {listed[-1]} are neighbours."
            overlay.setdefault("loops", []).append({"line": line_name, "note": note})
        elif kind == "branch":
            note = f"{line_name}'s branch from {branch_first} to {listed[-1]} leaves the main line at {junction}."
            overlay.setdefault("branches", []).append(
                {"line": line_name, "leaves_at": junction, "first": branch_first, "note": note}
            )
    metro_json = _json_text(data)
    overlay_json = _json_text(overlay) if overlay else None
    parsed_overlay = load_overlay(overlay) if overlay else Overlay()
    metro = load_metro(data, city=city, country=country)
    return SyntheticNetwork(metro, parsed_overlay, metro_json, overlay_json)


def _json_text(value: dict[str, list]) -> str:
    """One line per Metro Data line (or overlay section): diffable, and the same bytes every time."""
    rows = [
        f"  {json.dumps(key, ensure_ascii=False)}: {json.dumps(items, ensure_ascii=False)}"
        for key, items in value.items()
    ]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def _crossings(rng: random.Random, lines: int, transfers: int) -> list[tuple[int, int]]:
    """Pairs of lines that cross: a random tree over the lines, then random pairs, fresh pairs first."""
    pairs = [(rng.randrange(index), index) for index in range(1, lines)]
    crossed = set(pairs)
    while len(pairs) < transfers:
        a, b = sorted(rng.sample(range(lines), 2))
        if (a, b) in crossed and len(crossed) < lines * (lines - 1) // 2:
            continue
        crossed.add((a, b))
        pairs.append((a, b))
    return pairs


def _own_counts(rng: random.Random, kinds: list[str], total: int) -> list[int]:
    """Stations only one line serves, per line: its minimum, then the rest by random weights."""
    least = {"path": 2, "loop": 3, "branch": 5}
    counts = [least[kind] for kind in kinds]
    weights = [rng.uniform(0.6, 1.4) for _ in kinds]
    for index in rng.choices(range(len(kinds)), weights=weights, k=total - sum(counts)):
        counts[index] += 1
    return counts


def _line_stations(
    rng: random.Random, kind: str, own: list[str], crossings: list[str]
) -> tuple[list[str], str | None, str | None]:
    """A line's listed stations, and its branch's junction and first station (``None`` without a branch)."""
    if kind == "loop":
        listed = own + crossings
        rng.shuffle(listed)
        return listed, None, None
    if kind == "path":
        interior = own[2:] + crossings
        rng.shuffle(interior)
        return [own[0], *interior, own[1]], None, None
    branch_length = max(2, round((len(own) - 3) * _BRANCH_SHARE))
    junction, branch = own[2], own[3 : 3 + branch_length]
    interior = own[3 + branch_length :] + crossings
    rng.shuffle(interior)
    interior.insert(rng.randrange(len(interior) + 1), junction)
    return [own[0], *interior, own[1], *branch], junction, branch[0]


def _station_names(rng: random.Random, count: int, script: str) -> list[str]:
    """``count`` distinct names, any two keys at least two edits apart (see :func:`_far_apart`) and
    less alike than lint's near-duplicate ratio, so that every network lints clean."""
    from rapidfuzz import fuzz, process

    keys: set[str] = set()
    deletions: set[str] = set()
    long_keys: list[str] = []
    names: list[str] = []
    draw = _latin_name if script == "latin" else _cjk_name
    cutoff = 100 * _NEAR_RATIO - 1  # below lint's near-duplicate ratio (the same Indel ratio), with a margin
    while len(names) < count:
        for _ in range(_MAX_NAME_TRIES):
            name = draw(rng)
            key = fold(name)
            # lint compares only keys of six letters or more: shorter (Chinese) ones need only differ
            if len(key) < _NEAR_LENGTH:
                if key not in keys:
                    break
            elif _far_apart(key, keys, deletions) and (
                process.extractOne(key, long_keys, scorer=fuzz.ratio, score_cutoff=cutoff) is None
            ):
                break
        else:
            raise ValueError(f"cannot find {count} distinct {script} station names")
        keys.add(key)
        if len(key) >= _NEAR_LENGTH:
            deletions.update(_one_deleted(key))
            long_keys.append(key)
        names.append(name)
    return names


def _one_deleted(key: str) -> set[str]:
    return {key[:index] + key[index + 1 :] for index in range(len(key))}


def _far_apart(key: str, keys: set[str], deletions: set[str]) -> bool:
    """Whether ``key`` is two edits or more from every kept key: equal, one deletion, insertion or
    substitution apart all show as a shared string among the keys and their one-deleted forms."""
    if key in keys or key in deletions:
        return False
    shorter = _one_deleted(key)
    return not (shorter & keys or shorter & deletions)


def _latin_name(rng: random.Random) -> str:
    syllables = "".join(
        rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.choice((2, 2, 2, 3)))
    )
    suffix = rng.choice(_SUFFIXES)
    return syllables.capitalize() + (f" {suffix}" if suffix else "")


def _cjk_name(rng: random.Random) -> str:
    return "".join(rng.choices(_CJK, k=rng.choice((2, 2, 3)))) + rng.choice(_CJK_ENDINGS) + "站"
