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
# # Ablations: full against text-only, symbolic and alias, with error bars
#
# The paper's visual-masking ablation asks each model twice: with the map (`full`) and without it
# (`text-only`). The toolkit adds two more modes: `symbolic` (a textualized Metro Data instead of the
# image: perfect grounding, so what is left is reasoning) and `alias` (non-English names replaced by
# English aliases). Which differences between modes are real, and which are noise of a few hundred questions?
#
# It runs on **your own runs** (folders written by `reasonmap eval --out`, one per model, with the modes you
# asked) or, with none given, on a built-in demonstration, offline and deterministically:
#
# 1. each model in each mode, with a 95% bootstrap interval over questions (the weighting inside each
#    resample), beside the symbolic ceiling and the floors;
# 2. the paired difference of each mode against `full`, per model: a paired-bootstrap interval and a
#    p-value (exact McNemar for accuracy, sign flips for the map score), over the questions both answered;
# 3. the same paired differences of `text-only` against `full`, per city and per difficulty pair;
# 4. the leaderboard of the runs (`reasonmap leaderboard`), and the figures.
#
# Run it with `python notebooks/ablations.py` from the repository root, or open it with jupytext. The
# settings come from environment variables (or edit the parameters cell, which papermill can also set).

# %%
from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from baselines.solvers import Noise, run_solver
from benchmarks.jsonl import write_jsonl
from benchmarks.paired import bootstrap_counts, mean_interval
from benchmarks.plotting import PAGE_WIDTH, figure_style, save_figure
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.loading import read_questions
from benchmarks.summaries import write_summary, write_text
from graphkit.cities import city_graph
from reasonmap.comparisons import compare_runs, compare_scored, comparison_markdown, plot_comparison
from reasonmap.evaluate import evaluate_files
from reasonmap.leaderboard import build_leaderboard, write_leaderboard
from reasonmap.runs import read_run, read_scored, scored_values

# %% [markdown]
# ## Settings
#
# | variable | meaning | default |
# |---|---|---|
# | `ABLATIONS_RUNS` | your runs: `eval --out` folders, comma-separated (several modes each) | none: built in |
# | `ABLATIONS_OUT` | output folder | `ablations-out` |
# | `ABLATIONS_CITIES` | the built-in run's cities, comma-separated | `rome,lisboa,singapore,beijing` |
# | `ABLATIONS_QUESTIONS` | the built-in run's questions per city (at most) | 20 |
# | `ABLATIONS_SEED` | seed of the questions, the simulated answers, the resamples | 0 |
# | `ABLATIONS_RESAMPLES` | bootstrap resamples | 2000 |

# %% tags=["parameters"]
RUNS = os.environ.get("ABLATIONS_RUNS") or None
OUT = Path(os.environ.get("ABLATIONS_OUT", "ablations-out"))
CITIES = os.environ.get("ABLATIONS_CITIES", "rome,lisboa,singapore,beijing")
PER_CITY = int(os.environ.get("ABLATIONS_QUESTIONS", "20"))
SEED = int(os.environ.get("ABLATIONS_SEED", "0"))
RESAMPLES = int(os.environ.get("ABLATIONS_RESAMPLES", "2000"))

# %%
OUT = Path(OUT)
OUT.mkdir(parents=True, exist_ok=True)
started = time.perf_counter()
USER_RUN = RUNS is not None
MODES = ("full", "text-only", "symbolic", "alias")
if USER_RUN:
    RUN_FOLDERS = [Path(name.strip()) for name in RUNS.split(",") if name.strip()]
    print(f"your runs: {', '.join(map(str, RUN_FOLDERS))}; output {OUT}")
else:
    CITIES = tuple(name.strip() for name in CITIES.split(",") if name.strip())
    print(f"built-in run: cities {', '.join(CITIES)}; {PER_CITY} questions per city; seed {SEED}; output {OUT}")

# %% [markdown]
# ## The built-in run: simulated models in every mode
#
# No model is asked. Two simulated models, `careful` and `hasty`, answer in each mode with the noisy
# solver at the error rates the mode implies: in `full` they misread some lines and station names
# (grounding) and plan some transfers wrong (reasoning); in `text-only` the map is masked, so most of their
# lines are guesses; in `symbolic` and `alias` the map is text, so they ground perfectly and only their
# reasoning errors remain (the two modes differ only in the seed: the paired test should find no
# difference between them). Beside them, in every mode: the symbolic ceiling (`baseline:text-oracle`,
# which reads only the textualized map) and two floors (`baseline:direct-line`, one line and no
# transfer; `baseline:echo`, the question's stations as the route).
#
# Each model's answers are written the way `reasonmap eval` lays out a run
# (`runs/<model>/route/<mode>/scored.jsonl` and `report/`, `questions/route.jsonl`, `eval.json`), so the
# rest of the notebook reads the built-in run and yours alike.

