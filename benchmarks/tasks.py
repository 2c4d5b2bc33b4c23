"""The task registry: every benchmark the toolkit evaluates, behind one interface.

A task (``route``: ReasonMap short and long route questions; ``plus``:
ReasonMap-Plus counting and true/false questions; ``mapqa``:
OmniMapBench-style map QA; ``probe``: perception probes on the same maps) is
one frozen :class:`Task` record of data and callables, kept in its own folder
(``benchmarks/<folder>/task.py``): how to recognise, load and generate its
question files, what each question asks (:class:`Prompt`, dressed by a prompt
mode in :mod:`baselines.prompts`), how to read, score (under each
:class:`Variant`) and aggregate answers, its solvers, its samples for the
visual dependency index, where its maps come from (:class:`MapPolicy`), and
how to report and compare. Every command that takes questions finds the task
of a file here (:func:`detect_task`) or by name (:func:`get_task`); the
application (``reasonmap``) is the same for all of them and never asks a
task's name what to do.

Tasks are imported when first asked for, so the registry costs nothing to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from benchmarks.task_types import (
    CarriedMaps,
    Explain,
    Export,
    Loaded,
    Make,
    Prompt,
    Reader,
    ReadOptions,
    Resolve,
    Score,
    ScoreOptions,
    Solve,
    Summarize,
    SummaryExtras,
    WriteReport,
)
from graphkit.choices import check_choice

if TYPE_CHECKING:
    from benchmarks.metrics import MetricSpec
    from benchmarks.samples import SampleSet

__all__ = [
    "Loaded",
    "Prompt",
    "ReadOptions",
    "Reader",
    "ScoreOptions",
    "Resolve",
    "SummaryExtras",
    "Variant",
    "Make",
    "CarriedMaps",
    "Score",
    "Summarize",
    "WriteReport",
    "Explain",
    "Export",
    "Solve",
    "Generation",
    "MapPolicy",
    "InspectSpec",
    "Task",
    "TASKS",
    "RECOGNISERS",
    "task_names",
    "generated_task_names",
    "variant_names",
    "source_names",
    "weighting_names",
    "solver_names",
    "get_task",
    "detect_task",
    "results_of",
    "imported",
]


#: A variant's scoring step: its type is its task's own.
S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Variant(Generic[S]):
    """A named way of judging a task's answers (``score --variant NAME``).

    Attributes
    ----------
    name, description : str
        Its name, and what it does in a line.
    score : S
        The task's scoring step under this variant; its type is the task's own (only the task's ``score``
        calls it).
    summary_extras : SummaryExtras or None
        When given, adds keys to the summary.
    model_paths : mapping of str to str
        The public scripts' model paths whose answer rules the variant follows, to their rule
        (``--official-model`` is checked against every task's).
    options : tuple of str
        The resolved options (:attr:`ScoreOptions.extra`) its step takes as keywords; the others never
        reach it.
    former_names : tuple of str
        Names it had before, still taken for it (``--variant paper`` on plus questions is ``toolkit``).
    """

    name: str
    description: str
    score: S
    summary_extras: SummaryExtras | None = None
    model_paths: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    options: tuple[str, ...] = ()
    former_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Generation:
    """How a task's questions are generated from transit graphs (``reasonmap generate --task``, ``eval --split``).

    Attributes
    ----------
    make : Make
        ``make(graphs, *, seed, progress, **settings)``: the question records.
    defaults : mapping of str to object
        The settings ``eval`` uses and the command line shows (every key is one ``generate`` option,
        ``per_city`` → ``--per-city``).
    describe : callable
        ``describe(questions)``: the small table printed after.
    noun : str
        Names the records in the closing line ("wrote 12 plus questions").
    """

    make: Make
    defaults: Mapping[str, Any]
    describe: Callable[[Sequence[Any]], str]
    noun: str = "questions"


@dataclass(frozen=True, slots=True)
class MapPolicy:
    """Where the map of a question comes from.

    Attributes
    ----------
    own_images : bool
        Each question names its own image (a path relative to the maps folder, else to its question file's
        folder); otherwise a question is asked about its city's map, ``<city>.png`` in the maps folder.
    carried : CarriedMaps or None
        ``carried(source, folder, before_write)``, when given, writes the maps a question file carries into
        ``folder`` (the public data set's figures) and returns ``(written, problems)``, or ``None`` when
        ``source`` carries none.
    """

    own_images: bool = False
    carried: CarriedMaps | None = None


@dataclass(frozen=True, slots=True)
class InspectSpec:
    """How a task runs as the Inspect AI task ``reasonmap/<name>`` (:mod:`reasonmap.inspect_tasks` builds it).

    The task takes ``mode, split, questions, maps``, then its own ``options``, then ``seed,
    pixel_budget``; it is asked in the record's ``modes``.

    Attributes
    ----------
    options : mapping of str to object
        The task's own Inspect options (name → default, in this order).
    question_set : str
        The ``module:function`` (in the task's folder) that gives, from ``(questions, split, seed)``, the
        questions by id (the file's, else the split generated with the generator's defaults; a file without
        one readable question raises ``ValueError``), the graph of a question's city (``None``: the embedded
        city's), and the records skipped (shown in Inspect's log).
    scorer : str
        The ``module:function`` of the Inspect scorer factory (its module imports Inspect), called with the
        task's settings its parameters name.
    sample : callable
        ``sample(question, kind)``: the sample id and metadata of one request.
    dataset : str
        Prefixes a generated set's name (``<dataset>-<split>-seed<seed>``).
    kinds : tuple of str
        When given, the request kinds the ``kinds`` option picks from (``"both"``: all of them).
    carried_maps : callable or None
        ``carried_maps(questions, folder)``, when given, writes the maps a question file carries into
        ``folder`` and returns ``(written, problems)``, or ``None`` when it carries none.
    """

    options: Mapping[str, Any]
    question_set: str
    scorer: str
    sample: Callable[[Any, str], tuple[str, Mapping[str, Any]]]
    dataset: str
    kinds: tuple[str, ...] = ()
    carried_maps: Callable[[str, str], tuple[list[Path], list[Any]] | None] | None = None


@dataclass(frozen=True, slots=True)
class Task:
    """Everything the toolkit knows about one task, and the only place that knows it.

    The application (``reasonmap``) composes these fields and never asks a
    task's name what to do. Callables are plain functions of the task's
    module (a record's fields are not methods: nothing is bound), typed by the
    protocols of :mod:`benchmarks.task_types` (:class:`Reader`,
    :class:`Score`, :class:`Summarize`, ...).

    Attributes
    ----------
    name, title
        The registry key and a line for people.
    modes
        The prompt modes its questions can be asked in (``full`` and ``text-only`` always).
    variants
        The scoring variants, the default first.
    weightings, default_weighting
        The weighting schemes ``score --weighting`` takes for it, and its own.
    solvers
        The symbolic solvers ``reasonmap baseline`` has for it; ``solve`` names
        (``module:function``, on floor 3: the solvers read the textualized
        map) the function ``(name, questions, graph_for, *, seed, settings)
        -> predictions`` that runs them.
    recognise(path) -> bool
        Whether a file holds this task's questions (by its first record).
    load(path) -> Loaded
        The questions of a file; bad records are reported, never raised.
    prompts(question) -> list[Prompt]
        What is asked for one question, one prompt per request.
    readers
        Harness name (``score --from``) → :class:`Reader` of its prediction files, the toolkit's own
        (``jsonl``) first.
    claims(path, source) -> bool
        Whether a file of a harness another task reads too is this task's (``reasonmap predictions``, which
        has no question file to tell; ``None``: it claims none, and the first task reading the harness in
        the registry's order takes the files no task claims).
    answer_key(prediction) -> Hashable
        What makes a prediction a repeat of another (the first answer counts).
    score(loaded, predictions, options, executor) -> (verdicts, messages)
        Verdicts in input order under ``options.variant``, and one message per prediction skipped.
    summarize(verdicts, loaded, options, inputs, problems) -> dict
        The summary: per model, the task's metrics (``models``), and what was read (``inputs``).
    write_report(directory, summary, *, figures) -> list[Path]
        ``summary.json``, ``table.md`` and, with ``figures``, the task's figures.
    table(summary) -> str
        The summary as a markdown table.
    explain(evaluations, loaded, predictions, variants, options) -> (record, markdown)
        Why two variants' numbers differ (``score --explain``); ``None`` with fewer than two variants.
    generation
        How its questions are generated (``None``: they are only read from files).
    samples(loaded, maps, source) -> SampleSet
        Its questions with their map images, for the visual dependency index (``reasonmap vdi``).
    maps
        Where its questions' maps come from.
    metrics
        Its metric records (:class:`benchmarks.metrics.MetricSpec`), the headline ones in the order
        ``results.md`` and the tables print them; those naming a scored-row ``field`` are what
        ``reasonmap compare`` and ``leaderboard`` compute and show (:func:`benchmarks.metrics.compared`).
    inspect
        How it runs as an Inspect AI task (``None``: it is not one).
    export(loaded, out, *, figure, metro) -> int
        Writes its questions as a Hugging Face dataset folder ``out`` in the public data set's schema
        (``reasonmap export --format hf``; ``figure(question)`` the map's bytes or ``None``, ``metro`` a
        Metro Data for every question or ``None``) and returns how many; ``None``: it has no such schema.
    options
        Its own scoring options beyond :class:`ScoreOptions`' (name → default), given by name
        (``ScoreSettings.options``; a name another task declares is left to that task).
    resolve
        Makes the given options what its scoring takes, once per run (:class:`Resolve`; ``None``: as given);
        the result is :attr:`ScoreOptions.extra`.
    """

    name: str
    title: str
    modes: tuple[str, ...]
    variants: tuple[Variant[Any], ...]
    weightings: tuple[str, ...]
    default_weighting: str
    solvers: tuple[str, ...]
    recognise: Callable[[Path], bool]
    load: Callable[[str | Path], Loaded]
    prompts: Callable[[Any], list[Prompt]]
    readers: Mapping[str, Reader]
    answer_key: Callable[[Any], Hashable]
    score: Score
    summarize: Summarize
    write_report: WriteReport
    table: Callable[[Mapping[str, Any]], str]
    samples: Callable[[Loaded, Path | None, Path], SampleSet]
    metrics: tuple[MetricSpec, ...]
    maps: MapPolicy = MapPolicy()
    explain: Explain | None = None
    generation: Generation | None = None
    solve: str | None = None
    inspect: InspectSpec | None = None
    export: Export | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    resolve: Resolve | None = None
    claims: Callable[[Path, str], bool] | None = None

    @property
    def variant_names(self) -> tuple[str, ...]:
        """The names ``score --variant`` takes for this task, the default first."""
        return tuple(variant.name for variant in self.variants)

    def resolve_variant(self, name: str) -> str:
        """The present name of the variant called ``name``: itself, or the variant it is a former name of.

        Parameters
        ----------
        name : str
            A variant's name or former name (older scripts' ``--variant paper`` on plus or map QA questions).

        Returns
        -------
        str
            The variant's name; a name of no variant comes back as it is, for the caller's own error.
        """
        if name in self.variant_names:
            return name
        return next((variant.name for variant in self.variants if name in variant.former_names), name)

    def variant(self, name: str) -> Variant[Any]:
        """The variant called ``name`` (or formerly called so: :meth:`resolve_variant`).

        Raises
        ------
        ValueError
            Not one of the task's; the message lists them (:class:`graphkit.choices.UnknownChoice`).
        """
        chosen = check_choice(self.resolve_variant(name), self.variant_names, what=f"{self.name} scoring variant")
        return next(variant for variant in self.variants if variant.name == chosen)

    def reader(self, source: str) -> Reader:
        """The reader of prediction files written by ``source``.

        Raises
        ------
        ValueError
            The task reads no such files; the message lists those it reads.
        """
        return self.readers[check_choice(source, tuple(self.readers), what=f"{self.name} prediction source")]

    def solver(self) -> Solve:
        """The function that runs this task's symbolic solvers (imported when first asked for).

        Raises
        ------
        ValueError
            The task has no solver.
        """
        if self.solve is None:
            raise ValueError(f"{self.name} questions have no solver")
        return imported(self.solve)


def imported(where: str) -> Any:
    """The object a ``module:attribute`` string names, imported when first asked for.

    Parameters
    ----------
    where : str
        ``module:attribute``, the module's dotted name.

    Returns
    -------
    object
        The attribute.

    Examples
    --------
    >>> imported("benchmarks.tasks:task_names") is task_names
    True
    """
    module, attribute = where.split(":")
    return getattr(importlib.import_module(module), attribute)


#: Task name -> ``module:attribute`` of its registry entry.
TASKS: dict[str, str] = {
    "route": "benchmarks.reasonmap.task:ROUTE",
    "plus": "benchmarks.plus.task:PLUS",
    "mapqa": "benchmarks.mapqa.task:MAPQA",
    "probe": "benchmarks.probe.task:PROBE",
}
# Recognised in this order: the route task reads any other file (the public data set's too), so it comes last.
_DETECTION_ORDER = ("mapqa", "plus", "probe", "route")
#: Task name -> ``module:attribute`` of its record's ``recognise``, for the tasks whose record lives in a module
#: heavier than that function's: telling a file's task imports only the task it is (a test checks they agree).
RECOGNISERS: dict[str, str] = {
    "mapqa": "benchmarks.mapqa.io:is_mapqa_file",
    "plus": "benchmarks.plus.loading:is_plus_file",
    "probe": "benchmarks.probe.io:is_probe_file",
}


def task_names() -> tuple[str, ...]:
    """The registered tasks' names.

    Returns
    -------
    tuple of str
        The names, in the registry's order (the command line's ``--task`` choices).

    Examples
    --------
    >>> task_names()[:3]  # the first ones; a new task comes after them
    ('route', 'plus', 'mapqa')
    """
    return tuple(TASKS)


def generated_task_names() -> tuple[str, ...]:
    """The tasks whose questions are generated (their record has a ``generation``), in the registry's order.

    Returns
    -------
    tuple of str
        Their names (``generate --task`` and ``eval --tasks``' default).
    """
    return tuple(name for name in TASKS if get_task(name).generation is not None)


def variant_names() -> tuple[str, ...]:
    """Every task's scoring variants, each once, in the registry's order.

    Returns
    -------
    tuple of str
        Their names (``score --variant``'s choices; each task takes its own).
    """
    return tuple(dict.fromkeys(name for task in TASKS for name in get_task(task).variant_names))


def source_names() -> tuple[str, ...]:
    """Every task's prediction sources (the harnesses of ``score --from``), each once, in the registry's order.

    Returns
    -------
    tuple of str
        The harnesses' names, the toolkit's own ``jsonl`` first (each task reads those of its ``readers``).
    """
    return tuple(dict.fromkeys(name for task in TASKS for name in get_task(task).readers))


def weighting_names() -> tuple[str, ...]:
    """Every task's weightings, each once, in the registry's order.

    Returns
    -------
    tuple of str
        Their names (``score --weighting``'s choices).
    """
    return tuple(dict.fromkeys(name for task in TASKS for name in get_task(task).weightings))


def solver_names() -> tuple[str, ...]:
    """Every task's symbolic solvers, each once, in the registry's order.

    Returns
    -------
    tuple of str
        Their names (``baseline``'s choices).
    """
    return tuple(dict.fromkeys(name for task in TASKS for name in get_task(task).solvers))


def get_task(name: str) -> Task:
    """The task called ``name``.

    Parameters
    ----------
    name : str
        A registered task's name (:func:`task_names`).

    Returns
    -------
    Task
        Its record (its module is imported on first use).

    Raises
    ------
    ValueError
        An unknown name; the message lists the known ones.

    Examples
    --------
    >>> get_task("plus").name
    'plus'
    >>> get_task("maps")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphkit.choices.UnknownChoice: task must be one of ['route', 'plus', 'mapqa', ...], got 'maps'
    """
    return imported(TASKS[check_choice(name, TASKS, what="task")])


def detect_task(path: str | Path) -> Task:
    """The task whose questions ``path`` holds (told by the first record; route when no other task claims it).

    Parameters
    ----------
    path : str or Path
        A question file (or a public data set's folder).

    Returns
    -------
    Task
        The first task in detection order whose ``recognise`` claims the file.
    """
    for name in _DETECTION_ORDER:
        recognise = imported(RECOGNISERS[name]) if name in RECOGNISERS else get_task(name).recognise
        if recognise(Path(path)):
            return get_task(name)
    raise AssertionError(f"unreachable: {_DETECTION_ORDER[-1]} claims every file")


def results_of(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per model of a task's summary: ``model``, ``n``, ``n_invalid``, its scalar metrics and, where the
    summary has them, the headline metrics' ``intervals``.

    Parameters
    ----------
    summary : mapping
        A task's summary (``summary.json``).

    Returns
    -------
    list of dict
        One row per model, in the summary's order: ``model``, ``n``, ``n_invalid``, ``metrics`` (the scalar
        ones, by name) and, where it has them, ``intervals``.

    Examples
    --------
    >>> results_of({"models": {"m": {"n": 4, "n_invalid": 1, "accuracy": 0.5, "per_type": {}}}})
    [{'model': 'm', 'n': 4, 'n_invalid': 1, 'metrics': {'accuracy': 0.5}}]
    """
    rows = []
    for model, row in summary.get("models", {}).items():
        metrics = {
            key: value
            for key, value in sorted(row.items())
            if key not in ("n", "n_invalid") and isinstance(value, int | float) and not isinstance(value, bool)
        }
        found = {"model": model, "n": row.get("n", 0), "n_invalid": row.get("n_invalid", 0), "metrics": metrics}
        if row.get("intervals"):  # the headline metrics' (:mod:`benchmarks.intervals`)
            found["intervals"] = row["intervals"]
        rows.append(found)
    return rows
