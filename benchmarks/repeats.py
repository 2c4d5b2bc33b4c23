"""Several answers to one request: mean@K, pass@k and consistency, as pure functions.

A request (a question's short or long route question, a plus question, a map
QA question) answered K times gives K verdicts, numbered by their ``repeat``
(eval ``--repeats``, Inspect epochs, lmms-eval ``repeats``). Over a model's
requests:

``mean_at_k``
    The mean over requests of the share of its answers that are correct (an
    unweighted accuracy; with K = 1 it is the plain accuracy).
``pass_at_k``
    For each k from 1 to K, the mean over requests of the unbiased estimator
    of Chen et al. 2021 ("Evaluating Large Language Models Trained on Code",
    section 2.1): ``1 - C(n - c, k) / C(n, k)`` for n answers of which c are
    correct, computed as a product (no large binomials). pass@1 equals
    mean@K; pass@n is "any answer correct".
``consistency``
    The share of requests whose answers all agree (all correct or all wrong).

K is the fewest answers any request of the model has: pass@k is reported only
for the k every request can give, as the HumanEval code does (``openai/human-eval``
``human_eval/evaluation.py`` at 9d3aa8b, lines 88-89: only k with ``(total >= k).all()``),
so that each pass@k averages over the same requests. Requests with more answers
use all of them (the estimator takes any n >= k); ``k_max`` and
``n_fewer`` say how uneven the counts were.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from benchmarks.cells import markdown_text

__all__ = ["pass_at_k", "repeats_summary", "repeats_by_model", "with_repeats", "repeats_table"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k for one request of ``n`` answers, ``c`` of them correct.

    ``1 - C(n - c, k) / C(n, k)`` as the product ``1 - prod_{i = n - c + 1}^{n} (1 - k / i)``
    (Chen et al. 2021; ``openai/human-eval`` ``human_eval/evaluation.py`` at 9d3aa8b, lines 22-27).

    Parameters
    ----------
    n : int
        Answers to the request.
    c : int
        Those correct.
    k : int
        Answers drawn.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Not ``0 <= c <= n`` and ``1 <= k <= n``.

    Examples
    --------
    >>> pass_at_k(4, 1, 1), pass_at_k(4, 1, 2), pass_at_k(4, 0, 4), pass_at_k(4, 1, 4)
    (0.25, 0.5, 0.0, 1.0)
    """
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:  # every draw of k answers holds a correct one
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def repeats_summary(outcomes: Iterable[Sequence[bool | int]], *, digits: int = 6) -> dict[str, Any]:
    """mean@K, pass@k for k = 1..K and consistency over requests, each given as its answers' correctness.

    Returns ``{"k", "k_max", "n_requests", "n_fewer", "mean_at_k", "pass_at_k": {"1": .., "K": ..},
    "consistency"}``, rounded to ``digits``; figures of no request are ``None``.

    Parameters
    ----------
    outcomes : iterable of sequence of bool or int
        Per request, its answers' correctness.
    digits : int, optional
        Digits kept.

    Returns
    -------
    dict
        As above.

    Examples
    --------
    >>> summary = repeats_summary([[1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    >>> summary["k"], summary["mean_at_k"], summary["pass_at_k"]["1"], summary["pass_at_k"]["4"]
    (4, 0.416667, 0.416667, 0.666667)
    >>> summary["consistency"]
    0.666667
    """
    counts = [(len(answers), sum(bool(answer) for answer in answers)) for answers in outcomes if len(answers)]
    if not counts:
        return {
            "k": 0,
            "k_max": 0,
            "n_requests": 0,
            "n_fewer": 0,
            "mean_at_k": None,
            "pass_at_k": {},
            "consistency": None,
        }
    k = min(n for n, _ in counts)
    k_max = max(n for n, _ in counts)

    def mean(values: Iterable[float]) -> float:
        return round(sum(values) / len(counts), digits)

    return {
        "k": k,
        "k_max": k_max,
        "n_requests": len(counts),
        "n_fewer": sum(n < k_max for n, _ in counts),
        "mean_at_k": mean(c / n for n, c in counts),
        "pass_at_k": {str(j): mean(pass_at_k(n, c, j) for n, c in counts) for j in range(1, k + 1)},
        "consistency": mean(float(c in (0, n)) for n, c in counts),
    }


