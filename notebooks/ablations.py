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
#    resample), ranked in one table beside the symbolic ceiling and the floors;
# 2. the paired difference of each mode against `full`, per model: a paired-bootstrap interval and a
#    p-value (exact McNemar for accuracy, sign flips for the map score), over the questions both answered;
# 3. the same paired differences of `text-only` against `full`, per city and per difficulty pair;
# 4. the figures: each model's modes with their intervals, and the paired differences.
#
# Run it with `python notebooks/ablations.py` from the repository root, or open it with jupytext. The
# settings come from environment variables (or edit the parameters cell, which papermill can also set).

# %%
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import replace
from pathlib import Path

from baselines import Noise, run_solver
from benchmarks import (
    InvalidRecord,
    compare_scored,
    comparison_markdown,
    headline_intervals,
    leaderboard_markdown,
    leaderboard_table,
    plot_comparison,
    plot_leaderboard,
    read_jsonl,
    write_jsonl,
    write_summary,
    write_text,
)
from benchmarks.reasonmap import generate_questions, load_questions, score_predictions
from graphkit import InvalidSetting, city_graph, city_names, folder_list, name_list, output_folder, whole_number

# %% [markdown]
# ## Settings
#
# | variable | meaning | default |
# |---|---|---|
# | `ABLATIONS_RUNS` | your runs: `eval --out` folders, comma-separated (several modes each) | none: built in |
# | `ABLATIONS_OUT` | output folder (neither one of your runs nor inside one) | `ablations-out` |
# | `ABLATIONS_CITIES` | the built-in run's cities, comma-separated | `rome,lisboa,singapore,beijing` |
# | `ABLATIONS_QUESTIONS` | the built-in run's questions per city (at most), 0 to 10,000 | 20 |
# | `ABLATIONS_SEED` | seed of the questions, the simulated answers, the resamples (0 to 2**64 − 1) | 0 |
# | `ABLATIONS_RESAMPLES` | bootstrap resamples, 200 to 50,000 | 2000 |
#
# Every setting is checked before anything is read or written; a wrong one ends the notebook with one line
# naming it (`ablations: ABLATIONS_RUNS: runs/qwen: no such folder`) and exit status 1.

# %% tags=["parameters"]
RUNS = os.environ.get("ABLATIONS_RUNS") or None
OUT = os.environ.get("ABLATIONS_OUT", "ablations-out")
CITIES = os.environ.get("ABLATIONS_CITIES", "rome,lisboa,singapore,beijing")
PER_CITY = os.environ.get("ABLATIONS_QUESTIONS", "20")
SEED = os.environ.get("ABLATIONS_SEED", "0")
RESAMPLES = os.environ.get("ABLATIONS_RESAMPLES", "2000")

# %%
MODES = ("full", "text-only", "symbolic", "alias")
USER_RUN = RUNS is not None
try:
    PER_CITY = whole_number("ABLATIONS_QUESTIONS", PER_CITY, low=0, high=10_000)
    SEED = whole_number("ABLATIONS_SEED", SEED, low=0, high=2**64 - 1)
    RESAMPLES = whole_number("ABLATIONS_RESAMPLES", RESAMPLES, low=200, high=50_000)
    RUN_FOLDERS = list(folder_list("ABLATIONS_RUNS", RUNS)) if USER_RUN else []
    if not USER_RUN:
        CITIES = name_list("ABLATIONS_CITIES", CITIES, city_names(), what="city")
    # the notebook never writes into a run it reads
    OUT = output_folder("ABLATIONS_OUT", OUT, read=[("ABLATIONS_RUNS", folder) for folder in RUN_FOLDERS])
except InvalidSetting as error:
    raise SystemExit(f"ablations: {error}") from None
OUT.mkdir(parents=True, exist_ok=True)
started = time.perf_counter()
if USER_RUN:
    print(f"your runs: {', '.join(map(str, RUN_FOLDERS))}; output {OUT}")
else:
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
# The answers are scored as `reasonmap score` scores them (the paper's variant and weighting) and
# written the way `reasonmap eval` lays out a run (`runs/<model>/route/<mode>/scored.jsonl`,
# `runs/<model>/questions/route.jsonl`), so the rest of the notebook reads the built-in run and yours alike.

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


def write_run(folder, questions, scored_by_mode):
    """A folder in ``reasonmap eval``'s layout: ``questions/route.jsonl`` and ``route/<mode>/scored.jsonl``."""
    write_jsonl(folder / "questions" / "route.jsonl", questions)
    for mode, verdicts in scored_by_mode.items():
        write_jsonl(folder / "route" / mode / "scored.jsonl", verdicts)
    return folder


