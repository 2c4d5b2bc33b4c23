"""Writing references: atomic files (symlinks, FIFOs, devices, stale temporaries), records equal to the library's
byte for byte (random networks with names JSON must escape, hand-made ones, a city without the fast paths),
departures that leave no garbage for the collector."""

from __future__ import annotations

import errno
import gc
import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphkit.graph as graph_module
from graphkit import city_graph, compile_graph, reference_routes
from graphkit.files import FolderLocked, atomic_writer, file_in, folder_lock, part_pattern, remove_stale_parts
from graphkit.io import reference_chunks, reference_lines, write_references
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CHINESE,
    DISCONNECTED,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_STATION,
    REPEATED_SPLIT,
    REPEATED_SPLIT_OVERLAY,
    SPLIT,
    SPLIT_OVERLAY,
    graph_of,
    random_networks,
)


def test_reference_lines_equal_the_records_of_the_library():
    graph = city_graph("singapore")
    written = [json.loads(line) for line in reference_lines(graph)]
    assert written == [found.to_record() for found in reference_routes(graph)]


def test_write_references_covers_several_graphs(tmp_path):
    graphs = [graph_of(LOOP, LOOP_OVERLAY), city_graph("dubai")]
    count = write_references(tmp_path / "refs.jsonl", graphs, progress=False)
    lines = (tmp_path / "refs.jsonl").read_text(encoding="utf-8").splitlines()
    assert count == len(lines) == 10 * 9 + 52 * 51


def test_one_inline_worker_writes_each_departure_as_made_not_blocks_of_jobs(tmp_path, monkeypatch):
    """A job's block, joined into one text, would copy the output once more (and recompile each network)."""
    import graphkit.io as io_module
    from graphkit.executors import LocalExecutor

    graphs = [graph_of(LOOP, LOOP_OVERLAY), city_graph("dubai")]
    plain = write_references(tmp_path / "plain.jsonl", graphs, progress=False)

    def no_jobs(job):
        raise AssertionError("a job ran: the inline executor should stream the departures")

    monkeypatch.setattr(io_module, "reference_block", no_jobs)
    with LocalExecutor(1) as executor:
        count = write_references(tmp_path / "inline.jsonl", graphs, progress=False, executor=executor)
    assert count == plain == 10 * 9 + 52 * 51
    assert (tmp_path / "inline.jsonl").read_bytes() == (tmp_path / "plain.jsonl").read_bytes()


def test_references_without_a_progress_bar_do_not_import_tqdm(tmp_path):
    script = (
        "import sys\n"
        "from graphkit import city_graph\n"
        "from graphkit.io import write_references\n"
        f"write_references({str(tmp_path / 'r.jsonl')!r}, [city_graph('miami')], progress=False)\n"
        "print('tqdm' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root, check=True)
    assert found.stdout.strip() == "False"
    assert len((tmp_path / "r.jsonl").read_bytes().splitlines()) == 23 * 22


def test_an_interrupted_write_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError):
        with atomic_writer(target) as stream:
            stream.write("partial")
            raise RuntimeError("interrupted")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_symlinked_target_is_replaced_and_the_link_kept(tmp_path):
    real = tmp_path / "real" / "out.jsonl"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with atomic_writer(link) as stream:
        stream.write("new\n")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real"]
    assert [p.name for p in real.parent.iterdir()] == ["out.jsonl"]  # the temporary lay beside the target


