# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Error analysis: grounding failures versus reasoning failures
#
# What breaks when a model answers a route question about a transit map: does it *misread the map*
# (a station name, a line of a similar colour, a line drawn nearby) or does it *plan badly* on a map it
# read right (a transfer that does not connect, a detour, wrong via stops)?
#
# It runs on **your own run** (your questions, your model's predictions and the maps it saw) or, with no
# files given, on a built-in demonstration, offline and deterministically:
#
# 1. the questions: yours, or benchmark questions generated for a few cities of the test split;
# 2. the maps: yours (a folder with one map per city: a saved OCR evidence file, a rendered map's truth,
#    or the image itself, read with OCR), or each city rendered with the **confusable** palette (lines
#    that share stations get near-identical colours) with the renderer's ground truth as the evidence;
# 3. the answers: your predictions, or symbolic "models" whose failure profile is known in advance (an
#    oracle, a naive floor, and the oracle seen through perception noise, reasoning noise, or both);
# 4. label every answer with `vision.diagnose` and break the labels down per model, per city and per
#    difficulty pair (map difficulty × question difficulty);
# 5. crop the map around the stations where a line was confused, to see what the model saw;
# 6. draw one wrong answer's route, and the reference, on its map;
# 7. (built-in run) put each wrong route down to line following or reasoning with the same model's
#    perception probes on the same maps.
#
# Run it with `python notebooks/error_analysis.py` from the repository root, or open it as a notebook
# with jupytext. The settings below come from environment variables (or edit the parameters cell, which
# papermill can also set).

# %%
from __future__ import annotations

import os
import random
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from PIL import Image

from baselines import Noise, run_solver, solve_probe
from benchmarks import read_jsonl, write_jsonl, write_summary
from benchmarks.probe import generate_probe_questions
from benchmarks.probe import score_predictions as score_probe_predictions
from benchmarks.reasonmap import DIFFICULTIES, TEST_CITIES, generate_questions, load_questions
from graphkit import city_graph, city_names, fold
from reasonmap import markdown_text
from vision import (
    CATEGORIES,
    LABELS,
    EngineUnavailable,
    analyse_map,
    answer_route,
    attribute_diagnoses,
    confusion_crops,
    diagnose_predictions,
    draw_routes,
    find_font,
    folder_evidence,
    follow_results,
    map_files,
    plot_confusions,
    plot_labels,
    prediction_row,
    read_truth,
    reference_route,
    render_map,
    summarize,
    summary_markdown,
    write_rendered,
)

# %% [markdown]
# ## Settings
#
# Your own run (all three paths, or the first two with the maps left out):
#
# | variable | meaning | default |
# |---|---|---|
# | `ERROR_ANALYSIS_QUESTIONS_FILE` | your questions (JSON Lines: the toolkit's, or the public data set's) | none |
# | `ERROR_ANALYSIS_PREDICTIONS_FILE` | your predictions (JSON Lines: `id`, `model`, `question`, `response`) | none |
# | `ERROR_ANALYSIS_MAPS` | a folder of maps, one per city, named as for `reasonmap diagnose --maps` | none |
#
# The built-in demonstration (used when no questions file is given), and both:
#
# | variable | meaning | default |
# |---|---|---|
# | `ERROR_ANALYSIS_OUT` | output folder | `error-analysis-out` |
# | `ERROR_ANALYSIS_CITIES` | comma-separated cities | five cities of the test split, one Chinese |
# | `ERROR_ANALYSIS_QUESTIONS` | questions per city (at most) | 20 |
# | `ERROR_ANALYSIS_SEED` | seed of the questions, the maps and the noise | 0 |
# | `ERROR_ANALYSIS_CROPS` | at most this many map crops | 12 |

