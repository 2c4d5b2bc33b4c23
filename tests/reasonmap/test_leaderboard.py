"""``reasonmap leaderboard``: one ranked table across runs, intervals from the summaries, tied ranks."""

from __future__ import annotations

import json

import pytest

from benchmarks.leaderboards import leaderboard_csv, leaderboard_markdown, tiered_ranks
from reasonmap.cli import main
from reasonmap.leaderboard import build_leaderboard
from reasonmap.runs import RunError
from tests.reasonmap.run_folders import OTHER_SHA, ROUTE_KEYS, route_rows, write_eval_run, write_score_report

ROWS = route_rows("x", {"q0": (1, 15.0, 0, 0.0)})  # the scored rows do not matter here: the summaries do


def _row(short: float, interval: tuple[float, float] | None) -> dict:
    """A summary's model row: short accuracy ``short`` (with its interval), the other metrics fixed."""
    row = {"n": 800, "n_invalid": 0, **dict.fromkeys(ROUTE_KEYS, 0.25), "weighted_accuracy_short": short}
    if interval is not None:
        row["intervals"] = {
            key: {"n": 400, "se": 0.01, "low": 0.2, "high": 0.3}
            for key in ROUTE_KEYS
            if key != "weighted_accuracy_short"
        }
        row["intervals"]["weighted_accuracy_short"] = {"n": 400, "se": 0.025, "low": interval[0], "high": interval[1]}
    return row


# model: (short accuracy, its 95% interval); ranked by short accuracy:
# m1 leads; m2 overlaps m1 (0.52–0.63 against 0.55–0.65): rank 1; m3 does not (0.54 < 0.55): a new tier, rank 3;
# m4 overlaps m3: rank 3; m5 has no interval and a lower value: rank 5
MODELS = {
    "m1": (0.60, (0.55, 0.65)),
    "m2": (0.58, (0.52, 0.63)),
    "m3": (0.50, (0.45, 0.54)),
    "m4": (0.49, (0.44, 0.53)),
    "m5": (0.40, None),
}


def _run(folder, model, *, sha=None, modes=("full",)):
    short, interval = MODELS[model]
    given = {("route", mode): {model: _row(short, interval)} for mode in modes}
    return write_eval_run(
        folder, {("route", mode): ROWS for mode in modes}, models=given, **({"sha": sha} if sha else {})
    )


@pytest.fixture()
def runs(tmp_path):
    return [_run(tmp_path / name, name) for name in MODELS]


def test_ranks_tie_where_the_intervals_overlap(runs):
    record = build_leaderboard(runs)
    assert [(row["model"], row["rank"]) for row in record["rows"]] == [
        ("m1", 1),
        ("m2", 1),
        ("m3", 3),
        ("m4", 3),
        ("m5", 5),
    ]
    assert record["rank_by"] == "route/full/weighted_accuracy_short"
    assert record["runs_without_intervals"] == [str(runs[-1])]


def test_the_table_shows_value_and_half_interval(runs):
    text = leaderboard_markdown(build_leaderboard(runs))
    lines = text.splitlines()
    assert lines[0] == (
        "| Rank | Model | route/full: Short Acc. (%) | route/full: Short Map Score | route/full: Long Acc. (%)"
        " | route/full: Long Map Score |"
    )
    # m1: 60.00 ± (65 − 55) / 2; its map scores 0.25 ± (0.3 − 0.2) / 2
    assert lines[2] == "| 1 | m1 | 60.00 ± 5.00 | 0.25 ± 0.05 | 25.00 ± 5.00 | 0.25 ± 0.05 |"
    assert lines[6] == "| 5 | m5 | 40.00 | 0.25 | 25.00 | 0.25 |"  # no interval: the point alone
    assert "Point estimates only (no interval in the summary) for:" in text and str(runs[-1]) in text


def test_tiered_ranks_without_intervals_tie_only_on_equal_values():
    assert tiered_ranks([("a", 0.5, None), ("b", 0.5, None), ("c", 0.4, None)]) == {"a": 1, "b": 1, "c": 3}


def test_a_model_without_the_ranked_column_is_unranked(tmp_path, runs):
    other = _run(tmp_path / "other", "m3", modes=("text-only",))
    # m3 again, but in another mode: a new column, not a clash
    record = build_leaderboard([*runs, other], rank_by="route/text-only/weighted_accuracy_short")
    ranks = {row["model"]: row["rank"] for row in record["rows"]}
    assert ranks == {"m3": 1, "m1": None, "m2": None, "m4": None, "m5": None}
    assert record["rows"][0]["model"] == "m3"


