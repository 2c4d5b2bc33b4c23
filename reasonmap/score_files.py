"""Scoring files end to end, for every task: questions and predictions in, scored rows and a report out.

This is what ``reasonmap score`` and ``reasonmap eval`` run. The task of the
question file is found in the registry (:mod:`benchmarks.tasks`). Bad records
in either file are reported and skipped (nothing else is lost); predictions
that answer no question, and repeated answers to one question by one model,
are reported too (the first answer counts; answers numbered by ``repeat``,
from repeated sampling, are each scored). :func:`explain_files` scores with
two variants and writes why they differ. The report folder's ``manifest.json``
is written last (:mod:`benchmarks.manifests`): it vouches for the scored rows and
the report of one complete run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from benchmarks.harness_rows import harness_files
from benchmarks.jsonl import Note, PartialRun, Problem, first_answers, write_jsonl
from benchmarks.manifests import MANIFEST, begin_outputs, write_manifest
from benchmarks.provenance import input_entry
from benchmarks.tasks import Loaded, Reader, ReadOptions, ScoreOptions, Task, detect_task, get_task, task_names
from graphkit.choices import check_choice
from graphkit.files import folder_lock

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = [
    "scoring_variants",
    "Evaluation",
    "Explanation",
    "ScoreSettings",
    "task_of",
    "evaluate_files",
    "explain_files",
    "read_prediction_files",
    "read_official_model",
    "collector_paused",
]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What scoring files produced: the task, verdicts, summary, the problems reported and the report's files.

    Attributes
    ----------
    verdicts : tuple
        The task's verdicts, as written to the scored rows.
    summary : dict
        What ``summary.json`` holds.
    problems : tuple of str
        The records skipped and the predictions not scored, one message each.
    report_files : tuple of Path
        The report's files, as written.
    task : str
        The task's name.
    notes : tuple of str
        How the predictions file was read, where the user should check it (how rows were matched to
        questions).
    """

    verdicts: tuple[Any, ...]
    summary: dict[str, Any]
    problems: tuple[str, ...]
    report_files: tuple[Path, ...]
    task: str = "route"
    notes: tuple[str, ...] = ()


def task_of(questions_path: str | Path, task: str | None = None) -> Task:
    """The task named ``task``, else the one whose questions the file holds.

    Parameters
    ----------
    questions_path : str or Path
        A question file of any task.
    task : str, optional
        A registered task's name (:func:`benchmarks.tasks.task_names`).

    Returns
    -------
    Task
        Its record.
    """
    return get_task(task) if task is not None else detect_task(questions_path)


def scoring_variants() -> tuple[str, ...]:
    """Every task's scoring variants' names, each once, in the registry's order.

    Returns
    -------
    tuple of str
        As :func:`benchmarks.tasks.variant_names`.
    """
    from benchmarks.tasks import variant_names

    return variant_names()


def _given(task: Task, settings: ScoreSettings) -> dict[str, Any]:
    """The task's own options (:attr:`~benchmarks.tasks.Task.options`) as given, else their defaults; before
    any work: a name no task declares, an unknown variant or official model path is refused (another task's
    option is left to it: ``eval`` gives every task its ``metro_dir``)."""
    from benchmarks.official_rules import check_official_models

    for name, value in settings.options.items():
        if name not in task.options and value is not None:  # another task's, or none's (each task imported)
            declared = {option for other in task_names() for option in get_task(other).options}
            check_choice(name, sorted(declared), what="score option")
    task.variant(settings.variant)  # an unknown name lists the task's
    if settings.options.get("official_model") is not None:  # checked against every task's paths
        check_official_models(settings.options["official_model"], table=_public_models())
    return {name: settings.options.get(name, default) for name, default in task.options.items()}


def _options(
    task: Task, settings: ScoreSettings, given: Mapping[str, Any], models: set[str], where: str
) -> ScoreOptions:
    """What the task's scoring steps take: the settings', and its own options resolved for the run's models."""
    extra = task.resolve(given, models, where) if task.resolve is not None else given
    variant = task.resolve_variant(settings.variant)  # a former name is its variant's (summaries record it)
    return ScoreOptions(settings.weighting, variant, settings.cluster, MappingProxyType(dict(extra)))


def _reading(settings: ScoreSettings, loaded: Loaded) -> ReadOptions:
    """What the readers of another harness's files are told: the settings' and the question file's."""
    return ReadOptions(settings.model, settings.kind, tuple(loaded.questions), loaded.questions, settings.partial)