# %% tags=["parameters"]
QUESTIONS_FILE = os.environ.get("ERROR_ANALYSIS_QUESTIONS_FILE") or None
PREDICTIONS_FILE = os.environ.get("ERROR_ANALYSIS_PREDICTIONS_FILE") or None
MAPS_DIR = os.environ.get("ERROR_ANALYSIS_MAPS") or None
OUT = Path(os.environ.get("ERROR_ANALYSIS_OUT", "error-analysis-out"))
CITIES = os.environ.get("ERROR_ANALYSIS_CITIES", "")
PER_CITY = int(os.environ.get("ERROR_ANALYSIS_QUESTIONS", "20"))
SEED = int(os.environ.get("ERROR_ANALYSIS_SEED", "0"))
MAX_CROPS = int(os.environ.get("ERROR_ANALYSIS_CROPS", "12"))

# %%
if (QUESTIONS_FILE is None) != (PREDICTIONS_FILE is None):
    raise SystemExit("give both ERROR_ANALYSIS_QUESTIONS_FILE and ERROR_ANALYSIS_PREDICTIONS_FILE, or neither")
USER_RUN = QUESTIONS_FILE is not None
DEFAULT_CITIES = tuple(city for city in TEST_CITIES if city in ("rome", "geneva", "lisboa", "singapore", "beijing"))
OUT = Path(OUT)
OUT.mkdir(parents=True, exist_ok=True)
started = time.perf_counter()
if USER_RUN:
    print(f"your run: {QUESTIONS_FILE}, {PREDICTIONS_FILE}; maps {MAPS_DIR or 'none'}; output {OUT}")
else:
    CITIES = tuple(name.strip() for name in (CITIES or ",".join(DEFAULT_CITIES)).split(",") if name.strip())
    print(f"built-in run: cities {', '.join(CITIES)}; {PER_CITY} questions per city; seed {SEED}; output {OUT}")

# %% [markdown]
# ## Questions and maps
#
# Your run: the questions are read (bad records are reported and skipped) and each city's map comes from
# the maps folder: its saved evidence (`CITY.evidence.json` from `reasonmap ocr --evidence`), a rendered
# map's truth (`CITY.truth.json`), or its image read with OCR (`CITY.png`/`.jpg`, cached). A city without
# a map is still diagnosed, without line confusions. The built-in run draws each city's map with the
# confusable palette as `maps/<city>.png` with its ground truth `maps/<city>.truth.json`; the evidence the
# diagnosis reads is that truth, read back from the file.

# %%
problems = []
images = {}
evidence = {}
if USER_RUN:
    questions_by_id, _, question_problems = load_questions(QUESTIONS_FILE)  # repeated ids among the problems
    questions = list(questions_by_id.values())
    problems += [str(problem) for problem in question_problems]
    known = set(city_names())
    CITIES = tuple(sorted({question.city for question in questions}))
    graphs = {city: city_graph(city) for city in CITIES if city in known}
    problems += [f"city {city!r} is not embedded: its questions are skipped" for city in CITIES if city not in known]
    if MAPS_DIR:
        lookup = folder_evidence(
            MAPS_DIR,
            graphs.__getitem__,
            lambda path, graph: analyse_map(path, graph, lines=True, progress=False).evidence,
            use_truth=True,
        )
        files = map_files(MAPS_DIR)
        for city in graphs:
            evidence[city] = lookup(city)
            image = files.get(fold(city), {}).get("image")
            if image is not None:
                with Image.open(image) as opened:
                    images[city] = opened.convert("RGB")
else:
    graphs = {city: city_graph(city) for city in CITIES}
    questions = [
        question for graph in graphs.values() for question in generate_questions(graph, seed=SEED, per_city=PER_CITY)
    ]
    for city, graph in graphs.items():
        rendered = render_map(graph, seed=SEED, palette="confusable")
        png, truth = write_rendered(rendered, OUT / "maps" / f"{city}.png")
        images[city] = rendered.image
        evidence[city] = read_truth(truth, city=city)
by_id = {question.id: question for question in questions}
write_jsonl(OUT / "questions.jsonl", questions)

print(f"{len(questions)} questions")
for city, graph in graphs.items():
    levels = Counter(question.difficulty_question for question in questions if question.city == city)
    mix = ", ".join(f"{levels[level]} {level}" for level in DIFFICULTIES)
    seen = "no map" if evidence.get(city) is None else "map" + (" and image" if city in images else "")
    print(f"  {city}: {len(graph.stations)} stations, {len(graph.lines)} lines; {mix}; {seen}")

