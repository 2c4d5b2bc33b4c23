"""Small hand-made networks shared by the tests: Metro Data dicts and overlays, and random ones (Hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay

ONE_STATION = {"Line 1": ["Solo Station"]}

ONE_LINE = {"Line 1": ["A Station", "B Station", "C Station", "D Station", "E Station"]}

# a loop listed open (the overlay closes it) crossed by a straight line
LOOP = {
    "Line 2": ["L0", "L1", "L2", "L3", "L4", "L5", "L6", "L7"],
    "Line 9": ["X", "L2", "Y"],
}
LOOP_OVERLAY = {"loops": [{"line": "Line 2", "note": "Line 2 is a loop; L7 and L0 are neighbours."}]}

# a loop written out by repeating its first station
CLOSED_LOOP = {"Circle": ["P0", "P1", "P2", "P3", "P4", "P5", "P0"]}

# main line M0..M5 forking at M2 (marked) for the appended branch B1..B3
BRANCH = {
    "Line B": ["M0", "M1", "M2 (Branch-starting Station)", "M3", "M4", "M5", "B1", "B2", "B3"],
    "Line C": ["C0", "M4 (Transfer Station)", "C2"],
}
BRANCH_OVERLAY = {
    "branches": [{"line": "Line B", "leaves_at": "M2", "first": "B1", "last": "B3", "note": "B forks at M2."}]
}

DISCONNECTED = {"Line 1": ["A", "B", "C"], "Line 2": ["D", "E"]}

# two physical stations named "86 St" that the data cannot tell apart, and a near-duplicate spelling
HOMONYMS = {
    "1": ["72 St Station", "79 St Station", "86 St Station", "96 St Station", "Cathedral Pkwy (110 St) Station"],
    "Q": ["72 St Station", "86 St Station", "96 St Station"],
    "4": ["86 St Station", "125 St Station", "Cathedral Pkwy(110 St) Station"],
}

# Chinese names with annotations, a transfer and romanization
CHINESE = {
    "Line 1": ["苹果园站", "古城站", "复兴门站（换乘站）", "西单站"],
    "Line 2": ["西直门站（换乘站）", "车公庄站", "阜成门站", "复兴门站（换乘站）", "长椿街站"],
    "昌平线": ["西二旗站", "生命科学园站"],
}


# a line calling twice at a name it shares between two places (declared by the overlay): the list joins there
REPEATED = {"R": ["A", "B", "C", "D", "B", "E"]}
REPEATED_OVERLAY = {
    "repeated_stations": [{"line": "R", "station": "B", "note": "R calls at two different stations named B."}]
}

# one station spelled with and without its suffix on two lines, as Beijing's 西单 / 西单站
SUFFIX_VARIANTS = {"Line 1": ["复兴门站", "西单", "天安门西站"], "Line 4": ["灵境胡同站", "西单站", "宣武门站"]}
# ... and the overlay that says they are one station (the transfer the spellings split)
SUFFIX_VARIANTS_OVERLAY = {
    "aliases": [{"station": "西单站", "spellings": ["西单"], "note": "Line 1 and Line 4 meet at one 西单."}]
}

# "Hub" names two stations (one on the Red line, one shared by Blue and Green): without the overlay, Red
# and Blue seem to meet there; "Far" is named once but two spellings make the Blue/Green transfer look absent
SPLIT = {
    "Red": ["R1", "Hub", "R3 (Transfer Station)"],
    "Blue": ["B1", "Hub", "B3", "Far Stn (Transfer Station)", "B5"],
    "Green": ["G1", "Hub", "G3"],
    "Gold": ["Far Station (Transfer Station)", "D2", "R3 (Transfer Station)"],
}
SPLIT_OVERLAY = {
    "homonyms": [{"station": "Hub", "groups": [["Red"], ["Blue", "Green"]], "note": "Two stations named Hub."}],
    "aliases": [{"station": "Far Station", "spellings": ["Far Stn"], "note": "Blue and Gold meet at Far."}],
}

# a line calling at two stations of one name, each shared with another line
REPEATED_SPLIT = {"R": ["A", "B", "C", "D", "B", "E"], "M": ["X", "B", "Y"], "N": ["U", "B", "V"]}
REPEATED_SPLIT_OVERLAY = {
    **REPEATED_OVERLAY,
    "homonyms": [
        {"station": "B", "groups": [["M", "R#1"], ["N", "R#2"]], "note": "M meets R at one B, N at the other."}
    ],
}


def graph_of(data: dict, overlay: dict | None = None) -> TransitGraph:
    """Compile a hand-made network."""
    parsed = load_overlay(overlay)
    return compile_graph(load_metro(data, allowed_repeats=parsed.allowed_repeats), parsed)


def random_lines(names: Sequence[str], *, min_stations: int = 2, max_stations: int = 6) -> st.SearchStrategy[dict]:
    """Random Metro Data: 1 to 4 lines (``Line 1``, ...), each calling at distinct stations drawn from ``names``."""

    @st.composite
    def lines(draw) -> dict:
        count = draw(st.integers(1, 4))
        stations = st.lists(st.sampled_from(names), min_size=min_stations, max_size=max_stations, unique=True)
        return {f"Line {number + 1}": draw(stations) for number in range(count)}

    return lines()


def random_networks(
    names: Sequence[str], *, min_stations: int = 2, max_stations: int = 6
) -> st.SearchStrategy[tuple[dict, dict]]:
    """Random networks ``(lines, overlay)``: :func:`random_lines`, and an overlay drawing some lines of more than
    two stations as loops."""

    @st.composite
    def networks(draw) -> tuple[dict, dict]:
        lines = draw(random_lines(names, min_stations=min_stations, max_stations=max_stations))
        loops = [name for name in lines if len(lines[name]) > 2 and draw(st.booleans())]
        return lines, {"loops": [{"line": name, "note": "drawn as a loop"} for name in loops]}

    return networks()
