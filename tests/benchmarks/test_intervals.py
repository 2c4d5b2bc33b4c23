"""The bootstrap over questions: its coverage, the weighting inside each resample, the clusters, and the bytes."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.intervals import INTERVAL_METHOD, Interval, grouped_intervals, intervals
from benchmarks.metrics import MetricSpec, aggregate
from benchmarks.paired import _spread, _spreads, resampling_weights, weighted_means
from benchmarks.summaries import summary_json
from benchmarks.tasks import get_task

WEIGHTED = MetricSpec("accuracy", lambda answer: answer.correct, "share right, weighted")


def _column(index: int) -> MetricSpec:
    """Run ``index`` of a simulation: a weighted accuracy that reads the answer's ``index``-th verdict."""
    return MetricSpec(f"run{index}", lambda answer, i=index: answer.correct[i], "run i's weighted accuracy")


@pytest.mark.slow  # about 8 s on the 2-core machine: 1,000 bootstraps of 2,000 resamples
def test_the_95_interval_covers_the_true_rate_in_93_to_97_percent_of_1000_runs():
    # 1,000 simulated runs at once (one spec per run, the same 150 question ids): each question has a short
    # and a long answer, the long one the same verdict as the short in 80% of questions (answers of a question
    # are not independent), every verdict right with probability 0.4 whatever the question's weight, so each
    # run's weighted accuracy estimates 0.4. (Resampling answers one by one instead covers it in 86% of runs.)
    runs, questions, rate = 1000, 150, 0.4
    rng = np.random.default_rng(12345)
    short = rng.random((questions, runs)) < rate
    same = rng.random((questions, runs)) < 0.8
    long = np.where(same, short, rng.random((questions, runs)) < rate)
    weights = rng.choice([1.0, 1.5, 2.0, 2.5, 3.0], size=questions)
    answers = [
        SimpleNamespace(id=f"q{q:03}", correct=verdicts[q].astype(float), weight=weights[q])
        for verdicts in (short, long)
        for q in range(questions)
    ]
    found = intervals([_column(i) for i in range(runs)], answers)
    covered = sum(found[f"run{i}"].low <= rate <= found[f"run{i}"].high for i in range(runs))
    assert 930 <= covered <= 970, covered
    assert {interval.n for interval in found.values()} == {questions}  # n counts questions, not answers


def test_the_weighting_applies_inside_each_resample_by_hand():
    # two questions: a right at weight 3, b wrong at weight 1, with Poisson(1) weights A and B in a resample:
    # the estimate is 3A / (3A + B) (an unweighted mean would give A / (A + B)). With A = B = 1 it is 3/4;
    # A > 0 = B gives 1 and A = 0 < B gives 0, each with chance e^-1 (1 - e^-1) = 0.2325; A = B = 0
    # (chance e^-2 = 0.1353) gives no estimate and is dropped.
    answers = [SimpleNamespace(id="a", correct=1, weight=3.0), SimpleNamespace(id="b", correct=0, weight=1.0)]
    counts = resampling_weights(["a", "b"]).T  # the weights intervals() gives two questions
    estimates = weighted_means(counts, np.array([1.0, 0.0]), np.array([3.0, 1.0]))
    assert np.isnan(estimates).mean() == pytest.approx(math.exp(-2), abs=0.02)
    assert np.mean(estimates == 1.0) == pytest.approx(math.exp(-1) * (1 - math.exp(-1)), abs=0.025)
    assert np.mean(estimates == 0.0) == pytest.approx(math.exp(-1) * (1 - math.exp(-1)), abs=0.025)
    a, b = counts[:, 0], counts[:, 1]
    drawn = a + b > 0
    assert np.allclose(estimates[drawn], 3 * a[drawn] / (3 * a[drawn] + b[drawn]))
    assert 0.75 in estimates.tolist()
    found = intervals([WEIGHTED], answers)["accuracy"]
    assert (found.n, found.low, found.high) == (2, 0.0, 1.0)


