"""The bootstrap's options shared by several commands: ``--cluster``, ``--resamples`` and ``--seed``.

:func:`add_cluster_option` adds what the intervals resample, :func:`add_resampling_options` how many
resamples (bounded by :data:`RESAMPLE_RANGE`) and the seed (:func:`seed_value`: 0 to 2**64 - 1).
:mod:`reasonmap.options` re-exports them beside the other shared options.
"""

from __future__ import annotations

import argparse

from graphkit.choices import Choices

__all__ = ["CLUSTERS", "RESAMPLE_RANGE", "add_cluster_option", "seed_value", "add_resampling_options"]


#: :data:`benchmarks.intervals.CLUSTERS`: what intervals resample
CLUSTERS = Choices("benchmarks.intervals:CLUSTERS")
#: The resamples a bootstrap takes (:data:`benchmarks.intervals.RESAMPLE_RANGE`; a test checks they agree).
RESAMPLE_RANGE = (200, 50_000)
_SEED_MAX = 2**64 - 1


def add_cluster_option(parser: argparse.ArgumentParser) -> None:
    """``--cluster question|map``: what the printed intervals resample.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    """
    parser.add_argument(
        "--cluster",
        choices=CLUSTERS,
        default="question",
        help="what the 95%% intervals resample: questions (a question's answers together), or maps, then the"
        " questions within them (questions of one map are not independent)",
    )


def _resamples(text: str) -> int:
    low, high = RESAMPLE_RANGE
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high:,}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"{value} is outside {low} to {high:,}: below {low} the ends of a 95% interval rest on fewer than five"
            " resamples each; above it the weights outgrow memory for no printed digit"
        )
    return value


def seed_value(text: str) -> int:
    """``--seed S`` of every command: a whole number from 0 to 2**64 - 1.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        Not a whole number in range.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 2**64 - 1, got {text!r}") from None
    if not 0 <= value <= _SEED_MAX:
        raise argparse.ArgumentTypeError(f"{value} is outside 0 to 2**64 - 1 (the seed keys a 64-bit hash)")
    return value


def add_resampling_options(parser: argparse.ArgumentParser, *, seed_help: str) -> None:
    """``--resamples N`` (bounded by :data:`RESAMPLE_RANGE`) and ``--seed S`` (0 to 2**64 - 1).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    seed_help : str
        What ``--seed`` seeds, for its help.
    """
    parser.add_argument(
        "--resamples",
        type=_resamples,
        default=2000,
        metavar="N",
        help=f"bootstrap resamples, {RESAMPLE_RANGE[0]} to {RESAMPLE_RANGE[1]:,}",
    )
    parser.add_argument("--seed", type=seed_value, default=0, metavar="S", help=seed_help)
