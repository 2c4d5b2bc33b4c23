"""Finished runs read back: the (task, mode) parts of a folder that ``eval`` or ``score`` wrote.

``reasonmap compare`` and ``reasonmap leaderboard`` take folders, not files:

- an ``eval`` run (``DIR/eval.json``): one part per (task, mode) it scored,
  ``DIR/<task>/<mode>/report/summary.json`` with ``DIR/<task>/<mode>/scored.jsonl``,
  and the run's settings;
- a ``score`` report (``--report DIR``: ``DIR/summary.json``), or a folder
  holding one as ``report/`` (an ``eval`` run's ``DIR/<task>/<mode>``): one part, of no
  mode; its scored rows are the file its ``manifest.json`` vouches for
  (``score --out``), else ``scored.jsonl`` beside or above the report.

A part's task is told from its summary: the task whose headline metrics
(those it compares: :func:`benchmarks.metrics.compared`) its model rows carry, the most specific first.
:func:`difference` names the first thing two parts were not computed alike
over: their question set (the checksum the summary records) or a setting.

A summary is checked against the manifest of the run that wrote it: one whose
size or SHA-256 is not what the manifest says was edited since, and is refused.
A part is *incomplete* (:attr:`RunPart.incomplete` says why) when its run did
not finish (its manifest is marked incomplete) or when it scored only the
finished part of a log (``score --partial``: the summary's ``partial``);
``compare`` and ``leaderboard`` refuse such parts unless told
(:func:`refuse_incomplete`), and then mark them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from reasonmap.errors import ReasonmapError

__all__ = [
    "RunPart",
    "RunError",
    "read_run",
    "difference",
    "doubts",
    "refuse_incomplete",
    "read_scored",
    "write_record",
    "SETTINGS",
]

#: The summary's settings that decide how answers are judged.
_SUMMARY_SETTINGS = ("weighting", "variant")
#: The ``eval`` settings that decide what a mode's prompt holds (beside the questions, compared by checksum).
_PROMPT_SETTINGS = ("pixel_budget", "textualization", "alias_strategy")
#: Every setting compared: two parts that differ in one are not compared (or only with ``--join``).
SETTINGS = (*_SUMMARY_SETTINGS, *_PROMPT_SETTINGS)


class RunError(ReasonmapError, ValueError):
    """A folder that is no finished run, or two runs that cannot be compared; one line says why."""


@dataclass(frozen=True, slots=True)
class RunPart:
    """One task in one prompt mode of a run: its summary, where its scored rows are, and its settings.

    Attributes
    ----------
    run : str
        The run folder.
    task : str
    mode : str or None
        The prompt mode (``None`` for a score report).
    summary : mapping
        Its ``summary.json``.
    scored : Path or None
        Its scored rows.
    settings : mapping
        The run's settings.
    incomplete : str or None
        Why the part holds less than a finished run.
    """

    run: str
    task: str
    mode: str | None
    summary: Mapping[str, Any] = field(repr=False)
    scored: Path | None
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: why the part holds less than a finished run (its run did not finish, or scored part of a log); ``None``
    incomplete: str | None = None

    @property
    def label(self) -> str:
        """``route/full`` (``route`` for a score report, which records no mode)."""
        return self.task if self.mode is None else f"{self.task}/{self.mode}"

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(self.summary.get("models", {}))

    @property
    def questions(self) -> Mapping[str, Any]:
        """The question file's record (``file``, ``sha256``) as the summary holds it."""
        entry = self.summary.get("inputs", {}).get("questions", {})
        return entry if isinstance(entry, Mapping) else {}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RunError(f"{path}: not a readable JSON file: {error}") from None


def _task_of(summary: Mapping[str, Any], where: Path) -> str:
    """The task whose headline metrics the summary's model rows carry (the one with the most, when several)."""
    from benchmarks.metrics import compared
    from benchmarks.tasks import get_task, task_names

    models = summary.get("models")
    if not isinstance(models, Mapping) or not models:
        raise RunError(f"{where}: no models in this summary (nothing was scored)")
    row = next(iter(models.values()))
    keys = set(row) if isinstance(row, Mapping) else set()
    fitting = [
        (len(metrics), name)
        for name in task_names()
        for metrics in [compared(get_task(name).metrics)]
        if {metric.name for metric in metrics} <= keys
    ]
    if not fitting:
        raise RunError(f"{where}: a summary of no known task (its model rows hold none of a task's headline metrics)")
    return max(fitting)[1]