def test_a_questions_answers_and_repeats_are_drawn_together():
    # question a: short right, long wrong, and a repeat of its short answer, right (2 right of 3); question b:
    # both wrong (0 of 2). Whole questions are drawn: {a, a} 4/6 = 2/3, {a, b} 2/5, {b, b} 0, so the interval
    # runs from 0 to 2/3 (a quarter of the draws at each end); answers drawn one by one could reach 1.
    answers = [
        SimpleNamespace(id="a", correct=1, weight=1.0, repeat=0),
        SimpleNamespace(id="a", correct=0, weight=1.0, repeat=0),
        SimpleNamespace(id="a", correct=1, weight=1.0, repeat=1),
        SimpleNamespace(id="b", correct=0, weight=1.0, repeat=0),
        SimpleNamespace(id="b", correct=0, weight=1.0, repeat=0),
    ]
    found = intervals([WEIGHTED], answers)["accuracy"]
    assert found.n == 2
    assert (found.low, found.high) == (0.0, pytest.approx(2 / 3))
    assert aggregate(WEIGHTED, answers) == 0.4


def test_the_same_answers_in_any_order_give_the_same_interval_bits():
    rng = random.Random(3)
    answers = [
        SimpleNamespace(id=f"q{i % 40}", correct=rng.randint(0, 1), weight=rng.choice([1.0, 1.5, 3.0]))
        for i in range(120)
    ]
    first = intervals([WEIGHTED], answers)
    shuffled = answers[:]
    rng.shuffle(shuffled)
    assert intervals([WEIGHTED], shuffled) == first
    assert intervals([WEIGHTED], answers, seed=1) != first  # the seed is what draws


def test_no_answer_gives_no_interval():
    assert intervals([WEIGHTED], []) == {}
    never = MetricSpec("never", lambda answer: None, "applies to nothing")
    assert intervals([never], [SimpleNamespace(id="a", weight=1.0)]) == {}


def test_grouped_intervals_are_each_groups_own_intervals_bit_for_bit():
    # a report's groups: some of one size (they share the draws), some answers in several groups (a model's row
    # and its city's), a group of 1 question, an empty one, one where a spec never applies, and a tiny one
    # whose resamples sometimes draw no weight (they are dropped): each must be what intervals() gives it alone
    rng = random.Random(5)
    answers = [
        SimpleNamespace(id=f"q{i % 37}", correct=rng.randint(0, 1), weight=rng.choice([0.0, 1.0, 1.5, 3.0]),
                        score=rng.uniform(0, 40) if i % 4 else None)
        for i in range(150)
    ]  # fmt: skip
    score = MetricSpec("score", lambda answer: answer.score, "a map score", bounds=(0.0, 40.0))
    never = MetricSpec("never", lambda answer: None, "applies to nothing")
    specs = [WEIGHTED, score, never]
    groups = [answers, answers[:60], answers[60:120], answers[::3], answers[:1], [], answers[:4], answers[90:]]
    found = grouped_intervals(specs, groups)
    assert found == [intervals(specs, group) for group in groups]
    assert [list(group) for group in found[:2]] == [["accuracy", "score"]] * 2 and found[5] == {}


def _one_group_by_the_definition(specs, answers):
    """The bootstrap of one group spelt out: per spec and question (sorted by id) the exact sums of weight × value
    and of weight (1 for a plain mean) over the answers the spec applies to, the shared draws of that many
    questions, and each spec's spread of the resampled ratios (resamples that drew no weight dropped)."""
    ids = sorted({answer.id for answer in answers})
    if not ids:
        return {}
    sums = np.zeros((2 * len(specs), len(ids)))
    applies = np.zeros((len(specs), len(ids)), dtype=bool)
    for column, spec in enumerate(specs):
        for row, question in enumerate(ids):
            mine = [a for a in answers if a.id == question and spec.value(a) is not None]
            pairs = [(spec.value(a), spec.weight(a) if spec.weighted else 1.0) for a in mine]
            sums[column, row] = math.fsum(weight * value for value, weight in pairs)
            sums[len(specs) + column, row] = math.fsum(weight for _, weight in pairs)
            applies[column, row] = bool(pairs)
    counts = resampling_weights(ids)  # questions × resamples
    resampled = sums @ counts
    with np.errstate(invalid="ignore", divide="ignore"):
        means = resampled[: len(specs)] / resampled[len(specs) :]
    found = {}
    for column, spec in enumerate(specs):
        if applies[column].any():
            n = int(applies[column].sum())
            spread = _spread(means[column], 0.95)
            flat = spread["se"] <= 1e-12 * max(1.0, abs(spread["low"]), abs(spread["high"]))
            if n < 2 or flat or np.isfinite(means[column]).sum() < 2 or spread["high"] - spread["low"] <= 1e-12:
                found[spec.name] = Interval(n, None, None, None)  # fewer than two questions, or no variance
            else:
                found[spec.name] = Interval(n, spread["se"], spread["low"], spread["high"])
    return found


