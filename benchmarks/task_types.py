"""What a task's record (:class:`benchmarks.tasks.Task`) is built from: the records its callables pass, and the
protocols that type them.

Each field of the record that holds a callable names one of these protocols, so that what it is called with and
what it returns is written once, here, and checked by a type checker in every task folder. The records are
what a question file becomes (:class:`Loaded`), what a request asks (:class:`Prompt`), what a reader of
prediction files is told (:class:`ReadOptions`) and how answers are judged (:class:`ScoreOptions`). Last, the
pieces several records are built from: :func:`loaded_by`, :func:`prediction_key`, :func:`typed_prompts`,
:func:`variant_scorer` and :func:`deferred`.
:mod:`benchmarks.tasks` re-exports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from benchmarks.jsonl import Problem
    from graphkit.executors import Executor
    from graphkit.graph import TransitGraph
    from graphkit.metro import MetroData

__all__ = [
    "Loaded",
    "Prompt",
    "ReadOptions",
    "ScoreOptions",
    "Reader",
    "Resolve",
    "SummaryExtras",
    "Make",
    "CarriedMaps",
    "Score",
    "Summarize",
    "WriteReport",
    "Explain",
    "Export",
    "Solve",
    "loaded_by",
    "prediction_key",
    "deferred",
    "typed_prompts",
    "variant_scorer",
]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A question file as its task read it.

    Attributes
    ----------
    questions : mapping of str to object
        The task's question records by id, in file order.
    problems : tuple of str
        The records skipped, and why.
    context : mapping of str to object
        What the file carried beside them (route files of the public data set carry their cities' Metro
        Data: ``metro``).
    """

    questions: Mapping[str, Any]
    problems: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What one request asks, before a prompt mode dresses it.

    Attributes
    ----------
    id : str
        The question's id.
    kind : str
        Tells the requests of one question apart (route: ``short`` and ``long``; plus: the question's type;
        map QA: ``mapqa``).
    text : str
        The question as asked.
    city, country : str or None
        The city whose map is asked about (looked up in a folder of maps, and its Metro Data for the symbolic
        modes).
    image : str or None
        Else the question's own image, a path relative to the maps folder.
    """

    id: str
    kind: str
    text: str
    city: str | None = None
    country: str | None = None
    image: str | None = None


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """What a reader of prediction files may need beside the file (:attr:`~benchmarks.tasks.Task.readers`).

    Attributes
    ----------
    model, kind : str or None
        What another harness's files do not say: the model's name, the question kind.
    positions : tuple of str
        The question file's ids in order (harnesses that name a question by its position).
    questions : mapping of str to object
        The question file's questions by id (what each row of another harness's file is checked against).
    partial : bool
        Take the finished samples of a run that failed.
    """

    model: str | None = None
    kind: str | None = None
    positions: tuple[str, ...] = ()
    questions: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    partial: bool = False


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """How answers are judged: what every task takes, and the task's own options.

    Attributes
    ----------
    weighting : str or None
        A weighting scheme of the task; ``None``: the task's default.
    variant : str
        One of the task's :class:`~benchmarks.tasks.Variant` names.
    cluster : str
        What the summary's printed intervals resample: ``question`` or ``map``
        (:data:`benchmarks.intervals.CLUSTERS`).
    extra : mapping of str to object
        The options the task declares (:attr:`~benchmarks.tasks.Task.options`), as its
        :attr:`~benchmarks.tasks.Task.resolve` made them for the run's models (route: where its cities' graphs
        come from, and each model's answer rule for variant ``official``).
    """

    weighting: str | None = None
    variant: str = "paper"
    cluster: str = "question"
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


class Reader(Protocol):
    """Reads one prediction file of one harness: the task's prediction records, and the records skipped."""

    def __call__(self, path: str | Path, options: ReadOptions, /) -> tuple[list[Any], list[Problem]]: ...


class Resolve(Protocol):
    """Makes a task's declared options (name → value given, else its default) what its scoring takes, once per
    run: ``models`` are the predictions' models, ``where`` names the predictions (for the messages).
    ``ValueError`` for a value that does not fit them."""

    def __call__(self, given: Mapping[str, Any], models: Set[str], where: str, /) -> Mapping[str, Any]: ...


class SummaryExtras(Protocol):
    """What a variant adds to a task's summary: keys and values from the verdicts, the questions and options."""

    def __call__(self, verdicts: Sequence[Any], loaded: Loaded, options: ScoreOptions, /) -> Mapping[str, Any]: ...


class Make(Protocol):
    """Generates a task's question records from transit graphs, with the task's own settings as keywords."""

    def __call__(
        self, graphs: Iterable[TransitGraph], /, *, seed: int, progress: bool, **settings: Any
    ) -> list[Any]: ...


class CarriedMaps(Protocol):
    """Writes the maps a question file carries into ``folder``: ``(written, problems)``, or ``None`` when it
    carries none."""

    def __call__(
        self, source: Path, folder: Path, /, before_write: Callable[[Path], None] | None = None
    ) -> tuple[list[Path], list[Problem]] | None: ...


