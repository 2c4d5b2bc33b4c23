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
# This notebook runs the whole diagnosis on the embedded Metro Data, offline and deterministically:
#
# 1. generate benchmark questions for a few cities of the test split;
# 2. render each city's map with the **confusable** palette (lines that share stations get near-identical
#    colours) and keep the renderer's ground truth as the map evidence;
# 3. answer with symbolic "models" whose failure profile is known in advance (an oracle, a naive floor,
#    and the oracle seen through perception noise, reasoning noise, or both);
# 4. label every answer with `vision.diagnose` and break the labels down per model, per city and per
#    difficulty pair (map difficulty × question difficulty);
# 5. crop the map around the stations where a line was confused, to see what the model saw.
#
# Run it with `python notebooks/error_analysis.py` from the repository root, or open it as a notebook
# with jupytext. The settings below come from environment variables so that the test suite can shrink it.

# %%
from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib import font_manager

from baselines.solvers import Noise, run_solver
from benchmarks.reasonmap.generate import TEST_CITIES, generate_questions
from benchmarks.reasonmap.io import write_jsonl
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import DIFFICULTIES, ParsedAnswer
from graphkit.cities import city_graph
from vision.diagnose import CATEGORIES, LABELS
from vision.diagnosis_report import diagnose_predictions, summarise, summary_markdown
from vision.errors import EngineUnavailable
from vision.evidence import read_truth
from vision.fonts import find_font
from vision.render import render_map, write_rendered

# %% [markdown]
# ## Settings
#
# | variable | meaning | default |
# |---|---|---|
# | `ERROR_ANALYSIS_OUT` | output folder | `error-analysis-out` |
# | `ERROR_ANALYSIS_CITIES` | comma-separated cities | five cities of the test split, one Chinese |
# | `ERROR_ANALYSIS_QUESTIONS` | questions per city (at most) | 20 |
# | `ERROR_ANALYSIS_SEED` | seed of the questions, the maps and the noise | 0 |
# | `ERROR_ANALYSIS_CROPS` | at most this many map crops | 12 |

# %%
plt.switch_backend("Agg")  # files only, also where a display is attached
DEFAULT_CITIES = tuple(city for city in TEST_CITIES if city in ("rome", "geneva", "lisboa", "singapore", "beijing"))

OUT = Path(os.environ.get("ERROR_ANALYSIS_OUT", "error-analysis-out"))
CITIES = tuple(
    name.strip()
    for name in os.environ.get("ERROR_ANALYSIS_CITIES", ",".join(DEFAULT_CITIES)).split(",")
    if name.strip()
)
PER_CITY = int(os.environ.get("ERROR_ANALYSIS_QUESTIONS", "20"))
SEED = int(os.environ.get("ERROR_ANALYSIS_SEED", "0"))
MAX_CROPS = int(os.environ.get("ERROR_ANALYSIS_CROPS", "12"))
OUT.mkdir(parents=True, exist_ok=True)
started = time.perf_counter()
print(f"cities {', '.join(CITIES)}; {PER_CITY} questions per city; seed {SEED}; output {OUT}")

# %% [markdown]
# ## Questions and maps
#
# Each city's map is drawn with the confusable palette and written as `maps/<city>.png` with its ground
# truth `maps/<city>.truth.json`; the evidence the diagnosis reads is that truth, read back from the file.

# %%
graphs = {city: city_graph(city) for city in CITIES}
questions = [
    question for graph in graphs.values() for question in generate_questions(graph, seed=SEED, per_city=PER_CITY)
]
by_id = {question.id: question for question in questions}
write_jsonl(OUT / "questions.jsonl", questions)

maps = {}
evidence = {}
for city, graph in graphs.items():
    rendered = render_map(graph, seed=SEED, palette="confusable")
    png, truth = write_rendered(rendered, OUT / "maps" / f"{city}.png")
    maps[city] = rendered
    evidence[city] = read_truth(truth, city=city)

print(f"{len(questions)} questions")
for city, graph in graphs.items():
    levels = Counter(question.difficulty_question for question in questions if question.city == city)
    mix = ", ".join(f"{levels[level]} {level}" for level in DIFFICULTIES)
    print(f"  {city}: {len(graph.stations)} stations, {len(graph.lines)} lines; {mix}")

# %% [markdown]
# ## The models
#
# Symbolic solvers stand in for models whose failure profile we know, so the breakdown can be checked:
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


