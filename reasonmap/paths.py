"""Every command's outputs checked against its inputs before anything is read or written.

``score --predictions p.jsonl --out p.jsonl`` would replace the predictions
with their scores. :func:`refuse_overwrite` finds a command's input and output
paths in its parsed options (by name, the outputs declared here per command)
and refuses, in one line naming both options, an output that is the same file
as an input (same resolved path, or same device and inode: a hard link), and an
output folder that the command writes over an input: ``export --out`` replaces
its whole folder; the others write known names into theirs (``--report DIR``
writes ``DIR/summary.json``, ...), so a folder both read and written into is
refused only where such a name is an input. A FIFO, a device and ``-`` are streamed
into, never replaced, so they are never refused. :func:`warn_incomplete_runs`
says when an input belongs to an output folder whose run did not finish.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from reasonmap.errors import ReasonmapError

__all__ = [
    "Output",
    "OUTPUTS",
    "REPORT_FILES",
    "INPUTS",
    "OverwriteRefused",
    "EmptyPath",
    "check_paths",
    "refuse_empty",
    "refuse_misplaced",
    "refuse_overwrite",
    "warn_incomplete_runs",
]

#: Option destinations that name what a command reads (unless the command declares it an output).
INPUTS: tuple[str, ...] = (
    "questions",
    "predictions",
    "requests",
    "file",
    "map",
    "map_file",
    "maps",
    "evidence",
    "evidence_dir",
    "metro",
    "overlay",
    "metro_dir",
    "det_model_dir",
    "rec_model_dir",
    "feeds",
)

#: The files a report folder gets: every task's report (the task is told from the questions only later).
REPORT_FILES: tuple[str, ...] = (
    "summary.json",
    "table.md",
    "difficulty.png",
    "difficulty.pdf",
    "cities.png",
    "cities.pdf",
    "types.png",
    "types.pdf",
    "manifest.json",
)


@dataclass(frozen=True, slots=True)
class Output:
    """An option that names what a command writes.

    ``writes``: for a folder, the names (glob patterns relative to it) that the command writes
    there; ``("**",)``: the folder is replaced whole. ``beside``: the files written next to an
    output file, each named by the suffix that replaces its extension (``".summary.json"``).

    Attributes
    ----------
    dest : str
        The option's destination (``out``).
    writes : tuple of str
        See above.
    beside : tuple of str
        See above.
    """

    dest: str
    writes: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()


#: Each command's outputs; every other path option of :data:`INPUTS` is an input.
OUTPUTS: Mapping[str, tuple[Output, ...]] = {
    "references": (Output("out"),),
    "generate": (Output("out"),),
    "score": (Output("out"), Output("report", REPORT_FILES)),  # with --explain, see _outputs
    "mapqa-score": (Output("out"), Output("report", REPORT_FILES)),
    "export": (Output("out", ("**",)),),
    "predictions": (Output("out"),),
    "demo": (Output("out", ("*.jsonl", "manifest.json", "report/*")),),
    "baseline": (Output("out"),),
    "prompts": (Output("out"),),
    "run": (Output("out"),),
    "vdi": (Output("out", ("*.jsonl", "vdi.*", "manifest.json")),),
    "ocr": (Output("evidence"), Output("evidence_dir", ("*.evidence.json",))),
    "render": (Output("out", ("*.png", "*.truth.json"), beside=(".truth.json",)),),
    "diagnose": (
        Output("out", beside=(".summary.json", ".summary.md", ".manifest.json")),
        Output("draw", ("*__*__*.png",)),
    ),
    "synth": (Output("out", ("*.json", "*/*", "*/*/*")),),
    "gtfs": (Output("out", ("*.json",)),),
    # eval reads its own questions/<task>.jsonl back in (a run in place) before writing it again
    "eval": (Output("out", ("*.json", "*.md", "*/*/*.jsonl", "*/*/report/*")),),
}


#: The commands whose folder output may be one file instead (``export --format gtfs``, ``synth`` without --count).
_FILE_OR_FOLDER = frozenset({"export", "synth"})


class OverwriteRefused(ReasonmapError, ValueError):
    """An output that would replace an input; the message names both options."""


class EmptyPath(ReasonmapError, ValueError):
    """An empty path given to a file or folder option, a file given as a folder output, or two outputs given
    one path; the message names the option."""


def _flag(dest: str) -> str:
    if dest == "map_file":
        return "--map"
    return dest.upper() if dest in ("file", "map") else "--" + dest.replace("_", "-")


def _paths(args: argparse.Namespace, dest: str) -> Iterator[str]:
    value = getattr(args, dest, None)
    for item in value if isinstance(value, list | tuple) else [value]:
        if isinstance(item, str | os.PathLike) and str(item) not in ("", "-"):
            yield str(item)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _streamed(found: os.stat_result | None) -> bool:
    """A FIFO or a device: written through, nothing in it is replaced."""
    return found is not None and not (stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode))


def _same(one: str, other: str) -> bool:
    if os.path.realpath(one) == os.path.realpath(other):
        return True
    first, second = _stat(one), _stat(other)
    return first is not None and second is not None and os.path.samestat(first, second)


def _outputs(args: argparse.Namespace) -> tuple[Output, ...]:
    """The outputs of ``args``' command; ``score --explain A B`` writes each variant's rows and report instead."""
    command = getattr(args, "command", "")
    explained = getattr(args, "explain", None) if command == "score" else None
    if not explained:
        return tuple(OUTPUTS.get(command, ()))
    suffix = Path(str(getattr(args, "out", None) or "")).suffix
    # a former name is written under the present one (plus's paper as toolkit): the task is not known yet, so
    # every task's reading of the name is covered
    from benchmarks.tasks import get_task, task_names

    named = [get_task(task).resolve_variant(str(name)) for name in explained for task in task_names()]
    written = list(dict.fromkeys([*map(str, explained), *named]))
    variants = [glob.escape(variant) for variant in written]
    report = [f"{variant}/{name}" for variant in variants for name in REPORT_FILES]
    return (
        Output("out", beside=tuple(f".{variant}{suffix}" for variant in written)),
        Output("report", ("manifest.json", "compare.json", "compare.md", *report)),
    )


def _beside(path: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files written next to ``path``: its stem followed by each suffix."""
    real = Path(os.path.realpath(path))
    return [str(real.with_name(real.stem)) + suffix for suffix in suffixes]


