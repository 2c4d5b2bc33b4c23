"""A manifest written last, so that a folder of outputs tells whether it holds one complete run.

A command that writes a set of files (``score``: the scored rows and the
report; ``demo``, ``eval``, ``vdi``, ``diagnose``) first marks its manifest
incomplete (:func:`begin_outputs`), writes each file atomically, and writes the
manifest last (:func:`write_manifest`): every file's name, size and SHA-256,
and the command. A run killed in between leaves the manifest marked
incomplete, so the old manifest never vouches for a new file beside old ones;
:func:`check_manifest` says what is wrong with a folder, :func:`vouches_for`
what is wrong with one file read from such a folder.

The manifest is also what a command may delete: a run records the names of
the files it is about to write (:func:`record_outputs`) before it writes them,
and a fresh start removes only those (:func:`remove_recorded`): never a
folder whole, never through a symbolic link, never a file the run did not
record. :func:`unrecorded_file` names a file in the folder that the run did
not write, for the command to refuse the folder.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.provenance import file_sha256
from graphkit.files import LOCK, atomic_writer

__all__ = [
    "MANIFEST",
    "begin_outputs",
    "write_manifest",
    "check_manifest",
    "vouches_for",
    "manifest_doubt",
    "manifest_path",
    "manifest_beside",
    "record_outputs",
    "recorded_names",
    "unrecorded_file",
    "remove_recorded",
    "remove_stale",
]

MANIFEST = "manifest.json"
# folders above a file whose manifest may vouch for it (eval's files lie two or three below its manifest)
_LEVELS = 4
# a writer's temporary (graphkit.files.atomic_writer): its own, not a foreign file
_PART = re.compile(r"\..+\.\d+(?:\.[0-9a-f]+)?\.part")


def manifest_path(where: str | Path) -> Path:
    """The manifest of ``where``: ``where/manifest.json`` for a folder, else ``where`` itself.

    Parameters
    ----------
    where : str or Path
        A folder or a manifest file.

    Returns
    -------
    Path
    """
    where = Path(where)
    return where / MANIFEST if where.is_dir() else where


def manifest_beside(out: str | Path) -> Path | None:
    """The manifest of a run whose outputs sit beside the file ``out``: ``<stem>.manifest.json``.

    ``None`` when ``out`` is ``-``, a FIFO or a device: streamed outputs have no folder to vouch for.

    Parameters
    ----------
    out : str or Path
        The run's main output.

    Returns
    -------
    Path or None

    Examples
    --------
    >>> manifest_beside("runs/diagnosis.jsonl").as_posix()
    'runs/diagnosis.manifest.json'
    """
    out = Path(out)
    if str(out) == "-" or (out.exists() and not out.is_file()):
        return None
    return out.with_name(f"{out.stem}.manifest.json")


def _write(manifest: Path, record: dict[str, Any]) -> Path:
    with atomic_writer(manifest) as stream:
        stream.write(json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return manifest


def begin_outputs(
    manifest: str | Path | None, command: str, covers: Iterable[str] = (), *, keep_recorded: bool = False
) -> Path | None:
    """Mark the outputs of ``manifest``'s folder as being rewritten (before the first file is written).

    ``covers``: the names (glob patterns relative to the folder) of the files the run writes in its
    subfolders, which the unfinished run leaves in doubt too (:func:`vouches_for`).
    ``keep_recorded``: the names the manifest recorded (:func:`recorded_names`) stay recorded, for
    a run that resumes onto the files of the one before.
    ``None`` (see :func:`manifest_beside`): nothing to mark.

    Parameters
    ----------
    manifest : str, Path or None
        The manifest file.
    command : str
        The command writing.
    covers : iterable of str, optional
        See above.
    keep_recorded : bool, optional
        See above.

    Returns
    -------
    Path or None
        The manifest, now marked incomplete.
    """
    if manifest is None:
        return None
    manifest = Path(manifest)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"command": command, "complete": False, "files": []}
    if covers:
        record["covers"] = list(covers)
    if keep_recorded and (names := recorded_names(manifest)):
        record["written"] = sorted(names)
    return _write(manifest, record)


def recorded_names(manifest: str | Path) -> set[str]:
    """The names (relative to its folder) of the files ``manifest`` says its run wrote or was writing.

    Parameters
    ----------
    manifest : str or Path
        The manifest file.

    Returns
    -------
    set of str
        The names (none when there is no readable manifest).
    """
    record = _read(Path(manifest))
    if isinstance(record, str):
        return set()
    names = {entry.get("name") for entry in record["files"] if isinstance(entry, dict)}
    names.update(record.get("written", ()) if isinstance(record.get("written"), list) else ())
    return {name for name in names if isinstance(name, str)}


def record_outputs(manifest: str | Path, paths: Iterable[str | Path]) -> None:
    """Record in the unfinished ``manifest`` the files its run is about to write (before it writes them).

    Parameters
    ----------
    manifest : str or Path
        The manifest file.
    paths : iterable of str or Path
        The files.


    Raises
    ------
    ValueError
        A path outside the manifest's folder.
    """
    manifest = Path(manifest)
    record = _read(manifest)
    if isinstance(record, str):
        raise ValueError(f"{manifest}: {record}; call begin_outputs first")
    base = os.path.abspath(manifest.parent)
    names = set(record.get("written", ()))
    for path in paths:
        name = os.path.relpath(os.path.abspath(path), base)
        if name == os.pardir or name.startswith(os.pardir + os.sep) or os.path.isabs(name):
            raise ValueError(f"{path}: outside {manifest.parent}, which {manifest.name} vouches for")
        names.add(Path(name).as_posix())
    if names != set(record.get("written", ())):
        _write(manifest, {**record, "written": sorted(names)})


def unrecorded_file(folder: str | Path, manifest: str | Path) -> Path | None:
    """A file (or link, or other entry) in ``folder`` or below that ``manifest``'s run did not write; ``None``.

    Symbolic links are reported, never followed; folders are looked into; the manifest, the
    folder's lock and writers' temporaries belong to the run.

    Parameters
    ----------
    folder : str or Path
        The run's folder.
    manifest : str or Path
        The manifest file.

    Returns
    -------
    Path or None
        The first such entry found.
    """
    folder = Path(folder)
    names = recorded_names(manifest) | {Path(os.path.relpath(manifest, folder)).as_posix(), LOCK}
    for top, folders, _ in os.walk(folder, followlinks=False):
        folders.sort()
        with os.scandir(top) as entries:
            found = sorted(entry.name for entry in entries if not entry.is_dir(follow_symlinks=False))
        for name in found:
            inside = Path(os.path.relpath(os.path.join(top, name), folder)).as_posix()
            if inside not in names and not _PART.fullmatch(name):
                return Path(top, name)
    return None


def _linked(folder: Path, name: str) -> bool:
    """Whether ``folder/name`` passes through a symbolic link, or leaves ``folder``."""
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or os.pardir in parts:
        return True
    where = folder
    for part in parts:
        where = where / part
        if where.is_symlink():
            return True
    return False


def remove_stale(folder: str | Path, names: Iterable[str]) -> list[Path]:
    """Remove those of ``names`` (relative to ``folder``) that its manifest says an earlier run wrote.

    For a run that writes fewer files than the one before it (a report without figures): a file of
    the same name that no run here recorded is the user's and stays, and so does anything reached
    through a symbolic link or that is not a regular file. Returns what was removed.

    Parameters
    ----------
    folder : str or Path
        The run's folder.
    names : iterable of str
        The files the run no longer writes.

    Returns
    -------
    list of Path
        What was removed.
    """
    folder = Path(folder)
    recorded = recorded_names(folder / MANIFEST)
    removed = []
    for name in sorted(set(names) & recorded):
        path = folder / name
        if not _linked(folder, name) and path.is_file():
            path.unlink()
            removed.append(path)
    return removed


def remove_recorded(manifest: str | Path, *, keep: Iterable[str] = ()) -> list[Path]:
    """Remove the regular files ``manifest`` recorded, then the manifest; returns what was removed.

    Only files: a name that passes through a symbolic link (or is one), leaves the folder or is
    not a regular file is kept, and so are the names in ``keep`` (an input the run reads back).
    Folders emptied by it are removed; a folder holding anything else stays.

    Parameters
    ----------
    manifest : str or Path
        The manifest file.
    keep : iterable of str, optional
        Names to keep.

    Returns
    -------
    list of Path
        What was removed.
    """
    manifest = Path(manifest)
    folder = manifest.parent
    removed = []
    emptied = set()
    for name in sorted(recorded_names(manifest) - set(keep)):
        path = folder / name
        if _linked(folder, name) or not path.is_file():
            continue
        path.unlink()
        removed.append(path)
        emptied.update(parent for parent in path.parents if folder in parent.parents)
    if manifest.is_file() and not manifest.is_symlink():
        manifest.unlink()
        removed.append(manifest)
    for parent in sorted(emptied, key=lambda found: len(found.parts), reverse=True):
        with contextlib.suppress(OSError):  # kept when it holds anything else
            parent.rmdir()
    return removed


def _entry(path: Path, base: Path) -> dict[str, Any] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):  # a FIFO or a device was streamed into: nothing to vouch for
        return None
    name = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).as_posix()
    return {"name": name, "size": found.st_size, "sha256": file_sha256(path)}


def write_manifest(manifest: str | Path | None, files: Iterable[str | Path], command: str) -> Path | None:
    """Write the manifest of ``files`` (names relative to its folder), marked complete; returns its path.

    Written last: once it is there, every file it lists is the run's. Same files, same bytes.
    ``None``: nothing is written.

    Parameters
    ----------
    manifest : str, Path or None
        The manifest file.
    files : iterable of str or Path
        The run's files.
    command : str
        The command that wrote them.

    Returns
    -------
    Path or None
        The manifest.
    """
    if manifest is None:
        return None
    manifest = Path(manifest)
    entries = [found for path in files if (found := _entry(Path(path), manifest.parent)) is not None]
    return _write(manifest, {"command": command, "complete": True, "files": entries})


def _read(manifest: Path) -> dict[str, Any] | str:
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no {manifest.name}: not a complete run"
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return f"{manifest}: unreadable ({error})"
    if not isinstance(record, dict) or not isinstance(record.get("files"), list):
        return f"{manifest}: not a manifest"
    return record


def check_manifest(where: str | Path) -> list[str]:
    """What keeps ``where`` (a folder, or a manifest file) from holding one complete run; empty when it does.

    Parameters
    ----------
    where : str or Path
        An output folder (its ``manifest.json``) or a manifest file.

    Returns
    -------
    list of str
        One line per problem: no manifest, a run that did not finish, a file missing or changed since.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "scored.jsonl").write_text("{}\\n")
    ...     _ = write_manifest(Path(folder, MANIFEST), [Path(folder, "scored.jsonl")], "score")
    ...     before = check_manifest(folder)
    ...     _ = Path(folder, "scored.jsonl").write_text("{}\\n{}\\n")
    ...     after = check_manifest(folder)
    >>> before, after
    ([], ['scored.jsonl: changed since the run wrote it (size 6, not 3)'])
    """
    manifest = manifest_path(where)
    record = _read(manifest)
    if isinstance(record, str):
        return [record]
    problems = []
    if not record.get("complete"):
        problems.append(f"{manifest}: the run of {record.get('command', '?')} that wrote it did not finish")
    for entry in record["files"]:
        doubt = _changed(manifest.parent / entry["name"], entry)
        if doubt is not None:
            problems.append(f"{entry['name']}: {doubt}")
    return problems


def _changed(path: Path, entry: dict[str, Any]) -> str | None:
    try:
        found = path.stat()
    except OSError:
        return "missing"
    if not stat.S_ISREG(found.st_mode):  # a FIFO put in its place would never be read to its end
        return "not a regular file any more"
    size = found.st_size
    if size != entry.get("size"):
        return f"changed since the run wrote it (size {size}, not {entry.get('size')})"
    if file_sha256(path) != entry.get("sha256"):
        return "changed since the run wrote it (checksum differs)"
    return None


def _manifests(real: Path) -> Iterator[tuple[Path, bool]]:
    """The manifests that may know ``real``, nearest first, each with whether it is its own folder's.

    ``<stem>.manifest.json`` beside it, then ``manifest.json`` in its folder and in up to
    :data:`_LEVELS` folders above (a run such as ``eval`` writes into subfolders).
    """
    beside = manifest_beside(real)
    if beside is not None:
        yield beside, True
    folder = real.parent
    for level in range(_LEVELS):
        yield folder / MANIFEST, level == 0
        if folder.parent == folder:
            return
        folder = folder.parent


def vouches_for(path: str | Path) -> str | None:
    """Why the run that wrote ``path`` cannot be trusted to have written it whole, or ``None``.

    The manifests looked at: ``<stem>.manifest.json`` beside it, then that of the nearest folder
    holding one (its own, or one of the few above it). An unfinished run doubts the files of its
    own folder, and those of its subfolders it said it writes; a finished one, the files it lists
    that have changed since. A file no manifest knows is not doubted.

    Parameters
    ----------
    path : str or Path
        An input file.

    Returns
    -------
    str or None
        Why not.
    """
    found = manifest_doubt(path)
    return None if found is None else found[1]


def manifest_doubt(path: str | Path) -> tuple[str, str] | None:
    """:func:`vouches_for`'s doubt with its kind: ``("unfinished", why)`` or ``("changed", why)``; else ``None``.

    ``unfinished``: the run that wrote ``path`` did not finish (its manifest is marked incomplete);
    ``changed``: a finished run wrote it, and its size or SHA-256 is no longer what the manifest says.

    Parameters
    ----------
    path : str or Path
        An input file.

    Returns
    -------
    (str, str) or None
        The doubt's kind and why.
    """
    real = Path(os.path.realpath(path))
    for manifest, own in _manifests(real):
        if not manifest.is_file():
            continue
        record = _read(manifest)
        if isinstance(record, str):
            continue
        inside = Path(os.path.relpath(real, manifest.parent)).as_posix()
        if not record.get("complete"):
            if own or any(fnmatch.fnmatchcase(inside, pattern) for pattern in record.get("covers", ())):
                return "unfinished", f"{manifest} says the run that wrote it did not finish; its files may mix two runs"
        for entry in record["files"]:
            if isinstance(entry, dict) and (manifest.parent / str(entry.get("name"))).resolve() == real:
                doubt = _changed(real, entry)
                return None if doubt is None else ("changed", f"{doubt}, after {manifest}")
        if manifest.name == MANIFEST:  # the nearest folder's manifest is the one that knows
            return None
    return None
