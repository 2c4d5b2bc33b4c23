"""Test-wide settings and the session's shared work.

Three things cost most of the suite's time without testing anything new after their first run, and are done
once or not at all here:

- drawing the report figures: every scored run writes them (PNG at 300 dpi and PDF, about a second each on
  a 2-core machine); outside the tests marked ``figures`` a figure is built as usual but ``savefig`` writes
  a placeholder of the right kind instead of rasterizing it. The figure tests (``figures`` marker) draw them
  for real, byte stability included.
- generating the test split in ``reasonmap eval`` (407 route questions with their references): generated
  once per (task, split, seed) in the session, then reused. The records are frozen; generation itself is
  tested in ``tests/benchmarks/reasonmap/test_generate.py`` and by the demo's tests.
- OCR of a map: a map-sized image read again with the same settings and engine (by another test, or another
  xdist worker) gets its first reading's result (``tests/ocr_once.py``). Small images, a test's own engine and
  the file cache of ``read_map_texts`` are untouched.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# CI machines are slow and shared: no per-example deadline; a failing example is printed for reproduction.
# A property that names no example count runs 40 (CI the same); HYPOTHESIS_PROFILE=thorough runs Hypothesis's
# 100. A test that names its count keeps it.
_SHARED = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("toolkit", max_examples=40, **_SHARED)
settings.register_profile("thorough", **_SHARED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "toolkit"))

_PLACEHOLDERS = {"png": b"\x89PNG\r\n\x1a\nplaceholder", "pdf": b"%PDF-1.4\n% placeholder\n%%EOF\n"}


@pytest.fixture(autouse=True)
def _figures_drawn_only_where_tested(request, monkeypatch):
    if request.node.get_closest_marker("figures") is not None:
        return
    from matplotlib.figure import Figure

    def savefig(self, target, *, format=None, **options):
        form = format or str(target).rsplit(".", 1)[-1]
        data = _PLACEHOLDERS.get(form, b"placeholder")
        if hasattr(target, "write"):
            target.write(data)
        else:
            with open(target, "wb") as stream:
                stream.write(data)

    monkeypatch.setattr(Figure, "savefig", savefig)


_GENERATED: dict[tuple, list] = {}


@pytest.fixture(autouse=True)
def _test_split_generated_once(monkeypatch):
    import reasonmap.eval

    real = reasonmap.eval._generated

    def generated(task: str, split: str, seed: int, *, progress: bool = False) -> list:
        key = (task, split, seed)
        if progress or key not in _GENERATED:  # a run that shows the generator's bar generates
            _GENERATED[key] = real(task, split, seed, progress=progress)
        return list(_GENERATED[key])

    monkeypatch.setattr(reasonmap.eval, "_generated", generated)


@pytest.fixture(scope="session", autouse=True)
def _each_map_read_once(tmp_path_factory):
    """OCR of one map with one set of settings runs once per session, shared by xdist workers (tests/ocr_once.py)."""
    import vision.ocr
    from tests.ocr_once import remembering
    from tests.once import session_folder

    folder = session_folder(tmp_path_factory) / "ocr-once"
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(vision.ocr, "ocr_array", remembering(vision.ocr.ocr_array, folder))
        yield


# -- fixtures several test files share ------------------------------------------------------------------------------


@pytest.fixture
def server():
    """A chat server of the tests' own (``tests/baselines/chat_server.py``), running for one test."""
    from tests.baselines.chat_server import ChatServer

    with ChatServer() as running:
        yield running


@pytest.fixture
def no_key_from_the_environment(monkeypatch):
    """No ``OPENAI_API_KEY`` from the environment the suite runs in: a test that wants a key sets its own.

    A module of client tests takes it for each of its tests:
    ``pytestmark = pytest.mark.usefixtures("no_key_from_the_environment")``.
    """
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture(scope="module")
def rome():
    """The embedded city of Rome's transit graph (3 lines, 73 stations)."""
    from graphkit.cities import city_graph

    return city_graph("rome")