class Score(Protocol):
    """Verdicts in input order under ``options.variant``, and one message per prediction skipped."""

    def __call__(
        self, loaded: Loaded, predictions: Sequence[Any], options: ScoreOptions, executor: Executor | None, /
    ) -> tuple[list[Any], list[str]]: ...


class Summarize(Protocol):
    """The summary of a run: per model, the task's metrics (``models``), and what was read (``inputs``)."""

    def __call__(
        self,
        verdicts: Sequence[Any],
        loaded: Loaded,
        options: ScoreOptions,
        inputs: Mapping[str, Any],
        problems: Sequence[str],
        /,
    ) -> dict[str, Any]: ...


class WriteReport(Protocol):
    """Writes ``summary.json``, ``table.md`` and, with ``figures``, the task's figures; returns their paths."""

    def __call__(self, directory: str | Path, summary: Mapping[str, Any], /, *, figures: bool = True) -> list[Path]: ...


class Explain(Protocol):
    """Why two variants' numbers differ: the record (``compare.json``) and its markdown (``compare.md``)."""

    def __call__(
        self,
        evaluations: Mapping[str, Any],
        loaded: Loaded,
        predictions: Sequence[Any],
        variants: tuple[str, str],
        options: ScoreOptions,
        /,
    ) -> tuple[dict[str, Any], str]: ...


class Export(Protocol):
    """Writes the questions as a Hugging Face dataset folder ``out``; returns how many."""

    def __call__(
        self, loaded: Loaded, out: Path, /, *, figure: Callable[[Any], bytes | None], metro: MetroData | None
    ) -> int: ...


class Solve(Protocol):
    """Runs the solver ``name`` on the questions: its prediction records."""

    def __call__(
        self,
        name: str,
        questions: Iterable[Any],
        graph_for: Callable[[Any], TransitGraph],
        /,
        *,
        seed: int,
        settings: Mapping[str, Any],
    ) -> list[Any]: ...


# -- pieces of a record ------------------------------------------------------------------------------------


def loaded_by(load_questions: Callable[[str | Path], tuple[Mapping[str, Any], Sequence[Any]]]) -> Callable[..., Loaded]:
    """A record's ``load`` for a task whose question reader returns the questions by id and the problems.

    Parameters
    ----------
    load_questions : callable
        ``path -> (questions, problems)``.

    Returns
    -------
    callable
        ``path -> Loaded``, each problem as its text.

    Examples
    --------
    >>> load = loaded_by(lambda path: ({"q1": "question"}, ["f.jsonl:2: not JSON"]))
    >>> load("f.jsonl")
    Loaded(questions={'q1': 'question'}, problems=('f.jsonl:2: not JSON',), context={})
    """

    def load(path: str | Path) -> Loaded:
        questions, problems = load_questions(path)
        return Loaded(questions, tuple(str(problem) for problem in problems))

    return load


def prediction_key(prediction: Any) -> Hashable:
    """A record's ``answer_key`` for a task with one request per question: ``(id, model, repeat)``.

    Parameters
    ----------
    prediction : Any
        A prediction (read by its ``id``, ``model`` and ``repeat``).

    Returns
    -------
    tuple
        What names the answer among the predictions.

    Examples
    --------
    >>> from types import SimpleNamespace as Prediction
    >>> prediction_key(Prediction(id="q1", model="m", repeat=0))
    ('q1', 'm', 0)
    """
    return (prediction.id, prediction.model, prediction.repeat)


def typed_prompts(question: Any) -> list[Prompt]:
    """A record's ``prompts`` for a task whose questions are asked as written, one request each, its kind the
    question's type (plus, probe).

    Parameters
    ----------
    question : Any
        A question (read by its ``id``, ``type``, ``question``, ``city`` and ``country``).

    Returns
    -------
    list of Prompt
        The one request.
    """
    return [Prompt(question.id, question.type, question.question, question.city, question.country)]


def variant_scorer(task: Callable[[], Any]) -> Score:
    """A record's ``score`` for a task whose variants judge the questions and predictions alone (no graph, no
    options, no executor): the chosen variant's ``score(questions, predictions)``.

    Parameters
    ----------
    task : callable
        ``task()``: the record (asked for when scoring, so that the record can name this before it exists).

    Returns
    -------
    Score
        ``score(loaded, predictions, options, executor)``: the verdicts and why the others were skipped.
    """

    def score(
        loaded: Loaded, predictions: Sequence[Any], options: ScoreOptions, executor: Executor | None, /
    ) -> tuple[list[Any], list[str]]:
        return task().variant(options.variant).score(loaded.questions, predictions)

    return score


def deferred(where: str) -> Callable[..., Any]:
    """A callable that imports the function a ``module:attribute`` string names when it is first called, and
    calls it: a record names its heavier steps (reports, tables) without importing them.

    Parameters
    ----------
    where : str
        ``module:attribute``, the module's dotted name.

    Returns
    -------
    callable
        It takes what the function takes and returns what it returns.

    Examples
    --------
    >>> deferred("math:hypot")(3, 4)
    5.0
    """
    module, attribute = where.split(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), attribute)(*args, **kwargs)

    call.__qualname__ = call.__name__ = attribute
    return call
