"""Degenerate comparisons and rankings say what they are (campaign 4, class I: I149, I150, I156, I157, I161),
``--cluster map`` on run folders, and ``reasonmap power`` on a run."""

from __future__ import annotations

import math

import pytest

from benchmarks.comparisons import comparison_markdown
from benchmarks.leaderboards import leaderboard_markdown
from reasonmap.cli import main
from reasonmap.comparisons import compare_runs
from reasonmap.leaderboard import build_leaderboard
from reasonmap.runs import RunError
from tests.reasonmap.run_folders import route_rows, write_score_report

SHORT_A = (1, 1, 1, 0, 0, 0, 0, 0, 1, 1)
SHORT_B = (1, 1, 1, 1, 1, 1, 0, 0, 0, 1)


def _one_question_run(tmp_path):
    # I149/I150: one question; A (an oracle) right, B (an echo) wrong, short and long
    rows = route_rows("A", {"q0": (1, 15.0, 1, 30.0)}) + route_rows("B", {"q0": (0, 0.0, 0, 0.0)})
    return write_score_report(tmp_path / "r1", rows)


def test_one_question_gives_no_interval_beside_p_one(tmp_path):
    record = compare_runs(_one_question_run(tmp_path), models=("A", "B"))
    short = next(row for row in record["comparisons"] if row["metric"] == "weighted_accuracy_short")
    assert (short["difference"], short["low"], short["high"], short["p_value"]) == (-1.0, None, None, 1.0)
    assert short["mde"] is None  # no standard error, no detectable effect to give
    table = comparison_markdown(record)
    assert "| −100.00 [–] | 1.000 |" in table and "[−100.00, −100.00]" not in table


def test_a_comparison_with_p_one_has_no_interval_that_excludes_zero():
    # every pattern of 2 to 4 questions with p = 1 (McNemar): the interval, where there is one, holds 0
    from itertools import product

    from benchmarks.comparisons import compare_scored

    for n in (2, 3, 4):
        for a_bits, b_bits in product(product((0, 1), repeat=n), repeat=2):
            rows_a = route_rows("m", {f"q{i}": (x, 0.0, 0, 0.0) for i, x in enumerate(a_bits)})
            rows_b = route_rows("m", {f"q{i}": (x, 0.0, 0, 0.0) for i, x in enumerate(b_bits)})
            found = compare_scored(rows_a, rows_b, task="route", model_a="m", model_b="m", resamples=400)
            short = next(row for row in found if row["metric"] == "weighted_accuracy_short")
            if short["p_value"] == 1.0 and short["low"] is not None:
                assert short["low"] <= 0.0 <= short["high"], (a_bits, b_bits, short)


def test_models_on_one_question_tie_on_the_leaderboard(tmp_path):
    # the summaries a one-question run writes: each interval recorded without bounds
    rows = route_rows("A", {"q0": (1, 15.0, 1, 30.0)}) + route_rows("B", {"q0": (0, 0.0, 0, 0.0)})
    none = {"n": 1, "se": None, "low": None, "high": None}
    models = {
        model: {
            "n": 2,
            "n_invalid": 0,
            "weighted_accuracy_short": value,
            "map_score_short": 15.0 * value,
            "weighted_accuracy_long": value,
            "map_score_long": 30.0 * value,
            "intervals": dict.fromkeys(
                ("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long"), none
            ),
        }
        for model, value in (("A", 1.0), ("B", 0.0))
    }
    run = write_score_report(tmp_path / "r1", rows, models=models)
    record = build_leaderboard([run])
    assert [(row["model"], row["rank"]) for row in record["rows"]] == [("A", 1), ("B", 1)]
    table = leaderboard_markdown(record)
    assert "| 1 | B | 0.00 ± – |" in table and "± 0.00" not in table


def test_nan_and_infinite_values_are_never_ranked_the_run_is_refused_naming_them(tmp_path):
    rows = route_rows("A", {"q0": (1, 15.0, 1, 30.0)})
    base = {"n": 2, "n_invalid": 0, "map_score_short": 1.0, "weighted_accuracy_long": 1.0, "map_score_long": 1.0}
    for name, value in (("nan", math.nan), ("-inf", -math.inf)):
        models = {"A": {**base, "weighted_accuracy_short": 0.5}, "B": {**base, "weighted_accuracy_short": value}}
        run = write_score_report(tmp_path / name, rows, models=models)
        with pytest.raises(RunError, match=f"model 'B': weighted_accuracy_short is {name}: not a finite number"):
            build_leaderboard([run])


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--resamples", "1", "argument --resamples: 1 is outside 200 to 50,000"),  # I156
        ("--resamples", "99999999999999", "argument --resamples: 99999999999999 is outside 200 to 50,000"),  # I157
        ("--seed", "-1", "argument --seed: -1 is outside 0 to 2**64 - 1"),  # I161
    ],
)
def test_resamples_and_seed_out_of_bounds_name_the_option(tmp_path, capsys, option, value, said):
    run = _one_question_run(tmp_path)
    with pytest.raises(SystemExit) as exit:
        main(["compare", str(run), "--models", "A", "B", option, value, "--out", str(tmp_path / "out")])
    assert exit.value.code == 2 and said in capsys.readouterr().err
    with pytest.raises(RunError, match="--resamples 199: must be from 200"):
        compare_runs(run, models=("A", "B"), resamples=199)


def _two_runs_with_maps(tmp_path, clusters=True):
    answers = {name: {f"q{i}": (s, 15.0 * s, 0, 0.0) for i, s in enumerate(short)}
               for name, short in (("alpha", SHORT_A), ("beta", SHORT_B))}  # fmt: skip
    runs = []
    for name in ("alpha", "beta"):
        # q0..q4 on one map, q5..q9 on another, as a score report records them
        maps = {"clusters": {"rome": [f"q{i}" for i in range(5)], "oslo": [f"q{i}" for i in range(5, 10)]}}
        runs.append(
            write_score_report(tmp_path / name, route_rows(name, answers[name]), extra=maps if clusters else None)
        )
    return runs