predictions = [
    prediction for model, (solver, noise) in MODELS.items() for prediction in predictions_of(model, solver, noise)
]
write_jsonl(OUT / "predictions.jsonl", predictions)
print(f"{len(predictions)} predictions from {len(MODELS)} models")

# %% [markdown]
# ## Diagnosis
#
# Every answer gets exactly one label (`vision.diagnose`): the first thing that broke, perception before
# planning. The labels fall into four categories.

# %%
diagnoses, problems = diagnose_predictions(
    [(prediction, None) for prediction in predictions],
    by_id,
    lambda question: graphs[question.city],
    lambda question: evidence[question.city],
)
for problem in problems:
    print("problem:", problem)
write_jsonl(OUT / "diagnoses.jsonl", diagnoses)
summary = summarise(diagnoses)
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
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def group(rows, key):
    groups = {}
    for diagnosis in rows:
        groups.setdefault(key(diagnosis), []).append(diagnosis)
    return groups


by_model = group(diagnoses, lambda diagnosis: diagnosis.model)
model_rows, label_rows = [], []
for model in MODELS:
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
for (city, model), rows in sorted(city_groups.items(), key=lambda item: (item[0][0], list(MODELS).index(item[0][1]))):
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
    pair_groups.items(), key=lambda item: (rank[item[0][0]], rank[item[0][1]], list(MODELS).index(item[0][2]))
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
# in blues, the rest in greys, correct answers in green.

# %%
PNG_METADATA = {"Software": None}  # no version string: the same run gives the same bytes
SHADES = {
    "correct": ["#2e7d32"],
    "grounding": ["#b71c1c", "#e53935", "#fb8c00", "#fdd835", "#8d6e63"],
    "reasoning": ["#0d47a1", "#42a5f5", "#90caf9"],
    "other": ["#424242", "#9e9e9e", "#e0e0e0"],
}
used = Counter()
label_colour = {}
for label, (category, _) in LABELS.items():
    label_colour[label] = SHADES[category][used[category] % len(SHADES[category])]
    used[category] += 1

figure, axes = plt.subplots(figsize=(10, 4.5), dpi=100)
names = list(MODELS)
bottoms = [0] * len(names)
for label in LABELS:
    heights = [sum(1 for diagnosis in by_model[model] if diagnosis.label == label) for model in names]
    if any(heights):
        axes.bar(
            names, heights, bottom=bottoms, color=label_colour[label], label=label, edgecolor="white", linewidth=0.5
        )
        bottoms = [bottom + height for bottom, height in zip(bottoms, heights)]
axes.set_ylabel("answers")
axes.tick_params(axis="x", labelrotation=15)
axes.set_title("Failure labels per model")
axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
figure.tight_layout()
figure.savefig(OUT / "labels_by_model.png", metadata=PNG_METADATA)
plt.close(figure)

# %% [markdown]
# ## What the model saw: crops around confused stations
#
# For each line confusion (and misread station), a crop of the rendered map around the station where it
# happened: the claimed line's drawn path dashed, the right line's path dotted, the station ringed, and
# the colour distance (CIEDE2000) between the two lines. A colour confusion is a line within the
# threshold of the right one's colour; a layout confusion is a line drawn near the station.
# The perception-heavy model misreads a station now and then (one or two letters off), which the
# diagnosis labels as a misread station.

# %%
CONFUSIONS = ("line_confusion_colour", "line_confusion_layout", "misread_station")


def use_cjk_captions():
    """Let matplotlib fall back to the CJK font the renderer uses, for station names in captions."""
    try:
        path = find_font("cjk")
    except EngineUnavailable:
        return
    font_manager.fontManager.addfont(str(path))
    family = font_manager.FontProperties(fname=str(path)).get_name()
    plt.rcParams["font.family"] = ["DejaVu Sans", family]


def confused_station(diagnosis):
    """The station a confusion is about: the one named in the evidence, else the faulty section's departure."""
    found = diagnosis.evidence
    graph = graphs[diagnosis.city]
    for name in (found.get("station"), found.get("unreadable"), found.get("near_miss"), *found.get("expected", ())[:1]):
        if name in graph.stations:
            return name
    question = by_id[diagnosis.id]
    prediction_text = responses[(diagnosis.model, diagnosis.id, diagnosis.question)]
    template = question.long_template if diagnosis.question == "long" else None
    answer = parse_answer(prediction_text, kind=diagnosis.question, template=template)
    if not isinstance(answer, ParsedAnswer) or found.get("section", 0) >= len(answer.sections):
        return None
    section = answer.sections[found.get("section", 0)]
    text = section.arrival_stop if found.get("field") == "arrival_stop" else section.departure_stop
    names = graph.station_index.lookup(text).names
    return names[0] if names else None


