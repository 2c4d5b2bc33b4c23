"""The cities of a cross-city split, the start of a generated question's id, the questions of several maps and
their counts per type: what every task's generation shares.

The paper holds 11 maps out for testing (:data:`TEST_CITIES`); a task's
``--split`` (``test``, ``train``, ``all``) picks cities among the embedded
ones with :func:`split_cities`, and names its questions
``<city>[-s<seed>]-NNNN`` (:func:`seeded_prefix`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from graphkit.choices import UnknownChoice

if TYPE_CHECKING:
    from graphkit.graph import TransitGraph

__all__ = ["TEST_CITIES", "Split", "SPLITS", "split_cities", "seeded_prefix", "questions_of_maps", "type_counts"]

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
    """Questions for several maps, one after another: ``generate(graph)`` of each map in turn (with ``progress``, a
    bar over the maps on stderr)."""
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