def test_grouped_intervals_are_the_definitions_bits_whatever_a_questions_answer_count():
    # questions with 1, 2, 3 and 5 answers in a group (a short and a long answer, repeats), -0.0, zero weights
    # and answers a spec skips: numpy sums one or two answers, fsum more; the bits are the definition's (repr:
    # -0.0 and 0.0 are equal floats). By hand: a question answered 1.1, 1e-16 and 5.5 sums to 6.6000000000000005
    # (fsum), where adding two first, in any order, gives 6.6; one answered -0.0 has the interval [0.0, 0.0].
    rng = random.Random(17)
    answers = []
    for question in range(24):
        for _ in range((1, 2, 3, 5)[question % 4]):
            value = rng.choice([0.0, -0.0, 1.0, 0.1, 0.2, 0.3, rng.uniform(0, 40), None])
            weight = rng.choice([0.0, 1.0, 1.5, 3.0])
            answers.append(SimpleNamespace(id=f"q{question:02}", score=value, weight=weight))
    three = [SimpleNamespace(id="t", score=value, weight=1.0) for value in (1.1, 1e-16, 5.5)]
    three.append(SimpleNamespace(id="u", score=0.0, weight=1.0))
    zeros = [SimpleNamespace(id=f"z{i}", score=-0.0, weight=1.0) for i in range(2)]
    score = MetricSpec("score", lambda answer: answer.score, "a score that can be any float")
    plain = MetricSpec("plain", lambda answer: answer.score, "the same, unweighted", aggregation="mean")
    specs = [score, plain]
    groups = [answers, answers[::2], answers[5:40], answers[:3], answers[40:], three, zeros, zeros[:1]]
    found = grouped_intervals(specs, groups)
    assert repr(found) == repr([_one_group_by_the_definition(specs, group) for group in groups])
    # t alone (u weighing 0) is t's mean: 6.6000000000000005 / 3 = 2.2, not 6.6 / 3 = 2.1999999999999997; two
    # questions of -0.0 have no variance, one question no interval at all
    assert found[5]["score"].high == 2.2
    assert found[6]["score"] == Interval(2, None, None, None) and found[7]["score"] == Interval(1, None, None, None)


def test_spreads_of_many_rows_are_each_rows_spread():
    # numpy's quantile and std along the last axis against one row at a time; rows with a dropped (nan)
    # resample, rounded values (ties in the order statistics), and levels other than 0.95
    rng = np.random.default_rng(2)
    rows = rng.random((30, 2000)) * 40
    rows[::3] = np.round(rows[::3])
    rows[4, 17] = rows[9, :5] = np.nan
    for level in (0.95, 0.9, 0.5):
        assert _spreads(rows, level) == [_spread(row, level) for row in rows]
    with pytest.raises(ValueError, match="level"):
        _spreads(rows, 1.0)


def test_spreads_of_rows_that_keep_every_resample_are_numpys_quantiles():
    # every resample kept: the order statistics come from a partition, not a sort; rows with ties (rounded),
    # constant rows and resample counts whose quantiles fall between two order statistics (2000) or on one (201)
    rng = np.random.default_rng(3)
    for width in (2000, 201, 2):
        rows = rng.random((12, width)) * 40
        rows[::3] = np.round(rows[::3])
        rows[5] = 7.0
        for level in (0.95, 0.9, 0.5):
            assert _spreads(rows, level) == [_spread(row, level) for row in rows]
            low, high = np.quantile(rows, [(1 - level) / 2, (1 + level) / 2], axis=1)
            assert [(found["low"], found["high"]) for found in _spreads(rows, level)] == list(zip(low, high))