# %%
REASONING = {
    "careful": dict(wrong_transfer=0.08, detour=0.08, miscount=0.05),
    "hasty": dict(wrong_transfer=0.2, detour=0.2, miscount=0.1),
}
GROUNDING = {
    "full": {"careful": dict(wrong_line=0.12, misread=0.05), "hasty": dict(wrong_line=0.25, misread=0.1)},
    "text-only": {"careful": dict(wrong_line=0.6, misread=0.3), "hasty": dict(wrong_line=0.7, misread=0.35)},
    "symbolic": {"careful": dict(wrong_line=0.0, misread=0.0), "hasty": dict(wrong_line=0.0, misread=0.0)},
    "alias": {"careful": dict(wrong_line=0.0, misread=0.0), "hasty": dict(wrong_line=0.0, misread=0.0)},
}
REFERENCES = {"baseline:text-oracle": "text-oracle", "baseline:direct-line": "direct-line", "baseline:echo": "echo"}


def write_run(folder, questions, answers_by_mode, name):
    """A folder in ``reasonmap eval``'s layout: the questions, and per mode the answers scored and reported."""
    questions_path = folder / "questions" / "route.jsonl"
    questions_path.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(questions_path, questions)
    settings = {"name": name, "tasks": ["route"], "modes": list(answers_by_mode), "seed": SEED, "simulated": True}
    settings |= {"pixel_budget": None, "textualization": "lines", "alias_strategy": "romanize"}
    write_summary(folder / "eval.json", {"settings": settings})
    for mode, predictions in answers_by_mode.items():
        place = folder / "route" / mode
        place.mkdir(parents=True, exist_ok=True)
        write_jsonl(place / "predictions.jsonl", predictions)
        evaluate_files(
            questions_path,
            place / "predictions.jsonl",
            out=place / "scored.jsonl",
            report_dir=place / "report",
            figures=False,
        )
    return folder


if not USER_RUN:
    graphs = {city: city_graph(city) for city in CITIES}
    questions = [q for graph in graphs.values() for q in generate_questions(graph, seed=SEED, per_city=PER_CITY)]

    def answers(solver, model, seed, **noise):
        options = {"noise": Noise(**noise)} if noise else {}
        found = run_solver(solver, questions, lambda question: graphs[question.city], seed=seed, **options)
        return [replace(prediction, model=model) for prediction in found]

    RUN_FOLDERS = []
    for model in REASONING:
        by_mode = {
            mode: answers("noisy", model, SEED + index, **REASONING[model], **GROUNDING[mode][model])
            for index, mode in enumerate(MODES)
        }
        RUN_FOLDERS.append(write_run(OUT / "runs" / model, questions, by_mode, model))
    references = [p for name, solver in REFERENCES.items() for p in answers(solver, name, SEED)]
    RUN_FOLDERS.append(
        write_run(OUT / "runs" / "references", questions, dict.fromkeys(MODES, references), "references")
    )
    print(f"{len(questions)} questions; runs written for {', '.join(REASONING)} and the references")

# %% [markdown]
# ## The runs as read back
#
# Every (task, mode) part of every run; only the route task is analysed here (the paper's ablation). The
# questions come from each run's `questions/route.jsonl`, for the cities and difficulties.

# %%
parts = [part for folder in RUN_FOLDERS for part in read_run(folder) if part.task == "route"]
if not parts:
    raise SystemExit("no route results in the runs given")
questions_by_id = {}
for folder in RUN_FOLDERS:
    path = Path(folder) / "questions" / "route.jsonl"
    if path.is_file():
        found, _ = read_questions(path)
        questions_by_id.update({question.id: question for question in found})
rows_of = {}
problems = []
for part in parts:
    if part.scored is not None and part.scored not in rows_of:
        rows, bad = read_scored(part.scored)
        rows_of[part.scored] = rows
        problems += bad
MODES_SEEN = [mode for mode in MODES if any(part.mode == mode for part in parts)]
MODELS = list(dict.fromkeys(model for part in parts for model in part.models))
for part in parts:
    print(f"{part.run}: {part.label}, models {', '.join(part.models)}")

# %% [markdown]
# ## Each model in each mode, with 95% intervals
#
# Short and long accuracy (%, weighted by the paper's difficulty matrix) and the long map score, each
# with its bootstrap interval over questions: the questions a model answered are resampled with
# replacement, the weighted mean taken in each resample, and the 2.5th and 97.5th percentiles kept.

