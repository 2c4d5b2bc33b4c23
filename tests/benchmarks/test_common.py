"""One suite over every task × scoring variant and every reward: the properties each scorer promises.

As scikit-learn checks every metric in one place (scikit-learn/scikit-learn
7babdf1, ``sklearn/metrics/tests/test_common.py``: ``ALL_METRICS`` with sets
of metrics by property, ``test_symmetry_consistency`` failing when a metric
is left unclassified, ``test_sample_order_invariance``), each (task, variant)
of the registry is classified here with the bounds of its per-answer
scores, and the suite checks, for all of them: reading an answer never
raises on arbitrary text; every score stays within its bounds; verdicts come
back in the predictions' order; a prediction that answers no question is
reported, never scored; the same inputs give the same verdicts. A task or a
variant added to the registry without a classification here fails
:func:`test_every_task_and_variant_is_classified`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.mapqa.records import MapPrediction
from benchmarks.plus.records import PlusPrediction
from benchmarks.probe.questions import ProbePrediction
from benchmarks.reasonmap.records import Prediction
from benchmarks.reasonmap.rewards import REWARDS, compute_score
from benchmarks.tasks import Loaded, ScoreOptions, get_task, task_names
from graphkit.cities import city_graph

MAPQA_FILE = Path(__file__).resolve().parent / "mapqa" / "fixtures" / "questions.jsonl"
# modest example counts: every (task, variant) runs each property
EXAMPLES = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@dataclass(frozen=True, slots=True)
class Bounds:
    """What one verdict's numbers may be: ``correct`` 0 or 1, and each named score within ``[low, high]``."""

    scores: Callable[[Any], dict[str, tuple[float, float, float]]]  # verdict -> {name: (value, low, high)}


def _route_scores(verdict: Any) -> dict[str, tuple[float, float, float]]:
    # the paper's caps: short ≤ 10 + 10 bonus, long ≤ 20 + 20 (Algorithm 2; DESIGN.md "Scoring")
    high = 20.0 if verdict.question == "short" else 40.0
    return {"map_score": (verdict.map_score, 0.0, high), "weight": (verdict.weight, 1.0, 3.0)}


def _plus_scores(verdict: Any) -> dict[str, tuple[float, float, float]]:
    # the city weighting: 1, 1.5 or 2 by map difficulty
    return {"weight": (verdict.weight, 1.0, 2.0)}


def _probe_scores(verdict: Any) -> dict[str, tuple[float, float, float]]:
    # the partial score is a share (set F1, normalised edit similarity); every probe weighs 1
    return {"partial": (verdict.partial, 0.0, 1.0), "weight": (verdict.weight, 1.0, 1.0)}


def _mapqa_scores(verdict: Any) -> dict[str, tuple[float, float, float]]:
    # exact match and Jaccard are shares; Kendall's tau-b lies in [-1, 1]
    ranges = {"exact": (0.0, 1.0), "jaccard": (0.0, 1.0), "kendall_tau": (-1.0, 1.0)}
    return {name: (value, *ranges[name]) for name, value in verdict.scores.items()}


#: Every (task, variant) of the registry, classified by the bounds of its verdicts.
CLASSIFIED: dict[tuple[str, str], Bounds] = {
    **{("route", name): Bounds(_route_scores) for name in ("paper", "C1", "C2", "ungated", "official")},
    **{("plus", name): Bounds(_plus_scores) for name in ("toolkit", "official", "vlmevalkit")},
    ("mapqa", "toolkit"): Bounds(_mapqa_scores),
    ("probe", "toolkit"): Bounds(_probe_scores),
}
#: Every reward, with its bounds (both give 0.0 or 1.0).
REWARD_BOUNDS = {"accuracy": (0.0, 1.0), "format": (0.0, 1.0)}
#: How a test writes one answer of each task's (its prediction record), and the request kinds of a question.
ANSWER: dict[str, Callable[[Any, str, str], Any]] = {
    "route": lambda question, kind, text: Prediction(question.id, "m", kind, text),
    "plus": lambda question, kind, text: PlusPrediction(question.id, "m", text, None, kind),
    "mapqa": lambda question, kind, text: MapPrediction(question.id, "m", text),
    "probe": lambda question, kind, text: ProbePrediction(question.id, "m", text, None, kind),
}


