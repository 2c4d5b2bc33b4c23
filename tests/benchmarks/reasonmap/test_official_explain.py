"""``score --explain paper,official``: figures side by side, causes charged in order, the published aggregate."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.attribution import CAUSES, attribute, published_aggregate
from benchmarks.reasonmap.records import Prediction, Verdict
from graphkit.segments import Segment
from reasonmap.cli import main
from reasonmap.score_files import ScoreSettings, evaluate_files, explain_files
from tests.benchmarks.reasonmap.test_official_scoring import LATIN, question, section

Q = question(LATIN, "Alpha Station", "Gamma Station", [Segment("Line A", "Alpha Station", "Gamma Station")])
EXACT = section("Line A", "Alpha Station", "Gamma Station")
PROSE = EXACT + "This is the fastest."


def test_causes_are_charged_in_order_and_add_up():
    # Exact answer. Paper: 1 + 2 + 1 + 1 = 5, +10 = 15. Official engine, nothing switched on: the reference line
    # "Line A" (no number: kept) = the answer's, departure and arrival match: 15 (parser_and_names: 0).
    # + arrival_vs_departure: the arrival compared is "Alpha Station": 14 (-1).
    # + route_name_from_answer: "Line Li" != "Line A": 12 (-2). Nothing else changes it.
    # Trailing prose: the paper reads the route (15, correct); the public parser reads the arrival
    # "gammastationthisisthefastest.": wrong endpoints, 0 and not correct, charged to parser_and_names
    # (-15 and one verdict). Unweighted means over 2 answers: paper 15, official (12 + 0) / 2 = 6.
    predictions = [Prediction("q", "m", "short", EXACT), Prediction("q", "n", "short", PROSE)]
    questions = {"q": Q}
    both = [attribute(questions, [p], lambda q: LATIN, weighting="none")["models"] for p in predictions]
    exact, prose = both[0]["m"]["short"], both[1]["n"]["short"]
    assert (exact["paper"]["map_score"], exact["official"]["map_score"]) == (15.0, 12.0)
    assert exact["causes"]["parser_and_names"]["answers"] == 0
    assert exact["causes"]["arrival_vs_departure"] == {
        "answers": 1,
        "map_points": -1.0,
        "verdicts": 0,
        "accuracy_points": 0.0,
    }
    assert exact["causes"]["route_name_from_answer"]["map_points"] == -2.0
    assert prose["causes"]["parser_and_names"] == {
        "answers": 1,
        "map_points": -15.0,
        "verdicts": 1,
        "accuracy_points": -100.0,
    }
    assert (prose["official"]["accuracy"], prose["official"]["map_score"]) == (0.0, 0.0)
    # one model answering both: the causes are shares of the mean, and they add up to the difference
    same = [Prediction("q", "m", "short", EXACT), Prediction("q2", "m", "short", PROSE)]
    row = attribute({"q": Q, "q2": replace(Q, id="q2")}, same, lambda q: LATIN, weighting="none")["models"]["m"][
        "short"
    ]
    assert (row["paper"]["map_score"], row["official"]["map_score"], row["difference"]["map_score"]) == (15, 6, -9)
    shares = {cause: tally["map_points"] for cause, tally in row["causes"].items() if tally["answers"]}
    assert shares == {"parser_and_names": -7.5, "arrival_vs_departure": -0.5, "route_name_from_answer": -1.0}
    assert sum(tally["map_points"] for tally in row["causes"].values()) == pytest.approx(-9)
    assert list(row["causes"]) == list(CAUSES)


def test_two_paper_variants_have_one_cause_and_bad_pairs_are_refused():
    found = attribute({"q": Q}, [Prediction("q", "m", "short", EXACT)], lambda q: LATIN, variants=("paper", "C2"))
    assert list(found["causes"]) == ["variant"]
    # C2 drops the endpoint point: 4 + 10 = 14 against 15
    assert found["models"]["m"]["short"]["causes"]["variant"]["map_points"] == -1.0
    with pytest.raises(ValueError, match="two different"):
        attribute({"q": Q}, [], lambda q: LATIN, variants=("paper", "paper"))


def test_published_aggregate_averages_stored_fields_over_test_maps():
    class City:
        def __init__(self, city):
            self.city = city

    # rome is a test map, kl is not. Model m, question 1: short correct 14, long wrong 5 (via-count part 2);
    # question 2: short only, wrong 3. Means over 2 questions: acc short 1/2, acc long 0/2, map short
    # (14 + 3) / 2 = 8.5, map long 5 / 2 = 2.5, via-count part 2 / 2 = 1, via-stop part 0.
    rows = [
        Verdict("1", "m", "short", None, 1, 14.0, tokens=10),
        Verdict("1", "m", "long", None, 0, 5.0, {"num_via": 2.0, "via_stop": None}),
        Verdict("2", "m", "short", None, 0, 3.0),
        Verdict("3", "m", "short", None, 1, 20.0),
    ]
    found = published_aggregate(rows, {"1": City("rome"), "2": City("rome"), "3": City("kl")})["m"]
    assert found == {
        "count": 2,
        "acc_short": 0.5,
        "acc_long": 0.0,
        "map_score_short": 8.5,
        "map_score_long": 2.5,
        "via_stops_score": 0.0,
        "num_via_stop_score": 1.0,
        "token_short": 5.0,
        "token_long": 0.0,
    }


@pytest.fixture
def files(tmp_path):
    from benchmarks.reasonmap.generate import generate_questions
    from graphkit import city_graph

    questions = generate_questions(city_graph("rome"), seed=1, per_city=2)
    first = questions[0]
    text = "Route Name: Line B\nDeparture Stop: Colosseo Station\nArrival Stop: Marconi Station\n"
    assert (first.station_1, first.station_2) == ("Colosseo Station", "Marconi Station")
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / "p.jsonl", [Prediction(first.id, "m", "short", text)])
    return tmp_path


@pytest.mark.slow
def test_variant_official_report_carries_the_published_aggregate(files):
    result = evaluate_files(
        files / "q.jsonl",
        files / "p.jsonl",
        out=files / "s.jsonl",
        report_dir=files / "r",
        settings=ScoreSettings(variant="official"),
    )
    # Rome: "Line B" reads as "Line Li" (0), departure +1, arrival compared with Colosseo (0): 1 + 1 = 2, +10
    assert [v.map_score for v in result.verdicts] == [12.0]
    assert result.summary["published_aggregate"]["m"]["map_score_short"] == 12.0
    assert "cal_metrics" in (files / "r" / "table.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_explain_writes_both_reports_and_the_causes(files, capsys):
    code = main(
        [
            "score",
            "--questions",
            str(files / "q.jsonl"),
            "--predictions",
            str(files / "p.jsonl"),
            "--out",
            str(files / "s.jsonl"),
            "--report",
            str(files / "r"),
            "--explain",
            "paper,official",
            "--weighting",
            "none",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| m | short | 1 |" in printed and "route_name_from_answer" in printed
    record = json.loads((files / "r" / "compare.json").read_text(encoding="utf-8"))
    row = record["models"]["m"]["short"]
    assert row["official"]["map_score"] == 12.0
    # one question: no interval can be claimed (n < 2), so none is given and it prints ± –
    assert row["official"]["intervals"]["map_score"] == {"n": 1, "se": None, "low": None, "high": None}
    assert "| 12.00 ± – |" in printed
    assert sum(tally["map_points"] for tally in row["causes"].values()) == pytest.approx(row["difference"]["map_score"])
    assert (files / "s.paper.jsonl").exists() and (files / "s.official.jsonl").exists()
    assert (files / "r" / "paper" / "summary.json").exists() and (files / "r" / "official" / "table.md").exists()
    again = explain_files(
        files / "q.jsonl",
        files / "p.jsonl",
        out=files / "s.jsonl",
        report_dir=files / "r2",
        settings=ScoreSettings(weighting="none"),
    )
    assert (files / "r2" / "compare.json").read_bytes() == (files / "r" / "compare.json").read_bytes()
    assert again.explanation["variants"] == ["paper", "official"]


def test_explain_refuses_a_bad_pair(files, capsys):
    with pytest.raises(SystemExit):
        main(["score", "--questions", "q", "--predictions", "p", "--out", "o", "--report", "r", "--explain", "paper"])
    assert "two different variants" in capsys.readouterr().err


def test_the_old_option_name_still_explains_and_is_not_shown(files, capsys):
    # ``score --compare A,B`` (older scripts) is ``--explain A,B``, hidden from the help, which names only
    # ``--explain``: ``reasonmap compare`` is the paired comparison of two runs
    from reasonmap.cli import build_parser

    argv = ["score", "--questions", "q", "--predictions", "p", "--out", "o", "--report", "r"]
    parser = build_parser()
    assert parser.parse_args([*argv, "--compare", "paper,official"]).explain == ("paper", "official")
    assert parser.parse_args([*argv, "--explain", "official,C1"]).explain == ("official", "C1")
    assert parser.parse_args(argv).explain is None
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    shown = capsys.readouterr().out
    assert "--explain A,B" in shown and "--compare" not in shown
    with pytest.raises(SystemExit):
        main([*argv, "--compare", "paper"])
    assert "two different variants" in capsys.readouterr().err
    argv = ["score", "--questions", str(files / "q.jsonl"), "--predictions", str(files / "p.jsonl")]
    argv += ["--out", str(files / "s.jsonl"), "--weighting", "none"]
    assert main([*argv, "--report", str(files / "old"), "--compare", "paper,official"]) == 0
    assert (files / "old" / "compare.json").exists() and (files / "old" / "official" / "summary.json").exists()


def test_the_cli_offers_every_scoring_variant():
    import argparse

    from benchmarks.tasks import get_task, task_names
    from reasonmap.cli import build_parser
    from reasonmap.score_files import scoring_variants

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    variant = next(a for a in commands.choices["score"]._actions if a.dest == "variant")
    every = {name for task in task_names() for name in get_task(task).variant_names}
    assert sorted(variant.choices) == sorted(every) == sorted(scoring_variants())


@pytest.mark.slow
def test_reports_and_the_comparison_say_which_rule_read_each_model(files, capsys):
    runs = files / "runs.json"
    runs.write_text(json.dumps({"m": "Qwen/QVQ-72B-Preview"}), encoding="utf-8")
    argv = ["score", "--questions", str(files / "q.jsonl"), "--predictions", str(files / "p.jsonl")]
    argv += ["--out", str(files / "s.jsonl"), "--official-model", str(runs)]
    assert main([*argv, "--report", str(files / "r"), "--variant", "official"]) == 0
    summary = json.loads((files / "r" / "summary.json").read_text(encoding="utf-8"))
    expected = {"m": {"rule": "qvq", "model_path": "Qwen/QVQ-72B-Preview", "chosen_by": "given"}}
    assert summary["official_rules"] == expected
    row = "| m | Qwen/QVQ-72B-Preview | `qvq` | given |"
    assert row in (files / "r" / "table.md").read_text(encoding="utf-8")
    # QVQ's rule: no \boxed{} in the answer, the whole response is read: the same 12 as any model
    assert summary["published_aggregate"]["m"]["map_score_short"] == 12.0
    assert main([*argv, "--report", str(files / "c"), "--explain", "paper,official"]) == 0
    assert json.loads((files / "c" / "compare.json").read_text(encoding="utf-8"))["official_rules"] == expected
    assert row in (files / "c" / "compare.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*argv[:-1], "Qwen/QVQ", "--report", str(files / "x"), "--variant", "official"]) == 2
    assert "--official-model: 'Qwen/QVQ' is no model path" in capsys.readouterr().err


def _score(files, official, *more):
    argv = ["score", "--questions", str(files / "q.jsonl"), "--predictions", str(files / "p.jsonl")]
    argv += ["--out", str(files / "s.jsonl"), "--report", str(files / "r"), "--variant", "official"]
    return main([*argv, "--official-model", str(official), *more])


def test_a_run_name_that_is_no_model_is_refused_naming_it(files, capsys):
    """A misspelt run name left its model scored with the default rule, without a word (campaign 4, G117)."""
    typo = files / "typo.json"
    typo.write_text(json.dumps({"m": "Qwen/QVQ-72B-Preview", "mm": "Qwen/QVQ-72B-Preview"}), encoding="utf-8")
    assert _score(files, typo) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"reasonmap score: error: --official-model: run 'mm' is no model of {files / 'p.jsonl'} (its models: ['m'])"
    )
    assert not (files / "s.jsonl").exists() and not (files / "r").exists()  # refused before anything is written
    near = files / "near.json"
    near.write_text(json.dumps({"baseline:oracel": "Qwen/QVQ-72B-Preview"}), encoding="utf-8")
    first = json.loads((files / "q.jsonl").read_text(encoding="utf-8").splitlines()[0])["id"]
    write_jsonl(files / "p.jsonl", [Prediction(first, "baseline:oracle", "short", "Route Name: Line B")])
    assert _score(files, near) == 2
    assert "run 'baseline:oracel' is no model of" in (error := capsys.readouterr().err)
    assert error.rstrip().endswith("did you mean 'baseline:oracle'?") and len(error.strip().splitlines()) == 1
    near.write_text(json.dumps({"baseline:oracle": "Qwen/QVQ-72B-Preview"}), encoding="utf-8")
    assert _score(files, near) == 0  # spelt right


def test_a_fifo_or_a_folder_is_not_a_regular_file(files, capsys, monkeypatch):
    import os

    os.mkfifo(files / "fifo.json")  # never opened: a FIFO with no writer would block the read for ever
    (files / "dir.json").mkdir()
    for name in ("fifo.json", "dir.json"):
        assert _score(files, files / name) == 2
        error = capsys.readouterr().err.strip()
        assert error == (
            f"reasonmap score: error: --official-model: {files / name}: not a regular file"
            " (give a model path or a JSON file)"
        )
    # a model path is still one where a folder of that name lies (its weights, downloaded)
    monkeypatch.chdir(files)
    (files / "Qwen" / "QVQ-72B-Preview").mkdir(parents=True)
    assert _score(files, "Qwen/QVQ-72B-Preview") == 0
