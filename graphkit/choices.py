"""Options chosen by name (variants, weightings, tasks, solvers, textualizations, rewards, executors, ...).

:func:`check_choice` is the one check every registry of named choices makes, with one error message: the
option, the valid names in the registry's order, what was given, and the close ones it may misspell.
:class:`Choices` is a registry's names read when first used: the command line's choices are the
registries' own, and building its parser imports none of them.

Examples
--------
>>> check_choice("paper", ("paper", "city", "none"), what="weighting")
'paper'
>>> check_choice("Papr", ("paper", "city", "none"), what="weighting")
Traceback (most recent call last):
    ...
graphkit.choices.UnknownChoice: weighting must be one of ['paper', 'city', 'none'], got 'Papr'; did you mean 'paper'?
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from graphkit.errors import shorten

__all__ = ["UnknownChoice", "Choices", "check_choice", "close_choices"]

#: How alike (rapidfuzz's ratio, 0-100, case and punctuation ignored) a name must be to count as a misspelling.
CLOSE_RATIO = 70


class UnknownChoice(ValueError):
    """A name that is none of an option's choices.

    Attributes
    ----------
    what : str
        The option (``"weighting"``).
    value : object
        What was given.
    choices : tuple of str
        The valid names, in the registry's order.
    close : tuple of str
        The choices ``value`` may misspell, closest first.
    """

    def __init__(self, what: str, value: Any, choices: Iterable[str]):
        self.what = what
        self.value = value
        self.choices = tuple(choices)
        self.close = close_choices(value, self.choices) if isinstance(value, str) else ()
        hint = f"; did you mean {' or '.join(repr(name) for name in self.close)}?" if self.close else ""
        super().__init__(f"{what} must be one of {list(self.choices)}, got {shorten(repr(value))}{hint}")


def close_choices(
    value: str, choices: Iterable[str], *, limit: int = 3, cutoff: float = CLOSE_RATIO
) -> tuple[str, ...]:
    """The choices ``value`` most likely misspells, closest first (ties in the choices' order).

    Every "did you mean" of the toolkit comes from here: option names, cities, stations and lines. The score is
    rapidfuzz's ``fuzz.ratio`` (the Indel similarity, ``2 * LCS / (len(a) + len(b))`` in 0-100) with case and
    punctuation ignored; ``cutoff`` is the least score kept. It is the measure
    ``difflib.get_close_matches`` approximates (its ``SequenceMatcher.ratio`` counts greedy matching
    blocks, at most the LCS), so ``cutoff=60`` keeps what ``cutoff=0.6`` kept there and, where the two
    differ, more of what a transposed or dropped letter leaves.

    Parameters
    ----------
    value : str
        What was given.
    choices : iterable of str
        The valid names.
    limit : int, optional
        The most names returned.
    cutoff : float, optional
        The least score (0-100) a name needs.

    Returns
    -------
    tuple of str
        The close names, closest first.

    Examples
    --------
    >>> close_choices("rout", ("route", "plus", "mapqa"))
    ('route',)
    >>> close_choices("xyz", ("route", "plus", "mapqa"))
    ()
    """
    from rapidfuzz import fuzz, process, utils

    found = process.extract(
        value, list(choices), scorer=fuzz.ratio, processor=utils.default_process, limit=limit, score_cutoff=cutoff
    )
    return tuple(name for name, _, _ in found)


def check_choice(value: Any, choices: Iterable[str], *, what: str) -> str:
    """``value``, checked to be one of ``choices`` (a registry's keys, in its order).

    Parameters
    ----------
    value : Any
        What was given.
    choices : iterable of str
        The valid names, in the order the message lists them.
    what : str
        The option, for the message (``"weighting"``).

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    UnknownChoice
        ``value`` is none of them (a :class:`ValueError`); the message lists them and the close ones.
    """
    names = tuple(choices)
    if isinstance(value, str) and value in names:
        return value
    raise UnknownChoice(what, value, names)


class Choices(Sequence[str]):
    """The names a registry holds, read from it when first used (``in``, iteration, length, indexing).

    ``where`` is ``module:attribute`` of the names (a sequence, a mapping's keys, a set with ``sort``) or of
    a function that returns them. Until then nothing is imported, so a parser whose options take these as
    ``choices`` is built without its libraries.

    Parameters
    ----------
    where : str
        ``module:attribute`` of the names, or of a function that returns them.
    sort : bool, optional
        Sort the names (a set has no order of its own).

    Examples
    --------
    >>> modes = Choices("graphkit.stats:TIERS")
    >>> modes.loaded
    False
    >>> "middle" in modes, list(modes), modes.loaded
    (True, ['easy', 'middle', 'hard'], True)
    """

    __slots__ = ("where", "sort", "_names")

    def __init__(self, where: str, *, sort: bool = False) -> None:
        self.where = where
        self.sort = sort
        self._names: tuple[str, ...] | None = None

    @property
    def loaded(self) -> bool:
        """Whether the registry has been read."""
        return self._names is not None

    @property
    def names(self) -> tuple[str, ...]:
        """The names, in the registry's order (sorted with ``sort``)."""
        if self._names is None:
            module, attribute = self.where.split(":")
            found = getattr(importlib.import_module(module), attribute)
            names = tuple(found() if callable(found) else found)
            self._names = tuple(sorted(names)) if self.sort else names
        return self._names

    def __getitem__(self, index: Any) -> Any:
        return self.names[index]

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __contains__(self, value: object) -> bool:
        return value in self.names

    def __repr__(self) -> str:
        return f"Choices({self.where!r})" if self._names is None else f"Choices({list(self._names)!r})"
