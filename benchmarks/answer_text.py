"""What every answer extractor does first: drop the model's reasoning, and tell refusals.

Shared by the route parser (``benchmarks.reasonmap.parsing``), the
ReasonMap-Plus extractor and the map-QA parser, so that all of them read the
same part of a response.
"""

from __future__ import annotations

import re

__all__ = ["REFUSALS", "after_reasoning", "mentions_refusal"]

_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_KIMI_CLOSE, _KIMI_OPEN = "◁/think▷", "◁think▷"  # Kimi-VL-Thinking's tags

# Phrases of a model that declines to answer (checked only where no answer was found).
REFUSALS = ("cannot", "can't", "can’t", "can not", "unable to", "not able to", "sorry", "无法", "抱歉", "不能")


def after_reasoning(text: str) -> str | None:
    """The text after the last ``</think>``, cut at a later ``<think>``; ``None`` when no answer is left.

    Parameters
    ----------
    text : str
        A model's response.

    Returns
    -------
    str or None
        The answer after the reasoning (the whole text when it has none).

    Examples
    --------
    >>> after_reasoning("<think>Line 2 is direct.</think> Route Name: Line 2")
    ' Route Name: Line 2'
    >>> after_reasoning("<think>still thinking") is None
    True
    >>> after_reasoning("no reasoning at all")
    'no reasoning at all'
    """
    if "<" not in text and "◁" not in text:  # no tag at all: the common case, told by one scan in C
        return text
    closing = None
    for match in _THINK_CLOSE.finditer(text):
        closing = match.end()
    kimi = text.rfind(_KIMI_CLOSE)
    if kimi >= 0 and (closing is None or kimi > closing):
        closing = kimi + len(_KIMI_CLOSE)
    reasoned = closing is not None
    if closing is not None:
        text = text[closing:]
    opening = _THINK_OPEN.search(text)
    cut = len(text) if opening is None else opening.start()
    kimi = text.find(_KIMI_OPEN, 0, cut)
    if kimi >= 0:
        cut = kimi
    if cut < len(text):
        text = text[:cut]
        reasoned = True
    if reasoned and (not text or text.isspace()):
        return None
    return text


def mentions_refusal(text: str) -> bool:
    """Whether the text says the model cannot or will not answer.

    Parameters
    ----------
    text : str
        A model's response.

    Returns
    -------
    bool
        True when it holds one of :data:`REFUSALS` (case ignored).

    Examples
    --------
    >>> mentions_refusal("I cannot determine the route from this image."), mentions_refusal("Route Name: Line 2")
    (True, False)
    """
    lowered = text.lower()
    return any(phrase in lowered for phrase in REFUSALS)
