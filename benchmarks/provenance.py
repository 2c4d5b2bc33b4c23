"""Provenance: what a result was computed from (input checksums) and with (toolkit and library versions).

Every report records both, so a number can be traced to its inputs; file
names, not paths, are recorded, so the same inputs give the same report
wherever they lie.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from graphkit.reading import open_regular

__all__ = ["file_sha256", "input_entry", "versions"]

#: The packages every report names; a caller adds the ones its results depend on.
CORE_PACKAGES = ("reasonmap-toolkit", "igraph", "numpy")


def file_sha256(path: str | Path) -> str:
    """Checksum of a file, recorded in reports so results can be traced to their inputs.

    A folder (a Hugging Face dataset) is checksummed over its files' relative paths and contents, in sorted order.

    Parameters
    ----------
    path : str or Path
        A file or a folder.

    Returns
    -------
    str
        The SHA-256 as 64 lowercase hex digits.

    Raises
    ------
    InvalidRecord
        ``path`` is missing, unreadable, a FIFO or a device (which would never end); one line naming it.
    """
    digest = hashlib.sha256()
    path = Path(path)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if file != path:
            digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        with open_regular(file, what="data", error=InvalidRecord) as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def input_entry(path: str | Path) -> dict[str, Any]:
    """A report's record of one input: its file name and checksum.

    Parameters
    ----------
    path : str or Path
        The input (a file or a dataset folder).

    Returns
    -------
    dict
        ``file`` (its name, without the folder) and ``sha256`` (:func:`file_sha256`).
    """
    return {"file": Path(path).name, "sha256": file_sha256(path)}


def versions(packages: Iterable[str] = CORE_PACKAGES) -> dict[str, str]:
    """Python's version and each package's (``not installed`` when it is not).

    Parameters
    ----------
    packages : iterable of str, optional
        The distributions asked about.

    Returns
    -------
    dict of str to str
        ``python`` and each package's version.
    """
    found = {"python": platform.python_version()}
    for package in packages:
        version = _plain_version(package)
        if version is None:
            from importlib import metadata  # a tenth of a second to import (email, zip files): only when needed

            try:
                version = metadata.version(package)
            except metadata.PackageNotFoundError:
                version = "not installed"
        found[package] = version
    return found


_SEPARATORS = re.compile(r"[-_.]+")


def _plain_version(package: str) -> str | None:
    """``importlib.metadata.version(package)`` where finding it is plain: the first folder of ``sys.path`` that
    holds the package's metadata holds one ``.dist-info`` (or ``.egg-info``) folder for it, with a ``Version:``
    header. ``None`` for anything else (eggs, zip files, several candidates, none): importlib.metadata answers
    those.

    Its lookup, without importing it: child names lowercased, the name before the first ``-`` normalized.
    """
    wanted = _SEPARATORS.sub("_", package).lower()
    for entry in sys.path:
        folder = entry or "."
        if os.path.isfile(folder):
            return None  # a zip file on the path: importlib.metadata reads inside it
        try:
            children = os.listdir(folder)
        except OSError:
            continue
        found = [
            child
            for child in children
            if child.lower().endswith((".dist-info", ".egg-info", ".egg", "egg-info"))
            and _SEPARATORS.sub("_", child.lower().rpartition(".")[0].partition("-")[0]) == wanted
        ]
        if not found:
            continue
        if len(found) > 1 or not found[0].lower().endswith((".dist-info", ".egg-info")):
            return None
        # an editable install's source folder holds NAME.egg-info (PKG-INFO), an installed package NAME.dist-info
        headers = "METADATA" if found[0].lower().endswith(".dist-info") else "PKG-INFO"
        try:
            with open(os.path.join(folder, found[0], headers), encoding="utf-8") as stream:
                for line in stream:
                    if not line.strip():
                        return None  # the headers ended without a version
                    if line.startswith("Version:"):
                        return line.removeprefix("Version:").strip() or None
        except OSError:
            return None
        return None
    return None
