"""The error-analysis notebook runs end to end on the embedded data, and its numbers hold together."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import made_once
from vision.errors import EngineUnavailable
from vision.fonts import find_font

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "error_analysis.py"
# a guard against a hung run, not a speed check: a loaded 2-core CI machine took over 120 s to draw and diagnose
HANG = 600
CITIES = ("rome", "beijing")  # one Latin map, one CJK map
PROBE_TABLE = "probe_attribution.md"  # the built-in run's only
TABLES = ("by_model.md", "by_city.md", "by_difficulty.md", "diagnosis.summary.md", PROBE_TABLE)
FILES = (
    *TABLES,
    "questions.jsonl",
    "predictions.jsonl",
    "diagnoses.jsonl",
    "labels_by_model.png",
    "labels_by_model.pdf",
    "confusions.png",
    "confusions.pdf",
    "route.png",
    "summary.json",
)


def _run(out: Path) -> subprocess.CompletedProcess:
    try:
        find_font("cjk")
    except EngineUnavailable as error:
        pytest.skip(f"no CJK font to draw {CITIES[1]}: {error}")
    env = dict(
        os.environ,
        ERROR_ANALYSIS_OUT=str(out),
        ERROR_ANALYSIS_CITIES=",".join(CITIES),
        ERROR_ANALYSIS_QUESTIONS="8",
        ERROR_ANALYSIS_SEED="3",
        ERROR_ANALYSIS_CROPS="6",
        MPLBACKEND="Agg",
    )
    return subprocess.run(
        [sys.executable, str(NOTEBOOK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG
    )


def _ran(out: Path) -> None:
    done = _run(out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """The built-in run's output folder: run once in the session, whichever xdist worker asks first."""
    return made_once(tmp_path_factory, "error-analysis", _ran)


@pytest.fixture(scope="module")
def summary(run):
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_writes_every_output(run):
    out = run
    for name in FILES:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    for city in CITIES:
        assert (out / "maps" / f"{city}.png").is_file()
        assert (out / "maps" / f"{city}.truth.json").is_file()
    for name in TABLES:
        assert (out / name).read_text(encoding="utf-8").startswith("| ")


@pytest.mark.slow
def test_counts_add_up_to_the_predictions(summary):
    predictions = summary["predictions"]
    assert predictions == summary["diagnoses"] == 2 * 5 * summary["questions"]  # two kinds, five models
    assert summary["settings"]["cities"] == list(CITIES)
    assert sum(model["categories"]["total"] for model in summary["models"].values()) == predictions
    for model in summary["models"].values():
        categories = model["categories"]
        assert sum(categories[name] for name in ("correct", "grounding", "reasoning", "other")) == categories["total"]
        assert sum(model["labels"].values()) == categories["total"]
    for grouping in ("cities", "difficulty_pairs"):
        totals = [counts["total"] for models in summary[grouping].values() for counts in models.values()]
        assert sum(totals) == predictions, grouping
    assert set(summary["cities"]) == set(CITIES)
    assert not summary["problems"]


@pytest.mark.slow
def test_the_models_fail_as_designed(summary):
    models = summary["models"]
    oracle = models["oracle"]["categories"]
    assert oracle["correct"] == oracle["total"]
    perception, reasoning = models["perception-heavy"]["categories"], models["reasoning-heavy"]["categories"]
    assert perception["grounding"] > reasoning["grounding"]
    assert reasoning["reasoning"] > perception["reasoning"]


@pytest.mark.slow
def test_probes_put_wrong_routes_down_to_line_following_or_reasoning(run, summary):
    lines = (run / PROBE_TABLE).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "| model | follow probes passed | wrong routes | line_following | reasoning | untested |"
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    table = {cells[0]: cells[1:] for cells in rows}
    assert set(table) == set(summary["models"])  # summary.json sorts its keys
    for model, (passed, wrong, following, reasoning, untested) in table.items():
        categories = summary["models"][model]["categories"]
        # every wrong route (grounding or reasoning, from the diagnosis) gets exactly one attribution
        assert int(wrong) == categories["grounding"] + categories["reasoning"], model
        assert int(following) + int(reasoning) + int(untested) == int(wrong), model
        asked = int(passed.split("/")[1])
        assert asked > 0
        if model in ("oracle", "direct-line", "reasoning-heavy"):  # the probe oracle's answers, none failed
            assert passed == f"{asked}/{asked}" and int(following) == 0, model
    # the perception-heavy model fails about half its follow probes (rate 0.5), so most lines it rides are flagged
    perception = table["perception-heavy"]
    assert int(perception[0].split("/")[0]) < int(perception[0].split("/")[1])
    assert int(perception[2]) > 0
    assert int(table["direct-line"][3]) == int(table["direct-line"][1])  # a map read right: all reasoning


@pytest.mark.slow
def test_crops_of_confused_stations(run, summary):
    from PIL import Image

    crops = summary["crops"]
    assert 0 < len(crops) <= 6
    assert all(crop["label"] in ("line_confusion_colour", "line_confusion_layout", "misread_station") for crop in crops)
    with Image.open(run / "confusions.png") as image:
        image.verify()
    with Image.open(run / "confusions.png") as image:
        assert image.format == "PNG" and min(image.size) >= 200
        extrema = image.convert("L").getextrema()
        assert extrema[1] - extrema[0] > 100  # not a blank canvas
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20)) > 50  # map colours, not just text