def _public_models() -> dict[str, str]:
    """Every model path of the public scripts whose answer rules a variant of a task follows."""
    return {
        path: rule
        for name in task_names()
        for variant in get_task(name).variants
        for path, rule in variant.model_paths.items()
    }


def read_official_model(text: str) -> str | dict[str, str]:
    """``--official-model``: a model path of the public scripts, or a JSON file mapping run names to paths.

    Parameters
    ----------
    text : str
        The option's value: a model path, or a JSON file's path (a regular file).

    Returns
    -------
    str or dict of str to str
        The model path, or the file's run names to paths.

    Raises
    ------
    ValueError
        The file is no JSON object of strings, or a path is not one of the public scripts'.
    """
    import json
    import os
    import stat

    from benchmarks.official_rules import check_official_models

    path = Path(text)
    try:
        mode = os.stat(path).st_mode  # never opened unless regular: a FIFO would block the read
    except (OSError, ValueError):
        mode = None
    if mode is None or not stat.S_ISREG(mode):
        try:
            check_official_models(text, table=_public_models())
        except ValueError:
            if mode is None:
                raise
            raise ValueError(
                f"--official-model: {text}: not a regular file (give a model path or a JSON file)"
            ) from None
        return text  # a model path, even where a folder of that name exists (its downloaded weights, say)
    try:
        mapping = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a JSON object of run names to model paths: {error}") from None
    if not isinstance(mapping, dict) or not all(isinstance(name, str) for name in mapping):
        raise ValueError(f"{path}: must be a JSON object of run names to model paths")
    check_official_models(mapping, table=_public_models(), where=str(path))
    return mapping


