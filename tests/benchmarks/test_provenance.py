"""Provenance: input checksums of files and folders; a FIFO or a device is refused, never read for ever."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.provenance import file_sha256

ROOT = Path(__file__).resolve().parents[2]


def test_a_file_and_a_folder_are_checksummed(tmp_path):
    (tmp_path / "data" / "train").mkdir(parents=True)
    (tmp_path / "data" / "train" / "x.arrow").write_bytes(b"rows")
    (tmp_path / "data" / "info.json").write_bytes(b"{}")
    assert file_sha256(tmp_path / "data" / "info.json") == hashlib.sha256(b"{}").hexdigest()
    # sorted by path: info.json before train/x.arrow, each name then its bytes
    expected = hashlib.sha256(b"info.json\0{}train/x.arrow\0rows").hexdigest()
    assert file_sha256(tmp_path / "data") == expected


def test_a_fifo_or_a_device_is_one_line_error(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidRecord, match=r"fifo: a FIFO, not a data file \(only regular files are read\)$"):
        file_sha256(fifo)
    with pytest.raises(InvalidRecord, match=r"^/dev/zero: a character device"):
        file_sha256("/dev/zero")
    with pytest.raises(InvalidRecord, match="no such data file"):
        file_sha256(tmp_path / "missing.jsonl")


def test_eval_with_a_fifo_for_questions_stops_with_one_line(tmp_path):
    fifo = tmp_path / "questions.jsonl"
    os.mkfifo(fifo)
    argv = ["eval", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--tasks", "route", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "reasonmap.cli", *argv, "--questions", str(fifo), "--out", str(tmp_path / "run")],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,  # before, it waited for ever for a writer
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"reasonmap eval: error: {fifo}: a FIFO, not a data file (only regular files are read)"
    ]


@pytest.mark.parametrize("package", ["reasonmap-toolkit", "igraph", "numpy", "rapidfuzz", "pytest", "no-such-package"])
def test_versions_are_importlib_metadatas_read_without_importing_it(package):
    from importlib import metadata

    from benchmarks.provenance import _plain_version, versions

    try:
        expected = metadata.version(package)
    except metadata.PackageNotFoundError:
        expected = "not installed"
    assert versions([package]) == {"python": platform.python_version(), package: expected}
    # where the plain lookup answers, it gives importlib.metadata's answer (the next test: it answers for the core)
    assert _plain_version(package) in (None, expected)


def test_the_core_packages_versions_are_read_without_importing_importlib_metadata():
    code = (
        "import sys\n"
        "from benchmarks.provenance import CORE_PACKAGES, versions\n"
        "versions(CORE_PACKAGES)\n"
        "assert 'importlib.metadata' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