def test_compare_by_map_reads_the_runs_clusters(tmp_path):
    a, b = _two_runs_with_maps(tmp_path)
    by_question = compare_runs(a, b)
    by_map = compare_runs(a, b, cluster="map")
    assert by_map["method"]["cluster"] == "map" and by_map["method"]["unit"] == "map, then question"
    short = [next(row for row in record["comparisons"] if row["metric"] == "weighted_accuracy_short")
             for record in (by_question, by_map)]  # fmt: skip
    assert short[0]["difference"] == short[1]["difference"] == 0.2 and short[0]["se"] != short[1]["se"]
    assert "resamples of the maps, then the questions" in comparison_markdown(by_map)
    a, b = _two_runs_with_maps(tmp_path / "old", clusters=False)
    with pytest.raises(RunError, match="records no map of each question"):
        compare_runs(a, b, cluster="map")


def test_compare_prints_the_minimum_detectable_effect(tmp_path):
    a, b = _two_runs_with_maps(tmp_path)
    record = compare_runs(a, b)
    short = next(row for row in record["comparisons"] if row["metric"] == "weighted_accuracy_short")
    assert short["mde"] == pytest.approx((1.959964 + 0.841621) * short["se"], abs=1e-5)
    assert f"route Short Acc. (%) {100 * short['mde']:.2f}" in comparison_markdown(record)


def test_power_of_a_run(tmp_path, capsys):
    a, _ = _two_runs_with_maps(tmp_path)
    both = route_rows("alpha", {f"q{i}": (s, 0.0, 0, 0.0) for i, s in enumerate(SHORT_A)})
    both += route_rows("beta", {f"q{i}": (s, 0.0, 0, 0.0) for i, s in enumerate(SHORT_B)})
    run = write_score_report(tmp_path / "both", both)
    assert main(["power", str(run), "--models", "alpha", "beta", "--difference", "10"]) == 0
    out = capsys.readouterr().out
    # 10 questions, A right 5, B 7; phi = (4·2 − 1·3) / √(5·5·7·3) = 0.218218. 10 points from 50%, independent:
    # (1.959964·√(2·0.55·0.45) + 0.841621·√(0.25 + 0.24))² / 0.01 = 387.34; paired at phi: p11 = 0.3 +
    # 0.218218·√(0.25·0.24) = 0.353452, p10 = 0.146548, p01 = 0.246548, ψ = 0.393096:
    # (1.959964·√0.393096 + 0.841621·√0.383096)² / 0.01 = (1.228847 + 0.520920)² / 0.01 = 306.17
    assert "| route Short Acc. (%): alpha → beta | 10 | 50.00 | 70.00 | 0.218 | – | – | 388 | 307 |" in out
    assert main(["power", "--rates", "40", "50"]) == 0
    assert "| given | – | 40.00 | 50.00 | – | – | – | 388 | – |" in capsys.readouterr().out


def test_the_command_lines_bounds_are_the_librarys():
    # the options module imports no numpy (reasonmap --help stays quick): its copies must agree
    from benchmarks.intervals import CLUSTERS, RESAMPLE_RANGE, SEED_RANGE
    from reasonmap import options, resampling_options

    assert tuple(options.CLUSTERS) == CLUSTERS and options.RESAMPLE_RANGE == RESAMPLE_RANGE
    assert resampling_options._SEED_MAX == SEED_RANGE[1]


def test_the_leaderboard_shows_the_clustering_asked_for(tmp_path):
    rows = route_rows("A", {"q0": (1, 15.0, 1, 30.0)})
    keys = ("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long")
    narrow = dict.fromkeys(keys, {"n": 40, "se": 0.01, "low": 0.48, "high": 0.52})
    wide = dict.fromkeys(keys, {"n": 40, "se": 0.05, "low": 0.40, "high": 0.60})
    row = {"n": 80, "n_invalid": 0, **dict.fromkeys(keys, 0.5)}
    models = {"A": {**row, "intervals": narrow, "intervals_by_cluster": {"question": narrow, "map": wide}}}
    run = write_score_report(tmp_path / "r1", rows, models=models)
    by_question, by_map = build_leaderboard([run]), build_leaderboard([run], cluster="map")
    assert "| 1 | A | 50.00 ± 2.00 |" in leaderboard_markdown(by_question)  # (0.52 − 0.48) / 2 in points
    assert "| 1 | A | 50.00 ± 10.00 |" in leaderboard_markdown(by_map)


def test_all_right_on_many_questions_outranks_a_model_whose_interval_lies_below():
    """407 of 407 right prints no interval (no variance) but is no tie with 80 ± 4% nor with 0 of 407: only
    an all-alike figure on fewer than two questions separates nothing. The exact one-sided bound of 407 alike
    answers, 0.025 ** (1 / 407), is 0.99098."""
    from benchmarks.leaderboards import tiered_ranks

    alike = {"n": 407, "se": None, "low": None, "high": None}
    ranks = tiered_ranks(
        [
            ("oracle", 1.0, alike),
            ("twin", 1.0, alike),
            ("noisy", 0.8081, {"n": 407, "se": 0.021, "low": 0.767, "high": 0.849}),
            ("best-of-rest", 0.992, {"n": 407, "se": 0.004, "low": 0.985, "high": 0.995}),
            ("echo", 0.0, alike),
        ]
    )
    assert ranks == {"oracle": 1, "twin": 1, "best-of-rest": 1, "noisy": 4, "echo": 5}