@dataclass(frozen=True, slots=True)
class ScoreSettings:
    """How files are scored (``reasonmap score``), everything but the files: built once by the command line.

    Attributes
    ----------
    task : str or None
        The task's name (default: told from the question file).
    weighting : str or None
        A weighting scheme of the task (default: the task's).
    variant : str
        A scoring variant of the task, or a former name of one (plus's ``paper`` is ``toolkit``).
    source : str
        Who wrote the predictions: the toolkit (``jsonl``), or another harness whose files are mapped onto
        prediction rows (the task's ``readers``: route reads ``lmms-eval``, ``vlmevalkit`` and ``inspect``,
        plus ``vlmevalkit``).
    model, kind : str or None
        What another harness's files leave out: the model's name, the question kind.
    partial : bool
        Take the finished samples of a run that failed.
    cluster : str
        What the printed intervals resample: ``question``, or ``map`` (maps, then questions).
    figures : bool
        ``False`` writes the report's tables only (no plotting library is imported).
    ordered : bool
        Write the verdicts in the question file's order (then kind, model and repeat) instead of the
        predictions' (a model client appends answers as they come).
    options : mapping of str to object
        The task's own options (:attr:`benchmarks.tasks.Task.options`; each task takes those it declares):
        route's ``graph``, every question's city when given, and ``metro_dir``, a folder of Metro Data files
        named after their cities; route's and plus's ``official_model`` (their variant ``official``), the public
        scripts' model path of every model, or a run name → path mapping (by default each model's own name
        chooses its answer rule).
    """

    task: str | None = None
    weighting: str | None = None
    variant: str = "paper"
    source: str = "jsonl"
    model: str | None = None
    kind: str | None = None
    partial: bool = False
    cluster: str = "question"
    figures: bool = True
    ordered: bool = False
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def evaluate_files(
    questions_path: str | Path,
    predictions_path: str | Path | Sequence[str | Path],
    *,
    out: str | Path,
    report_dir: str | Path,
    settings: ScoreSettings = ScoreSettings(),
    executor: Executor | None = None,
) -> Evaluation:
    """Score a predictions file against a question file of any task; write scored rows and the report.

    The cyclic garbage collector is paused meanwhile (:func:`collector_paused`).

    Parameters
    ----------
    questions_path
        Question records of any task (the toolkit's, or the public data sets').
    predictions_path
        One predictions file, or several (lmms-eval: the short and the long log, or the model's folder).
    out
        The scored rows to write (JSON Lines).
    report_dir
        The folder of ``summary.json``, ``table.md`` and, with ``settings.figures``, the figures.
    settings
        How the files are read and scored (:class:`ScoreSettings`).
    executor
        With one (:mod:`graphkit.executors`), blocks of route predictions are scored by its workers; the
        outputs are the same byte for byte.

    Returns
    -------
    Evaluation
        The verdicts, the summary, the problems reported and the report's files.

    Raises
    ------
    ValueError
        An unknown task, source, variant or option, or another harness's predictions the task has no reader for.
    """
    with collector_paused():
        return _evaluate(
            questions_path, predictions_path, out=out, report_dir=report_dir, settings=settings, executor=executor
        )


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector in the block, and restore it as it was.

    Yields
    ------
    None
        Inside the block, the collector is off.

    Scoring makes a few records per answer (rows read, sections, verdicts, their groups), none in a cycle,
    and keeps them to the end: each pass of the collector walks them all again (0.4 of the 5 CPU seconds of
    ``score`` at 22,876 answers). Reference counting still frees everything else at once; the few hundred
    objects left in cycles wait for the collector's next pass.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _evaluate(
    questions_path: str | Path,
    predictions_path: str | Path | Sequence[str | Path],
    *,
    out: str | Path,
    report_dir: str | Path,
    settings: ScoreSettings,
    executor: Executor | None,
) -> Evaluation:
    """:func:`evaluate_files`, with the collector paused."""
    found = task_of(questions_path, settings.task)
    given = _given(found, settings)
    read = found.reader(settings.source)  # a source the task has no reader for lists those it has
    loaded = found.load(questions_path)
    files = harness_files(predictions_path, settings.source)
    label = files[0] if len(files) == 1 else ", ".join(str(path) for path in files)
    predictions, prediction_problems = read_prediction_files(read, files, _reading(settings, loaded))
    kept, repeated = first_answers(predictions, found.answer_key, label)
    options = _options(found, settings, given, {prediction.model for prediction in kept}, str(label))
    notes = tuple(str(problem) for problem in prediction_problems if isinstance(problem, Note))
    problems = [
        *loaded.problems,
        *(str(problem) for problem in prediction_problems if not isinstance(problem, Note)),
        *repeated,
    ]
    verdicts, skipped = found.score(loaded, kept, options, executor)
    problems.extend(f"{label}: {message}" for message in skipped)
    if settings.ordered:
        position = {id: index for index, id in enumerate(loaded.questions)}
        verdicts.sort(
            key=lambda v: (
                position.get(v.id, len(position)),
                str(getattr(v, "question", "")),
                v.model,
                getattr(v, "repeat", 0),
            )
        )
    # only now, before the first write: bad arguments or unreadable files leave a good report vouched for
    # the names of the run before stay recorded until this one ends: its figures are removed only if it wrote them
    with folder_lock(report_dir, "score"):  # one writer per report folder
        manifest = begin_outputs(Path(report_dir) / MANIFEST, "score", keep_recorded=True)  # a killed run says so
        write_jsonl(out, verdicts)
        # file names, not paths: the same inputs give the same summary wherever they lie
        # one file: its entry as ever; several (lmms-eval's short and long logs): one entry each
        entries = [input_entry(path) for path in files]
        inputs = {"questions": input_entry(questions_path), "predictions": entries[0] if len(files) == 1 else entries}
        summary = found.summarize(verdicts, loaded, options, inputs, problems)
        partial = next((problem for problem in prediction_problems if isinstance(problem, PartialRun)), None)
        if partial is not None:  # marked in summary.json and table.md; compare and leaderboard refuse it unless told
            summary = {**summary, "partial": partial.to_dict()}
        files = found.write_report(report_dir, summary, figures=settings.figures)
        write_manifest(manifest, [out, *files], "score")
    return Evaluation(tuple(verdicts), summary, tuple(problems), tuple(files), found.name, notes)


def read_prediction_files(
    read: Reader, files: Sequence[str | Path], options: ReadOptions
) -> tuple[list[Any], list[Problem]]:
    """The predictions ``read`` (a task's reader, :attr:`benchmarks.tasks.Task.readers`) finds in every file, in
    order, and what each file's reading reported.

    Each file tells its own kind (lmms-eval: the task name in the file name, or the rows' documents);
    see :func:`benchmarks.harness_rows.harness_files` for the files a folder stands for.

    Parameters
    ----------
    read : Reader
        The task's reader of the harness that wrote the files.
    files : sequence of str or Path
        The prediction files, in order.
    options : ReadOptions
        What the reader is told beside each file.

    Returns
    -------
    predictions : list
        The task's prediction records, file after file.
    problems : list of Problem
        What each file's reading reported (records skipped, notes).
    """
    predictions: list[Any] = []
    problems: list[Problem] = []
    for path in files:
        found, skipped = read(path, options)
        predictions.extend(found)
        problems.extend(skipped)
    return predictions, problems