def test_intervals_are_the_same_on_one_thread_or_several(monkeypatch):
    # batches run on up to 4 threads where the cores allow; each writes only its own groups' intervals
    import benchmarks.intervals as module

    rng = random.Random(11)
    answers = [SimpleNamespace(id=f"q{i % 90}", correct=rng.randint(0, 1), weight=1.0) for i in range(400)]
    groups = [answers[start : start + size] for size in (3, 7, 20, 60) for start in range(0, 300, size)]
    monkeypatch.setattr(module, "_cores", lambda: 1)
    alone = grouped_intervals([WEIGHTED], groups)
    monkeypatch.setattr(module, "_cores", lambda: 4)
    assert repr(grouped_intervals([WEIGHTED], groups)) == repr(alone)
    assert sum(bool(found) and found["accuracy"].low is not None for found in alone) > 100


def test_large_batches_run_on_fewer_threads(monkeypatch):
    # many resamples make each batch's gathered weights large: the threads that may hold them at once are
    # limited by memory (here 36 questions × 2,000 resamples × 8 bytes = 576,000 bytes a batch, the budget one
    # and a half batches: no thread beside the caller's), and the intervals stay the same
    import threading

    import benchmarks.intervals as module

    ran_on = set()
    original = module._resampled

    def batch(*args):
        ran_on.add(threading.get_ident())
        return original(*args)

    answers = [SimpleNamespace(id=f"q{i % 40}", correct=i % 3 == 0, weight=1.0) for i in range(400)]
    groups = [[a for a in answers if int(a.id[1:]) % 10 != k] for k in range(10)]  # 10 sets of 36 questions
    monkeypatch.setattr(module, "_cores", lambda: 4)
    monkeypatch.setattr(module, "_BATCH_ROWS", 1)  # a set a batch
    monkeypatch.setattr(module, "_resampled", batch)
    threaded = grouped_intervals([WEIGHTED], groups)
    assert ran_on and threading.get_ident() not in ran_on  # the pool's threads ran them
    ran_on.clear()
    monkeypatch.setattr(module, "_THREAD_BYTES", 36 * 2000 * 8 * 3 // 2)
    assert repr(grouped_intervals([WEIGHTED], groups)) == repr(threaded)
    assert ran_on == {threading.get_ident()}  # the caller's thread alone


def test_an_interrupted_bootstrap_runs_no_more_batches(monkeypatch):
    # Ctrl-C while the threads work (SIGINT, which Python raises in the main thread, waiting for a batch): it
    # reaches the caller, and the batches not yet started are dropped rather than run to the end first
    import os
    import signal
    import time

    import benchmarks.intervals as module

    started = []

    def batch(*args):
        started.append(args)
        if len(started) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)

    answers = [SimpleNamespace(id=f"q{i}", correct=i % 2, weight=1.0) for i in range(200)]
    groups = [answers[start : start + 2] for start in range(0, 200, 2)]  # 100 groups of 2: 100 batches' work
    monkeypatch.setattr(module, "_cores", lambda: 2)
    monkeypatch.setattr(module, "_BATCH_ROWS", 1)  # a group a batch
    monkeypatch.setattr(module, "_resampled", batch)
    with pytest.raises(KeyboardInterrupt):
        grouped_intervals([WEIGHTED], groups)
    assert len(started) < 20


def test_spreads_leave_infinite_resamples_out_as_nan_ones():
    # an infinite resampled figure (a weight summing to zero under a nonzero numerator) is dropped like nan:
    # the kept 1, 3, 2 and 5 sort to 1, 2, 3, 5; at level 0.5 numpy's linear quantiles sit at virtual indexes
    # 3 × 0.25 = 0.75 and 3 × 0.75 = 2.25: 1 + (2 - 1) × 0.75 = 1.75 and 3 + (5 - 3) × 0.25 = 3.5
    rows = np.array([[1.0, -np.inf, 3.0, 2.0, np.inf, 5.0], [np.inf, 1.0, 3.0, 2.0, 5.0, -np.inf]])
    found = _spreads(rows, 0.5)
    assert [(spread["low"], spread["high"]) for spread in found] == [(1.75, 3.5)] * 2
    assert found == [_spread(row, 0.5) for row in rows]


