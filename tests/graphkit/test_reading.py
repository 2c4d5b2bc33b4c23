"""Hostile input to graphkit: special files, huge and deep files, duplicate keys, encodings, unsafe names,
long lines. Every failure is one line naming the file and the problem, never a traceback."""

from __future__ import annotations

import codecs
import json
import os

import pytest

from graphkit.cities import city_graph, graph_from_file
from graphkit.errors import InvalidMetroData, InvalidName, InvalidOverlay, TransitError, UnknownStation, shorten
from graphkit.graph import compile_graph
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from graphkit.reading import MAX_METRO_BYTES, read_json_file
from graphkit.routes import reference_routes, shortest_routes

GOOD = {"Line 1": ["A Station", "B Station"], "Line 2": ["B Station", "C Station"]}
DEEP = "[" * 5000 + "]" * 5000


def _one_line(error: BaseException) -> str:
    message = str(error)
    assert "\n" not in message
    return message


def _metro_error(path) -> str:
    with pytest.raises(InvalidMetroData) as raised:
        load_metro(path)
    message = _one_line(raised.value)
    assert message.startswith((f"{path}: ", f"{path}, "))
    return message


def _overlay_error(path) -> str:
    with pytest.raises(InvalidOverlay) as raised:
        load_overlay(path)
    message = _one_line(raised.value)
    assert message.startswith(f"{path}: ")
    return message


