"""``reasonmap compare``: paired differences of two runs, two models or two modes, on hand-built run folders."""

from __future__ import annotations

import json

import pytest

from benchmarks.comparisons import comparison_markdown
from reasonmap.cli import main
from reasonmap.comparisons import compare_runs
from reasonmap.runs import RunError
from tests.reasonmap.run_folders import OTHER_SHA, route_rows, write_eval_run, write_score_report

# short answers right (1) or wrong (0) per question q0..q9; A also answers q10, which B lacks
SHORT_A = (1, 1, 1, 0, 0, 0, 0, 0, 1, 1)
SHORT_B = (1, 1, 1, 1, 1, 1, 0, 0, 0, 1)
LONG = (1, 0, 1, 0, 1, 0, 1, 0, 1, 0)  # the same on both sides


def _answers(short, extra=False):
    # map score 15 for a right short answer, 0 otherwise; long: 30 or 0
    answers = {f"q{i}": (s, 15.0 * s, long, 30.0 * long) for i, (s, long) in enumerate(zip(short, LONG))}
    if extra:
        answers["q10"] = (1, 15.0, 1, 30.0)
    return answers


@pytest.fixture()
def two_runs(tmp_path):
    a = write_score_report(tmp_path / "a", route_rows("alpha", _answers(SHORT_A, extra=True)))
    b = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)))
    return a, b


def _by_metric(record):
    return {row["metric"]: row for row in record["comparisons"]}


def test_two_runs_by_hand(two_runs):
    record = compare_runs(*two_runs, resamples=500)
    rows = _by_metric(record)
    short = rows["weighted_accuracy_short"]
    # over q0..q9: A right 5 of 10, B right 7 of 10 (weights 1); q10 lacked by B, left out
    assert (short["n"], short["lacked_by_a"], short["lacked_by_b"]) == (10, 0, 1)
    assert (short["a"], short["b"], short["difference"]) == (0.5, 0.7, 0.2)
    # discordant: A only q8; B only q3, q4, q5: 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
    assert (short["a_only"], short["b_only"], short["test"]) == (1, 3, "mcnemar")
    assert short["p_value"] == 0.625
    assert short["low"] <= 0.2 <= short["high"]
    score = rows["map_score_short"]
    # differences +15 (three), −15 (one), 0 (six): |sum of signed 15s| >= 30 unless two flip each way, 6/16
    assert (score["a"], score["b"], score["difference"], score["test"]) == (7.5, 10.5, 3.0, "permutation")
    assert score["p_value"] == 1 - 6 / 16
    for key in ("weighted_accuracy_long", "map_score_long"):  # the same answers: no difference, no variance of it
        assert (rows[key]["difference"], rows[key]["low"], rows[key]["high"], rows[key]["p_value"]) == (
            0,
            None,
            None,
            1,
        )
    assert (short["model_a"], short["model_b"]) == ("alpha", "beta")  # one model each: compared


def test_the_table_says_what_each_lacked(two_runs):
    text = comparison_markdown(compare_runs(*two_runs, resamples=200))
    assert "| route | " in text and "| Short Acc. (%) | 10 | 50.00 | 70.00 | +20.00 [" in text
    assert "B lacked 1 that A answered" in text


def test_same_inputs_same_bytes(two_runs, tmp_path, capsys):
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        argv = ["compare", str(two_runs[0]), str(two_runs[1]), "--out", str(out), "--resamples", "300", "--figures"]
        assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Paired comparison, B − A")
    for name in ("comparison.md", "comparison.json", "comparison.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    csv_lines = (outs[0] / "comparison.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("task,mode_a,mode_b,run_a,run_b,model_a,model_b,metric,n,")
    assert len(csv_lines) == 1 + 4  # the four Table 2 columns of route
    assert (outs[0] / "comparison.png").is_file() and (outs[0] / "manifest.json").is_file()


def test_another_seed_moves_only_the_interval(two_runs):
    first, second = compare_runs(*two_runs, resamples=300, seed=0), compare_runs(*two_runs, resamples=300, seed=1)
    one, other = _by_metric(first)["weighted_accuracy_short"], _by_metric(second)["weighted_accuracy_short"]
    assert (one["difference"], one["p_value"]) == (other["difference"], other["p_value"])
    assert (one["low"], one["high"], one["se"]) != (other["low"], other["high"], other["se"])


def test_different_question_files_are_refused_naming_them(tmp_path, capsys):
    a = write_score_report(tmp_path / "a", route_rows("alpha", _answers(SHORT_A)))
    b = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)), sha=OTHER_SHA)
    with pytest.raises(RunError, match=r"different question files: questions.jsonl \(aaaaaaaaaaaa\) and .*--join"):
        compare_runs(a, b)
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert (
        len(error) == 1 and error[0].startswith("reasonmap compare: error:") and "different question files" in error[0]
    )
    joined = compare_runs(a, b, join=True, resamples=200)
    assert joined["joined"] and "Joined although they differ: route and route: different question files" in (
        comparison_markdown(joined)
    )