# %%
METRICS = ("weighted_accuracy_short", "weighted_accuracy_long", "map_score_long")
SCALES = {"weighted_accuracy_short": 100.0, "weighted_accuracy_long": 100.0, "map_score_long": 1.0}
TITLES = {
    "weighted_accuracy_short": "Short Acc. (%)",
    "weighted_accuracy_long": "Long Acc. (%)",
    "map_score_long": "Long Map Score",
}


def route_metrics():
    from benchmarks.tasks import get_task

    return [metric for metric in get_task("route").paired_metrics if metric.key in METRICS]


def intervals_of(part, model):
    """Per metric: the mean, se and interval of ``model``'s answers in ``part``."""
    values = scored_values(rows_of[part.scored], model, route_metrics())
    found = {}
    for key in METRICS:
        by_id = values[key]
        ids = sorted(by_id)
        if not ids:
            continue
        counts = bootstrap_counts(len(ids), resamples=RESAMPLES, seed=SEED)
        x = np.array([by_id[id][0] for id in ids])
        w = np.array([by_id[id][1] for id in ids])
        found[key] = {"n": len(ids), **{k: round(v, 6) for k, v in mean_interval(counts, x, w).items()}}
    return found


table = {}
for part in parts:
    if part.scored is None:
        continue
    for model in part.models:
        table.setdefault(model, {})[part.mode] = intervals_of(part, model)


def shown(cell, key):
    if key not in cell:
        return "–"
    scale = SCALES[key]
    half = (cell[key]["high"] - cell[key]["low"]) / 2
    return f"{cell[key]['mean'] * scale:.1f} ± {half * scale:.1f}"


header = ["Model"] + [f"{mode}: {TITLES[key]}" for mode in MODES_SEEN for key in METRICS]
lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
for model in MODELS:
    cells = [shown(table.get(model, {}).get(mode, {}), key) for mode in MODES_SEEN for key in METRICS]
    lines.append("| " + " | ".join([model, *cells]) + " |")
modes_md = "\n".join(lines) + "\n\n± is half the width of the 95% bootstrap interval over questions.\n"
write_text(OUT / "modes.md", modes_md)
print(modes_md)

# %% [markdown]
# ## Paired differences: each mode against `full`
#
# `reasonmap compare RUN --modes full MODE` for each run and mode: the difference over the questions both
# modes answered, its paired-bootstrap interval and p-value. `text-only − full` is the visual-masking
# ablation: how much the map helped.

# %%
comparisons = []
ANSWERING = [model for model in MODELS if model not in REFERENCES] or MODELS
for folder in RUN_FOLDERS:
    modes_here = [part.mode for part in read_run(folder) if part.task == "route"]
    for mode in MODES_SEEN:
        if mode != "full" and "full" in modes_here and mode in modes_here:
            record = compare_runs(folder, modes=("full", mode), resamples=RESAMPLES, seed=SEED)
            comparisons += [row for row in record["comparisons"] if row["model_a"] in ANSWERING]
if comparisons:
    differences = {**record, "a": "each run", "b": "each run", "modes": None, "comparisons": comparisons}
    write_text(OUT / "differences.md", comparison_markdown(differences))
    write_summary(OUT / "differences.json", differences)
    plot_comparison(differences, OUT / "differences.png")
    print(comparison_markdown(differences))
else:
    print("no run holds full and another mode: nothing to compare")

# %% [markdown]
# ## Per city and per difficulty: text-only against full
#
# The same paired comparison over each city's questions, and over each difficulty pair's (the question's
# difficulty, from its transfers, with the map's): where does the map help? Small groups give wide
# intervals, which is the point of showing them.


# %%
def part_of(model, mode):
    return next((p for p in parts if p.mode == mode and model in p.models and p.scored is not None), None)


def grouped(key_of):
    groups = {}
    for id, question in questions_by_id.items():
        groups.setdefault(key_of(question), set()).add(id)
    return dict(sorted(groups.items()))