def _pairs() -> list[tuple[str, str]]:
    return [(task, variant) for task in task_names() for variant in get_task(task).variant_names]


#: The generation settings kept small for the suite (every task that generates its questions names its own in
#: ``Generation.defaults``; these replace the ones they name).
SMALL = {"per_city": 3, "quota": "1:1:1", "per_type": 1}
#: The question files of the tasks that generate none.
FIXTURES = {"mapqa": MAPQA_FILE}


@cache
def _questions(task: str) -> Loaded:
    """A few questions of each task, made once: a generating task's from Rome's graph (its record's generation,
    :data:`SMALL`), any other's from its fixture (:data:`FIXTURES`)."""
    record = get_task(task)
    if record.generation is None:
        return record.load(FIXTURES[task])
    settings = {name: SMALL.get(name, value) for name, value in record.generation.defaults.items()}
    questions = record.generation.make([city_graph("rome")], seed=0, progress=False, **settings)
    return Loaded({question.id: question for question in questions})


def _answers(task: str, texts: list[str]) -> list[Any]:
    """One answer per (question, request kind), the texts dealt round."""
    loaded = _questions(task)
    prompts = [prompt for question in loaded.questions.values() for prompt in get_task(task).prompts(question)]
    return [
        ANSWER[task](loaded.questions[prompt.id], prompt.kind, texts[index % len(texts)])
        for index, prompt in enumerate(prompts)
    ]


def _score(task: str, variant: str, predictions: list[Any]) -> tuple[list[Any], list[str]]:
    record = get_task(task)
    # the task's own options at their defaults, resolved for these models as a run resolves them
    given, models = dict(record.options), {prediction.model for prediction in predictions}
    extra = record.resolve(given, models, "predictions") if record.resolve is not None else given
    return record.score(_questions(task), predictions, ScoreOptions(variant=variant, extra=extra), None)


def _station_text(task: str) -> st.SearchStrategy[str]:
    """Answer-like text: the format's field names around station and line names of the task's questions, so that
    the parsers' deeper paths are reached, not only their refusals."""
    words = ["Route Name:", "Departure Stop:", "Arrival Stop:", "Number of Via Stops:", "Via Stops:", "--", "\n"]
    words += ["A", "B", "C", "D", "yes", "no", "\\boxed{", "}", "<answer>", "</answer>", "1", "3", ","]
    if task != "mapqa":
        graph = city_graph("rome")
        words += list(graph.stations)[:12] + list(graph.lines)[:4]
    return st.lists(st.sampled_from(words), max_size=30).map(" ".join)


ANY_TEXT = st.text(max_size=200)


def test_every_task_and_variant_is_classified():
    assert set(CLASSIFIED) == set(_pairs())
    assert set(ANSWER) == set(task_names())
    assert set(REWARD_BOUNDS) == set(REWARDS)


@pytest.mark.parametrize(("task", "variant"), sorted(CLASSIFIED))
def test_reading_never_raises_and_every_score_is_within_its_bounds(task, variant):
    @EXAMPLES
    @given(texts=st.lists(st.one_of(ANY_TEXT, _station_text(task)), min_size=1, max_size=4))
    def check(texts):
        predictions = _answers(task, texts)
        verdicts, messages = _score(task, variant, predictions)
        assert len(verdicts) == len(predictions) and messages == []
        for verdict in verdicts:
            assert verdict.correct in (0, 1)
            for name, (value, low, high) in CLASSIFIED[(task, variant)].scores(verdict).items():
                assert low <= value <= high, (name, value, verdict)

    check()


def _batch_scorers() -> dict[str, Callable[[Any, list[Any]], tuple[list[Any], list[str]]]]:
    """Each task's public batch scorer (and route's public-code engine), called on questions and predictions."""
    import benchmarks.mapqa
    import benchmarks.plus
    import benchmarks.probe
    import benchmarks.reasonmap
    from benchmarks.reasonmap.official_scoring import score_official_predictions

    def graph_for(question):
        return city_graph(question.city)

    return {
        "route": lambda questions, predictions: benchmarks.reasonmap.score_predictions(
            questions, predictions, graph_for
        ),
        "route official": lambda questions, predictions: score_official_predictions(questions, predictions, graph_for),
        "plus": benchmarks.plus.score_predictions,
        "mapqa": benchmarks.mapqa.score_predictions,
        "probe": benchmarks.probe.score_predictions,
    }


