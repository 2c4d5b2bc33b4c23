"""Speed of the whole ``reasonmap score`` command, as a user runs it: a fresh process, report included.

Run ``python -m benchmarks.speed.command [--answers 500 22876] [--repeat 3] [--figures] [--compare-with 'CMD
{questions} {predictions}']``. It generates the test split's questions, writes for each size a predictions
file of that many distinct answers as 40 models write them
(:func:`benchmarks.speed.scoring.realistic_predictions`: reasoning before and after, markdown, numbered steps,
drafts then finals, Chinese punctuation), then times ``reasonmap score --questions Q --predictions P --out S
--report R`` (``--figures`` adds the figures) as a fresh process, its output thrown away, the best of
``--repeat`` runs, after one untimed run that leaves the toolkit's bytecode compiled (as an installation has
it). ``--compare-with`` times another command on the same files the same way, alternating with ours (its
``{questions}``, ``{predictions}`` and ``{workdir}``, an empty folder per run, are filled in; its relative
paths are taken from the folder the benchmark was started in), and reports the ratio (its seconds over ours:
above 1, ours is faster), in wall seconds and in CPU seconds (``cpu_seconds``, steadier on a loaded machine).
One line per size goes to stderr; the last line printed is one JSON object with the figures per size under
``runs``. The README's Speed section says how the public evaluation code's scoring loop was run as the other
command (a script outside the toolkit that executes the public ``main.py``'s scoring lines unchanged), and
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


def write_inputs(folder: Path, sizes: list[int], *, seed: int) -> tuple[Path, dict[int, Path]]:
    """The test split's questions and, per size, a predictions file of that many realistic answers."""
    from benchmarks.jsonl import write_jsonl
    from benchmarks.reasonmap.generate import generate_set
    from benchmarks.speed.scoring import realistic_predictions
    from benchmarks.splits import TEST_CITIES
    from graphkit import city_graph

    graphs = {city: city_graph(city) for city in TEST_CITIES}
    questions = generate_set(list(graphs.values()), seed=seed)
    questions_path = folder / "questions.jsonl"
    write_jsonl(questions_path, questions)
    files = {}
    for size in sizes:
        predictions, _ = realistic_predictions(questions, graphs, size, seed=seed + size)
        files[size] = folder / f"predictions-{size}.jsonl"
        write_jsonl(files[size], predictions)
    return questions_path, files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, nargs="+", default=[500, 22_876], help="predictions per file")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command per size; the best counts")
    parser.add_argument("--figures", action="store_true", help="time `score --figures` (the report's figures too)")
    parser.add_argument("--compare-with", metavar="CMD", help="another scoring command, timed the same way")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.answers) < 1 or args.repeat < 1:
        parser.error("--answers and --repeat must be at least 1")

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
                if args.compare_with:
                    workdir = folder / f"other-{size}-{attempt}"
                    workdir.mkdir()
                    fill = {"questions": str(questions), "predictions": str(predictions), "workdir": str(workdir)}
                    other = _from_here([part.format(**fill) for part in shlex.split(args.compare_with)])
                    wall, cpu = _timed(other, cwd=workdir)
                    theirs, theirs_cpu = min(theirs, wall), min(theirs_cpu, cpu)
            run = {"answers": size, "seconds": round(ours, 3), "answers_per_second": round(size / ours)}
            run["cpu_seconds"] = round(ours_cpu, 3)
            if args.compare_with:
                run |= {"other_seconds": round(theirs, 3), "speedup_vs_other": round(theirs / ours, 2)}
                run |= {
                    "other_cpu_seconds": round(theirs_cpu, 3),
                    "cpu_speedup_vs_other": round(theirs_cpu / ours_cpu, 2),
                }
            runs.append(run)
            print(json.dumps(run), file=sys.stderr)
    print(json.dumps({"figures": args.figures, "repeat": args.repeat, "runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