if not USER_RUN:
    graphs = {city: city_graph(city) for city in CITIES}
    questions = [q for graph in graphs.values() for q in generate_questions(graph, seed=SEED, per_city=PER_CITY)]
    by_id = {question.id: question for question in questions}

    def scored(solver, model, seed, **noise):
        """The solver's answers as ``model``'s, scored as ``reasonmap score`` scores them (paper weighting)."""
        options = {"noise": Noise(**noise)} if noise else {}
        answers = run_solver(solver, questions, lambda question: graphs[question.city], seed=seed, **options)
        answers = [replace(prediction, model=model) for prediction in answers]
        verdicts, _ = score_predictions(by_id, answers, lambda question: graphs[question.city])
        return verdicts

    RUN_FOLDERS = []
    for model in REASONING:
        by_mode = {
            mode: scored("noisy", model, SEED + index, **REASONING[model], **GROUNDING[mode][model])
            for index, mode in enumerate(MODES)
        }
        RUN_FOLDERS.append(write_run(OUT / "runs" / model, questions, by_mode))
    references = [v for name, solver in REFERENCES.items() for v in scored(solver, name, SEED)]
    RUN_FOLDERS.append(write_run(OUT / "runs" / "references", questions, dict.fromkeys(MODES, references)))
    print(f"{len(questions)} questions; runs written for {', '.join(REASONING)} and the references")

# %% [markdown]
# ## The runs as read back
#
# Each run's `route/<mode>/scored.jsonl` for every mode it has (only route questions are analysed here:
# the paper's ablation; bad rows are reported and skipped), and its `questions/route.jsonl`, for the
# cities and difficulties. A run of `eval --pixel-budget 1M,4M` has the full mode once per budget
# (`route/full@1M/`, `route/full@4M/`): each is a mode of its own here, and where no plain `full` was asked
# the largest budget is the one the other modes are compared with.


# %%
def scored_row(record, *, where):
    if not isinstance(record, dict) or not isinstance(record.get("model"), str):
        raise InvalidRecord(f"{where}: a scored row must be an object with a model")
    return record


def budget_of(mode):
    """The pixel budget of a sweep's full mode, as ``eval`` names its folder (``full@4M``, ``full@62.5k``,
    ``full@1048576``); ``None`` for any other name."""
    found = re.fullmatch(r"full@(\d+(?:\.\d+)?)([kM]?)", mode)
    return None if found is None else float(found[1]) * {"": 1, "k": 1e3, "M": 1e6}[found[2]]


def modes_of(folder):
    """The route modes a run folder holds results of: the plain modes, then the sweep's by budget."""
    route = Path(folder) / "route"
    held = [entry.name for entry in route.iterdir() if (entry / "scored.jsonl").is_file()] if route.is_dir() else []
    sweep = sorted((budget_of(name), name) for name in held if budget_of(name) is not None)
    return [mode for mode in MODES if mode in held] + [name for _, name in sweep]


def labels_of(folders):
    """Each run's name in the tables: its folder's name, or the path given where two runs share a name."""
    names = [Path(folder).name for folder in folders]
    return {folder: Path(folder).name if names.count(Path(folder).name) == 1 else str(folder) for folder in folders}


rows_of = {}  # (run, mode) -> the scored rows
questions_by_id = {}
problems = []
LABELS = labels_of(RUN_FOLDERS)
for folder in RUN_FOLDERS:
    held = modes_of(folder)
    if not held:
        raise SystemExit(
            f"ablations: ABLATIONS_RUNS: {folder}: no route results (route/<mode>/scored.jsonl, a mode of"
            f" {', '.join(MODES)} or full@<pixel budget>)"
        )
    for mode in held:
        rows, bad = read_jsonl(Path(folder) / "route" / mode / "scored.jsonl", scored_row)
        rows_of[(LABELS[folder], mode)] = rows
        problems += [str(problem) for problem in bad]
    path = Path(folder) / "questions" / "route.jsonl"
    if path.is_file():
        found, _, _ = load_questions(path)
        questions_by_id.update(found)
# the modes in the order of MODES, a sweep's budgets (smallest first) right after the plain full mode
MODES_SEEN = sorted(
    {mode for folder in RUN_FOLDERS for mode in modes_of(folder)},
    key=lambda mode: (MODES.index(mode if budget_of(mode) is None else "full"), budget_of(mode) or 0),
)
SWEEP = [mode for mode in MODES_SEEN if budget_of(mode) is not None]
# what every other mode is compared with: the full mode, else the sweep's largest budget
REFERENCE = "full" if "full" in MODES_SEEN or not SWEEP else max(SWEEP, key=budget_of)
if REFERENCE != "full":
    print(f"no plain full mode: the other modes are compared with {REFERENCE}, the largest pixel budget")
MODELS = list(dict.fromkeys(row["model"] for rows in rows_of.values() for row in rows))
ANSWERING = [model for model in MODELS if model not in REFERENCES] or MODELS
for (run, mode), rows in rows_of.items():
    print(f"{run}: route/{mode}, models {', '.join(dict.fromkeys(row['model'] for row in rows))}")

