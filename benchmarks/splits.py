"""The cities of a cross-city split, the start of a generated question's id, the questions of several maps and
their counts per type: what every task's generation shares.

The paper holds 11 maps out for testing (:data:`TEST_CITIES`); a task's
``--split`` (``test``, ``train``, ``all``) picks cities among the embedded
ones with :func:`split_cities`, and names its questions
``<city>[-s<seed>]-NNNN`` (:func:`seeded_prefix`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from graphkit.choices import UnknownChoice

if TYPE_CHECKING:
    from graphkit.graph import TransitGraph

__all__ = [
    "TEST_CITIES",
    "Split",
    "SPLITS",
    "split_cities",
    "seeded_prefix",
    "questions_of_maps",
    "type_counts",
    "typed_draws",
]

Q = TypeVar("Q")

# The paper's held-out test maps (cross-city split), in the embedded cities' sorted order as every split lists
# them: the demo and `generate --split test` write the same records in the same order.
TEST_CITIES: tuple[str, ...] = (
    "auckland",
    "beijing",
    "budapest",
    "geneva",
    "hangzhou",
    "lisboa",
    "los_angeles",
    "miami",
    "rome",
    "singapore",
    "toronto",
)
Split = Literal["test", "train", "all"]
#: the cross-city splits, the choices of ``eval --split`` and of the Inspect tasks' ``split``
SPLITS: tuple[str, ...] = ("test", "train", "all")


def split_cities(split: Split, names: Sequence[str], *, test: Iterable[str] = TEST_CITIES) -> tuple[str, ...]:
    """The cities of a cross-city split among ``names`` (test: the paper's 11 by default).

    Parameters
    ----------
    split : {"test", "train", "all"}
        The split.
    names : sequence of str
        The cities to split.
    test : iterable of str, optional
        The test cities.

    Returns
    -------
    tuple of str
        The split's cities, in ``names``' order.
    """
    test = tuple(test)
    if split == "test":
        return tuple(name for name in names if name in test)
    if split == "train":
        return tuple(name for name in names if name not in test)
    if split == "all":
        return tuple(names)
    raise UnknownChoice("split", split, SPLITS)


def seeded_prefix(city: str, seed: int) -> str:
    """The start of a generated question's id: the city, and the seed unless it is 0.

    Seed 0's ids stay as they always were (``rome-0000``); another seed's carry it (``rome-s1-0000``),
    so that two seeds' question files never share an id and a log of one is never matched by id to the
    other's questions.

    Parameters
    ----------
    city : str
        The city.
    seed : int
        The generation seed.

    Returns
    -------
    str

    Examples
    --------
    >>> seeded_prefix("rome", 0), seeded_prefix("rome", 7)
    ('rome', 'rome-s7')
    """
    return city if seed == 0 else f"{city}-s{seed}"


def questions_of_maps(
    graphs: Iterable[TransitGraph], generate: Callable[[TransitGraph], Iterable[Q]], *, progress: bool = False
) -> list[Q]:
    """Questions for several maps, one after another.

    Parameters
    ----------
    graphs : iterable of TransitGraph
        The maps.
    generate : callable
        A map's questions.
    progress : bool, optional
        Show a bar over the maps on stderr (tqdm).

    Returns
    -------
    list
        ``generate(graph)`` of each map in turn, joined.

    Examples
    --------
    >>> questions_of_maps(["rome", "oslo"], lambda graph: [f"{graph}-0", f"{graph}-1"])
    ['rome-0', 'rome-1', 'oslo-0', 'oslo-1']
    """
    graphs = list(graphs)
    if progress:
        from tqdm import tqdm

        graphs = tqdm(graphs, unit="map", desc="generating")
    questions: list[Q] = []
    for graph in graphs:
        questions.extend(generate(graph))
    return questions


def type_counts(questions: Sequence[Any], shapes: Mapping[str, str], *, width: int) -> str:
    """Questions per type (``shapes``' keys, in order) and their answers' spread, as a small table.

    An answer's shape says how its type's answers spread: ``integer`` as their range and mean, ``set`` and
    ``sequence`` (of names) as the range and mean of their lengths, any other (options, yes/no) as the count of each.

    Parameters
    ----------
    questions : sequence
        The questions (read by their ``type`` and ``answer``).
    shapes : mapping of str to str
        Each type's answer shape, in the table's order.
    width : int
        The width of the type column.

    Returns
    -------
    str
        The table: a header, a row per type, then the total (no trailing newline).

    Examples
    --------
    >>> from types import SimpleNamespace as Question
    >>> rows = [Question(type="count", answer=2), Question(type="count", answer=5), Question(type="yes", answer="no")]
    >>> print(type_counts(rows, {"count": "integer", "yes": "yes_no", "names": "set"}, width=6))
    type    questions  answers
    count           2  2 to 5, mean 3.5
    yes             1  no:1
    names           0
    total           3
    """
    rows = [f"{'type':<{width}} {'questions':>10}  answers"]
    for kind, shape in shapes.items():
        answers = [question.answer for question in questions if question.type == kind]
        if not answers:
            spread = ""
        elif shape == "integer":
            spread = f"{min(answers)} to {max(answers)}, mean {sum(answers) / len(answers):.1f}"
        elif shape in ("set", "sequence"):
            sizes = [len(answer) for answer in answers]
            spread = f"{min(sizes)} to {max(sizes)} names, mean {sum(sizes) / len(sizes):.1f}"
        else:
            counts = Counter(answers)
            spread = " ".join(f"{answer}:{counts[answer]}" for answer in sorted(counts))
        rows.append(f"{kind:<{width}} {len(answers):>10}  {spread}".rstrip())
    rows.append(f"{'total':<{width}} {len(questions):>10}")
    return "\n".join(rows)


def typed_draws(
    graph: TransitGraph,
    generators: Mapping[str, Callable[[TransitGraph, int, random.Random], Iterable[dict[str, Any]]]],
    types: Iterable[str],
    *,
    per_type: int,
    seed: int,
    task: str,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The draws of a task with question types (plus, probe) on one map: each asked type in the order of
    ``generators``, each drawn with its own seeded generator, so that a type's questions do not depend on
    which other types are asked.

    Parameters
    ----------
    graph : TransitGraph
        The map.
    generators : mapping
        Every type of the task, in order, to its ``generator(graph, count, rng)`` of at most ``count`` draws.
    types : iterable of str
        The types asked.
    per_type : int
        Questions per type at most.
    seed : int
        Seeds each type's draws (with the task, the city and the type).
    task : str
        The task's name, in the seeds and the ids.

    Returns
    -------
    iterator of (str, str, dict)
        ``(id, type, draw)``: ids ``<city>-<task>-<type>-000`` (with the seed: :func:`seeded_prefix`).

    Raises
    ------
    ValueError
        A type is not the task's, or ``per_type`` is negative (raised at once, before any draw).
    """
    wanted = set(types)
    unknown = sorted(wanted - set(generators))
    if unknown:
        raise ValueError(f"types must be among {list(generators)}, got {unknown}")
    if per_type < 0:
        raise ValueError(f"per_type must be non-negative, got {per_type}")
    city = graph.city or "custom"
    prefix = seeded_prefix(city, seed)

    def draws() -> Iterator[tuple[str, str, dict[str, Any]]]:
        for kind, generator in generators.items():
            if kind in wanted:
                rng = random.Random(f"reasonmap-{task}:{seed}:{city}:{kind}")
                for number, drawn in enumerate(generator(graph, per_type, rng)):
                    yield f"{prefix}-{task}-{kind}-{number:03d}", kind, drawn

    return draws()