def breakdown(groups, title):
    rows = []
    for model in ANSWERING:
        full, masked = part_of(model, "full"), part_of(model, "text-only")
        if full is None or masked is None:
            continue
        for name, ids in groups.items():
            found = compare_scored(
                rows_of[full.scored],
                rows_of[masked.scored],
                task="route",
                model_a=model,
                model_b=model,
                ids=ids,
                resamples=RESAMPLES,
                seed=SEED,
            )
            for row in found:
                if row["metric"] in ("weighted_accuracy_short", "weighted_accuracy_long") and row["n"]:
                    rows.append({"model": model, title: name, **row})
    lines = [
        f"| Model | {title} | Metric | n | full | text-only | text-only − full [95% CI] | p |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        low, high, p = 100 * row["low"], 100 * row["high"], row["p_value"]
        lines.append(
            f"| {row['model']} | {row[title]} | {row['title']} | {row['n']} | {100 * row['a']:.1f}"
            f" | {100 * row['b']:.1f} | {100 * row['difference']:+.1f} [{low:+.1f}, {high:+.1f}] | {p:.3f} |"
        )
    return rows, "\n".join(lines) + "\n"


by_city, by_city_md = breakdown(grouped(lambda question: question.city), "city")
# a difficulty pair: the question's difficulty / the map's
by_difficulty, by_difficulty_md = breakdown(
    grouped(lambda question: f"{question.difficulty_question}/{question.difficulty_city}"), "difficulty"
)
write_text(OUT / "by_city.md", by_city_md)
write_text(OUT / "by_difficulty.md", by_difficulty_md)
print(by_city_md)
print(by_difficulty_md)

# %% [markdown]
# ## The leaderboard of the runs, and the figure
#
# `reasonmap leaderboard` over the same runs: models × modes, ranked by full-mode long accuracy, ranks
# that the summaries' intervals cannot separate tied (until a run's summary carries intervals, its cells
# show the point alone and a footnote says so). The figure draws each model's modes with their
# intervals, the ceiling and the floors as vertical lines.

# %%
board = build_leaderboard(RUN_FOLDERS, rank_by="route/full/weighted_accuracy_long" if "full" in MODES_SEEN else None)
write_leaderboard(OUT / "leaderboard", board)

REFERENCE_MODELS = [model for model in MODELS if model in REFERENCES]
with figure_style() as plt:
    figure, axes = plt.subplots(
        1, len(METRICS), figsize=(PAGE_WIDTH, 0.8 + 0.3 * len(ANSWERING) * len(MODES_SEEN) ** 0.5), layout="constrained"
    )
    for axis, key in zip(np.atleast_1d(axes), METRICS):
        scale = SCALES[key]
        for row, model in enumerate(ANSWERING):
            for index, mode in enumerate(MODES_SEEN):
                cell = table.get(model, {}).get(mode, {}).get(key)
                if cell is None:
                    continue
                y = row + (index - (len(MODES_SEEN) - 1) / 2) * 0.18
                x = cell["mean"] * scale
                error = [[x - cell["low"] * scale], [cell["high"] * scale - x]]
                axis.errorbar(
                    [x],
                    [y],
                    xerr=error,
                    fmt="o",
                    markersize=3,
                    capsize=2,
                    linewidth=0.8,
                    color=f"C{index}",
                    label=mode if row == 0 else None,
                )
        for style, model in zip(("-", "--", ":"), REFERENCE_MODELS):
            cell = table.get(model, {}).get(MODES_SEEN[0], {}).get(key)
            if cell is not None:
                axis.axvline(cell["mean"] * scale, color="#7F7F7F", linewidth=0.7, linestyle=style, label=model)
        axis.set_yticks(range(len(ANSWERING)))
        axis.set_yticklabels(ANSWERING if key == METRICS[0] else [""] * len(ANSWERING))
        axis.invert_yaxis()
        axis.set_title(TITLES[key])
    np.atleast_1d(axes)[-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.suptitle("Each model in each mode, 95% bootstrap intervals; grey lines: ceiling and floors", fontsize=8)
    save_figure(figure, OUT / "ablations.png")

# %% [markdown]
# ## The summary
#
# The numbers behind the tables, keys sorted: the same runs and seed give the same file.

# %%
result = {
    "settings": {"seed": SEED, "resamples": RESAMPLES}
    | (
        {"runs": [Path(folder).name for folder in RUN_FOLDERS]}
        if USER_RUN
        else {"cities": list(CITIES), "questions_per_city": PER_CITY}
    ),
    "questions": len(questions_by_id),
    "models": MODELS,
    "modes": MODES_SEEN,
    "intervals": table,
    "differences": [
        {
            key: row[key]
            for key in (
                "model_a",
                "mode_a",
                "mode_b",
                "metric",
                "n",
                "a",
                "b",
                "difference",
                "low",
                "high",
                "p_value",
                "test",
            )
        }
        for row in comparisons
    ],
    "by_city": [
        {key: row[key] for key in ("model", "city", "metric", "n", "difference", "low", "high", "p_value")}
        for row in by_city
    ],
    "by_difficulty": [
        {key: row[key] for key in ("model", "difficulty", "metric", "n", "difference", "low", "high", "p_value")}
        for row in by_difficulty
    ],
    "leaderboard": [{"model": row["model"], "rank": row["rank"]} for row in board["rows"]],
    "problems": problems,
}
write_summary(OUT / "summary.json", result)
print(json.dumps({"models": len(MODELS), "modes": MODES_SEEN, "differences": len(comparisons)}))
print(f"written to {OUT} in {time.perf_counter() - started:.1f} s")