# %% [markdown]
# ## Each model in each mode, with 95% intervals
#
# Short and long accuracy (%, weighted by the paper's difficulty matrix) and map score, each with its
# bootstrap interval over questions (`benchmarks.headline_intervals`): the questions a model answered are
# resampled with replacement (a question's short and long answers together), the weighted mean taken in
# each resample, and the 2.5th and 97.5th percentiles kept. One table (`modes.md`, the leaderboard's
# shape: ranked by full-mode long accuracy, ranks the intervals cannot separate tied) and one figure
# (`ablations.png`).


# %%
def rows_for(model, mode):
    """The scored rows of ``model`` in ``mode`` (from the first run that holds them)."""
    for (run, seen), rows in rows_of.items():
        if seen == mode and any(row["model"] == model for row in rows):
            return run, rows
    return None, None


table = {}
cells = {}
for model in MODELS:
    for mode in MODES_SEEN:
        run, rows = rows_for(model, mode)
        if rows is None:
            continue
        found = headline_intervals(rows, task="route", model=model, resamples=RESAMPLES, seed=SEED)
        table.setdefault(model, {})[mode] = found
        row = {key: value["mean"] for key, value in found.items()}
        row["intervals"] = {key: {k: value[k] for k in ("n", "se", "low", "high")} for key, value in found.items()}
        cells[(model, "route", mode)] = (run, row)
rank_by = f"route/{REFERENCE}/weighted_accuracy_long" if REFERENCE in MODES_SEEN else None
board = leaderboard_table([("route", mode) for mode in MODES_SEEN], cells, rank_by=rank_by)
board["interval_method"] = {"method": "bootstrap over questions", "resamples": RESAMPLES, "seed": SEED}
write_text(OUT / "modes.md", leaderboard_markdown(board))
plot_leaderboard(board, OUT / "ablations.png")
print(leaderboard_markdown(board))

# %% [markdown]
# ## Paired differences: each mode against `full`
#
# As `reasonmap compare RUN --modes full MODE` computes it (`benchmarks.compare_scored`), per model and
# mode: the difference over the questions both modes answered, its paired-bootstrap interval and p-value.
# `text-only − full` is the visual-masking ablation: how much the map helped.

# %%
METHOD = {"resamples": RESAMPLES, "seed": SEED, "level": 0.95}
comparisons = []
for model in ANSWERING:
    _, full = rows_for(model, REFERENCE)
    for mode in MODES_SEEN:
        _, other = rows_for(model, mode)
        if mode == REFERENCE or full is None or other is None:
            continue
        found = compare_scored(full, other, task="route", model_a=model, model_b=model, resamples=RESAMPLES, seed=SEED)
        comparisons += [{**row, "mode_a": REFERENCE, "mode_b": mode} for row in found]
differences = {"a": "each run", "b": "each run", "method": METHOD, "comparisons": comparisons}
if comparisons:
    write_text(OUT / "differences.md", comparison_markdown(differences))
    write_summary(OUT / "differences.json", differences)
    plot_comparison(differences, OUT / "differences.png")
    print(comparison_markdown(differences))
else:
    print("no model was asked in full and another mode: nothing to compare")

# %% [markdown]
# ## Per city and per difficulty: text-only against full
#
# The same paired comparison over each city's questions, and over each difficulty pair's (the question's
# difficulty, from its transfers, with the map's): where does the map help? Small groups give wide
# intervals, which is the point of showing them.


# %%
def grouped(key_of):
    groups = {}
    for id, question in questions_by_id.items():
        groups.setdefault(key_of(question), set()).add(id)
    return dict(sorted(groups.items()))


def breakdown(groups, title):
    rows = []
    for model in ANSWERING:
        (_, full), (_, masked) = rows_for(model, REFERENCE), rows_for(model, "text-only")
        if full is None or masked is None:
            continue
        for name, ids in groups.items():
            found = compare_scored(
                full,
                masked,
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
        f"| Model | {title} | Metric | n | {REFERENCE} | text-only | text-only − {REFERENCE} [95% CI] | p |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        # no interval where none can be claimed (fewer than two questions, or no variance)
        interval = "[–]" if row["low"] is None else f"[{100 * row['low']:+.1f}, {100 * row['high']:+.1f}]"
        lines.append(
            f"| {row['model']} | {row[title]} | {row['title']} | {row['n']} | {100 * row['a']:.1f}"
            f" | {100 * row['b']:.1f} | {100 * row['difference']:+.1f} {interval} | {row['p_value']:.3f} |"
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
# ## The summary
#
# The numbers behind the tables, keys sorted: the same runs and seed give the same file.

# %%
result = {
    "settings": {"seed": SEED, "resamples": RESAMPLES}
    | (
        {"runs": [LABELS[folder] for folder in RUN_FOLDERS]}
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
    "ranks": [{"model": row["model"], "rank": row["rank"]} for row in board["rows"]],
    "problems": problems,
}
write_summary(OUT / "summary.json", result)
print(json.dumps({"models": len(MODELS), "modes": MODES_SEEN, "differences": len(comparisons)}))
print(f"written to {OUT} in {time.perf_counter() - started:.1f} s")