def test_a_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    with atomic_writer(fifo) as stream:
        stream.write("row 1\nrow 2\n")
    reader.join(timeout=30)
    assert received == [b"row 1\nrow 2\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_character_device_is_written_through(tmp_path):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null here")
    with atomic_writer("/dev/null") as stream:
        stream.write("discarded\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_full_disk_names_the_file():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with pytest.raises(OSError, match="^/dev/full: no space left on device$") as raised:
        with atomic_writer("/dev/full") as stream:
            stream.write("x" * 100_000)
    assert raised.value.errno == errno.ENOSPC


def test_dash_is_standard_output(capsys):
    with atomic_writer("-") as stream:
        stream.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"


def test_a_folder_is_not_a_file(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a folder, not a file"):
        with atomic_writer(tmp_path) as stream:
            stream.write("x")


def test_stale_temporaries_of_dead_processes_are_removed_live_ones_kept(tmp_path):
    target = tmp_path / "x.jsonl"
    stale = tmp_path / ".x.jsonl.99999999.part"
    stale.write_text("left by a killed run", encoding="utf-8")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale_token = tmp_path / f".x.jsonl.{dead.pid}.0a1b2c3d.part"
    stale_token.write_text("left by a killed run", encoding="utf-8")
    other = tmp_path / ".y.jsonl.99999999.part"  # another file's: not this writer's to judge
    other.write_text("", encoding="utf-8")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".x.jsonl.{sleeper.pid}.part"
        live.write_text("being written", encoding="utf-8")
        with atomic_writer(target) as stream:
            stream.write("done\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, "x.jsonl"])
    finally:
        sleeper.kill()
        sleeper.wait()


def test_temporaries_are_named_after_the_target_and_the_process(tmp_path):
    target = tmp_path / "refs.jsonl"
    with atomic_writer(target) as stream:
        names = [p.name for p in tmp_path.iterdir()]
        stream.write("x")
    assert len(names) == 1 and part_pattern(target).fullmatch(names[0])
    assert names[0].startswith(f".refs.jsonl.{os.getpid()}.")


@pytest.mark.parametrize("length", [240, 246, 255])
def test_a_name_near_255_characters_gets_a_temporary_that_fits(tmp_path, length):
    target = tmp_path / ("r" * (length - len(".jsonl")) + ".jsonl")
    with atomic_writer(target) as stream:
        names = [p.name for p in tmp_path.iterdir()]
        stream.write("x")
    assert target.read_text(encoding="utf-8") == "x"
    assert len(names) == 1 and len(names[0].encode()) <= 255 and part_pattern(target).fullmatch(names[0])
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / names[0].replace(f".{os.getpid()}.", f".{int(dead.stdout)}.")
    left.write_text("torn", encoding="utf-8")
    assert remove_stale_parts(target) == (left,)


@pytest.mark.parametrize("name", ["../x.png", "/etc/x.png", "a/b.png", "..", ".", "", "x\0.png", "y" * 256])
def test_a_name_built_from_a_record_must_be_one_file_in_its_folder(name):
    with pytest.raises(ValueError, match="is not a file name inside maps"):
        file_in("maps", name)
    assert file_in("maps", "italy__rome.png") == Path("maps") / "italy__rome.png"


def test_a_folder_lock_refuses_a_live_holder_and_takes_over_a_dead_ones(tmp_path):
    with folder_lock(tmp_path, "eval") as lock:
        holder = json.loads(lock.read_text(encoding="utf-8"))
        assert holder == {"pid": os.getpid(), "host": socket.gethostname(), "command": "eval"}
        with pytest.raises(FolderLocked, match=f"another run \\(pid {os.getpid()} on host"):
            with folder_lock(tmp_path, "eval"):
                pass
    assert not lock.exists()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname()}), encoding="utf-8")
    with folder_lock(tmp_path, "eval"):
        assert json.loads(lock.read_text(encoding="utf-8"))["pid"] == os.getpid()
    lock.write_text(json.dumps({"pid": 1, "host": "another-host.example"}), encoding="utf-8")
    with pytest.raises(FolderLocked, match="on host another-host.example"):
        with folder_lock(tmp_path, "eval"):
            pass
    lock.unlink()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from graphkit.files import folder_lock\n"
         "with folder_lock(sys.argv[1], 'eval'):\n print('held', flush=True); time.sleep(60)", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(FolderLocked, match=f"pid {holder.pid} "):
            with folder_lock(tmp_path, "eval"):
                pass
    finally:
        holder.kill()
        holder.wait()
    with folder_lock(tmp_path, "eval"):  # killed: its lock is stale at once
        pass