def repeats_by_model(
    verdicts: Iterable[Any], *, request: Callable[[Any], Hashable] = lambda verdict: verdict.id
) -> dict[str, dict[str, Any]]:
    """:func:`repeats_summary` per model of verdicts that carry ``model``, ``correct`` and ``repeat``.

    ``request`` tells which verdicts answer one request (route: id and kind); a verdict without a
    ``repeat`` is repeat 0. Two verdicts of one request and one repeat count once (the first).

    Parameters
    ----------
    verdicts : iterable
        Verdicts with ``model``, ``correct`` and ``repeat``.
    request : callable, optional
        What makes two verdicts answers to one request (default: the id).

    Returns
    -------
    dict of str to dict
        Each model's :func:`repeats_summary`.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> rows = [V(id="q", model="m", correct=1, repeat=0), V(id="q", model="m", correct=0, repeat=1)]
    >>> repeats_by_model(rows)["m"]["pass_at_k"]
    {'1': 0.5, '2': 1.0}
    """
    answers: dict[str, dict[Hashable, dict[int, bool]]] = defaultdict(lambda: defaultdict(dict))
    for verdict in verdicts:
        answers[verdict.model][request(verdict)].setdefault(getattr(verdict, "repeat", 0), bool(verdict.correct))
    return {
        model: repeats_summary(list(by_repeat.values()) for by_repeat in requests.values())
        for model, requests in sorted(answers.items())
    }


def with_repeats(
    summary: Mapping[str, Any], verdicts: Iterable[Any], *, request: Callable[[Any], Hashable] = lambda v: v.id
) -> dict[str, Any]:
    """``summary`` with ``models[m]["repeats"]`` (:func:`repeats_by_model`) beside each model's figures.

    Parameters
    ----------
    summary : mapping
        A task's summary (``models``).
    verdicts : iterable
        Its verdicts.
    request : callable, optional
        As :func:`repeats_by_model`.

    Returns
    -------
    dict
        A new summary; ``summary`` is not changed.
    """
    found = repeats_by_model(verdicts, request=request)
    models = {
        model: {**row, "repeats": found[model]} if model in found else row for model, row in summary["models"].items()
    }
    return {**summary, "models": models}


def repeats_table(summary: Mapping[str, Any]) -> list[str]:
    """Markdown lines of mean@K, pass@1, pass@K and consistency per model; none when no request was answered
    more than once (a single-answer report keeps its table as it was).

    Parameters
    ----------
    summary : mapping
        A summary :func:`with_repeats` made.

    Returns
    -------
    list of str
        The lines (a blank line, the caption, the table).

    Examples
    --------
    >>> summary = {"models": {"m": {"repeats": repeats_summary([[1, 0], [1, 1]])}}}
    >>> print("\\n".join(repeats_table(summary)))
    <BLANKLINE>
    Repeats (unweighted, over requests; K = the fewest answers of any request):
    <BLANKLINE>
    | Model | K | mean@K (%) | pass@1 (%) | pass@K (%) | Consistency (%) |
    |---|---:|---:|---:|---:|---:|
    | m | 2 | 75.00 | 75.00 | 100.00 | 50.00 |
    >>> repeats_table({"models": {"m": {"repeats": repeats_summary([[1], [0]])}}})
    []
    """
    rows = {model: row["repeats"] for model, row in summary["models"].items() if row.get("repeats")}
    if not any(block["k_max"] > 1 for block in rows.values()):
        return []

    def percent(value: float | None) -> str:
        return "–" if value is None else f"{100 * value:.2f}"

    lines = [
        "",
        "Repeats (unweighted, over requests; K = the fewest answers of any request):",
        "",
        "| Model | K | mean@K (%) | pass@1 (%) | pass@K (%) | Consistency (%) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, block in rows.items():
        passes = block["pass_at_k"]
        uneven = f" (up to {block['k_max']}: {block['n_fewer']} requests have fewer)" if block["n_fewer"] else ""
        lines.append(
            f"| {markdown_text(model)} | {block['k']}{uneven} | {percent(block['mean_at_k'])} "
            f"| {percent(passes.get('1'))} | {percent(passes.get(str(block['k'])))} | {percent(block['consistency'])} |"
        )
    return lines