# %% [markdown]
# ## The models
#
# Your run: the models are those of your predictions file, in the order they first appear; a row's
# `error` field (a failed request) is kept, so the diagnosis labels it an endpoint error.
#
# The built-in run: symbolic solvers stand in for models whose failure profile we know, so the breakdown can be checked:
#
# - `oracle`: the best route; every answer should be labelled `correct`;
# - `direct-line`: a line serving both stations if there is one, else the departure's first line, with no
#   transfer (the naive floor: its failures are reasoning failures);
# - `perception-heavy`: the oracle, but half of its segments are read on the line *most alike in colour*
#   on the rendered map: grounding failures;
# - `reasoning-heavy`: the oracle with transfers planned one stop off, detours and via-stop miscounts,
#   on a map read right: reasoning failures;
# - `mixed`: a little of both.

# %%
MODELS = {
    "oracle": ("oracle", None),
    "direct-line": ("direct-line", None),
    "perception-heavy": ("noisy", Noise(wrong_line=0.5, wrong_transfer=0.0, detour=0.0, miscount=0.0, misread=0.3)),
    "reasoning-heavy": ("noisy", Noise(wrong_line=0.0, wrong_transfer=0.4, detour=0.4, miscount=0.15)),
    "mixed": ("noisy", Noise(wrong_line=0.15, wrong_transfer=0.15, detour=0.15, miscount=0.1)),
}


def predictions_of(model, solver, noise):
    """One model's predictions for every question, city by city (the noise knows each map's colours)."""
    found = []
    for city, graph in graphs.items():
        options = {}
        if noise is not None:
            colours = {line: evidence[city].lines[line].colour for line in graph.lines}
            options["noise"] = replace(noise, colours=colours)
        asked = [question for question in questions if question.city == city]
        found += [
            replace(prediction, model=model)
            for prediction in run_solver(solver, asked, lambda _, graph=graph: graph, seed=SEED, **options)
        ]
    return found


if USER_RUN:
    rows, row_problems = read_jsonl(PREDICTIONS_FILE, prediction_row)
    problems += [str(problem) for problem in row_problems]
    MODEL_NAMES = list(dict.fromkeys(prediction.model for prediction, _ in rows))
else:
    rows = [
        (prediction, None)
        for model, (solver, noise) in MODELS.items()
        for prediction in predictions_of(model, solver, noise)
    ]
    MODEL_NAMES = list(MODELS)
predictions = [prediction for prediction, _ in rows]
write_jsonl(OUT / "predictions.jsonl", predictions)
print(f"{len(predictions)} predictions from {len(MODEL_NAMES)} models")

# %% [markdown]
# ## Diagnosis
#
# Every answer gets exactly one label (`vision.diagnose`): the first thing that broke, perception before
# planning. The labels fall into four categories.

# %%
diagnoses, skipped = diagnose_predictions(
    rows, by_id, lambda question: graphs[question.city], lambda question: evidence.get(question.city)
)
problems += skipped
for problem in problems:
    print("problem:", problem)
write_jsonl(OUT / "diagnoses.jsonl", diagnoses)
summary = summarize(diagnoses)
(OUT / "diagnosis.summary.md").write_text(summary_markdown(summary), encoding="utf-8")

for label, (category, description) in LABELS.items():
    print(f"{label:<22} {category:<10} {description}")

# %% [markdown]
# ## Failure breakdown
#
# Three tables, each printed and written as markdown: per model (every label, and how the failures split
# between grounding, reasoning and other), per city, and per difficulty pair. A difficulty pair is the
# map's difficulty (`difficulty_city`: tiers of line and transfer-station counts) with the question's
# (`difficulty_question`: 0 transfers easy, 1 middle, 2 or more hard).

# %%
FAILURES = ("grounding", "reasoning", "other")


def percent(count, total):
    return f"{100 * count / total:.1f}%" if total else "-"