def _scored_of(report: Path) -> Path | None:
    """The scored rows a report was written with: the one its manifest vouches for outside it, else beside."""
    manifest = report / "manifest.json"
    if manifest.is_file():
        try:
            names = [entry["name"] for entry in json.loads(manifest.read_text(encoding="utf-8")).get("files", [])]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
            names = []
        for name in names:
            if isinstance(name, str) and name.endswith(".jsonl") and (report / name).is_file():
                return (report / name).resolve()
    for candidate in (report / "scored.jsonl", report.parent / "scored.jsonl"):
        if candidate.is_file():
            return candidate
    return None


def _incomplete(summary: Mapping[str, Any], doubt: tuple[str, str] | None) -> str | None:
    """Why a part holds less than a finished run: its run did not finish, or it scored part of a log."""
    reasons = []
    if doubt is not None and doubt[0] == "unfinished":
        reasons.append("incomplete: the run that wrote it did not finish")
    partial = summary.get("partial")
    if isinstance(partial, Mapping):
        reasons.append(
            f"partial: its {partial.get('source', '?')} log ended with status {partial.get('status', '?')!r},"
            f" {partial.get('samples', '?')} samples scored"
        )
    elif partial is not None:
        reasons.append("partial")
    return "; ".join(reasons) or None


def _part(run: str, report: Path, mode: str | None, settings: Mapping[str, Any], scored: Path | None) -> RunPart:
    from benchmarks.manifests import manifest_doubt

    path = report / "summary.json"
    summary = _read_json(path)
    if not isinstance(summary, Mapping):
        raise RunError(f"{path}: not a summary (a JSON object)")
    doubt = manifest_doubt(path)
    if doubt is not None and doubt[0] == "changed":
        raise RunError(f"{path}: {doubt[1]}; its figures are not the ones the run computed")
    task = _task_of(summary, path)
    judged = {key: summary.get(key) for key in _SUMMARY_SETTINGS}
    if isinstance(judged["variant"], str):  # a former name (plus's paper, now toolkit) judges the same way
        from benchmarks.tasks import get_task

        judged["variant"] = get_task(task).resolve_variant(judged["variant"])
    return RunPart(
        run,
        task,
        mode,
        MappingProxyType(summary),
        scored,
        MappingProxyType({**judged, **settings}),
        _incomplete(summary, doubt),
    )


