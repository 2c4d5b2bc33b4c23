"""The options of a client run, checked before anything is asked or written: their bounds, the repeats, the key.

Used by :mod:`baselines.client` and by the command line, which checks them before it reads a file.
"""

from __future__ import annotations

import math
import os
from typing import Any

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_TIMEOUT",
    "MAX_TEMPERATURE",
    "MAX_RETRIES",
    "MAX_REPEATS",
    "check_options",
    "check_repeats",
    "checked_key",
]

#: the bounds of the options (inclusive): each is checked before anything is asked or written
MAX_CONCURRENCY = 10_000
MAX_TIMEOUT = 86_400.0  # one day: longer than any model takes, and time.monotonic() + it stays finite
MAX_TEMPERATURE = 100.0
MAX_RETRIES = 1_000
MAX_REPEATS = 1_000


def check_options(
    *, model: str, concurrency: int, max_tokens: int | None, timeout: float, max_retries: int, temperature: float | None
) -> None:
    """Refuse an option no endpoint could take (before anything is asked or written): every number finite,
    in its range (:data:`MAX_CONCURRENCY`, :data:`MAX_TIMEOUT`, :data:`MAX_TEMPERATURE`, :data:`MAX_RETRIES`).

    Parameters
    ----------
    model : str
        The model's name (not empty).
    concurrency : int
        Requests in flight at once.
    max_tokens : int or None
        The answer's token limit (None: the server's).
    timeout : float
        Seconds a request may take.
    max_retries : int
        Retries of a request.
    temperature : float or None
        The sampling temperature (None: the server's).

    Raises
    ------
    ValueError
        Naming the option and the value.

    Examples
    --------
    >>> check_options(model="m", concurrency=4, max_tokens=None, timeout=float("inf"), max_retries=6, temperature=0)
    Traceback (most recent call last):
    ...
    ValueError: timeout: expected a number of seconds > 0 and <= 86400, got inf
    """

    def whole(value: Any, low: int, high: float = math.inf) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    def number(value: Any, high: float) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= high

    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"model: expected the model name the endpoint serves, got {model!r}")
    if not whole(concurrency, 1, MAX_CONCURRENCY):
        raise ValueError(f"concurrency: expected an integer >= 1 and <= {MAX_CONCURRENCY:,}, got {concurrency!r}")
    if max_tokens is not None and not whole(max_tokens, 1):
        raise ValueError(f"max_tokens: expected an integer >= 1 or None, got {max_tokens!r}")
    if not whole(max_retries, 0, MAX_RETRIES):
        raise ValueError(f"max_retries: expected an integer >= 0 and <= {MAX_RETRIES:,}, got {max_retries!r}")
    if not number(timeout, MAX_TIMEOUT) or not timeout > 0:
        raise ValueError(f"timeout: expected a number of seconds > 0 and <= {MAX_TIMEOUT:g}, got {timeout!r}")
    if temperature is not None and not number(temperature, MAX_TEMPERATURE):
        raise ValueError(f"temperature: expected a number >= 0 and <= {MAX_TEMPERATURE:g} or None, got {temperature!r}")


def check_repeats(repeats: int, temperature: float | None, *, force: bool = False) -> None:
    """Refuse ``repeats`` out of 1..:data:`MAX_REPEATS`, and more than one at temperature 0 (greedy decoding
    gives one answer K times) unless ``force`` (a server that samples at temperature 0 anyway). An unset
    temperature is the server's default, which samples on most servers: allowed.

    Parameters
    ----------
    repeats : int
        Answers per request.
    temperature : float or None
        The sampling temperature (None: the server's).
    force : bool, optional
        Allow several answers at temperature 0.

    Raises
    ------
    ValueError
        Naming the option and the value.

    Examples
    --------
    >>> check_repeats(4, 0.7), check_repeats(4, None), check_repeats(4, 0, force=True)
    (None, None, None)
    >>> check_repeats(4, 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: repeats: 4 answers at temperature 0 would be one answer 4 times; sample (...) or force them ...
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats: expected an integer >= 1 and <= {MAX_REPEATS:,}, got {repeats!r}")
    if repeats > 1 and temperature == 0 and not force:
        raise ValueError(
            f"repeats: {repeats} answers at temperature 0 would be one answer {repeats} times;"
            " sample (a temperature > 0) or force them (--force-repeats)"
        )


def checked_key(api_key: str | None) -> str:
    """The key to send, without surrounding whitespace (a key read from a file ends in a newline).

    Parameters
    ----------
    api_key
        The key; ``None`` reads ``OPENAI_API_KEY`` (empty when unset).

    Returns
    -------
    str
        The stripped key.

    Raises
    ------
    ValueError
        Not showing the key, when it holds a character no header may carry.
    """
    source = "api_key"
    if api_key is None:
        source, api_key = "OPENAI_API_KEY", os.environ.get("OPENAI_API_KEY", "")
    api_key = api_key.strip()
    if any(ord(character) < 32 or 127 <= ord(character) < 160 for character in api_key):
        raise ValueError(f"{source} holds a control character")
    if any(ord(character) > 255 for character in api_key):
        raise ValueError(f"{source} holds a character an HTTP header cannot carry")
    return api_key