def test_different_weighting_is_refused(tmp_path):
    a = write_score_report(tmp_path / "a", route_rows("alpha", _answers(SHORT_A)))
    b = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)), weighting="none")
    with pytest.raises(RunError, match="different weighting: paper and none"):
        compare_runs(a, b)


def test_two_modes_of_one_eval_run(tmp_path, capsys):
    run = write_eval_run(
        tmp_path / "run",
        {
            ("route", "full"): route_rows("m", _answers(SHORT_B)),
            ("route", "text-only"): route_rows("m", _answers(SHORT_A)),
        },
    )
    record = compare_runs(run, modes=("full", "text-only"), resamples=200)
    short = _by_metric(record)["weighted_accuracy_short"]
    assert (short["mode_a"], short["mode_b"], short["a"], short["b"]) == ("full", "text-only", 0.7, 0.5)
    assert (short["a_only"], short["b_only"], short["p_value"]) == (3, 1, 0.625)
    assert main(["compare", str(run), "--modes", "full,text-only", "--out", str(tmp_path / "o")]) == 0
    assert "| route/full → text-only | m | m | Short Acc. (%) |" in capsys.readouterr().out
    with pytest.raises(RunError, match="nothing to compare in modes full and symbolic: A holds route/full"):
        compare_runs(run, modes=("full", "symbolic"))


def test_two_runs_of_an_eval_pair_their_modes(tmp_path):
    a = write_eval_run(tmp_path / "a", {("route", "full"): route_rows("m1", _answers(SHORT_A))})
    b = write_eval_run(tmp_path / "b", {("route", "full"): route_rows("m2", _answers(SHORT_B))})
    (row,) = [r for r in compare_runs(a, b, resamples=200)["comparisons"] if r["metric"] == "weighted_accuracy_short"]
    assert (row["mode_a"], row["model_a"], row["model_b"], row["difference"]) == ("full", "m1", "m2", 0.2)
    other = write_eval_run(tmp_path / "c", {("route", "full"): route_rows("m3", _answers(SHORT_B))}, pixel_budget=1)
    with pytest.raises(RunError, match="different pixel budget: 4000000 and 1"):
        compare_runs(a, other)


def test_two_models_of_one_run(tmp_path):
    rows = route_rows("alpha", _answers(SHORT_A)) + route_rows("beta", _answers(SHORT_B))
    report = write_score_report(tmp_path / "both", rows)
    record = compare_runs(report, models=("alpha", "beta"), resamples=200)
    assert _by_metric(record)["weighted_accuracy_short"]["difference"] == 0.2
    with pytest.raises(RunError, match="no model 'gamma' in route"):
        compare_runs(report, models=("alpha", "gamma"))
    with pytest.raises(RunError, match="compare needs two runs"):
        compare_runs(report)


def test_repeated_answers_are_compared_by_their_means(tmp_path):
    rows = route_rows("alpha", _answers(SHORT_A))
    again = [{**row, "repeat": 1, "correct": 1} for row in rows]
    a = write_score_report(tmp_path / "a", rows + again)
    b = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)))
    short = _by_metric(compare_runs(a, b, resamples=200))["weighted_accuracy_short"]
    # A's mean over its two repeats: (5 + 10) / 20 = 0.75; McNemar needs one verdict a side: sign flips instead
    assert (short["a"], short["test"], short["repeats"]) == (0.75, "permutation", True)


def test_a_folder_that_is_no_run(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match="neither an evaluation run"):
        compare_runs(tmp_path / "empty", tmp_path / "empty")