def _route_verdicts():
    from benchmarks.reasonmap.records import Verdict

    rng = random.Random(7)
    verdicts = []
    for model in ("m1", "m2"):
        for i in range(30):
            for kind in ("short", "long"):
                correct = rng.randint(0, 1)
                score = rng.uniform(0, 20 if kind == "short" else 40)
                weight = rng.choice([1.0, 1.5, 2.0, 2.5, 3.0])
                verdicts.append(Verdict(f"q{i:02}", model, kind, None, correct, score, weight=weight))
    questions = {
        f"q{i:02}": SimpleNamespace(
            city=("rome", "oslo")[i % 2], difficulty_city="easy", difficulty_question=("easy", "hard")[i % 3 == 0]
        )
        for i in range(30)
    }  # what the report reads of a question
    return verdicts, questions


def test_every_headline_figure_of_a_summary_row_carries_n_se_and_its_interval():
    from benchmarks.reasonmap.report import markdown_table, summarize

    verdicts, questions = _route_verdicts()
    summary = summarize(verdicts, questions, weighting="paper")
    assert summary["interval_method"] == {
        "method": "Poisson bootstrap over questions",
        "cluster": "question",
        "unit": "question",
        "weights": "Poisson(1) per (seed, question id, resample)",
        "resamples": 2000,
        "seed": 0,
        "level": 0.95,
    }
    assert summary["interval_method"] == INTERVAL_METHOD
    headline = [spec.name for spec in get_task("route").metrics if spec.headline]
    table = markdown_table(summary)
    for model, row in summary["models"].items():
        assert set(row["intervals"]) == set(headline)
        for name, interval in row["intervals"].items():
            assert set(interval) == {"n", "se", "low", "high"} and interval["n"] == 30
            assert interval["low"] <= row[name] <= interval["high"] and interval["se"] > 0
            assert all(value == round(value, 6) for value in interval.values())
        # the table prints the figure and half the interval's width, both computed here from the summary
        accuracy = row["intervals"]["weighted_accuracy_short"]
        cell = f"{100 * row['weighted_accuracy_short']:.2f} ± {50 * (accuracy['high'] - accuracy['low']):.2f}"
        assert f"| {model} | {cell} |" in table
    assert "± is half the width of the 95% interval" in table


def test_reports_are_byte_identical_for_the_same_answers_in_any_order():
    from benchmarks.reasonmap.report import markdown_table, summarize

    verdicts, questions = _route_verdicts()
    first = summarize(verdicts, questions, weighting="paper")
    again = summarize(list(verdicts), questions, weighting="paper")
    shuffled = verdicts[:]
    random.Random(11).shuffle(shuffled)
    moved = summarize(shuffled, questions, weighting="paper")
    assert summary_json(first) == summary_json(again) == summary_json(moved)
    assert markdown_table(first) == markdown_table(moved)


def test_plus_and_map_qa_summaries_carry_intervals_too():
    from benchmarks.mapqa.records import MapQuestion, MapVerdict
    from benchmarks.mapqa.report import markdown_table, summarize
    from benchmarks.plus.report import markdown_table as plus_markdown_table
    from benchmarks.plus.report import summarize as summarize_plus
    from benchmarks.plus.scoring import PlusVerdict

    plus = [
        PlusVerdict(f"p{i}", "m", "TorF1", "rome", "easy", "yes", "yes", "yes", i % 2, 1.0 + (i % 3) / 2)
        for i in range(20)
    ]
    summary = summarize_plus(plus, weighting="city")
    row = summary["models"]["m"]
    assert set(row["intervals"]) == {"weighted_accuracy"} and row["intervals"]["weighted_accuracy"]["n"] == 20
    assert "intervals" in row["per_type"]["TorF1"] and summary["interval_method"] == INTERVAL_METHOD
    assert " ± " in plus_markdown_table(summary)
    record = {"image": "m.png", "question": "Which?", "options": ["x", "y"], "answer": "A",
              "type": "single", "level": 1, "category": "metro", "language": "en"}  # fmt: skip
    questions = {f"q{i}": MapQuestion.from_dict({**record, "id": f"q{i}"}) for i in range(10)}
    verdicts = [MapVerdict(f"q{i}", "m", ("A",), {"exact": float(i % 2)}) for i in range(10)]
    summary = summarize(verdicts, questions)
    assert set(summary["models"]["m"]["intervals"]) == {"accuracy"}
    assert " ± " in markdown_table(summary)