def test_different_question_sets_are_refused_unless_joined(tmp_path, runs):
    odd = _run(tmp_path / "odd", "m5", sha=OTHER_SHA)
    with pytest.raises(RunError, match=r"different question files: .*\(aaaaaaaaaaaa\) and .*\(bbbbbbbbbbbb\).*--join"):
        build_leaderboard([runs[0], odd])
    record = build_leaderboard([runs[0], odd], join=True)
    assert len(record["joined"]) == 1 and "Joined although they differ" in leaderboard_markdown(record)


def test_one_model_twice_is_refused(tmp_path, runs):
    again = _run(tmp_path / "again", "m1")
    with pytest.raises(RunError, match="model 'm1' has two results for route/full"):
        build_leaderboard([runs[0], again], join=True)


def test_an_unknown_rank_column_lists_the_columns(runs):
    with pytest.raises(RunError, match="the columns are route/full/weighted_accuracy_short, route/full/map_score"):
        build_leaderboard(runs, rank_by="route/full/accuracy")


def test_score_reports_and_other_tasks(tmp_path):
    plus = {"m1": {"n": 10, "n_invalid": 0, "weighted_accuracy": 0.7, "accuracy": 0.7}}
    plus_report = write_score_report(tmp_path / "plus", [], models=plus)
    route_report = write_score_report(tmp_path / "route", ROWS)
    record = build_leaderboard([route_report, plus_report])
    assert [(c["task"], c["mode"]) for c in record["columns"]] == [("route", None), ("plus", None)]
    text = leaderboard_markdown(record)
    # one table per task: route's, then plus's; m1 has no route result, so it is in plus's table alone, unranked
    route, plus = text.split("**plus**")
    assert route.startswith("**route**") and "| plus: Acc. (%) |" in plus.splitlines()[2]
    assert "| – | m1 | 70.00 |" in plus and "m1" not in route


def test_csv_and_same_bytes(runs, tmp_path, capsys):
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        assert main(["leaderboard", *map(str, runs), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("| Rank | Model |")
    for name in ("leaderboard.md", "leaderboard.json", "leaderboard.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    lines = leaderboard_csv(json.loads((outs[0] / "leaderboard.json").read_text(encoding="utf-8"))).splitlines()
    assert lines[0] == "rank,model,task,mode,metric,value,low,high,se,n,run,partial"
    assert len(lines) == 1 + 5 * 4  # five models, route's four columns
    assert lines[1] == f"1,m1,route,full,weighted_accuracy_short,0.6,0.55,0.65,0.025,400,{runs[0]},"


def test_refusal_is_one_line(tmp_path, runs, capsys):
    odd = _run(tmp_path / "odd", "m5", sha=OTHER_SHA)
    assert main(["leaderboard", str(runs[0]), str(odd), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "different question files" in error[0]


@pytest.mark.slow
@pytest.mark.figures
def test_the_figure(runs, tmp_path):
    from PIL import Image

    from reasonmap.leaderboard import write_leaderboard

    write_leaderboard(tmp_path / "out", build_leaderboard(runs))
    with Image.open(tmp_path / "out" / "leaderboard.png") as image:
        assert image.format == "PNG" and image.size[0] > 1000


def test_an_out_folder_inside_a_run_is_refused(runs, capsys):
    before = sorted(path.name for path in runs[0].iterdir())
    for command in (["leaderboard", *map(str, runs)], ["compare", str(runs[0]), str(runs[1])]):
        assert main([*command, "--out", str(runs[0] / "board")]) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and f"is inside the run folder {runs[0]}" in error[0]
    assert sorted(path.name for path in runs[0].iterdir()) == before


@pytest.mark.figures
def test_panels_of_one_metric_share_their_x_scale(tmp_path, monkeypatch):
    """Full and text-only accuracies drawn side by side on one scale (each panel had its own: a 45% in one
    looked like a 90% in the next)."""
    import benchmarks.plotting
    from benchmarks.leaderboards import plot_leaderboard

    drawn = []
    monkeypatch.setattr(benchmarks.plotting, "save_figure", lambda figure, png: drawn.append(figure) or (png, png))
    runs = []
    for name, (short, interval) in MODELS.items():  # text-only far below full: autoscaled, the panels differ
        given = {
            ("route", "full"): {name: _row(short, interval)},
            ("route", "text-only"): {name: _row(short / 4, None)},
        }
        runs.append(
            write_eval_run(tmp_path / name, {("route", "full"): ROWS, ("route", "text-only"): ROWS}, models=given)
        )
    plot_leaderboard(build_leaderboard(runs), tmp_path / "lb.png")
    panels = {axis.get_title(): axis.get_xlim() for axis in drawn[0].axes if axis.get_visible()}
    by_metric: dict[str, set] = {}
    for title, limits in panels.items():
        by_metric.setdefault(title.split("\n")[1], set()).add(limits)
    assert len(panels) == 8 and len(by_metric) == 4  # two modes × route's four metrics
    assert all(len(limits) == 1 for limits in by_metric.values())
