"""Speed of a report's bootstrap: the intervals of every model, city and difficulty pair of a large ``score``.

Run ``python -m benchmarks.speed.intervals [--models 41] [--questions 1634] [--answers 22876] [--repeat 3]``.
It makes seeded synthetic route verdicts in the shape of ``benchmarks.speed.command``'s largest run (41
models answering 22,876 answers over 1,634 questions of 30 cities, drawn as its predictions are: each
(question, kind, model) slot shuffled, the first 22,876 taken), then times
:func:`benchmarks.reasonmap.report.summarize` on them, and within it the calls of ``grouped_intervals``
(the bootstrap: its draws and matrix products), the best of ``--repeat`` runs, in CPU seconds of this
process (``summary_cpu_seconds``, ``bootstrap_cpu_seconds``: every thread's) and in wall seconds
(``summary_seconds``, ``bootstrap_seconds``: the bootstrap's batches run on up to ``threads`` threads, one
per core the process may use, at most four; the best run is the fastest by the wall). It reads only what every
version of the report has, so run as a file with another checkout first on ``PYTHONPATH`` it times that
checkout's bootstrap on the same verdicts (back to back, under the same load). The last line printed is one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from types import SimpleNamespace


def verdicts_of(models: int, questions: int, answers: int, seed: int) -> tuple[list, dict]:
    """Synthetic verdicts (``answers`` of them, half short, half long) and the questions they answer."""
    from benchmarks.difficulty import DIFFICULTIES
    from benchmarks.reasonmap.records import Verdict

    rng = random.Random(seed)
    asked = {
        f"c{q % 30:02}-{q:05}": SimpleNamespace(
            city=f"c{q % 30:02}", difficulty_city=DIFFICULTIES[q % 3], difficulty_question=rng.choice(DIFFICULTIES)
        )
        for q in range(questions)
    }
    skill = {f"model-{m:02}": rng.uniform(0.1, 0.9) for m in range(models)}
    # as benchmarks.speed.scoring.realistic_predictions draws them: (question, kind, model) slots shuffled, the
    # first ``answers`` taken, so that each model answers its own share, short and long apart
    slots = [(id, kind, model) for model in skill for id in sorted(asked) for kind in ("short", "long")]
    rng.shuffle(slots)
    found = []
    for id, kind, model in slots[:answers]:
        right = int(rng.random() < skill[model])
        score = rng.uniform(10, 20) if right else rng.uniform(0, 10)
        found.append(Verdict(id, model, kind, None, right, score, weight=rng.choice([1.0, 1.5, 2.0, 2.5, 3.0])))
    return found, asked


def measure(models: int, questions: int, answers: int, repeat: int, seed: int) -> dict:
    """The best of ``repeat`` summaries: their CPU seconds, and those spent in the bootstrap."""
    import benchmarks.reasonmap.report as report

    verdicts, asked = verdicts_of(models, questions, answers, seed)
    drawn = report.grouped_intervals
    spent = {"calls": 0, "seconds": 0.0, "wall": 0.0}

    def timed(*args: object, **kwargs: object) -> object:
        started, wall = time.process_time(), time.perf_counter()
        try:
            return drawn(*args, **kwargs)
        finally:
            spent["seconds"] += time.process_time() - started
            spent["wall"] += time.perf_counter() - wall
            spent["calls"] += 1

    report.grouped_intervals = timed
    best = None
    for _ in range(repeat):
        spent.update(calls=0, seconds=0.0, wall=0.0)
        started, wall = time.process_time(), time.perf_counter()
        report.summarize(verdicts, asked, weighting="paper")
        total, total_wall = time.process_time() - started, time.perf_counter() - wall
        if best is None or total_wall < best["summary_seconds"]:
            best = {
                "summary_seconds": round(total_wall, 3),
                "bootstrap_seconds": round(spent["wall"], 3),
                "summary_cpu_seconds": round(total, 3),
                "bootstrap_cpu_seconds": round(spent["seconds"], 3),
                "bootstrap_calls": spent["calls"],
            }
    threads = _threads()
    return {"models": models, "questions": questions, "answers": len(verdicts), "threads": threads, **(best or {})}


def _threads() -> int:
    """The most threads the bootstrap's batches may run on here (fewer where a batch's weights are large; 1 for
    a checkout timed that has no threads)."""
    import benchmarks.intervals as intervals

    limit, cores = getattr(intervals, "_MAX_THREADS", None), getattr(intervals, "_cores", None)
    return min(limit, cores()) if limit and cores else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=41)
    parser.add_argument("--questions", type=int, default=1634)
    parser.add_argument("--answers", type=int, default=22876)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # one BLAS thread, as the ``reasonmap`` command sets it (``reasonmap.cli``): with two, on a shared machine,
    # OpenBLAS's threads spin while they wait, and the CPU seconds counted are theirs more than the bootstrap's
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    print(json.dumps(measure(args.models, args.questions, args.answers, args.repeat, args.seed)))


if __name__ == "__main__":
    main()