def read_run(path: str | Path) -> list[RunPart]:
    """The parts of the run in ``path`` (an ``eval`` folder, or a ``score`` report folder).

    Parameters
    ----------
    path : str or Path
        The run folder.

    Returns
    -------
    list of RunPart
        One per task and prompt mode the run scored (one for a report folder).

    Raises
    ------
    RunError
        ``path`` is no folder, or holds neither an evaluation run nor a report.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise RunError(f"{path}: no such run folder (give a folder `eval --out` or `score --report` wrote)")
    if (folder / "eval.json").is_file():
        recorded = _read_json(folder / "eval.json")
        settings = recorded.get("settings", {}) if isinstance(recorded, Mapping) else {}
        if not isinstance(settings, Mapping):
            raise RunError(f"{folder / 'eval.json'}: its settings are not an object")
        prompt = {key: settings.get(key) for key in _PROMPT_SETTINGS}
        parts = []
        for report in sorted(folder.glob("*/*/report/summary.json")):
            mode_folder = report.parent.parent
            scored = mode_folder / "scored.jsonl"
            parts.append(
                _part(str(path), report.parent, mode_folder.name, prompt, scored if scored.is_file() else None)
            )
        if not parts:
            raise RunError(f"{path}: an evaluation run with no scored (task, mode) yet")
        order = {name: index for index, name in enumerate(settings.get("tasks", []))}
        modes = {name: index for index, name in enumerate(settings.get("modes", []))}
        return sorted(parts, key=lambda part: (order.get(part.task, len(order)), modes.get(part.mode, len(modes))))
    if (folder / "summary.json").is_file():
        return [_part(str(path), folder, None, {}, _scored_of(folder))]
    if (folder / "report" / "summary.json").is_file():  # an eval's DIR/<task>/<mode>, or score's folder above
        return [_part(str(path), folder / "report", None, {}, _scored_of(folder / "report"))]
    raise RunError(f"{path}: neither an evaluation run (eval.json) nor a score report (summary.json)")


def _shown_questions(entry: Mapping[str, Any]) -> str:
    sha = str(entry.get("sha256", ""))
    return f"{entry.get('file', '?')} ({sha[:12]})" if sha else str(entry.get("file", "?"))


def difference(first: RunPart, second: RunPart) -> str | None:
    """What ``first`` and ``second`` were not computed alike over, in one phrase, or ``None``.

    The question sets are compared by checksum, then :data:`SETTINGS` (the ``eval``
    prompt settings only where both runs record them).

    Parameters
    ----------
    first, second : RunPart

    Returns
    -------
    str or None
    """
    if first.task != second.task:
        return f"different tasks ({first.task} and {second.task})"
    one, other = first.questions.get("sha256"), second.questions.get("sha256")
    if one != other:
        return f"different question files: {_shown_questions(first.questions)} and {_shown_questions(second.questions)}"
    for key in SETTINGS:
        if key in first.settings and key in second.settings and first.settings[key] != second.settings[key]:
            return f"different {key.replace('_', ' ')}: {first.settings[key]} and {second.settings[key]}"
    return None


def doubts(parts: Sequence[RunPart]) -> list[str]:
    """One line per part whose scored rows the run's manifest does not vouch for (an unfinished or changed run).

    Parameters
    ----------
    parts : sequence of RunPart

    Returns
    -------
    list of str
    """
    from benchmarks.manifests import vouches_for

    found = []
    for part in parts:
        doubt = vouches_for(part.scored) if part.scored is not None else None
        if doubt is not None:
            found.append(f"{part.run} {part.label}: {part.scored}: {doubt}")
    return list(dict.fromkeys(found))


def refuse_incomplete(parts: Sequence[RunPart], *, allow: bool, command: str) -> list[str]:
    """One line per incomplete part (see the module notes), for the table's notes; refused unless ``allow``.

    Parameters
    ----------
    parts : sequence of RunPart
        The parts used.
    allow : bool
        Admit incomplete parts (``--allow-partial``).
    command : str
        The command, for the message.

    Returns
    -------
    list of str

    Raises
    ------
    RunError
        An incomplete part, without ``allow``: the first one, named with why, and the option that admits it.
    """
    found = [f"{part.run} {part.label}: {part.incomplete}" for part in parts if part.incomplete is not None]
    if found and not allow:
        raise RunError(f"{found[0]}; pass --allow-partial to {command} it anyway, marked partial")
    return list(dict.fromkeys(found))


def _row_parser(obj: Any, *, where: str) -> Mapping[str, Any]:
    from benchmarks.errors import InvalidRecord

    if not isinstance(obj, dict):
        raise InvalidRecord(f"{where}: a scored row must be an object")
    for name in ("id", "model"):
        if not isinstance(obj.get(name), str) or not obj[name]:
            raise InvalidRecord(f"{where}: field {name!r} must be a non-empty string")
    return obj


def read_scored(path: Path) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The rows of a scored file (``id`` and ``model`` checked; the rest read per metric) and the bad lines.

    Parameters
    ----------
    path : Path
        A scored file (``score --out``, a run's ``scored.jsonl``).

    Returns
    -------
    rows : list of mapping
        The good rows, in file order.
    problems : list of str
        Each bad line, ``FILE:LINE: what is wrong``.
    """
    from benchmarks.jsonl import read_jsonl

    rows, problems = read_jsonl(path, _row_parser)
    return rows, [str(problem) for problem in problems]


def write_record(
    out: str | Path,
    stem: str,
    command: str,
    record: Mapping[str, Any],
    *,
    markdown: Callable[[Mapping[str, Any]], str],
    csv: Callable[[Mapping[str, Any]], str],
    plot: Callable[[Mapping[str, Any], Path], list[Path]],
    figures: bool = True,
) -> list[Path]:
    """Write a record read from runs as ``stem.md``, ``.json``, ``.csv`` and, with ``figures``, its plot into
    ``out`` (each atomically; the manifest, naming ``command``, last); returns the paths written.

    Without ``figures``, the figures (``stem.png``, ``stem.pdf``) that an earlier run of a command wrote
    there and recorded in the manifest are removed: they would not match the new tables. A file of the same
    name that no run recorded is the user's, and stays.

    Parameters
    ----------
    out : str or Path
        The folder.
    stem : str
        The files' stem.
    command : str
        The command, in the manifest.
    record : mapping
        The record (JSON-ready).
    markdown, csv : callable
        The record as Markdown, and as CSV.
    plot : callable
        ``plot(record, png)``: its figure.
    figures : bool, optional
        Draw the figure.

    Returns
    -------
    list of Path
    """
    from benchmarks.manifests import MANIFEST, begin_outputs, remove_stale, write_manifest
    from benchmarks.summaries import write_summary, write_text

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise RunError(f"--out {out}: a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    # the names the run before recorded stay recorded until this one ends: its figures are removed only if it wrote them
    manifest = begin_outputs(folder / MANIFEST, command, keep_recorded=True)
    written = [
        write_text(folder / f"{stem}.md", markdown(record)),
        write_summary(folder / f"{stem}.json", record),
        write_text(folder / f"{stem}.csv", csv(record)),
    ]
    if figures:
        written.extend(plot(record, folder / f"{stem}.png"))
    else:
        remove_stale(folder, (f"{stem}.png", f"{stem}.pdf"))
    write_manifest(manifest, written, command)
    return written