def test_map_clusters_cover_where_question_resampling_under_covers():
    # 400 simulated runs of 12 maps × 20 questions; each map has its own chance of a right answer (Beta(2, 2):
    # some maps are easy to read, some hard), so the questions of a map are not independent. The accuracy
    # estimates the mean chance over maps, 0.5. Its standard deviation is about √(0.05/12 + 0.2/240) = 0.071,
    # while resampling questions alone sees √(0.25/240) = 0.032: it covers 0.5 in about 2Φ(1.96·0.032/0.071) − 1
    # = 62% of runs; resampling maps, then questions, covers it in about 95%.
    runs, maps, per = 400, 12, 20
    rng = np.random.default_rng(2024)
    chance = rng.beta(2.0, 2.0, (maps, runs))
    right = rng.random((maps, per, runs)) < chance[:, None, :]
    answers = [
        SimpleNamespace(id=f"m{m:02}q{q:02}", city=f"m{m:02}", correct=right[m, q].astype(float), weight=1.0)
        for m in range(maps)
        for q in range(per)
    ]
    specs = [_column(i) for i in range(runs)]
    covered = {}
    for cluster in ("question", "map"):
        found = intervals(specs, answers, cluster=cluster, map_of=lambda answer: answer.city)
        covered[cluster] = np.mean([found[f"run{i}"].low <= 0.5 <= found[f"run{i}"].high for i in range(runs)])
    assert covered["question"] < 0.8, covered
    assert 0.92 <= covered["map"] <= 0.99, covered
    with pytest.raises(ValueError, match="map_of"):
        intervals(specs, answers, cluster="map")


def test_no_interval_with_one_question_or_no_variance():
    one = intervals([WEIGHTED], [SimpleNamespace(id="a", correct=1, weight=1.0)])["accuracy"]
    right = intervals([WEIGHTED], [SimpleNamespace(id=f"q{i}", correct=1, weight=2.0) for i in range(10)])
    assert one == Interval(1, None, None, None) and right["accuracy"] == Interval(10, None, None, None)
    assert one.half_width is None and one.to_dict() == {"n": 1, "se": None, "low": None, "high": None}


def test_a_summary_records_both_clusterings_and_prints_the_chosen_one():
    from benchmarks.reasonmap.report import markdown_table, summarize

    verdicts, questions = _route_verdicts()
    by_question = summarize(verdicts, questions, weighting="paper")
    by_map = summarize(verdicts, questions, weighting="paper", cluster="map")
    assert by_map["interval_method"]["cluster"] == "map" and by_map["interval_method"]["unit"] == "map, then question"
    assert by_question["clusters"] == {
        "oslo": [f"q{i:02}" for i in range(1, 30, 2)],
        "rome": [f"q{i:02}" for i in range(0, 30, 2)],
    }
    for model in ("m1", "m2"):
        one, other = by_question["models"][model], by_map["models"][model]
        assert one["intervals_by_cluster"] == other["intervals_by_cluster"]  # both recorded either way
        assert one["intervals"] == one["intervals_by_cluster"]["question"]
        assert other["intervals"] == other["intervals_by_cluster"]["map"] != one["intervals"]
        # a city's row lies in one map: its map's weight scales every question alike, so the interval is the
        # questions' one, up to resampling noise (the resamples that gave the map weight 0, e^-1 of them, drop)
        for name, interval in one["per_city"]["rome"]["intervals"].items():
            mapped = other["per_city"]["rome"]["intervals"][name]
            assert mapped["se"] == pytest.approx(interval["se"], rel=0.1)
    assert "Poisson bootstrap over maps, then questions" in markdown_table(by_map)
