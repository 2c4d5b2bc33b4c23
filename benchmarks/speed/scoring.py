"""Speed of answer scoring: parse and score a realistic mix of predictions in one process.

Run ``python -m benchmarks.speed.scoring``. It generates questions on the
paper's test cities, then builds ``--answers`` predictions (short and long,
both templates): reference routes written in the answer format with
formatting noise (markdown, ``<think>`` and ``<answer>`` wrappers, prose,
other spellings of line and station names), corrupted ones (a wrong line or
station, a hallucinated station, a dropped section, wrong via counts or via
stops) and unusable ones (refusals, truncated or empty answers). It then
times :func:`benchmarks.reasonmap.scoring.score_predictions` over all of
them (parsing and resolving the answers' names included; building graphs,
their name indexes and the questions is not) and, apart, parsing alone.
A second phase measures what a fresh run of real models meets: ``--distinct``
predictions whose responses are all different, written as real models write
them (:func:`realistic_predictions`: reasoning before or after the answer,
markdown, numbered steps, a draft then a final answer, Chinese punctuation,
``<think>``/``<answer>`` tags; 40 models), scored with every name cache
cold (parse + correctness + map score, one process), reported as
``distinct_answers_per_second`` (and per CPU second of this process,
``distinct_answers_per_cpu_second``, steadier on a loaded machine). Progress goes to stderr; the last line
printed is one JSON object with ``answers``, ``seconds``,
``answers_per_second`` and ``distinct_answers_per_second``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections import Counter

from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import Prediction, Question
from benchmarks.reasonmap.resolution import clear_caches
from benchmarks.reasonmap.scoring import score_predictions
from benchmarks.splits import TEST_CITIES
from graphkit import city_graph
from graphkit.names import has_cjk

_LABELS = {
    "plain": ("Route Name: ", "Departure Stop: ", "Arrival Stop: ", "Number of Via Stops: ", "Via Stops: "),
    "bold": (
        "**Route Name:** ",
        "**Departure Stop:** ",
        "**Arrival Stop:** ",
        "**Number of Via Stops:** ",
        "**Via Stops:** ",
    ),
    "bullets": ("- Route Name: ", "- Departure Stop: ", "- Arrival Stop: ", "- Number of Via Stops: ", "- Via Stops: "),
    "fullwidth": ("Route Name： ", "Departure Stop： ", "Arrival Stop： ", "Number of Via Stops： ", "Via Stops： "),
}
_SEPARATORS = ("--", "--", "---", "\n--\n")
_VIA_SEPARATORS = (", ", ", ", ",", "，", "、")
_REFUSALS = (
    "Sorry, I cannot read the station names on this map.",
    "I'm unable to determine a route from the image.",
    "抱歉，我无法确定路线。",
)
_FAKE_WORDS = ("North", "Central", "Harbour", "Park", "Bridge", "Market", "Hill", "Garden", "Lake", "Gate")


def _line_variant(name: str, rng: random.Random) -> str:
    """Another way of writing a line name that graphkit matches (or the name itself)."""
    key = name.removeprefix("Line ").strip()
    if has_cjk(name) or len(key) > 3:
        return name
    return rng.choice((name, f"Line {key}", f"Route {key}", key, f"{key}号线" if key.isdigit() else f"Metro {key}"))


def _station_variant(name: str, rng: random.Random) -> str:
    """Another way of writing a station name that graphkit matches (or the name itself)."""
    roll = rng.random()
    if roll < 0.5:
        return name
    if roll < 0.75:
        return name.removesuffix(" Station").removesuffix("站")
    return name.lower() if not has_cjk(name) else name.removesuffix("站")


def _fake_station(city: str, rng: random.Random, unique: bool) -> str:
    """A hallucinated station: mostly from a small per-city pool (models repeat themselves), sometimes new."""
    if unique:
        return f"{rng.choice(_FAKE_WORDS)} {rng.randrange(10**6)} Station"
    return f"{city.title()} {rng.choice(_FAKE_WORDS)} {rng.randrange(40)} Station"


def _segments(question: Question, graph, rng: random.Random) -> tuple[list[list], str]:
    """One reference route as editable ``[line, departure, arrival, via_stops]`` rows, maybe corrupted."""
    rows = [[s.route_name, s.departure_stop, s.arrival_stop, list(s.via_stops)] for s in rng.choice(question.routes)]
    roll = rng.random()
    if roll < 0.60:
        return rows, "reference"
    row = rng.choice(rows)
    if roll < 0.66:
        row[0] = rng.choice(list(graph.lines))
        return rows, "wrong line"
    if roll < 0.72:
        row[rng.choice((1, 2))] = rng.choice(graph.stations)
        return rows, "wrong station"
    if roll < 0.78:
        row[rng.choice((1, 2))] = _fake_station(question.city, rng, unique=rng.random() < 0.1)
        return rows, "hallucinated station"
    if roll < 0.82 and len(rows) > 1:
        del rows[rng.randrange(len(rows))]
        return rows, "dropped section"
    if roll < 0.86:
        row[0] = f"Line {rng.randrange(30, 99)}"
        return rows, "unknown line"
    if row[3] and roll < 0.93:
        del row[3][rng.randrange(len(row[3]))]
        return rows, "via stop missing"
    row[3] = row[3] + [rng.choice(graph.stations)]
    return rows, "extra via stop"


def render(rows: list[list], kind: str, template: str, rng: random.Random, *, clean: bool = False) -> str:
    """Rows in the answer format, with formatting noise unless ``clean``."""
    labels = _LABELS["plain"] if clean else _LABELS[rng.choice(tuple(_LABELS))]
    blocks = []
    for line, departure, arrival, via in rows:
        if not clean:
            line, departure, arrival = (
                _line_variant(line, rng),
                _station_variant(departure, rng),
                _station_variant(arrival, rng),
            )
        fields = [labels[0] + line, labels[1] + departure, labels[2] + arrival]
        if kind == "long" and template == "via_count":
            count = len(via) if clean or rng.random() < 0.7 else max(0, len(via) + rng.choice((-2, -1, 1, 3)))
            fields.append(f"{labels[3]}{count}")
        elif kind == "long":
            names = via if clean else [_station_variant(stop, rng) for stop in via]
            fields.append(labels[4] + (rng.choice(_VIA_SEPARATORS) if not clean else ", ").join(names))
        blocks.append("\n".join(fields))
    text = f"\n{'--' if clean else rng.choice(_SEPARATORS)}\n".join(blocks)
    if clean:
        return text
    roll = rng.random()
    if roll < 0.25:
        text = f"<think>The map shows the lines near {rows[0][1]}; a transfer may be needed.</think>\n{text}"
    elif roll < 0.35:
        text = f"<answer>\n{text}\n</answer>"
    elif roll < 0.50:
        text = f"Here is the optimal route:\n\n{text}\n\nThis route needs {len(rows) - 1} transfer(s)."
    return text


# How models wrap an answer (reasoning, markdown, steps, drafts, Chinese punctuation, tags): each takes the text,
# a draft (another answer, stated first and then corrected) and the first station, and returns the response.
_FORMS = {
    "bare": lambda text, draft, start: text,
    "reasoning before": lambda text, draft, start: (
        f"Looking at the map, {start} lies on the line drawn in the upper half. Following that line, the"
        f" destination is reached after a few stops; a transfer may be needed where the lines cross.\n\n"
        f"Therefore the route is:\n\n{text}"
    ),
    "reasoning after": lambda text, draft, start: (
        f"{text}\n\nExplanation: starting at {start}, this route keeps transfers to a minimum and"
        " then takes the fewest stops. Other routes exist but need more transfers."
    ),
    "markdown": lambda text, draft, start: (
        f"## Route\n\nThe answer, in the requested format:\n\n{text}\n\n---\n\n"
        f"**Note:** the map's labels near *{start}* are small, so names were read with care."
    ),
    "numbered steps": lambda text, draft, start: (
        f"1. Find {start} on the map.\n2. Identify the lines that serve it.\n3. Follow the line towards the"
        f" destination and note the transfers.\n4. Count the stops between.\n\nFinal answer:\n{text}"
    ),
    "draft then final": lambda text, draft, start: (
        f"First attempt:\n{draft}\n\nWait, let me re-check the transfer at the crossing. That is not right."
        f"\n\nCorrected answer:\n{text}"
    ),
    "chinese punctuation": lambda text, draft, start: (
        f"根据地图，从{start}出发，需要换乘的线路如下：\n\n{text.replace(': ', '：')}\n\n以上就是最优路线。"
    ),
    "think then answer tags": lambda text, draft, start: (
        f"<think>\nThe question asks for a route from {start}. I check each line near it.\n{draft}\n"
        f"Hmm, that misses a shorter way.\n</think>\n<answer>\n{text}\n</answer>"
    ),
}
FORMS = tuple(_FORMS)
#: models of a run, many: each writes its answers in its own mix of forms
MODELS = tuple(f"vendor-{vendor}/model-{size}b" for vendor in "abcdefgh" for size in (3, 7, 32, 72, 235))


def realistic_predictions(
    questions: list[Question], graphs: dict, count: int, *, seed: int = 0, models: tuple[str, ...] = MODELS
) -> tuple[list[Prediction], Counter]:
    """``count`` predictions as real models write them, all responses distinct, and the count of each form.

    Each answer (right, wrong or unusable, as :func:`build_predictions` makes them) is wrapped in one of
    :data:`FORMS`: reasoning before or after it, markdown, numbered steps, a draft then the final answer,
    Chinese punctuation, ``<think>`` then ``<answer>`` tags; each model favours two forms. Each
    (question, kind, model) is answered once, so the predictions are one scoring run's.
    """
    rng = random.Random(seed)
    favourite = {model: (FORMS[index % len(FORMS)], FORMS[(3 * index + 1) % len(FORMS)]) for index, model in
                 enumerate(models)}  # fmt: skip
    slots = [(question, kind, model) for model in models for question in questions for kind in ("short", "long")]
    rng.shuffle(slots)
    seen: set[str] = set()
    found: list[Prediction] = []
    forms: Counter = Counter()
    for question, kind, model in slots:
        if len(found) == count:
            break
        graph = graphs[question.city]
        rows, _ = _segments(question, graph, rng)
        draft_rows, _ = _segments(question, graph, rng)
        text = (
            _unusable(rows, kind, question.long_template, rng)
            if rng.random() < 0.06
            else render(rows, kind, question.long_template, rng, clean=rng.random() < 0.3)
        )
        form = rng.choice(favourite[model]) if rng.random() < 0.7 else rng.choice(FORMS)
        draft = render(draft_rows, kind, question.long_template, rng)
        response = _FORMS[form](text, draft, question.station_1)
        if response in seen:
            continue
        seen.add(response)
        forms[form] += 1
        found.append(Prediction(question.id, model, kind, response))
    if len(found) < count:
        raise ValueError(f"{count} answers asked, but {len(questions)} questions x 2 kinds x {len(models)} models"
                         f" give {len(found)} distinct ones")  # fmt: skip
    return found, forms


def _unusable(rows: list[list], kind: str, template: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(_REFUSALS)
    if roll < 0.7:
        return render(rows, kind, template, rng).rsplit("Arrival", 1)[0]  # cut off mid-answer
    if roll < 0.85:
        return ""
    return "<think>Let me trace the lines on the map... the first line goes north"


def build_predictions(
    questions: list[Question], graphs: dict, count: int, *, seed: int = 0
) -> tuple[list[Prediction], Counter]:
    """``count`` predictions over ``questions`` and the mix of cases they hold."""
    rng = random.Random(seed)
    predictions = []
    cases: Counter = Counter()
    for number in range(count):
        question = questions[number % len(questions)]
        kind = rng.choice(("short", "long"))
        rows, case = _segments(question, graphs[question.city], rng)
        if rng.random() < 0.06:
            text, case = _unusable(rows, kind, question.long_template, rng), "unusable"
        elif case == "reference" and rng.random() < 0.3:
            text, case = render(rows, kind, question.long_template, rng, clean=True), "reference, clean"
        else:
            text = render(rows, kind, question.long_template, rng)
        cases[case] += 1
        predictions.append(Prediction(question.id, "bench", kind, text))
    return predictions, cases


def _arguments(argv=None) -> argparse.Namespace:
    """The command line's options, checked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000, help="predictions to score (default 100,000)")
    parser.add_argument("--cities", default=",".join(TEST_CITIES), help="comma-separated cities (default: test split)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunks", type=int, default=10, help="progress reports while scoring")
    parser.add_argument("--distinct", type=int, default=20_000, help="distinct answers scored cold (default 20,000)")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs of the distinct answers; the best counts")
    args = parser.parse_args(argv)
    if args.answers < 1 or args.distinct < 1 or args.repeat < 1:
        parser.error("--answers, --distinct and --repeat must be at least 1")
    return args


