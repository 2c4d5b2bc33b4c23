"""Pixel budgets on the command line: ``--pixel-budget 1M,4M,16M`` read exactly, checked, and written back.

:func:`parse_pixel_budgets` reads one budget or a list (``k`` and ``M`` suffixes, fractions read exactly),
:func:`one_pixel_budget` one only, :func:`check_pixel_budget` bounds one by :data:`PIXEL_BUDGET_RANGE` (for
the command line and the Inspect tasks alike), and :func:`budget_label` writes a budget in its shortest form.
:mod:`reasonmap.options` re-exports them beside the other shared options.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

__all__ = ["PIXEL_BUDGET_RANGE", "parse_pixel_budgets", "check_pixel_budget", "budget_label"]


#: the bounds of ``--pixel-budget`` (inclusive): a 64×64 image at least, the toolkit's pixel limit at most
PIXEL_BUDGET_RANGE = (4_096, 300_000_000)
_SUFFIXES = {"": 1, "k": 1_000, "m": 1_000_000}
# digits past these cannot be a budget in range, and Python refuses to read an int of over 4,300 digits
_MAX_DIGITS = 60


def _pixels(piece: str) -> int:
    """One budget, exactly: ``1.5M`` is 1,500,000 (read as a fraction, never through a float, so that a huge
    number is reported as given, not as its nearest float)."""
    from fractions import Fraction

    found = re.fullmatch(r"(\d+)(\.\d+)?([kKmM]?)", piece)
    if found is None:
        raise argparse.ArgumentTypeError(
            f"expected pixels such as 4000000, 500k or 4M, separated by commas; got {piece!r}"
        )
    whole, fraction, suffix = found.groups()
    if len(whole.lstrip("0")) + len(fraction or "") > _MAX_DIGITS:
        low, high = PIXEL_BUDGET_RANGE
        shown = piece if len(piece) <= 2 * _MAX_DIGITS else f"{piece[:_MAX_DIGITS]}...({len(piece)} characters)"
        raise argparse.ArgumentTypeError(f"expected pixels >= {low:,} and <= {high:,}, got {shown}")
    return round(Fraction(whole + (fraction or "")) * _SUFFIXES[suffix.lower()])


def one_pixel_budget(text: str) -> int:
    """One pixel budget, in :func:`parse_pixel_budgets`' syntax (``4M``): what ``prompts``, ``run`` and ``vdi``
    take, where ``eval`` takes a list.

    >>> one_pixel_budget("4M"), one_pixel_budget("250000")
    (4000000, 250000)
    """
    try:
        return int(text)  # a plain number: its range is checked with the client's other options, in one line
    except ValueError:
        found = parse_pixel_budgets(text)
    if isinstance(found, tuple):
        raise argparse.ArgumentTypeError(f"one budget here, got {text!r} (eval --pixel-budget sweeps several)")
    return found


def parse_pixel_budgets(text: str) -> int | tuple[int, ...]:
    """Pixel budgets from ``"1M,4M,16M"`` (``k`` = 1,000 and ``M`` = 1,000,000 pixels, or plain integers):
    one budget as an ``int`` (as ``--pixel-budget PX`` always was), several as a sorted tuple, each once.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int or tuple of int

    Raises
    ------
    argparse.ArgumentTypeError
        A piece that is not a number of pixels (its range is checked by :func:`check_pixel_budget`).

    Examples
    --------
    >>> parse_pixel_budgets("16M, 1M,4M,1M"), parse_pixel_budgets("4000000"), parse_pixel_budgets("500k")
    ((1000000, 4000000, 16000000), 4000000, 500000)
    >>> parse_pixel_budgets("999999999999999999999999M")  # exact: no float on the way
    999999999999999999999999000000
    >>> parse_pixel_budgets("4MP")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected pixels such as 4000000, 500k or 4M, separated by commas; got '4MP'
    """
    budgets = {_pixels(piece.strip()) for piece in text.split(",") if piece.strip()}
    if not budgets:
        raise argparse.ArgumentTypeError(f"expected at least one pixel budget, got {text!r}")
    ordered = tuple(sorted(budgets))
    return ordered[0] if len(ordered) == 1 else ordered


def check_pixel_budget(value: Any, *, option: str = "--pixel-budget") -> int:
    """One pixel budget, checked to lie in :data:`PIXEL_BUDGET_RANGE`: the one check of the command line's
    ``--pixel-budget`` and the Inspect tasks' ``pixel_budget``. An ``int``, a whole ``float``, or a text that
    :func:`parse_pixel_budgets` reads as one budget (``"4M"``).

    Parameters
    ----------
    value : int, float or str
        The budget given.
    option : str, optional
        Its option, for the message.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        One line naming ``option`` and the value, as given.

    Examples
    --------
    >>> check_pixel_budget("1.5M", option="pixel_budget")
    1500000
    >>> check_pixel_budget(-5, option="pixel_budget")
    Traceback (most recent call last):
    ...
    ValueError: pixel_budget: expected pixels >= 4,096 and <= 300,000,000, got -5
    """
    low, high = PIXEL_BUDGET_RANGE
    budget = value
    if isinstance(value, str):
        try:
            budget = parse_pixel_budgets(value)
        except argparse.ArgumentTypeError as error:
            raise ValueError(f"{option}: {error}") from None
        if isinstance(budget, tuple):
            raise ValueError(f"{option}: expected one pixel budget, got {value!r}")
    elif isinstance(value, float) and value.is_integer():
        budget = int(value)
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise ValueError(f"{option}: expected a whole number of pixels such as 4000000 or 4M, got {value!r}")
    if not low <= budget <= high:
        raise ValueError(f"{option}: expected pixels >= {low:,} and <= {high:,}, got {budget:,}")
    return budget


def budget_label(pixels: int) -> str:
    """A pixel budget as :func:`parse_pixel_budgets` reads it, in its shortest form (one decimal at most).

    Parameters
    ----------
    pixels : int

    Returns
    -------
    str

    Examples
    --------
    >>> budget_label(16_000_000), budget_label(1_500_000), budget_label(62_500), budget_label(1_048_576)
    ('16M', '1.5M', '62.5k', '1048576')
    """
    for suffix, size in (("M", 1_000_000), ("k", 1_000)):
        if pixels * 10 % size == 0:
            whole, tenths = divmod(pixels * 10 // size, 10)
            return f"{whole}.{tenths}{suffix}" if tenths else f"{whole}{suffix}"
    return str(pixels)
