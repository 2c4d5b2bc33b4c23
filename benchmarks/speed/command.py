"""Speed of the whole ``reasonmap score`` command, as a user runs it: a fresh process, report included.

Run ``python -m benchmarks.speed.command [--answers 500 22876] [--repeat 3] [--figures] [--public DIR |
--compare-with 'CMD {questions} {predictions}']``. It generates questions on all 30 embedded cities (``generate
--split all --per-city 60 --quota 30:20:10``: 1,637 questions), writes for each size a predictions file of that
many distinct answers as 41 models write them (:func:`benchmarks.speed.scoring.realistic_predictions`: reasoning
before and after, markdown, numbered steps, drafts then finals, Chinese punctuation), then times ``reasonmap score
--questions Q --predictions P --out S --report R`` (``--figures`` adds the figures) as a fresh process, its output
thrown away, the best of ``--repeat`` runs, after one untimed run that leaves the toolkit's bytecode compiled (as
an installation has it). ``--compare-with`` times another command on the same files the same way, alternating with
ours (its ``{questions}``, ``{predictions}`` and ``{workdir}``, an empty folder per run, are filled in; its
relative paths are taken from the folder the benchmark was started in), and reports the ratio (its seconds over
ours: above 1, ours is faster), in wall seconds and in CPU seconds (``cpu_seconds``, steadier on a loaded machine).
``--public DIR`` makes the other command the public evaluation code's scoring loop
(:mod:`benchmarks.speed.public_loop` on ``DIR``, a checkout of fscdc/ReasonMap at e68dd65). One line per size goes
to stderr; the last line printed is one JSON object with the figures per size under ``runs`` (ours, the other's and
the ratio), what the other command was (``other``) and the machine's load average before and after
(``load_average``). The README's Speed section says how the public evaluation code's scoring loop was run as the
other command (a script outside the toolkit that executes the public ``main.py``'s scoring lines unchanged), and
what the toolkit's own code before a change gave back to back.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.speed.scoring import MODELS as SCORING_MODELS


def _timed(argv: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """Seconds ``argv`` takes as a fresh process, wall and CPU (user + system), its output discarded; raises when
    it fails. On a loaded machine the CPU seconds vary less than the wall ones.

    The process may write and read compiled bytecode, as an installed package does
    (``PYTHONDONTWRITEBYTECODE`` set here would make every run compile the toolkit's modules again).
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _from_here(argv: list[str]) -> list[str]:
    """``argv`` with its relative paths (a part holding a ``/`` that names something here, such as
    ``.venv/bin/python``) made absolute: the other command runs in its own empty folder, where they would
    name nothing."""
    return [
        os.path.abspath(part) if "/" in part and not Path(part).is_absolute() and Path(part).exists() else part
        for part in argv
    ]


#: the questions' shape: every embedded city, up to 60 questions a map in the paper's 3:2:1 of difficulty levels
PER_CITY, QUOTA = 60, "30:20:10"
#: the models whose answers are scored: the scoring benchmark's 40 and one more
MODELS = (*SCORING_MODELS, "vendor-i/model-8b")


def write_inputs(folder: Path, sizes: list[int], *, seed: int) -> tuple[Path, dict[int, Path]]:
    """Questions on all 30 cities and, per size, a predictions file of that many realistic answers of
    :data:`MODELS`."""
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import generate_set, parse_quota
    from benchmarks.speed.scoring import realistic_predictions
    from graphkit import city_graph
    from graphkit.cities import city_names

    graphs = {city: city_graph(city) for city in city_names()}
    questions = generate_set(list(graphs.values()), seed=seed, per_city=PER_CITY, quota=parse_quota(QUOTA))
    questions_path = folder / "questions.jsonl"
    write_jsonl(questions_path, questions)
    files = {}
    for size in sizes:
        predictions, _ = realistic_predictions(questions, graphs, size, seed=seed + size, models=MODELS)
        files[size] = folder / f"predictions-{size}.jsonl"
        write_jsonl(files[size], predictions)
    return questions_path, files


def public_command(public: str) -> str:
    """The other command of ``--public DIR``: :mod:`benchmarks.speed.public_loop` on the checkout ``DIR``, run by
    this interpreter as a script (it imports nothing of the toolkit), both paths absolute: the other command
    runs in an empty folder of its own."""
    script = Path(__file__).with_name("public_loop.py").resolve()
    return shlex.join([sys.executable, str(script), "--public", os.path.abspath(public)]) + " {questions} {predictions}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, nargs="+", default=[500, 22_876], help="predictions per file")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command per size; the best counts")
    parser.add_argument("--figures", action="store_true", help="time `score --figures` (the report's figures too)")
    others = parser.add_mutually_exclusive_group()
    others.add_argument("--compare-with", metavar="CMD", help="another scoring command, timed the same way")
    others.add_argument(
        "--public",
        metavar="DIR",
        help="time the public evaluation code's scoring as the other command: benchmarks.speed.public_loop on DIR, "
        "a checkout of fscdc/ReasonMap at e68dd65",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.answers) < 1 or args.repeat < 1:
        parser.error("--answers and --repeat must be at least 1")

    compare_with = public_command(args.public) if args.public else args.compare_with
    load_before = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        questions, files = write_inputs(folder, args.answers, seed=args.seed)
        warm_up = [sys.executable, "-m", "reasonmap.cli", "score", "--questions", str(questions)]
        warm_up += ["--predictions", str(files[min(files)]), "--out", str(folder / "warm-up" / "scored.jsonl")]
        _timed([*warm_up, "--report", str(folder / "warm-up" / "report")])  # compiles the bytecode, untimed
        for size, predictions in files.items():
            ours = theirs = ours_cpu = theirs_cpu = float("inf")
            for attempt in range(args.repeat):
                out = folder / f"run-{size}-{attempt}"
                command = [sys.executable, "-m", "reasonmap.cli", "score", "--questions", str(questions)]
                command += ["--predictions", str(predictions), "--out", str(out / "scored.jsonl")]
                command += ["--report", str(out / "report"), *(["--figures"] if args.figures else [])]
                wall, cpu = _timed(command)
                ours, ours_cpu = min(ours, wall), min(ours_cpu, cpu)
                if compare_with:
                    workdir = folder / f"other-{size}-{attempt}"
                    workdir.mkdir()
                    fill = {"questions": str(questions), "predictions": str(predictions), "workdir": str(workdir)}
                    other = _from_here([part.format(**fill) for part in shlex.split(compare_with)])
                    wall, cpu = _timed(other, cwd=workdir)
                    theirs, theirs_cpu = min(theirs, wall), min(theirs_cpu, cpu)
            run = {"answers": size, "seconds": round(ours, 3), "answers_per_second": round(size / ours)}
            run["cpu_seconds"] = round(ours_cpu, 3)
            if compare_with:
                run |= {"other_seconds": round(theirs, 3), "speedup_vs_other": round(theirs / ours, 2)}
                run |= {
                    "other_cpu_seconds": round(theirs_cpu, 3),
                    "cpu_speedup_vs_other": round(theirs_cpu / ours_cpu, 2),
                }
            runs.append(run)
            print(json.dumps(run), file=sys.stderr)
    found = {"figures": args.figures, "repeat": args.repeat, "runs": runs}
    if compare_with:  # ours, the other command and their ratio are each run's; the other is named here
        found["other"] = "the public evaluation code's scoring loop" if args.public else compare_with
    # the machine's load (1, 5 and 15 minutes) before and after: wall seconds mean little under a high one
    found["load_average"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
