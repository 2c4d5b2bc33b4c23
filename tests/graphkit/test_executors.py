"""Executors: results in item order, the same bytes whichever runs the job; Ray on a local cluster."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from graphkit.cities import city_graph
from graphkit.executors import EXECUTORS, LocalExecutor, open_executor
from graphkit.io import ReferenceJob, reference_block, reference_lines, write_references
from graphkit.routes import DEFAULT_MAX_ROUTES
from tests.networks import (
    REPEATED_SPLIT,
    REPEATED_SPLIT_OVERLAY,
    SUFFIX_VARIANTS,
    SUFFIX_VARIANTS_OVERLAY,
    graph_of,
)


def slow_for_small(item: int) -> int:
    """Early items finish last, so a pool completes them out of order."""
    time.sleep(0.02 * (5 - item % 5))
    return item * item


def test_the_local_executor_inline_and_pooled_keep_the_item_order():
    items = list(range(12))
    expected = [item * item for item in items]
    with open_executor("local", workers=1) as inline:
        assert list(inline.map(slow_for_small, items)) == expected
    with open_executor("local", workers=2) as pool:
        assert list(pool.map(slow_for_small, items)) == expected
        assert list(pool.map(slow_for_small, [])) == []


@pytest.mark.parametrize(
    ("kind", "options", "message"),
    [
        ("dask", {}, "executor must be one of"),
        ("local", {"workers": 0}, "workers must be a positive integer"),
        ("local", {"address": "auto"}, "--ray-address needs --executor ray"),
    ],
)
def test_bad_executor_options_are_refused_with_the_choices(kind, options, message):
    with pytest.raises(ValueError, match=message):
        open_executor(kind, **options)


def test_references_on_a_pool_are_the_same_bytes(tmp_path):
    graphs = [city_graph("rome"), city_graph("miami")]
    inline, pooled = tmp_path / "inline.jsonl", tmp_path / "pooled.jsonl"
    count = write_references(inline, graphs, progress=False)
    with LocalExecutor(2) as executor:
        assert write_references(pooled, graphs, progress=False, executor=executor) == count
    assert count == 73 * 72 + 23 * 22
    assert pooled.read_bytes() == inline.read_bytes()


# -- Ray, on a local cluster the tests start (CI installs the [ray] extra) -----------------------


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_keeps_the_item_order_and_leaves_a_running_cluster_running(ray):
    assert "ray" in EXECUTORS
    with open_executor("ray", workers=2) as executor:
        assert executor.workers == 2
        assert list(executor.map(slow_for_small, range(10))) == [item * item for item in range(10)]
    assert ray.is_initialized()


@pytest.mark.slow
def test_references_on_ray_are_the_same_bytes(ray, tmp_path):
    graphs = [city_graph("rome")]
    inline, remote = tmp_path / "inline.jsonl", tmp_path / "ray.jsonl"
    write_references(inline, graphs, progress=False)
    with open_executor("ray") as executor:
        write_references(remote, graphs, progress=False, executor=executor)
    assert remote.read_bytes() == inline.read_bytes()


def test_references_on_a_pool_keep_the_overlays_names(tmp_path):
    """Workers recompile the Metro Data as given: an alias or a homonym is not applied twice."""
    graphs = [graph_of(SUFFIX_VARIANTS, SUFFIX_VARIANTS_OVERLAY), graph_of(REPEATED_SPLIT, REPEATED_SPLIT_OVERLAY)]
    inline, pooled = tmp_path / "inline.jsonl", tmp_path / "pooled.jsonl"
    count = write_references(inline, graphs, progress=False)
    with LocalExecutor(2) as executor:  # one worker would write the departures inline, compiling nothing
        assert write_references(pooled, graphs, progress=False, executor=executor) == count
    assert pooled.read_bytes() == inline.read_bytes()
    beijing = city_graph("beijing")  # 西单 and 西单站 are one station by its overlay
    sources = ("西单站", *beijing.stations[:2])
    job = ReferenceJob(beijing.given_metro, beijing.overlay, sources, DEFAULT_MAX_ROUTES)
    expected = "".join(f"{line}\n" for line in reference_lines(beijing, sources=sources)).encode()
    assert reference_block(job) == ("beijing", 3 * (len(beijing.stations) - 1), expected)


def worker_pid(item: int) -> int:
    time.sleep(0.05)
    return os.getpid()


_HOLD_A_POOL = """
import sys, time
from graphkit.executors import LocalExecutor
from tests.graphkit.test_executors import worker_pid
with LocalExecutor(2) as pool:
    print(*sorted(set(pool.map(worker_pid, range(8)))), flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_pool_workers_end_when_their_command_is_killed(sig):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    command = subprocess.Popen([sys.executable, "-c", _HOLD_A_POOL], stdout=subprocess.PIPE, text=True, cwd=root)
    try:
        workers = [int(pid) for pid in command.stdout.readline().split()]
        assert workers and command.pid not in workers
        command.send_signal(sig)
        command.wait(timeout=30)
        for _ in range(300):  # they look for their parent every half second; give them up to a minute
            alive = [pid for pid in workers if _running(pid)]
            if not alive:
                break
            time.sleep(0.2)
        assert alive == []
    finally:
        command.kill()
        command.wait()


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stream:
            return stream.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_ray_address_where_nothing_answers_fails_naming_the_flag():
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ValueError, match=f"--ray-address 127.0.0.1:{port}: no Ray cluster answers there"):
        open_executor("ray", address=f"127.0.0.1:{port}")