# -- files that are not files ---------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_with_no_writer_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "city.json"
    os.mkfifo(fifo)
    assert "a FIFO, not a Metro Data file" in _metro_error(fifo)
    overlay = tmp_path / "city.overlay.json"
    os.mkfifo(overlay)
    assert "a FIFO, not a overlay file" in _overlay_error(overlay)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_symlink_is_read_through_to_a_file_and_refused_to_a_fifo(tmp_path):
    target = tmp_path / "real.json"
    target.write_text(json.dumps(GOOD), encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert load_metro(link).line_names == ("Line 1", "Line 2")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    to_fifo = tmp_path / "to_fifo.json"
    to_fifo.symlink_to(fifo)
    assert "a FIFO" in _metro_error(to_fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_an_endless_character_device_is_refused():
    assert "a character device, not a Metro Data file" in _metro_error("/dev/zero")


def test_a_folder_is_refused(tmp_path):
    assert "a folder, not a Metro Data file" in _metro_error(tmp_path)


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as stream:
        stream.truncate(MAX_METRO_BYTES + 1)  # sparse: no disk used, nothing read
    message = _metro_error(huge)
    assert f"{MAX_METRO_BYTES + 1:,} bytes, over the {MAX_METRO_BYTES:,}-byte limit" in message
    small = tmp_path / "small.json"
    small.write_text(json.dumps(GOOD), encoding="utf-8")
    with pytest.raises(InvalidOverlay, match="over the 10-byte limit for overlay files"):
        read_json_file(small, what="overlay", error=InvalidOverlay, max_bytes=10)


def test_a_missing_file_is_named(tmp_path):
    assert "no such Metro Data file" in _metro_error(tmp_path / "nowhere.json")


# -- what the decoder can raise ---------------------------------------------------


@pytest.mark.parametrize("text", [DEEP, '{"L": ["A", "B"], "X": ' + DEEP + "}", "{" + '"a": {' * 5000 + "}" * 5001])
def test_deep_nesting_is_an_error_naming_the_file_not_a_recursion_error(tmp_path, text):
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    assert "Metro Data nested too deeply to read" in _metro_error(path)
    assert "overlay nested too deeply to read" in _overlay_error(path)
    with pytest.raises(InvalidMetroData, match="^<json>: Metro Data nested too deeply"):
        load_metro(text)


def test_a_line_given_twice_is_an_error_naming_it(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"Line 1": ["A", "B"], "Line 2": ["B", "C"], "Line 1": ["C", "D"]}', encoding="utf-8")
    assert "key 'Line 1' is given twice in one object" in _metro_error(path)
    with pytest.raises(InvalidMetroData, match="key 'Line 1' is given twice"):
        load_metro(path.read_text(encoding="utf-8"))


def test_an_overlay_key_given_twice_is_an_error_naming_it(tmp_path):
    path = tmp_path / "city.overlay.json"
    path.write_text('{"loops": [{"line": "L", "note": "a", "note": "b"}]}', encoding="utf-8")
    assert "key 'note' is given twice in one object" in _overlay_error(path)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(codecs.BOM_UTF8 + json.dumps(GOOD).encode("utf-8"))
    assert load_metro(path).station_names == ("A Station", "B Station", "C Station")
    overlay = tmp_path / "bom.overlay.json"
    overlay.write_bytes(codecs.BOM_UTF8 + b'{"loops": []}')
    assert load_overlay(overlay).loops == ()


@pytest.mark.parametrize(
    ("encoding", "name", "mark"),
    [("utf-16-le", "UTF-16", "FF FE"), ("utf-16-be", "UTF-16", "FE FF"), ("utf-32-le", "UTF-32", "FF FE 00 00")],
)
def test_utf16_and_utf32_are_named(tmp_path, encoding, name, mark):
    path = tmp_path / "wide.json"
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE, "utf-32-le": codecs.BOM_UTF32_LE}
    path.write_bytes(bom[encoding] + json.dumps(GOOD).encode(encoding))
    assert f"the Metro Data is {name} (byte-order mark {mark}); save it as UTF-8" in _metro_error(path)


def test_a_bad_byte_is_reported_on_its_own_line(tmp_path):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{\n"L": [\n"A",\n"Caf\xe9"\n]}')
    assert "not UTF-8 at line 4 (byte 0xE9)" in _metro_error(path)


# -- names --------------------------------------------------------------------------

UNSAFE = ["\u202e", "\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f"]
UNSAFE += ["\x00", "\t", "\n", "\x1b", "\x7f", "\x85"]


@pytest.mark.parametrize("character", UNSAFE)
def test_a_station_with_a_control_or_bidi_character_is_refused_naming_file_line_and_station(tmp_path, character):
    path = tmp_path / "city.json"
    path.write_text(json.dumps({"Line 1": ["A", f"{character}Termini"]}), encoding="utf-8")
    message = _metro_error(path)
    code = f"U+{ord(character):04X}"
    assert f", line 'Line 1', station #2: station name {f'{character}Termini'!r} contains {code}" in message
    assert "bidi control" in message if ord(character) > 0xFF else "a control character" in message


def test_a_line_name_in_the_data_is_free_text_but_a_query_for_one_is_checked():
    graph = compile_graph(load_metro({"Line\n3": ["A", "B"], "L": ["B", "C"]}))
    assert graph.resolve_line("Line\n3") == "Line\n3"
    with pytest.raises(InvalidName, match=r"^line name 'L\\u202e' contains U\+202E"):
        graph.resolve_line("L\u202e")


@pytest.mark.parametrize("character", ["\u202e", "\u2066", "\x00", "\x1b"])
def test_a_query_with_a_control_or_bidi_character_does_not_match_silently(character):
    graph = city_graph("rome")
    assert graph.resolve_station("Termini") == "Termini Station"
    with pytest.raises(InvalidName, match=rf"^station name .* contains U\+{ord(character):04X}") as raised:
        graph.resolve_station(f"{character}Termini")
    assert isinstance(raised.value, TransitError)
    _one_line(raised.value)
    with pytest.raises(InvalidName, match="^line name"):
        graph.resolve_line(f"Line B{character}")
    with pytest.raises(InvalidName):
        shortest_routes(graph, f"{character}Termini", "Colosseo")


def test_echoed_input_is_cut_to_a_readable_length(tmp_path):
    long_name = "x" * 100_000
    with pytest.raises(UnknownStation) as raised:
        city_graph("rome").resolve_station(long_name)
    message = _one_line(raised.value)
    assert len(message) < 300
    assert "…(100000 chars)" in message
    path = tmp_path / "city.json"
    path.write_text(json.dumps({"L": ["A", "\u202e" + long_name]}), encoding="utf-8")
    message = _metro_error(path)
    assert len(message) < 300 + len(str(path))
    assert "…(100001 chars)" in message
    assert shorten("abc", 2) == "ab…(3 chars)" and shorten("abc", 3) == "abc"


# -- long lines -------------------------------------------------------------------------


def _long_line(stations: int) -> dict:
    return {"L": [f"S{i}" for i in range(stations)], "X": ["X0", f"S{stations // 2}", "X2"]}


@pytest.mark.parametrize("stations", [10, 100, 1000])
def test_the_search_graph_grows_with_the_stops_not_their_square(stations):
    graph = compile_graph(load_metro(_long_line(stations)))
    # stations: the line's and X0, X2; stops: the line's and X's three;
    # edges: a boarding and an alighting per stop, and each adjacent pair ridden both ways
    stops = stations + 3
    assert graph.search_size == (stations + 2 + stops, 2 * stops + 2 * (stations - 1) + 2 * 2)


def test_a_twenty_thousand_station_line_routes(tmp_path):
    stations = 20_000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(_long_line(stations)), encoding="utf-8")
    graph = graph_from_file(path)
    found = shortest_routes(graph, "S0", "X2")
    assert found.transfers == 1
    (route,) = found.routes
    first, second = route.segments
    assert (first.route_name, first.arrival_stop, len(first.via_stops)) == ("L", "S10000", 9_999)
    assert first.via_stops[:2] == ("S1", "S2") and first.via_stops[-1] == "S9999"
    assert (second.route_name, second.departure_stop, second.arrival_stop, second.via_stops) == (
        "X",
        "S10000",
        "X2",
        (),
    )