def main(argv=None) -> int:
    args = _arguments(argv)

    started = time.perf_counter()
    graphs = {city: city_graph(city) for city in args.cities.split(",")}
    questions = [q for graph in graphs.values() for q in generate_questions(graph, seed=args.seed)]
    by_id = {question.id: question for question in questions}
    predictions, cases = build_predictions(questions, graphs, args.answers, seed=args.seed)
    for graph in graphs.values():  # the graphs' name indexes are part of the graphs (built lazily)
        graph.station_index.lookup(graph.stations[0])
        graph.line_index.lookup(next(iter(graph.lines)))
    gc.freeze()  # the inputs live for the whole run: exempt them from collections, as the references benchmark does
    print(
        f"{len(predictions)} predictions on {len(questions)} questions of {len(graphs)} cities"
        f" built in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )

    def graph_for(question: Question):
        return graphs[question.city]

    size = -(-len(predictions) // max(1, args.chunks))
    verdicts = []
    seconds = 0.0
    for first in range(0, len(predictions), size):
        chunk = predictions[first : first + size]
        tick = time.perf_counter()
        found, unmatched = score_predictions(by_id, chunk, graph_for)
        seconds += time.perf_counter() - tick
        verdicts.extend(found)
        if unmatched:
            raise RuntimeError(f"{len(unmatched)} predictions matched no question")
        print(f"scored {len(verdicts)}/{len(predictions)} ({len(verdicts) / seconds:,.0f}/s)", file=sys.stderr)

    tick = time.perf_counter()
    for prediction in predictions:
        template = by_id[prediction.id].long_template if prediction.question == "long" else None
        parse_answer(prediction.response, kind=prediction.question, template=template)
    parse_seconds = time.perf_counter() - tick

    distinct, forms = realistic_predictions(questions, graphs, args.distinct, seed=args.seed + 1)
    gc.freeze()
    distinct_seconds = distinct_cpu = float("inf")
    for _ in range(args.repeat):  # the best of a few cold runs, as timeit reports
        clear_caches()
        tick, cpu = time.perf_counter(), time.process_time()
        distinct_verdicts, _ = score_predictions(by_id, distinct, graph_for)
        distinct_seconds = min(distinct_seconds, time.perf_counter() - tick)
        distinct_cpu = min(distinct_cpu, time.process_time() - cpu)  # steadier than the wall on a loaded machine
    print(f"scored {len(distinct_verdicts)} distinct answers cold in {distinct_seconds:.2f} s", file=sys.stderr)

    failures = Counter(verdict.failure or "correct" for verdict in verdicts)
    result = {
        "answers": len(verdicts),
        "seconds": round(seconds, 3),
        "answers_per_second": round(len(verdicts) / seconds),
        "parse_seconds": round(parse_seconds, 3),
        "distinct_answers": len(distinct_verdicts),
        "distinct_seconds": round(distinct_seconds, 3),
        "distinct_answers_per_second": round(len(distinct_verdicts) / distinct_seconds),
        "distinct_cpu_seconds": round(distinct_cpu, 3),
        "distinct_answers_per_cpu_second": round(len(distinct_verdicts) / distinct_cpu),
        "questions": len(questions),
        "cities": len(graphs),
        "cases": dict(sorted(cases.items())),
        "distinct_forms": dict(sorted(forms.items())),
        "distinct_models": len({prediction.model for prediction in distinct}),
        "outcomes": dict(sorted(failures.items())),
    }
    gc.unfreeze()
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