def _clash(output: Output, path: str, given: str) -> str | None:
    """Why writing ``output`` at ``path`` destroys the input ``given``, or ``None``."""
    if _same(path, given):
        if not os.path.isdir(given):
            return "is the same file as"
        if "**" in output.writes:
            return "is the same folder as"
        # a folder both read and written into (ocr --maps DIR --evidence-dir DIR): only names clash
    real = os.path.realpath(given)
    if real in _beside(path, output.beside):
        return f"writes {given} beside it, which is"
    folder = os.path.realpath(path)
    if output.writes and (real + os.sep).startswith(folder + os.sep):
        inside = os.path.relpath(real, folder)
        if "**" in output.writes or any(fnmatch.fnmatchcase(inside, pattern) for pattern in output.writes):
            return f"would write over {given}, which is"
    return None


def refuse_overwrite(args: argparse.Namespace) -> None:
    """Refuse a command whose outputs would replace one of its inputs; nothing has been touched yet.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    OverwriteRefused
        ``--out p.jsonl is the same file as --predictions; refusing to overwrite an input``.
    """
    outputs = _outputs(args)
    written = {output.dest for output in outputs}
    inputs = [(dest, path) for dest in INPUTS if dest not in written for path in _paths(args, dest)]
    for output in outputs:
        for path in _paths(args, output.dest):
            if _streamed(_stat(path)):
                continue
            for dest, given in inputs:
                why = _clash(output, path, given)
                if why is not None:
                    raise OverwriteRefused(
                        f"{_flag(output.dest)} {path} {why} {_flag(dest)}; refusing to overwrite an input"
                    )


def warn_incomplete_runs(args: argparse.Namespace) -> list[str]:
    """One line per input file that an unfinished or since-changed run wrote (its folder's manifest says so).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    list of str
    """
    from benchmarks.manifests import vouches_for

    outputs = {output.dest for output in _outputs(args)}
    warnings = []
    for dest in INPUTS:
        if dest in outputs:
            continue
        for path in _paths(args, dest):
            if os.path.isfile(path):
                doubt = vouches_for(path)
                if doubt is not None:
                    warnings.append(f"{_flag(dest)} {path}: {doubt}")
    return warnings


def check_paths(args: argparse.Namespace) -> list[str]:
    """The one check every command runs after parsing: refuse what would destroy an input; the warnings.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    list of str
        The warnings (inputs an unfinished or changed run wrote).

    Raises
    ------
    OverwriteRefused
        An output that is, or would write over, an input (see :func:`refuse_overwrite`).
    EmptyPath
        An empty path given to a file or folder option (see :func:`refuse_empty`).
    """
    refuse_empty(args)
    refuse_misplaced(args)
    refuse_overwrite(args)
    return warn_incomplete_runs(args)


def refuse_misplaced(args: argparse.Namespace) -> None:
    """Refuse a folder output given an existing file, and two outputs given one path.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    EmptyPath
        ``--report r.json: a file, not a folder (the command writes a folder there)``, or
        ``--out and --report name one path (same)``.
    """
    named: dict[str, str] = {}
    for output in _outputs(args):
        for path in _paths(args, output.dest):
            # a file output may be a folder's too: render's map, export's feed (gtfs), synth's city.json
            folder = output.writes and not output.beside and getattr(args, "command", "") not in _FILE_OR_FOLDER
            if folder and os.path.lexists(path) and not os.path.isdir(path):
                raise EmptyPath(
                    f"{_flag(output.dest)} {path}: a file, not a folder (the command writes a folder there)"
                )
            real = os.path.realpath(path)
            if real in named and named[real] != output.dest:
                raise EmptyPath(f"{_flag(named[real])} and {_flag(output.dest)} name one path ({path})")
            named.setdefault(real, output.dest)


def refuse_empty(args: argparse.Namespace) -> None:
    """Refuse an empty path given to a file or folder option (it would name the current folder).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    EmptyPath
        ``--out: an empty path (it would name the current folder); name a file or folder``.
    """
    dests = dict.fromkeys([*INPUTS, "out", "report", *(output.dest for output in _outputs(args))])
    for dest in dests:
        value = getattr(args, dest, None)
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, str) and not item:
                raise EmptyPath(f"{_flag(dest)}: an empty path (it would name the current folder); name one")