responses = {(prediction.model, prediction.id, prediction.question): prediction.response for prediction in predictions}
confused = []
seen = set()
for diagnosis in sorted(
    (diagnosis for diagnosis in diagnoses if diagnosis.label in CONFUSIONS),
    key=lambda diagnosis: (
        CONFUSIONS.index(diagnosis.label),
        diagnosis.city,
        list(MODELS).index(diagnosis.model),
        diagnosis.id,
        diagnosis.question,
    ),
):
    station = confused_station(diagnosis)
    key = (diagnosis.city, station, diagnosis.evidence.get("claimed_line"), diagnosis.evidence.get("right_line"))
    if station is None or key in seen:
        continue
    seen.add(key)
    confused.append((diagnosis, station))
# take the crops round-robin over cities and labels, so that no one city or kind of confusion fills the grid
buckets = group(confused, lambda item: (item[0].city, item[0].label))
crops = []
while len(crops) < MAX_CROPS and any(buckets.values()):
    for key in [(city, label) for city in CITIES for label in CONFUSIONS]:
        if buckets.get(key) and len(crops) < MAX_CROPS:
            crops.append(buckets[key].pop(0))
print(f"{len(confused)} distinct confusions; {len(crops)} cropped")

# %%
use_cjk_captions()
COLUMNS = 4
rows_needed = max(1, -(-len(crops) // COLUMNS))
figure, grid = plt.subplots(rows_needed, COLUMNS, figsize=(4 * COLUMNS, 4.5 * rows_needed), dpi=80, squeeze=False)
for axes in grid.flat:
    axes.axis("off")
if not crops:
    grid[0][0].text(0.5, 0.5, "no line confusion or misread station in this run", ha="center", va="center")
for axes, (diagnosis, station) in zip(grid.flat, crops):
    truth = maps[diagnosis.city].truth
    image = maps[diagnosis.city].image
    place = truth["stations"][station]
    x, y = place["x"], place["y"]
    box = place["label_box"]
    half = max(120, 6 * (box[3] - box[1]))
    x0, y0 = max(0, int(x - half)), max(0, int(y - half))
    x1, y1 = min(image.width, int(x + half)), min(image.height, int(y + half))
    axes.imshow(image.crop((x0, y0, x1, y1)), extent=(x0, x1, y1, y0))
    found = diagnosis.evidence
    for line, style in ((found.get("claimed_line"), "--"), (found.get("right_line"), ":")):
        if line in truth["lines"]:
            path = truth["lines"][line]["path"]
            axes.plot([p[0] for p in path], [p[1] for p in path], style, color="black", linewidth=1.6)
    axes.plot([x], [y], "o", markersize=22, markerfacecolor="none", markeredgecolor="black", markeredgewidth=2)
    axes.set_xlim(x0, x1)
    axes.set_ylim(y1, y0)
    if diagnosis.label == "misread_station":
        detail = f"read as {found.get('claimed_station', '?')}"
    else:
        distance = found.get("colour_distance")
        shade = f", ΔE {distance:.1f}" if distance is not None else ""
        detail = f"{found.get('claimed_line')}\nfor {found.get('right_line')}{shade}"
    axes.set_title(f"{diagnosis.model} · {diagnosis.city} · {diagnosis.label}\n{station}: {detail}", fontsize=9)
figure.tight_layout()
figure.savefig(OUT / "confusions.png", metadata=PNG_METADATA)
plt.close(figure)

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
    "settings": {"cities": list(CITIES), "questions_per_city": PER_CITY, "seed": SEED},
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
        for diagnosis, station in crops
    ],
}
(OUT / "summary.json").write_text(
    json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
)

for model in MODELS:
    counts = result["models"][model]["categories"]
    print(f"{model:<17} " + "  ".join(f"{category} {counts[category]:>3}" for category in CATEGORIES))
print(f"written to {OUT} in {time.perf_counter() - started:.1f} s")