def test_the_references_of_a_departure_on_a_long_line_name_every_other_station_once():
    stations = 1000
    graph = compile_graph(load_metro(_long_line(stations)))
    found = list(reference_routes(graph, sources=["S999"]))
    assert [pair.target for pair in found] == [f"S{i}" for i in range(999)] + ["X0", "X2"]
    assert [len(pair.routes[0].segments[0].via_stops) for pair in found[:3]] == [998, 997, 996]
    assert found[-1].transfers == 1 and found[-1].routes[0].stops == 499 + 1


# -- the command line ---------------------------------------------------------------------


def _cli(capsys, *argv) -> tuple[int, str]:
    from reasonmap.cli import main

    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_the_route_command_refuses_a_fifo_and_a_bidi_name_in_one_line(tmp_path, capsys):
    fifo = tmp_path / "city.json"
    os.mkfifo(fifo)
    code, err = _cli(capsys, "route", "--metro", str(fifo), "A", "B")
    assert code == 2
    assert err == f"reasonmap route: error: {fifo}: a FIFO, not a Metro Data file (only regular files are read)\n"
    code, err = _cli(capsys, "route", "--city", "rome", "--", "\u202eTermini", "Colosseo")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("reasonmap route: error: station name '\\u202eTermini' contains U+202E")


def test_the_route_command_reads_a_deep_or_duplicated_file_into_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP, encoding="utf-8")
    code, err = _cli(capsys, "route", "--metro", str(deep), "A", "B")
    assert (code, err) == (2, f"reasonmap route: error: {deep}: Metro Data nested too deeply to read\n")
    metro = tmp_path / "city.json"
    metro.write_text(json.dumps(GOOD), encoding="utf-8")
    (tmp_path / "city.overlay.json").write_text('{"loops": [], "loops": []}', encoding="utf-8")
    code, err = _cli(capsys, "route", "--metro", str(metro), "A", "C")
    assert code == 2
    assert err == (
        f"reasonmap route: error: {tmp_path / 'city.overlay.json'}: key 'loops' is given twice in one object"
        " (JSON would keep only the last)\n"
    )