def test_a_real_score_report(tmp_path):
    """Scored by the real pipeline: the compared values are the report's own headline numbers."""
    from baselines.solvers import run_solver
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import generate_questions
    from graphkit.cities import city_graph
    from reasonmap.score_files import ScoreSettings, evaluate_files

    graph = city_graph("rome")
    questions = generate_questions(graph, seed=4, per_city=12)
    write_jsonl(tmp_path / "questions.jsonl", questions)
    predictions = [
        *run_solver("noisy", questions, lambda question: graph, seed=4),
        *run_solver("direct-line", questions, lambda question: graph),
    ]
    write_jsonl(tmp_path / "predictions.jsonl", predictions)
    evaluation = evaluate_files(
        tmp_path / "questions.jsonl",
        tmp_path / "predictions.jsonl",
        out=tmp_path / "elsewhere" / "scored.jsonl",
        report_dir=tmp_path / "report",
        settings=ScoreSettings(figures=False),
    )
    record = compare_runs(tmp_path / "report", models=("baseline:direct-line", "baseline:noisy"), resamples=200)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text(encoding="utf-8"))["models"]
    for row in record["comparisons"]:
        assert row["n"] == len(questions) and row["lacked_by_a"] == row["lacked_by_b"] == 0
        assert row["a"] == pytest.approx(summary["baseline:direct-line"][row["metric"]], abs=1e-6)
        assert row["b"] == pytest.approx(summary["baseline:noisy"][row["metric"]], abs=1e-6)
    assert evaluation.summary["weighting"] == "paper"


@pytest.mark.slow
@pytest.mark.figures
def test_the_figure_draws_the_intervals(two_runs, tmp_path):
    from PIL import Image

    from reasonmap.comparisons import write_comparison

    record = compare_runs(*two_runs, resamples=200)
    write_comparison(tmp_path / "out", record)
    with Image.open(tmp_path / "out" / "comparison.png") as image:
        assert image.format == "PNG" and image.size[0] > 1000
        low, high = image.convert("L").getextrema()
        assert high - low > 100
    write_comparison(tmp_path / "again", record)
    for name in ("comparison.png", "comparison.pdf"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "out" / name).read_bytes(), name


def test_plus_and_map_qa_runs(tmp_path):
    """Each task's own headline: plus's weighted accuracy over every type; map QA's accuracy and its
    partial-credit means over the questions they apply to."""
    plus_a = [
        {"id": f"p{i}", "model": "m", "question": "count", "correct": c, "weight": w}
        for i, (c, w) in enumerate([(1, 1.0), (0, 2.0), (0, 2.0)])
    ]
    plus_b = [{**row, "correct": 1} for row in plus_a]
    summary = {"m": {"n": 3, "n_invalid": 0, "weighted_accuracy": 0.2, "accuracy": 1 / 3}}
    a = write_score_report(tmp_path / "pa", plus_a, models=summary)
    b = write_score_report(tmp_path / "pb", plus_b, models=summary)
    (row,) = compare_runs(a, b, resamples=200)["comparisons"]
    # weighted: A (1·1) / 5 = 0.2, B 5/5 = 1; two discordant, both B's: 2 · (1/4)
    assert (row["task"], row["metric"], row["a"], row["b"], row["p_value"]) == (
        "plus",
        "weighted_accuracy",
        0.2,
        1.0,
        0.5,
    )
    qa = [
        {"id": "s", "model": "m", "correct": 1, "exact": 1.0},
        {"id": "u", "model": "m", "correct": 0, "exact": 0.0, "jaccard": 0.5},
        {"id": "o", "model": "m", "correct": 0, "exact": 0.0, "kendall_tau": -0.2},
    ]
    summary = {"m": {"n": 3, "n_invalid": 0, "accuracy": 1 / 3, "mean_jaccard": 0.5, "mean_kendall_tau": -0.2}}
    a = write_score_report(tmp_path / "qa", qa, models=summary)
    better = [{**qa[0]}, {**qa[1], "jaccard": 1.0, "correct": 1}, {**qa[2]}]
    b = write_score_report(tmp_path / "qb", better, models=summary)
    rows = _by_metric(compare_runs(a, b, resamples=200))
    assert rows["accuracy"]["task"] == "mapqa" and rows["accuracy"]["difference"] == pytest.approx(1 / 3, abs=1e-6)
    assert (rows["mean_jaccard"]["n"], rows["mean_jaccard"]["difference"]) == (1, 0.5)  # the one multiple question
    assert (rows["mean_kendall_tau"]["n"], rows["mean_kendall_tau"]["difference"]) == (1, 0.0)