def sleep_long(item: int) -> int:
    """A task that outlasts any test: the command must not wait for it once interrupted."""
    time.sleep(600)
    return item


# A command's shape, as reasonmap.cli runs one: SIGTERM raised as an exception in the main thread (so that
# every `finally` runs), Ctrl-C as KeyboardInterrupt, each ended with one line. `idle`: the workers wait for
# their next item (the items come slowly); `busy`: each works on an item that never ends.
_INTERRUPTED_COMMAND = """
import signal, sys, time
from graphkit.executors import LocalExecutor
from tests.graphkit.test_executors import sleep_long, worker_pid

class Terminated(BaseException):
    pass

def on_sigterm(signum, frame):
    raise Terminated

def slowly():
    yield from range(4)
    print("started", flush=True)
    time.sleep(600)
    yield 4

signal.signal(signal.SIGTERM, on_sigterm)
idle = sys.argv[1] == "idle"
try:
    with LocalExecutor(2) as pool:
        if not idle:
            print("started", flush=True)
        for _ in pool.map(worker_pid if idle else sleep_long, slowly() if idle else range(4)):
            pass
except KeyboardInterrupt:
    print("interrupted by SIGINT", file=sys.stderr)
    sys.exit(130)
except Terminated:
    print("interrupted by SIGTERM", file=sys.stderr)
    sys.exit(143)
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stream:
                    if int(stream.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("workers_are", ["idle", "busy"])
@pytest.mark.parametrize("sent_to", ["group", "command"])
def test_an_interrupted_command_ends_with_its_one_line_and_its_workers(sig, code, workers_are, sent_to):
    """Ctrl-C reaches every process of the terminal's group, SIGTERM often does (``kill -- -PGID``, a service
    manager): the workers printed a traceback each (campaign 3), and a busy pool was waited for."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    command = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED_COMMAND, workers_are],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=root,
        start_new_session=True,  # its own group, as a command in a terminal
    )
    try:
        assert command.stdout.readline() == "started\n"
        for _ in range(600):  # the workers are forked at the first item
            workers = _children(command.pid)
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        time.sleep(0.3)  # idle: waiting for an item; busy: inside sleep_long
        if sent_to == "group":
            os.killpg(command.pid, sig)
        else:
            command.send_signal(sig)
        _, error = command.communicate(timeout=60)  # never waits for the ten-minute tasks
        assert (command.returncode, error) == (code, f"interrupted by {signal.Signals(sig).name}\n")
        for _ in range(300):
            alive = [pid for pid in workers if _running(pid)]
            if not alive:
                break
            time.sleep(0.2)
        assert alive == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(command.pid, signal.SIGKILL)
        command.wait()