@dataclass(frozen=True, slots=True)
class Explanation:
    """What scoring files with two variants produced: each evaluation, why they differ, and the files.

    Attributes
    ----------
    evaluations : mapping of str to Evaluation
        Each variant's, by name, in the order asked.
    explanation : dict
        Why their numbers differ (``compare.json``).
    files : tuple of Path
        The explanation's files (``compare.json``, ``compare.md``).
    """

    evaluations: Mapping[str, Evaluation]
    explanation: dict[str, Any]
    files: tuple[Path, ...]


def explain_files(
    questions_path: str | Path,
    predictions_path: str | Path | Sequence[str | Path],
    *,
    out: str | Path,
    report_dir: str | Path,
    variants: tuple[str, str] = ("paper", "official"),
    settings: ScoreSettings = ScoreSettings(),
) -> Explanation:
    """Score with two variants, side by side, and charge their difference to causes.

    Each variant's scored rows go to ``<out stem>.<variant><suffix>`` and its report to
    ``<report_dir>/<variant>/``; ``compare.md`` and ``compare.json`` go to ``report_dir``.
    Route answers are explained by :mod:`benchmarks.reasonmap.attribution`; plus answers on accuracy,
    with one cause (``extraction``). This is ``reasonmap score --explain A,B``; ``reasonmap compare`` is
    the paired comparison of two runs.

    Parameters
    ----------
    questions_path, predictions_path, out, report_dir
        As for :func:`evaluate_files`; ``out`` names the scored rows' stem.
    variants : (str, str)
        Two different variants of the task (a former name counts as its variant: plus's ``paper`` is
        ``toolkit``).
    settings : ScoreSettings, optional
        As for :func:`evaluate_files` (their ``variant`` and ``ordered`` are not used).

    Returns
    -------
    Explanation
        Each variant's evaluation, the explanation record and the files written (``compare.md`` last).

    Raises
    ------
    ValueError
        The task has no explanation, the variants are not two different ones of the task, or what
        :func:`evaluate_files` refuses.
    """
    found = task_of(questions_path, settings.task)
    names = found.variant_names
    given_names, variants = list(variants), tuple(found.resolve_variant(name) for name in variants)  # plus's paper
    if found.explain is None or len(variants) != 2 or variants[0] == variants[1] or not set(variants) <= set(names):
        resolved = dict(zip(given_names, variants, strict=False))
        former = [f"{name} is the former name of {now}" for name, now in resolved.items() if now != name]
        said = f" ({', '.join(former)})" if former else ""
        raise ValueError(f"explain needs two different variants of {list(names)}, got {given_names}{said}")
    out, report = Path(out), Path(report_dir)
    first = replace(settings, variant=variants[0])
    given = _given(found, first)
    read = found.reader(settings.source)
    loaded = found.load(questions_path)
    files = harness_files(predictions_path, settings.source)
    predictions, _ = read_prediction_files(read, files, _reading(settings, loaded))
    label = files[0] if len(files) == 1 else ", ".join(map(str, files))
    kept, _ = first_answers(predictions, found.answer_key, label)
    options = _options(found, first, given, {prediction.model for prediction in kept}, str(label))
    # each variant's scoring: the settings as given, the task told, the rows in the predictions' order
    each = replace(settings, task=found.name, ordered=False)
    with folder_lock(report, "score --explain"):  # one writer per report folder (each variant's: its own lock)
        return _explain_locked(
            questions_path, predictions_path, found, variants, out, report, each, loaded, kept, options
        )


def _explain_locked(
    questions_path: str | Path,
    predictions_path: str | Path | Sequence[str | Path],
    found: Task,
    variants: tuple[str, str],
    out: Path,
    report: Path,
    settings: ScoreSettings,
    loaded: Any,
    kept: Sequence[Any],
    options: ScoreOptions,
) -> Explanation:
    """:func:`explain_files`'s writing, once this process holds the report folder's lock."""
    from benchmarks.reasonmap.attribution import write_explanation

    manifest = begin_outputs(report / MANIFEST, "score --explain")  # read, checked: the writing starts
    evaluations = {
        variant: evaluate_files(
            questions_path,
            predictions_path,
            out=out.with_name(f"{out.stem}.{variant}{out.suffix}"),
            report_dir=report / variant,
            settings=replace(settings, variant=variant),
        )
        for variant in variants
    }
    explanation, markdown = found.explain(evaluations, loaded, kept, variants, options)
    files = write_explanation(report, explanation, markdown)
    written = [path for evaluation in evaluations.values() for path in evaluation.report_files]
    outs = [out.with_name(f"{out.stem}.{variant}{out.suffix}") for variant in variants]
    write_manifest(manifest, [*outs, *written, *(report / variant / MANIFEST for variant in variants), *files], "score")
    return Explanation(evaluations, explanation, tuple(files))