def test_an_eval_mode_folder_is_a_run_too(tmp_path):
    run = write_eval_run(tmp_path / "run", {("route", "full"): route_rows("m", _answers(SHORT_A))})
    other = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)))
    (row, *_) = compare_runs(run / "route" / "full", other, resamples=200)["comparisons"]
    assert (row["model_a"], row["model_b"], row["difference"]) == ("m", "beta", 0.2)


def test_an_unfinished_run_is_warned_of(tmp_path, capsys):
    run = write_eval_run(tmp_path / "run", {("route", "full"): route_rows("m", _answers(SHORT_A))})
    (run / "manifest.json").write_text(
        json.dumps({"command": "eval", "complete": False, "files": [], "covers": ["*/*/*.jsonl"]}), encoding="utf-8"
    )
    other = write_score_report(tmp_path / "b", route_rows("beta", _answers(SHORT_B)))
    assert main(["compare", str(run), str(other), "--out", str(tmp_path / "o"), "--no-figure"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "route/full" in warnings[0] and "did not finish" in warnings[0]


@pytest.mark.slow
def test_real_eval_runs_compared_and_ranked(tmp_path):
    """Two runs of `reasonmap eval` against the loopback chat server: one answers as the oracle does, the
    other names no station; both folders read back as written."""
    from reasonmap.leaderboard import build_leaderboard
    from tests.baselines.chat_server import ChatServer
    from tests.reasonmap.test_eval import _oracle_server

    def evaluate(server, out, name):
        argv = ["eval", "--endpoint", server.url, "--model", "m", "--name", name, "--out", str(out), "--quiet"]
        argv += ["--limit", "4", "--tasks", "route", "--modes", "text-only,symbolic"]
        assert main(argv) == 0

    with ChatServer() as server:
        evaluate(server, tmp_path / "b", "silent")
    with _oracle_server(tmp_path / "b" / "questions" / "route.jsonl") as server:
        evaluate(server, tmp_path / "a", "oracle")
    record = compare_runs(tmp_path / "a", tmp_path / "b", resamples=200)
    rows = [row for row in record["comparisons"] if row["metric"] == "weighted_accuracy_short"]
    assert [(row["mode_a"], row["model_a"], row["model_b"]) for row in rows] == [
        ("text-only", "oracle", "silent"),
        ("symbolic", "oracle", "silent"),
    ]
    # 4 questions, the oracle right on all, the other on none: 4 discordant pairs, 2 · 1/16
    assert all((row["n"], row["a"], row["b"], row["p_value"]) == (4, 1.0, 0.0, 0.125) for row in rows)
    same = compare_runs(tmp_path / "a", modes=("text-only", "symbolic"), resamples=200)
    assert all(row["difference"] == 0 for row in same["comparisons"])
    board = build_leaderboard([tmp_path / "b", tmp_path / "a"])
    # all right against all wrong on 4 questions: neither has an interval (no variance), which separates no rank
    # (McNemar's p is 0.125 here): a tie, the better point first
    assert [(row["model"], row["rank"]) for row in board["rows"]] == [("oracle", 1), ("silent", 1)]


def test_models_only_one_side_has_are_named(tmp_path):
    a = write_score_report(
        tmp_path / "a", route_rows("alpha", _answers(SHORT_A)) + route_rows("gamma", _answers(SHORT_B))
    )
    b = write_score_report(tmp_path / "b", route_rows("alpha", _answers(SHORT_B)))
    record = compare_runs(a, b, resamples=200)
    assert {row["model_a"] for row in record["comparisons"]} == {"alpha"}
    assert record["unpaired"] == ["A route: gamma"]
    assert "Not compared (no counterpart on the other side): A route: gamma." in comparison_markdown(record)


def test_two_budgets_of_a_pixel_sweep(tmp_path):
    """`eval --pixel-budget 1M,16M` asks the full mode once per budget, each in its own folder (full@1M, ...)."""
    run = write_eval_run(
        tmp_path / "sweep",
        {
            ("route", "full@1M"): route_rows("m", _answers(SHORT_A)),
            ("route", "full@16M"): route_rows("m", _answers(SHORT_B)),
        },
    )
    short = _by_metric(compare_runs(run, modes=("full@1M", "full@16M"), resamples=200))["weighted_accuracy_short"]
    assert (short["mode_a"], short["mode_b"], short["difference"], short["p_value"]) == (
        "full@1M",
        "full@16M",
        0.2,
        0.625,
    )
