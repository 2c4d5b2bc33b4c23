"""Why two scoring variants differ: ``reasonmap score --explain paper,official``.

(``reasonmap compare`` is another thing: the paired comparison of two runs.)

Attribution (per answer, then summed per model and question kind)
    The answer is scored by the first variant (``P``) and by the official
    engine (:mod:`~benchmarks.reasonmap.official_scoring`) with its
    :data:`~benchmarks.reasonmap.official_scoring.DEVIATIONS` switched on one
    at a time, in their fixed order: ``O_0`` (none on), ``O_1``, …, ``O_n``
    (all on: the public code). The change ``O_0 - P`` is charged to
    ``parser_and_names`` (the public parser and its string comparison of
    names, against ours and the graph's name rules), each step
    ``O_k - O_(k-1)`` to the k-th deviation. The steps telescope, so the
    causes add up exactly to ``official - P``, answer by answer; a cause's
    *points* are its weighted share of the model's figure (``Σ w·Δ / Σ w``),
    so a column of causes sums to the difference of the two headline numbers.
    A fixed order makes the split reproducible, but interacting causes are
    charged to the one switched on later.

    When neither variant is ``official``, the one cause is ``variant``. The
    official engine reads each model's answers with the rule of its model path
    (:func:`~benchmarks.official_rules.choose_rule`); the record's
    ``official_rules`` says which.

The published aggregate
    The public ``cal_metrics.py`` averages each answer's stored fields per
    model, unweighted, over the 11 test maps: accuracy and map score of the
    short and the long answer, the via-count and via-stop parts and the
    tokens. :func:`published_aggregate` does the same with official verdicts;
    a question counts once per model (an answer left out counts 0, as an
    absent field does there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_code, markdown_text
from benchmarks.metrics import number
from benchmarks.official_rules import RuleChoice, official_rules_lines, resolve_rules, rule_for, rules_record
from benchmarks.reasonmap.official_scoring import DEVIATIONS, official_metro, score_official
from benchmarks.reasonmap.records import KINDS, Prediction, Question, Verdict
from benchmarks.reasonmap.report import published_aggregate_table
from benchmarks.reasonmap.scoring import get_map_score_rule, score_prediction
from graphkit.graph import TransitGraph

__all__ = [
    "CAUSES",
    "PUBLISHED_CITIES",
    "attribute",
    "explanation_markdown",
    "published_aggregate",
    "write_explanation",
]

#: Causes of a difference, in the order they are charged.
CAUSES: dict[str, str] = {
    "parser_and_names": (
        "the public parser on its model's answer text and its string comparison of names"
        " (vs ours and the graph's name rules)"
    ),
    **DEVIATIONS,
}
#: The maps ``cal_metrics.py`` averages over (the paper's test split).
PUBLISHED_CITIES: tuple[str, ...] = (
    "los_angeles",
    "miami",
    "toronto",
    "singapore",
    "auckland",
    "rome",
    "lisboa",
    "beijing",
    "hangzhou",
    "budapest",
    "geneva",
)
_EPSILON = 1e-9


def _scorer(
    variant: str, weighting: str, rules: Mapping[str, RuleChoice]
) -> Callable[[Prediction, Question, TransitGraph], tuple[int, float]]:
    if variant == "official":
        metros: dict[int, Any] = {}

        def official(prediction: Prediction, question: Question, graph: TransitGraph) -> tuple[int, float]:
            metro = metros.get(id(graph)) or metros.setdefault(id(graph), official_metro(graph))
            rule = rule_for(prediction.model, rules)
            score = score_official(prediction.response, question, metro, kind=prediction.question, rule=rule)
            return score.correct, score.map_score

        return official
    get_map_score_rule(variant)

    def ours(prediction: Prediction, question: Question, graph: TransitGraph) -> tuple[int, float]:
        verdict = score_prediction(prediction, question, graph, weighting=weighting, variant=variant)
        return verdict.correct, verdict.map_score

    return ours


def _ordered(variants: Sequence[str]) -> tuple[str, str]:
    """The two variants, ours first when one is ``official`` (the split runs from ours to the public code's).

    Parameters
    ----------
    variants : sequence of str
        The two variants asked for.

    Returns
    -------
    (str, str)
        The first variant and the second.

    Raises
    ------
    ValueError
        Not two different variants.
    """
    if len(variants) != 2 or variants[0] == variants[1]:
        raise ValueError(f"explain needs two different variants, got {list(variants)}")
    first, second = variants
    return (second, first) if first == "official" else (first, second)


def _path_scorer(
    first: str, second: str, weighting: str, rules: Mapping[str, RuleChoice]
) -> Callable[[Prediction, Question, TransitGraph], list[tuple[int, float]]]:
    """A function giving an answer's ``(correct, map score)`` at each step from ``first`` to ``second``.

    Parameters
    ----------
    first, second : str
        The two variants, in :func:`_ordered`'s order.
    weighting : str
        The weighting of our variants' verdicts.
    rules : mapping
        Each model's answer rule (:func:`~benchmarks.official_rules.resolve_rules`); a model without one is
        read with the rule its name chooses.

    Returns
    -------
    callable
        ``(prediction, question, graph) -> path``: with ``second == "official"``, ``[P, O_0, …, O_n]`` (the
        deviations switched on cumulatively); otherwise ``[P, Q]``.
    """
    score_first = _scorer(first, weighting, rules)
    if second != "official":
        score_second = _scorer(second, weighting, rules)

        def both(prediction: Prediction, question: Question, graph: TransitGraph) -> list[tuple[int, float]]:
            return [score_first(prediction, question, graph), score_second(prediction, question, graph)]

        return both
    # deviation sets switched on cumulatively: O_0 … O_n
    steps = [frozenset(list(DEVIATIONS)[:k]) for k in range(len(DEVIATIONS) + 1)]
    metros: dict[int, Any] = {}

    def stepwise(prediction: Prediction, question: Question, graph: TransitGraph) -> list[tuple[int, float]]:
        path = [score_first(prediction, question, graph)]
        metro = metros.get(id(graph)) or metros.setdefault(id(graph), official_metro(graph))
        rule = rule_for(prediction.model, rules)
        for on in steps:
            score = score_official(
                prediction.response, question, metro, kind=prediction.question, deviations=on, rule=rule
            )
            path.append((score.correct, score.map_score))
        return path

    return stepwise


def _tally(entry: dict[str, Any], weight: float, path: Sequence[tuple[int, float]], causes: Sequence[str]) -> None:
    """Add one answer's ``path`` (weighted by ``weight``) to its model and kind's running ``entry``.

    Parameters
    ----------
    entry : dict
        ``{"n", "weight", "totals", "causes"}`` of one model and kind, updated in place (the only state
        the attribution keeps).
    weight : float
        The answer's question weight.
    path : sequence of (int, float)
        The answer's ``(correct, map score)`` at each step (:func:`_path_scorer`).
    causes : sequence of str
        The cause charged with each step, in order.

    Returns
    -------
    None
    """
    entry["n"] += 1
    entry["weight"] += weight
    totals = entry["totals"]
    totals[0] += weight * path[0][0]
    totals[1] += weight * path[0][1]
    totals[2] += weight * path[-1][0]
    totals[3] += weight * path[-1][1]
    for cause, before, after in zip(causes, path, path[1:]):
        tally = entry["causes"][cause]
        map_change = after[1] - before[1]
        if abs(map_change) > _EPSILON:
            tally[0] += 1
            tally[1] += weight * map_change
        if after[0] != before[0]:
            tally[2] += 1
            tally[3] += weight * (after[0] - before[0])


def _kind_row(entry: Mapping[str, Any], first: str, second: str) -> dict[str, Any]:
    """One model and kind's figures from its running ``entry``: both variants', their difference, the causes.

    Parameters
    ----------
    entry : mapping
        What :func:`_tally` summed.
    first, second : str
        The two variants.

    Returns
    -------
    dict
        ``{"n", first, second, "difference", "causes"}`` as :func:`attribute` describes.
    """
    total = entry["weight"] or 1.0
    a_correct, a_map, b_correct, b_map = (value / total for value in entry["totals"])
    return {
        "n": entry["n"],
        first: {"accuracy": round(100 * a_correct, 4), "map_score": round(a_map, 4)},
        second: {"accuracy": round(100 * b_correct, 4), "map_score": round(b_map, 4)},
        "difference": {
            "accuracy": round(100 * (b_correct - a_correct), 4),
            "map_score": round(b_map - a_map, 4),
        },
        "causes": {
            cause: {
                "answers": answers,
                "map_points": round(points / total, 4),
                "verdicts": flips,
                "accuracy_points": round(100 * flipped / total, 4),
            }
            for cause, (answers, points, flips, flipped) in entry["causes"].items()
        },
    }


def attribute(
    questions: Mapping[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    *,
    variants: Sequence[str] = ("paper", "official"),
    weighting: str = "paper",
    weights: Mapping[str, float] | None = None,
    rules: Mapping[str, RuleChoice] | None = None,
) -> dict[str, Any]:
    """Per model and question kind: both variants' figures and the causes of their difference.

    Parameters
    ----------
    questions, predictions, graph_for
        As for :func:`~benchmarks.reasonmap.scoring.score_predictions` (unmatched predictions are left out).
    variants : (str, str)
        The two variants, ``"official"`` among them for a per-cause split.
    weighting : str
        The weighting of both variants' figures.
    weights : mapping, optional
        Question id to weight; by default the weighting's.
    rules : mapping, optional
        Each model's answer rule (``--official-model`` resolved, :func:`~benchmarks.official_rules.resolve_rules`);
        by default the one its name chooses.

    Returns
    -------
    dict
        ``{"variants", "weighting", "causes", "models": {model: {kind: {...}}}}``; a kind's entry
        holds ``n``, each variant's ``accuracy`` and ``map_score`` (weighted), their
        ``difference`` and ``causes``: per cause, ``answers`` whose map score it changed,
        ``map_points``, ``verdicts`` it flipped and ``accuracy_points`` (in %); with ``official``, also
        ``official_rules`` (:func:`~benchmarks.official_rules.official_rules`).

    Raises
    ------
    ValueError
        Not two different variants, or one that is no route variant.
    """
    from benchmarks.reasonmap.weighting import weight_of

    first, second = _ordered(variants)
    split = second == "official"
    causes = list(CAUSES) if split else ["variant"]
    predictions = list(predictions)
    # each model's rule: the run's resolved one, else the one its name chooses
    rules = {**resolve_rules(prediction.model for prediction in predictions), **(rules or {})}
    path_of = _path_scorer(first, second, weighting, rules)
    sums: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for prediction in predictions:
        question = questions.get(prediction.id)
        if question is None:
            continue
        weight = weights[question.id] if weights is not None else weight_of(question, weighting)
        path = path_of(prediction, question, graph_for(question))
        entry = sums[prediction.model].get(prediction.question)
        if entry is None:
            entry = sums[prediction.model][prediction.question] = {
                "n": 0,
                "weight": 0.0,
                "totals": [0.0, 0.0, 0.0, 0.0],  # weighted correct and map score of each variant
                "causes": {cause: [0, 0.0, 0, 0.0] for cause in causes},
            }
        _tally(entry, weight, path, causes)
    models = {
        model: {kind: _kind_row(sums[model][kind], first, second) for kind in KINDS if kind in sums[model]}
        for model in sorted(sums)
    }
    found = {
        "variants": [first, second],
        "weighting": weighting,
        "causes": {cause: CAUSES.get(cause, "the variants' own rules") for cause in causes},
        "models": models,
    }
    if split:
        found["official_rules"] = rules_record({model: rules[model] for model in models})
    return found


def published_aggregate(verdicts: Iterable[Verdict], questions: Mapping[str, Question]) -> dict[str, dict[str, Any]]:
    """Per model: ``cal_metrics.py``'s unweighted means over the test maps, from official verdicts.

    Parameters
    ----------
    verdicts : iterable of Verdict
        Verdicts of the official variant.
    questions : mapping
        Question id to question (read for its city: only the published test maps count).

    Returns
    -------
    dict
        Model to its aggregate: the accuracies, map scores, via-stop scores and tokens per kind, as the public
        script prints them.

    Examples
    --------
    >>> from benchmarks.reasonmap.records import Verdict
    >>> class Q:  # only the city is read
    ...     city = "rome"
    >>> rows = [Verdict("1", "m", "short", None, 1, 14.0), Verdict("2", "m", "long", None, 0, 3.0, {"num_via": 2.0})]
    >>> published_aggregate(rows, {"1": Q, "2": Q})["m"]["map_score_long"]
    1.5
    """
    fields = ("acc_short", "acc_long", "map_score_short", "map_score_long", "via_stops_score", "num_via_stop_score")
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    samples: dict[str, set[str]] = defaultdict(set)
    for verdict in verdicts:
        question = questions.get(verdict.id)
        if question is None or question.city not in PUBLISHED_CITIES:
            continue
        samples[verdict.model].add(verdict.id)
        tally = sums[verdict.model]
        tally[f"acc_{verdict.question}"] += verdict.correct
        tally[f"map_score_{verdict.question}"] += verdict.map_score
        tally[f"token_{verdict.question}"] += verdict.tokens or 0
        if verdict.question == "long":
            tally["via_stops_score"] += verdict.components.get("via_stop") or 0.0
            tally["num_via_stop_score"] += verdict.components.get("num_via") or 0.0
    found = {}
    for model in sorted(samples):
        count = len(samples[model])
        row: dict[str, Any] = {"count": count}
        for name in (*fields, "token_short", "token_long"):
            row[name] = round(sums[model][name] / count, 4)
        found[model] = row
    return found


def with_intervals(comparison: dict[str, Any], summaries: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``comparison`` with, per model, kind and variant, the ``intervals`` of its weighted accuracy and map
    score (``accuracy``, ``map_score``; as :mod:`benchmarks.intervals` gives them, accuracy as a share) taken
    from that variant's summary, where it has them.

    Examples
    --------
    >>> interval = {"n": 2, "se": 0.1, "low": 0.5, "high": 0.9}
    >>> summaries = {"paper": {"models": {"m": {"intervals": {"weighted_accuracy_short": interval}}}}}
    >>> record = with_intervals({"models": {"m": {"short": {"paper": {"accuracy": 70.0}}}}}, summaries)
    >>> record["models"]["m"]["short"]["paper"]["intervals"]
    {'accuracy': {'n': 2, 'se': 0.1, 'low': 0.5, 'high': 0.9}}
    """
    for model, kinds in comparison["models"].items():
        for kind, row in kinds.items():
            for variant, summary in summaries.items():
                found = summary.get("models", {}).get(model, {}).get("intervals", {})
                keys = {"accuracy": f"weighted_accuracy_{kind}", "map_score": f"map_score_{kind}"}
                chosen = {name: found[key] for name, key in keys.items() if key in found}
                if chosen and variant in row:
                    row[variant]["intervals"] = chosen
    return comparison


def _figure(row: Mapping[str, Any], name: str, scale: float) -> str:
    """A variant's figure, with ``±`` half its interval when the row has one (``scale``: the interval's unit)."""
    interval = row.get("intervals", {}).get(name)
    text = number(row[name])
    if interval is None:
        return text
    if interval["low"] is None or interval["high"] is None:  # no interval to give (n < 2, no variance)
        return f"{text} ± –"
    return f"{text} ± {number((interval['high'] - interval['low']) / 2 * scale)}"


def _any_interval(comparison: Mapping[str, Any]) -> bool:
    return any(
        "intervals" in row.get(variant, {})
        for kinds in comparison["models"].values()
        for row in kinds.values()
        for variant in comparison["variants"]
    )


def explanation_markdown(comparison: Mapping[str, Any], aggregate: Mapping[str, Any] | None = None) -> str:
    """The explanation as markdown: both variants per model and kind, then a table of causes per model.

    Parameters
    ----------
    comparison : mapping
        What :func:`attribute` found (with :func:`with_intervals`' intervals, where given).
    aggregate : mapping, optional
        The public code's own aggregate (:func:`published_aggregate`), shown when given.

    Returns
    -------
    str
        The markdown of ``compare.md``.
    """
    first, second = comparison["variants"]
    lines = [
        f"Variants `{first}` and `{second}`, weighting `{comparison['weighting']}`"
        " (accuracy in %; causes in points of the weighted figure, charged in the order listed)."
        + (
            " ± is half the width of each figure's 95% interval (bootstrap over questions)."
            if _any_interval(comparison)
            else ""
        ),
        "",
        f"| Model | Kind | n | Acc. {first} | Acc. {second} | Δ | Map {first} | Map {second} | Δ |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for model, kinds in comparison["models"].items():
        for kind, row in kinds.items():
            lines.append(
                f"| {markdown_text(model)} | {kind} | {row['n']} | {_figure(row[first], 'accuracy', 100)} "
                f"| {_figure(row[second], 'accuracy', 100)} | {row['difference']['accuracy']:+.2f} "
                f"| {_figure(row[first], 'map_score', 1)} | {_figure(row[second], 'map_score', 1)} "
                f"| {row['difference']['map_score']:+.2f} |"
            )
    for model, kinds in comparison["models"].items():
        lines += [
            "",
            f"Why {markdown_code(model)} differs:",
            "",
            "| Cause | Kind | Answers (map) | Map points | Verdicts flipped | Acc. points |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for cause in comparison["causes"]:
            for kind, row in kinds.items():
                tally = row["causes"][cause]
                if tally["answers"] or tally["verdicts"]:
                    lines.append(
                        f"| {cause} | {kind} | {tally['answers']} | {tally['map_points']:+.2f} "
                        f"| {tally['verdicts']} | {tally['accuracy_points']:+.2f} |"
                    )
    if comparison.get("official_rules"):
        lines += ["", *official_rules_lines(comparison["official_rules"])]
    if aggregate:
        lines += ["", *published_aggregate_table(aggregate, "official verdicts, unweighted, the 11 test maps")]
    lines += ["", "Causes:", ""]
    lines += [f"- `{cause}`: {text}" for cause, text in comparison["causes"].items()]
    return "\n".join(lines) + "\n"


def write_explanation(directory: str | Path, record: Mapping[str, Any], markdown: str) -> list[Path]:
    """Write an explanation's ``compare.json`` (``record``) and ``compare.md`` (``markdown``) into ``directory``.

    The files keep the names older runs wrote, so scripts that read them still work.

    Parameters
    ----------
    directory : str or Path
        The report folder (made when missing).
    record : mapping
        The explanation (:func:`attribute`'s record, with intervals and the published aggregate).
    markdown : str
        Its markdown (:func:`explanation_markdown`).

    Returns
    -------
    list of Path
        The two files written, ``compare.md`` last.
    """
    from benchmarks.summaries import write_summary, write_text

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    return [write_summary(out / "compare.json", record), write_text(out / "compare.md", markdown)]