@pytest.mark.slow
def test_same_seed_same_numbers(run, tmp_path):
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    for name in ("summary.json", *TABLES):
        assert (tmp_path / name).read_bytes() == (run / name).read_bytes(), name


def test_is_jupytext_percent_format():
    text = NOTEBOOK.read_text(encoding="utf-8")
    lines = text.splitlines()
    first = next(index for index, line in enumerate(lines) if line.startswith("# %%"))
    assert all(not line or line.startswith("#") for line in lines[:first])  # only the optional header above
    markers = [line for line in lines if line.startswith("# %%")]
    assert any(marker.startswith("# %% [markdown]") for marker in markers)
    assert sum(1 for marker in markers if marker.strip() == "# %%") >= 5
    for index, line in enumerate(lines):  # a markdown cell holds comments only
        if line.startswith("# %% [markdown]"):
            body = []
            for following in lines[index + 1 :]:
                if following.startswith("# %%"):
                    break
                body.append(following)
            assert all(not part or part.startswith("#") for part in body), line
    try:
        import jupytext
    except ImportError:
        return
    notebook = jupytext.reads(text, fmt="py:percent")
    assert {cell.cell_type for cell in notebook.cells} == {"code", "markdown"}


# -- the user's own run: their questions, their model's predictions, their maps -------------------------------------
@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    """A user-style input: questions of two cities, one model's answers (right, refused, failed, wrong line), and
    a maps folder with Rome's rendered map (image and truth) and Miami's saved evidence only."""
    from baselines.answers import render_answer
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import generate_questions
    from graphkit.cities import city_graph
    from vision.analyse import write_evidence
    from vision.evidence import read_truth
    from vision.render import render_map, write_rendered

    folder = tmp_path_factory.mktemp("user")
    maps = folder / "my maps"
    write_rendered(render_map(city_graph("rome"), seed=2, palette="confusable"), maps / "italy__rome.png")
    _, truth = write_rendered(render_map(city_graph("miami"), seed=2), folder / "miami.png")
    write_evidence(maps / "miami.evidence.json", read_truth(truth, city="miami"))
    questions = [
        *generate_questions(city_graph("rome"), seed=1, per_city=4),
        *generate_questions(city_graph("miami"), seed=1, per_city=3),
    ]
    write_jsonl(folder / "questions.jsonl", questions)
    rows = []
    for index, question in enumerate(questions):
        right = render_answer(question.routes[0], "short", question.long_template)
        rows.append({"id": question.id, "model": "my-model", "question": "short", "response": right})
        if index == 0:
            rows.append({"id": question.id, "model": "my-model", "question": "long", "response": "I can't tell."})
        elif index == 1:
            rows.append(
                {"id": question.id, "model": "my-model", "question": "long", "response": "", "error": "HTTP 500"}
            )
    write_jsonl(folder / "predictions.jsonl", rows)
    out = folder / "out"
    env = dict(
        os.environ,
        ERROR_ANALYSIS_QUESTIONS_FILE=str(folder / "questions.jsonl"),
        ERROR_ANALYSIS_PREDICTIONS_FILE=str(folder / "predictions.jsonl"),
        ERROR_ANALYSIS_MAPS=str(maps),
        ERROR_ANALYSIS_OUT=str(out),
        MPLBACKEND="Agg",
    )
    done = subprocess.run(
        [sys.executable, str(NOTEBOOK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, questions, rows, done


@pytest.mark.slow
def test_user_run_diagnoses_the_users_own_predictions(user_run):
    out, questions, rows, done = user_run
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["settings"]["questions"] == "questions.jsonl" and summary["settings"]["maps"] == "my maps"
    assert summary["settings"]["cities"] == ["miami", "rome"]
    assert list(summary["models"]) == ["my-model"] and summary["predictions"] == summary["diagnoses"] == len(rows)
    labels = summary["models"]["my-model"]["labels"]
    assert labels["correct"] == len(questions) and labels["refusal"] == 1 and labels["endpoint_error"] == 1
    assert {city: sum(counts["total"] for counts in models.values()) for city, models in summary["cities"].items()} == {
        "rome": 4 + 2,
        "miami": 3,
    }
    assert not summary["problems"]  # both cities had a map: saved evidence for Miami, the truth for Rome
    for name in ("labels_by_model.png", "labels_by_model.pdf", "confusions.png", "confusions.pdf", *TABLES):
        assert (out / name).is_file() == (name != PROBE_TABLE), name  # the probe section: the built-in run only
    assert "| my-model |" in (out / "by_model.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_user_run_needs_both_files(tmp_path):
    env = dict(os.environ, ERROR_ANALYSIS_QUESTIONS_FILE=str(tmp_path / "q.jsonl"), ERROR_ANALYSIS_OUT=str(tmp_path))
    done = subprocess.run(
        [sys.executable, str(NOTEBOOK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG
    )
    assert done.returncode != 0 and "ERROR_ANALYSIS_PREDICTIONS_FILE" in done.stderr


@pytest.mark.slow
def test_one_wrong_answer_drawn_on_its_map(run, summary):
    from PIL import Image

    route = summary["route"]
    assert route["file"] == "route.png" and route["label"] not in ("correct", None)
    wrong = {(row["id"], row["question"]) for row in _rows(run / "diagnoses.jsonl") if row["label"] != "correct"}
    assert (route["id"], route["question"]) in wrong
    with Image.open(run / "route.png") as image:
        assert image.format == "PNG" and min(image.size) >= 200


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