def test_written_files_get_ordinary_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        with atomic_writer(tmp_path / "x.txt") as stream:
            stream.write("x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "x.txt").st_mode) == 0o644


def test_rerunning_references_removes_what_a_killed_run_left(tmp_path):
    stale = tmp_path / ".refs.jsonl.99999999.3f2a.part"  # a killed `references --all`
    stale.write_bytes(b"x" * 1000)
    write_references(tmp_path / "refs.jsonl", [graph_of(LOOP, LOOP_OVERLAY)], progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["refs.jsonl"]


def test_the_record_modules_and_the_atomic_writer_import_no_graph_or_plot_library():
    # they write through graphkit.files only; the graph modules (igraph, numpy) load when a graph is asked for
    heavy = {"igraph", "numpy", "matplotlib"}
    code = (
        "import sys\n"
        "import benchmarks.tasks, benchmarks.jsonl, benchmarks.summaries, benchmarks.manifests, graphkit.files\n"
        f"print(sorted({heavy!r} & set(sys.modules)))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


def test_graphkit_names_are_still_its_modules_names():
    import graphkit
    from graphkit import cities, routes

    assert graphkit.city_names is cities.city_names
    assert graphkit.shortest_route is routes.shortest_route
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        graphkit.nonsense  # noqa: B018


def test_reference_jobs_are_sized_by_route_length_not_pair_count():
    from graphkit.graph import compile_graph
    from graphkit.io import sources_per_job
    from graphkit.metro import load_metro

    def line(count, prefix="S"):
        return [f"{prefix}{number} Station" for number in range(count)]

    # one line of 1,000: a pair's route is 1,000 / 3 stops on average; 5,000,000 stops / (1,000 x 333.3) = 15
    # departures (the pair cap alone would give 100,000 // 1,000 = 100: 100,000 routes of 333 stops each)
    assert sources_per_job(compile_graph(load_metro({"1": line(1000)}))) == 15
    # two lines of 10 sharing a station (19 stations): routes of 3.3 stops; the pair cap decides, 100,000 // 19
    crossing = load_metro({"1": line(10), "2": [*line(9, "T"), "S4 Station"]})
    assert sources_per_job(compile_graph(crossing)) == 5263


# -- the references' text, byte for byte the library's records ------------------------------------

# names JSON must escape (a quote, a backslash), non-ASCII ones, and a line separator json.dumps keeps
ODD_NAMES = ['Quote "Q"', "Back\\slash", "站", "Ünïcode", "Line\u2028Sep", "P5", "P6", "P7", "P8"]


def _library_text(graph, **options) -> str:
    return "".join(f"{json.dumps(f.to_record(), ensure_ascii=False)}\n" for f in reference_routes(graph, **options))


def _chunks_text(graph, **options) -> str:
    chunks = list(reference_chunks(graph, **options))
    text = b"".join(text for _, text in chunks).decode("utf-8")
    assert sum(pairs for pairs, _ in chunks) == text.count("\n")
    return text


def odd_networks():
    """Random networks over :data:`ODD_NAMES` (:func:`tests.networks.random_networks`)."""
    return random_networks(ODD_NAMES, max_stations=7)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_networks(), st.sampled_from([1, 2, 10]), st.data())
def test_reference_chunks_are_the_records_of_the_library_byte_for_byte(network, max_routes, data):
    graph = graph_of(*network)
    assert _chunks_text(graph, max_routes=max_routes) == _library_text(graph, max_routes=max_routes)
    sources = data.draw(st.lists(st.sampled_from(graph.stations), max_size=4))
    expected = _library_text(graph, max_routes=max_routes, sources=sources)
    assert _chunks_text(graph, max_routes=max_routes, sources=sources) == expected
    lines = list(reference_lines(graph, max_routes=max_routes, sources=sources))
    assert "".join(f"{line}\n" for line in lines) == expected


@pytest.mark.parametrize(
    "network",
    [(LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (HOMONYMS, None), (DISCONNECTED, None), (ONE_STATION, None)]
    + [(REPEATED_SPLIT, REPEATED_SPLIT_OVERLAY), (SPLIT, SPLIT_OVERLAY), (CHINESE, None)],
)
def test_hand_made_networks_write_the_records_of_the_library(network):
    graph = graph_of(*network)
    for max_routes in (1, 3, 10):
        assert _chunks_text(graph, max_routes=max_routes) == _library_text(graph, max_routes=max_routes)


def test_routes_that_meet_are_ordered_as_the_library_orders_them():
    # the loop's far side is reached both ways round: those pairs have two routes (the meeting path)
    graph = graph_of(LOOP, LOOP_OVERLAY)
    several = [found for found in reference_routes(graph) if len(found.routes) > 1]
    assert several
    assert _chunks_text(graph) == _library_text(graph)


def test_a_city_with_ties_and_without_a_lasting_memo(monkeypatch):
    graph = city_graph("beijing")
    sources = graph.stations[::25]
    expected = _library_text(graph, sources=sources)
    assert _chunks_text(graph, sources=sources) == expected
    # the memos started afresh at every departure
    monkeypatch.setattr(graph_module, "_HELD_STOPS", 0)
    fresh = compile_graph(graph.given_metro, graph.overlay)
    assert _chunks_text(fresh, sources=sources) == expected
    # no table of hop texts by ride (as for lines of thousands of stations): each hop looked up in the memo
    monkeypatch.setattr(graph_module, "_RIDES_IN_TABLE", 0)
    assert _chunks_text(compile_graph(graph.given_metro, graph.overlay), sources=sources) == expected


def test_the_collector_runs_between_departures():
    chunks = reference_chunks(city_graph("rome"))
    next(chunks)
    assert gc.isenabled()
    gc.disable()
    try:
        next(chunks)
        assert not gc.isenabled()  # a collector the caller paused stays paused
    finally:
        gc.enable()


def test_departures_leave_no_garbage_for_the_collector():
    # each departure's lists are freed when it is done (no reference cycles), not when the collector runs
    graph = city_graph("beijing")  # routes that meet: the long way is taken at many stations
    chunks = reference_chunks(graph, sources=graph.stations[:40])
    next(chunks)  # the first search compiles what lasts (igraph's graph, the arrays)
    # what lives now, and any garbage left before, is frozen out of the collection below, which looks only at what
    # the departures make (a full collection walks every object the test session holds: a second in a whole run)
    gc.freeze()
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert sum(pairs for pairs, _ in chunks) == 39 * (len(graph.stations) - 1)
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
