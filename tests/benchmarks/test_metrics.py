"""Every task's metric specs, checked for their declared properties in one suite (as scikit-learn's
``metrics/tests/test_common.py`` does for its scorers), and the one aggregation behind every report."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.metrics import (
    MetricSpec,
    aggregate,
    compared,
    figures,
    headline,
    number,
    percent,
    ratio,
    weighted_mean,
)
from benchmarks.tasks import get_task, task_names

# Every metric of every task, classified: (headline, higher_is_better, aggregation). A metric a task adds
# fails the suite until it is classified here.
CLASSIFIED = {
    "route": {
        **{
            name: spec
            for kind in ("short", "long")
            for name, spec in {
                f"weighted_accuracy_{kind}": (True, True, "weighted_mean"),
                f"map_score_{kind}": (True, True, "weighted_mean"),
                f"accuracy_{kind}": (False, True, "mean"),
                f"map_score_unweighted_{kind}": (False, True, "mean"),
                f"mean_tokens_{kind}": (False, False, "mean"),
            }.items()
        }
    },
    "plus": {
        "weighted_accuracy": (True, True, "weighted_mean"),
        "accuracy": (False, True, "mean"),
        "mean_tokens": (False, False, "mean"),
    },
    "mapqa": {
        "accuracy": (True, True, "mean"),
        "mean_jaccard": (False, True, "mean"),
        "mean_kendall_tau": (False, True, "mean"),
    },
    "probe": {
        "accuracy": (True, True, "mean"),
        "partial": (False, True, "mean"),
        "mean_tokens": (False, False, "mean"),
    },
}
ALL_SPECS = [(name, spec) for name in task_names() for spec in get_task(name).metrics]


def test_every_task_is_classified():
    assert set(CLASSIFIED) == set(task_names())


@pytest.mark.parametrize("task", task_names())
def test_every_metric_of_a_task_is_classified_with_its_properties(task):
    specs = get_task(task).metrics
    found = {spec.name: (spec.headline, spec.higher_is_better, spec.aggregation) for spec in specs}
    assert found == CLASSIFIED[task]
    assert len(found) == len(specs), "two specs of one task share a name"
    assert headline(specs), "a task without a headline metric"


@pytest.mark.parametrize(("task", "spec"), ALL_SPECS, ids=[f"{t}:{s.name}" for t, s in ALL_SPECS])
def test_a_spec_says_what_it_is(task, spec):
    assert spec.description and "\n" not in spec.description
    assert spec.label
    low, high = spec.bounds
    assert low < high


def _answer(rng: random.Random, low: float, high: float, **more) -> SimpleNamespace:
    """An answer of any task, its every field drawn inside ``[low, high]`` (finite bounds only)."""
    value = rng.uniform(low, high)
    return SimpleNamespace(
        id=str(rng.randrange(5)),
        question=rng.choice(["short", "long"]),
        correct=rng.randint(0, 1),
        map_score=value,
        partial=value,
        tokens=rng.choice([None, rng.randrange(100)]),
        scores={"jaccard": value, "kendall_tau": value} if rng.random() < 0.5 else {},
        weight=rng.choice([1.0, 1.5, 2.0, 3.0]),
        **more,
    )


@pytest.mark.parametrize(("task", "spec"), ALL_SPECS, ids=[f"{t}:{s.name}" for t, s in ALL_SPECS])
def test_a_figure_stays_within_the_specs_bounds_and_ignores_the_order_of_answers(task, spec):
    rng = random.Random(0)
    low, high = spec.bounds
    finite = (low, high if math.isfinite(high) else 1000.0)
    for _ in range(20):
        answers = [_answer(rng, *finite) for _ in range(rng.randrange(0, 12))]
        value = aggregate(spec, answers)
        applies = [answer for answer in answers if spec.value(answer) is not None]
        if not applies:
            assert value is None
            continue
        assert low - 1e-12 <= value <= high + 1e-12
        shuffled = answers[:]
        rng.shuffle(shuffled)
        assert figures([spec], shuffled) == figures([spec], answers)  # equal once rounded as summaries keep them


def test_weighted_mean_by_hand():
    # correct 1 at weight 3, 0 at weight 1: 3 / 4; map scores 20 and 4 at weights 1 and 3: (20 + 12) / 4 = 8
    assert weighted_mean([(1, 3.0), (0, 1.0)]) == 0.75
    assert weighted_mean([(20.0, 1.0), (4.0, 3.0)]) == 8.0
    assert weighted_mean([]) is None


def test_an_answer_the_metric_does_not_apply_to_is_left_out():
    spec = get_task("route").metrics[0]  # weighted_accuracy_short
    answers = [
        SimpleNamespace(question="short", correct=1, weight=3.0),
        SimpleNamespace(question="long", correct=0, weight=100.0),  # a long answer: not a short-question figure
        SimpleNamespace(question="short", correct=0, weight=1.0),
    ]
    assert spec.name == "weighted_accuracy_short"
    assert aggregate(spec, answers) == 0.75  # 3 / (3 + 1)


def test_mean_ignores_the_weights():
    spec = MetricSpec("accuracy", lambda answer: answer.correct, "share right", aggregation="mean")
    answers = [SimpleNamespace(correct=1, weight=3.0), SimpleNamespace(correct=0, weight=1.0)]
    assert aggregate(spec, answers) == 0.5


def test_a_spec_with_an_unknown_aggregation_or_empty_bounds_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"metric 'x': aggregation must be one of \['weighted_mean', 'mean'\]"):
        MetricSpec("x", lambda answer: 0.0, "d", aggregation="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="metric 'x': bounds"):
        MetricSpec("x", lambda answer: 0.0, "d", bounds=(1.0, 1.0))


def test_cells_print_shares_in_percent_and_other_figures_as_numbers():
    share, score = (spec for spec in get_task("route").metrics[:2])
    assert (share.cell(0.41234), score.cell(17.256), share.cell(None)) == ("41.23", "17.26", "–")
    assert (ratio(2, 3), ratio(1, 0), percent(0.5, 1, "%"), number(0.5, 3)) == (0.666667, None, "50.0%", "0.500")


def test_the_summary_row_of_each_task_holds_every_spec():
    from benchmarks.mapqa.records import MapQuestion, MapVerdict
    from benchmarks.mapqa.report import summarize as summarize_mapqa
    from benchmarks.plus.report import summarize as summarize_plus
    from benchmarks.plus.scoring import PlusVerdict

    plus = summarize_plus(
        [PlusVerdict("1", "m", "TorF1", "rome", "easy", "yes", "yes", "yes", 1, 1.0)], weighting="city"
    )
    assert {spec.name for spec in get_task("plus").metrics} <= set(plus["models"]["m"])
    record = {"id": "q", "image": "m.png", "question": "Which?", "options": ["x", "y"], "answer": "A",
              "type": "single", "level": 1, "category": "metro", "language": "en"}  # fmt: skip
    mapqa = summarize_mapqa([MapVerdict("q", "m", ("A",), {"exact": 1.0})], {"q": MapQuestion.from_dict(record)})
    assert {spec.name for spec in get_task("mapqa").metrics} <= set(mapqa["models"]["m"])
    from benchmarks.reasonmap.records import Verdict
    from benchmarks.reasonmap.report import summarize

    question = SimpleNamespace(city="rome", difficulty_city="easy", difficulty_question="easy")  # what it reads
    route = summarize([Verdict("1", "m", "short", None, 1, 20.0, weight=1.0)], {"1": question}, weighting="paper")
    assert {spec.name for spec in get_task("route").metrics} <= set(route["models"]["m"])


# What ``reasonmap compare`` and ``leaderboard`` compute from scored rows, per task, in order:
# (name, field, kind, test, scale, title), as the paired-comparison records declared them before they became
# part of the metric specs (the paper's Table 2 columns for the route task).
COMPARED = {
    "route": [
        ("weighted_accuracy_short", "correct", "short", "mcnemar", 100.0, "Short Acc. (%)"),
        ("map_score_short", "map_score", "short", "permutation", 1.0, "Short Map Score"),
        ("weighted_accuracy_long", "correct", "long", "mcnemar", 100.0, "Long Acc. (%)"),
        ("map_score_long", "map_score", "long", "permutation", 1.0, "Long Map Score"),
    ],
    "plus": [("weighted_accuracy", "correct", None, "mcnemar", 100.0, "Acc. (%)")],
    "mapqa": [
        ("accuracy", "correct", None, "mcnemar", 100.0, "Acc. (%)"),
        ("mean_jaccard", "jaccard", None, "permutation", 1.0, "Jaccard"),
        ("mean_kendall_tau", "kendall_tau", None, "permutation", 1.0, "Kendall tau"),
    ],
    "probe": [
        ("accuracy", "correct", None, "mcnemar", 100.0, "Acc. (%)"),
        ("partial", "partial", None, "permutation", 1.0, "Partial"),
    ],
}


@pytest.mark.parametrize("task", task_names())
def test_the_compared_metrics_of_each_task_say_their_field_kind_test_scale_and_title(task):
    found = [
        (spec.name, spec.field, spec.kind, spec.test, spec.scale, spec.title)
        for spec in compared(get_task(task).metrics)
    ]
    assert found == COMPARED[task]


def _verdicts(task: str) -> list:
    """Real verdicts of the task, one of each kind or type a compared metric reads."""
    if task == "route":
        from benchmarks.reasonmap.records import Verdict

        return [Verdict("1", "m", "short", None, 1, 15.0, weight=2.0), Verdict("1", "m", "long", None, 0, 7.0)]
    if task == "plus":
        from benchmarks.plus.scoring import PlusVerdict

        return [PlusVerdict("1", "m", "TorF1", "rome", "easy", "yes", "yes", "yes", 1, 1.5)]
    if task == "probe":
        from benchmarks.probe.scoring import ProbeVerdict

        return [
            ProbeVerdict("1", "m", "follow", "rome", ("P", "Q"), ("P", "R", "Q"), 0, 2 / 3),
            ProbeVerdict("2", "m", "same_line", "rome", "yes", "yes", 1, 1.0),
        ]
    from benchmarks.mapqa.records import MapVerdict

    return [
        MapVerdict("a", "m", ("A",), {"exact": 1.0}),
        MapVerdict("b", "m", ("A", "C"), {"exact": 0.0, "jaccard": 0.5}),
        MapVerdict("c", "m", ("B", "A", "C"), {"exact": 0.0, "kendall_tau": 1 / 3}),
    ]


@pytest.mark.parametrize("task", task_names())
def test_a_compared_metric_reads_from_a_scored_row_what_its_value_reads_from_the_verdict(task):
    # the comparisons read the row's ``field`` over rows of the spec's ``kind``; reports call ``value`` on the
    # verdict: both must give the same number, or the same "does not apply"
    for verdict in _verdicts(task):
        row = verdict.to_dict()
        for spec in compared(get_task(task).metrics):
            applies = spec.kind is None or row["question"] == spec.kind
            assert spec.value(verdict) == (row.get(spec.field) if applies else None), (spec.name, row)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.one_of(st.none(), st.floats(-1e6, 1e6), st.integers(0, 40)), st.floats(0, 3)), max_size=40),
    st.sampled_from(["weighted_mean", "mean"]),
)
def test_aggregate_gives_the_bits_of_the_weighted_mean_of_the_pairs(rows, aggregation):
    answers = [SimpleNamespace(value=value, weight=weight) for value, weight in rows]
    spec = MetricSpec("m", lambda answer: answer.value, "a metric", aggregation=aggregation)
    # the aggregate sums as it goes; the pairs' mean is the definition: the same float, bit for bit (or both None)
    assert repr(aggregate(spec, answers)) == repr(weighted_mean(spec.pairs(answers)))
