"""The cities of a cross-city split, and the start of a generated question's id: what every task's generation shares.

The paper holds 11 maps out for testing (:data:`TEST_CITIES`); a task's
``--split`` (``test``, ``train``, ``all``) picks cities among the embedded
ones with :func:`split_cities`, and names its questions
``<city>[-s<seed>]-NNNN`` (:func:`seeded_prefix`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from graphkit.choices import UnknownChoice

__all__ = ["TEST_CITIES", "Split", "SPLITS", "split_cities", "seeded_prefix"]

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