@pytest.mark.parametrize("scorer", ["route", "route official", "plus", "mapqa", "probe"])
def test_every_batch_scorer_says_why_it_skipped_a_prediction_the_same_way(scorer):
    # one return contract: (verdicts, one message per prediction skipped), never bare ids
    task = scorer.split()[0]
    predictions = _answers(task, ["an answer"])
    stray = replace(predictions[0], id="no-such-question")
    verdicts, skipped = _batch_scorers()[scorer](dict(_questions(task).questions), [stray, *predictions])
    assert skipped == ["prediction 'no-such-question' matches no question"]
    assert len(verdicts) == len(predictions)


@pytest.mark.parametrize(("task", "variant"), sorted(CLASSIFIED))
def test_verdicts_keep_the_predictions_order(task, variant):
    @EXAMPLES
    @given(texts=st.lists(_station_text(task), min_size=1, max_size=3), order=st.randoms(use_true_random=False))
    def check(texts, order):
        predictions = _answers(task, texts)
        order.shuffle(predictions)
        verdicts, _ = _score(task, variant, predictions)
        assert [v.id for v in verdicts] == [p.id for p in predictions]

    check()


@pytest.mark.parametrize(("task", "variant"), sorted(CLASSIFIED))
def test_a_prediction_of_no_question_is_reported_and_the_others_scored(task, variant):
    predictions = _answers(task, ["an answer"])
    stray = replace(predictions[0], id="no-such-question")
    verdicts, messages = _score(task, variant, [stray, *predictions])
    assert len(verdicts) == len(predictions)
    assert "no-such-question" not in {v.id for v in verdicts}
    assert len(messages) == 1 and "'no-such-question'" in messages[0]


@pytest.mark.parametrize(("task", "variant"), sorted(CLASSIFIED))
def test_the_same_answers_give_the_same_verdicts(task, variant):
    @EXAMPLES
    @given(texts=st.lists(st.one_of(ANY_TEXT, _station_text(task)), min_size=1, max_size=3))
    def check(texts):
        first, _ = _score(task, variant, _answers(task, texts))
        again, _ = _score(task, variant, _answers(task, texts))
        assert [json.dumps(v.to_dict(), sort_keys=True) for v in first] == [
            json.dumps(v.to_dict(), sort_keys=True) for v in again
        ]

    check()


@pytest.mark.parametrize("reward", sorted(REWARD_BOUNDS))
def test_rewards_never_raise_stay_within_bounds_and_repeat(reward):
    low, high = REWARD_BOUNDS[reward]
    question = next(iter(_questions("route").questions.values()))
    record = json.dumps(question.to_dict(), ensure_ascii=False)

    @EXAMPLES
    @given(text=st.one_of(ANY_TEXT, _station_text("route")), kind=st.sampled_from(["short", "long"]))
    def check(text, kind):
        value = compute_score("reasonmap", text, record, {"kind": kind, "reward": reward})
        assert low <= value <= high
        assert compute_score("reasonmap", text, record, {"kind": kind, "reward": reward}) == value
        (batched,) = REWARDS[reward][0]([text], question=[record], kind=[kind])
        assert batched == value

    check()


def _oracle_answers(task: str) -> list[Any]:
    """The symbolic oracle's answers (right by construction), where the task has an oracle."""
    loaded = _questions(task)
    return get_task(task).solver()("oracle", loaded.questions.values(), lambda question: city_graph(question.city))


@pytest.mark.parametrize(
    ("task", "variant"), sorted(pair for pair in CLASSIFIED if "oracle" in get_task(pair[0]).solvers)
)
def test_right_answers_stay_within_the_bounds_and_the_toolkits_reading_takes_them(task, variant):
    verdicts, messages = _score(task, variant, _oracle_answers(task))
    assert verdicts and messages == []
    for verdict in verdicts:
        for name, (value, low, high) in CLASSIFIED[(task, variant)].scores(verdict).items():
            assert low <= value <= high, (name, value, verdict)
    if variant != "official":  # the public code's defects may refuse a right answer; the toolkit's readings take it
        assert all(verdict.correct == 1 for verdict in verdicts)