def category_counts(rows):
    counts = Counter(diagnosis.category for diagnosis in rows)
    return {"total": len(rows), **{category: counts[category] for category in CATEGORIES}}


def markdown_table(header, rows):
    # model and city names come from the predictions and questions: escaped, so a name cannot forge a row
    lines = [
        "| " + " | ".join(markdown_text(cell) for cell in header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(markdown_text(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def group(rows, key):
    groups = {}
    for diagnosis in rows:
        groups.setdefault(key(diagnosis), []).append(diagnosis)
    return groups


by_model = group(diagnoses, lambda diagnosis: diagnosis.model)
MODEL_NAMES = [model for model in MODEL_NAMES if model in by_model]  # models with no answer left are dropped
model_rows, label_rows = [], []
for model in MODEL_NAMES:
    counts = category_counts(by_model[model])
    failed = sum(counts[category] for category in FAILURES)
    model_rows.append(
        [model, counts["total"]]
        + [percent(counts[category], counts["total"]) for category in CATEGORIES]
        + [percent(counts[category], failed) for category in FAILURES]
    )
    labels = Counter(diagnosis.label for diagnosis in by_model[model])
    label_rows.append([model] + [labels[label] for label in LABELS])
model_table = (
    markdown_table(
        ["model", "answers", *CATEGORIES, *(f"{category} share of failures" for category in FAILURES)], model_rows
    )
    + "\n"
    + markdown_table(["model", *LABELS], label_rows)
)
(OUT / "by_model.md").write_text(model_table, encoding="utf-8")
print(model_table)

# %%
city_rows = []
city_groups = group(diagnoses, lambda diagnosis: (diagnosis.city, diagnosis.model))
for (city, model), rows in sorted(city_groups.items(), key=lambda item: (item[0][0], MODEL_NAMES.index(item[0][1]))):
    counts = category_counts(rows)
    city_rows.append(
        [city, model, counts["total"], *(percent(counts[category], counts["total"]) for category in CATEGORIES)]
    )
city_table = markdown_table(["city", "model", "answers", *CATEGORIES], city_rows)
(OUT / "by_city.md").write_text(city_table, encoding="utf-8")
print(city_table)


# %%
def difficulty_pair(diagnosis):
    question = by_id[diagnosis.id]
    return question.difficulty_city, question.difficulty_question


pair_rows = []
pair_groups = group(diagnoses, lambda diagnosis: (*difficulty_pair(diagnosis), diagnosis.model))
rank = {level: index for index, level in enumerate(DIFFICULTIES)}
for (map_level, question_level, model), rows in sorted(
    pair_groups.items(), key=lambda item: (rank[item[0][0]], rank[item[0][1]], MODEL_NAMES.index(item[0][2]))
):
    counts = category_counts(rows)
    pair_rows.append(
        [map_level, question_level, model, counts["total"]]
        + [percent(counts[category], counts["total"]) for category in CATEGORIES]
    )
pair_table = markdown_table(["map difficulty", "question difficulty", "model", "answers", *CATEGORIES], pair_rows)
(OUT / "by_difficulty.md").write_text(pair_table, encoding="utf-8")
print(pair_table)

# %% [markdown]
# ## Labels per model
#
# One stacked bar per model: its answers by label, grounding labels in warm colours, reasoning labels
# in blues, the rest in greys, correct answers in green (`labels_by_model.png`, and `.pdf` beside it).

# %%
plot_labels(diagnoses, OUT / "labels_by_model.png", models=MODEL_NAMES)

# %% [markdown]
# ## What the model saw: crops around confused stations
#
# For each line confusion (and misread station), a crop of the map around the station where it happened
# (grown so that every label in it is whole): the claimed line's path dashed, the right line's path
# dotted, the station ringed and its label boxed, and the colour distance (CIEDE2000) between the two
# lines. A colour confusion is a line within the threshold of the right one's colour; a layout confusion
# is a line drawn near the station. The built-in perception-heavy model misreads a station now and then
# (one or two letters off), which the diagnosis labels as a misread station. Cities whose map is only
# saved evidence (no image) have no crops.


# %%
def cjk_fonts():
    """The CJK font the renderer uses, for Chinese station names in titles (none when the system lacks one)."""
    try:
        return [find_font("cjk")]
    except EngineUnavailable:
        return []


responses = {(prediction.model, prediction.id, prediction.question): prediction.response for prediction in predictions}
crops = confusion_crops(
    diagnoses,
    by_id,
    responses,
    graphs.__getitem__,
    {city: (images[city], evidence[city]) for city in images if evidence.get(city) is not None},
    limit=MAX_CROPS,
    models=MODEL_NAMES,
)
confused = sum(1 for diagnosis in diagnoses if diagnosis.label in ("line_confusion_colour", "line_confusion_layout"))
print(f"{confused} line confusions; {len(crops)} cropped")
plot_confusions(crops, OUT / "confusions.png", fonts=cjk_fonts())

# %% [markdown]
# ## What the model did: one wrong answer's route on the map
#
# The route a wrong answer states, drawn on a crop of its map (`vision.route_drawing`): each ride in the
# colour of the line the answer names (dashed where that line does not run between the two stations), its
# transfer stations in black rings, the reference route as a grey band beneath, and the stations the map
# does not show listed under it. `reasonmap diagnose ... --draw DIR` draws one such file per wrong answer.
# Shown here: the first grounding failure (else the first wrong answer) in a city with a map.


# %%
def first_wrong(rows):
    with_map = [diagnosis for diagnosis in rows if evidence.get(diagnosis.city) is not None]
    wrong = [diagnosis for diagnosis in with_map if diagnosis.category != "correct"]
    grounding = [diagnosis for diagnosis in wrong if diagnosis.category == "grounding"]
    return (grounding or wrong or [None])[0]


shown = first_wrong(diagnoses)
drawn_route = None
if shown is not None:
    question = by_id[shown.id]
    graph, seen = graphs[shown.city], evidence[shown.city]
    answers = {(p.model, p.id, p.question, p.repeat): p.response for p in predictions}  # repeats apart
    response = answers[(shown.model, shown.id, shown.question, shown.repeat)]
    drawn_route = draw_routes(
        images.get(shown.city),
        seen,
        answer_route(response, shown.question, question, graph, seen),
        reference_route(question, graph, seen),
        OUT / "route.png",
        title=[f"{shown.model} · {shown.city} · {shown.label}", f"{shown.id} ({shown.question})"],
        fonts=cjk_fonts(),
    )
    print(f"{shown.model} on {shown.id} ({shown.question}): {shown.label}; drawn in {drawn_route.path.name}")
    print("not found on the map:", ", ".join(drawn_route.unplaced) or "none")
else:
    print("no wrong answer on a city with a map: nothing to draw")

# %% [markdown]
# ## Which failures are line following: perception probes on the same maps
#
# The built-in run only (for yours: `reasonmap diagnose ... --probes SCORED --probe-questions FILE`). Each
# city gets `follow` probes on its rendered map (the probe task, `benchmarks.probe`: "the stations in order
# from A to B along line L"), two per line, and each model answers them: the probe oracle
# (`baselines.solve_probe`), with a `follow` probe failed (a station between the ends skipped) at the
# model's wrong-line rate, so the perception-heavy model fails half of them, the mixed one a few, and the
# others none. `vision.attribute_diagnoses` then puts each wrong route answer (grounding or reasoning) down
# to `line_following` (the model failed a `follow` probe of a line its answer rides), `reasoning` (it
# passed every probe of every line it rides) or `untested` (a line it rides has no probe). Written as
# `probe_attribution.md`.


# %%
def probe_answers(model, noise, probes):
    """A model's answers to the probes: the probe oracle's, a `follow` failed at the noise's wrong-line rate."""
    rate = 0.0 if noise is None else noise.wrong_line
    answers = []
    for prediction in solve_probe("oracle", probes, lambda probe: graphs[probe.city], seed=SEED):
        probe = probes_by_id[prediction.id]
        if random.Random(f"{SEED}:{model}:{probe.id}").random() < rate:  # skip the first station between
            prediction = replace(prediction, response="Answer: " + ", ".join((probe.answer[0], *probe.answer[2:])))
        answers.append(replace(prediction, model=model))
    return answers


attribution = None
if not USER_RUN:
    probes = [
        probe
        for city, graph in graphs.items()
        for probe in generate_probe_questions(
            graph, seed=SEED, per_type=2 * len(graph.lines), types=["follow"], truth=OUT / "maps" / f"{city}.truth.json"
        )
    ]
    probes_by_id = {probe.id: probe for probe in probes}
    verdicts, _ = score_probe_predictions(
        probes_by_id, [answer for model, (_, noise) in MODELS.items() for answer in probe_answers(model, noise, probes)]
    )
    attribution = attribute_diagnoses(
        diagnoses,
        {(p.id, p.model, p.question, p.repeat): p for p in predictions},
        by_id,
        lambda question: graphs[question.city],
        follow_results([verdict.to_dict() for verdict in verdicts], probes_by_id),
    )
    attribution_rows = []
    for model in MODEL_NAMES:
        counts = attribution["models"].get(model, {})
        passed = sum(verdict.correct for verdict in verdicts if verdict.model == model)
        attribution_rows.append(
            [model, f"{passed}/{len(probes)}", counts.get("wrong", 0)]
            + [counts.get(name, 0) for name in attribution["attributions"]]
        )
    attribution_table = markdown_table(
        ["model", "follow probes passed", "wrong routes", *attribution["attributions"]], attribution_rows
    )
    (OUT / "probe_attribution.md").write_text(attribution_table, encoding="utf-8")
    print(f"{len(probes)} follow probes")
    print(attribution_table)

# %% [markdown]
# ## Summary
#
# `summary.json` holds the counts behind the tables (keys sorted, so the same seed gives the same file);
# `diagnosis.summary.md` is the diagnosis report's own table, for comparison with `reasonmap diagnose`.


# %%
def label_counts(rows):
    counts = Counter(diagnosis.label for diagnosis in rows)
    return {label: counts[label] for label in LABELS}


result = {
    "settings": {"cities": list(CITIES), "questions_per_city": None if USER_RUN else PER_CITY, "seed": SEED}
    | (  # file names only: the same files elsewhere give the same summary
        {"questions": Path(QUESTIONS_FILE).name, "predictions": Path(PREDICTIONS_FILE).name}
        | {"maps": Path(MAPS_DIR).name if MAPS_DIR else None}
        if USER_RUN
        else {}
    ),
    "questions": len(questions),
    "predictions": len(predictions),
    "diagnoses": len(diagnoses),
    "problems": problems,
    "models": {
        model: {"categories": category_counts(rows), "labels": label_counts(rows)} for model, rows in by_model.items()
    },
    "cities": {
        city: {model: category_counts(rows) for model, rows in group(rows, lambda diagnosis: diagnosis.model).items()}
        for city, rows in group(diagnoses, lambda diagnosis: diagnosis.city).items()
    },
    "difficulty_pairs": {
        f"{map_level}/{question_level}": {
            model: category_counts(rows) for model, rows in group(rows, lambda diagnosis: diagnosis.model).items()
        }
        for (map_level, question_level), rows in group(diagnoses, difficulty_pair).items()
    },
    "crops": [
        {
            "id": diagnosis.id,
            "model": diagnosis.model,
            "question": diagnosis.question,
            "label": diagnosis.label,
            "station": station,
        }
        for diagnosis, station in ((crop.diagnosis, crop.station) for crop in crops)
    ],
    "route": None
    if drawn_route is None
    else {
        "id": shown.id,
        "model": shown.model,
        "question": shown.question,
        "label": shown.label,
        "file": drawn_route.path.name,
        "not_found": list(drawn_route.unplaced),
    },
}
write_summary(OUT / "summary.json", result)

for model in MODEL_NAMES:
    counts = result["models"][model]["categories"]
    print(f"{model:<17} " + "  ".join(f"{category} {counts[category]:>3}" for category in CATEGORIES))
print(f"written to {OUT} in {time.perf_counter() - started:.1f} s")
