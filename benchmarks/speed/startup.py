"""Start-up of a ``reasonmap`` command: the command line's parse, and short commands as fresh processes.

Run ``python -m benchmarks.speed.startup [--answers 500] [--repeat 5] [--other ROOT] [--questions Q
--predictions P]``. It times, for this
checkout (and, with ``--other``, a second checkout of the toolkit such as the code before a change, alternating
with it run by run):

- ``parse``: seconds of what :func:`reasonmap.cli.main` does before the command runs, building the parser and
  parsing ``score --questions Q --predictions P --out S --report R`` (the best of ``--repeat`` rounds of 20, in
  one process whose imports are done: timeit);
- ``help``: CPU seconds (user + system) of ``python -m reasonmap score --help`` as a fresh process;
- ``score``: CPU seconds of ``python -m reasonmap score`` of the first ``--answers`` answers of the demo's
  predictions (``reasonmap demo --out DIR``, run once with this checkout), or of ``--predictions P`` to
  ``--questions Q``, as a fresh process.

Each fresh process is the best of ``--repeat`` runs after one untimed run (the bytecode is compiled then, as an
installation has it); CPU seconds vary less than wall seconds on a loaded machine, and both are given. One line
per figure goes to stderr; the last line printed is one JSON object: the figures per checkout under ``runs``
(``this`` and ``other``), the other's seconds over ours under ``ratio``, and the load average before and after.
The speed benchmarks sit above the toolkit's floors but never import :mod:`reasonmap`: it runs as a process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]

#: what main does before the command: the parser built (only the subcommand asked for where the code knows how)
#: and the arguments parsed; run in the checkout timed, so that nothing of reasonmap is imported here
_PARSE = """
import sys, timeit
from reasonmap import cli
argv = sys.argv[2:]
asked = getattr(cli, "_asked", None)
build = (lambda: cli.build_parser(asked(argv))) if asked else cli.build_parser
build().parse_args(argv)
print(min(timeit.repeat(lambda: build().parse_args(argv), number=20, repeat=int(sys.argv[1]))) / 20)
"""


def _environment(root: Path) -> dict[str, str]:
    """The environment a command of the checkout ``root`` runs in: its code first on the path."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def _timed(root: Path, argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m reasonmap ARGV`` of the checkout ``root`` as a fresh process, its output
    discarded; raises when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "reasonmap", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=_environment(root),
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"reasonmap {' '.join(argv)} ({root}) exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _parse_seconds(root: Path, argv: list[str], repeat: int) -> float:
    """Seconds the checkout ``root`` takes to build its parser and parse ``argv`` (its imports done)."""
    done = subprocess.run(
        [sys.executable, "-c", _PARSE, str(repeat), *argv],
        capture_output=True,
        text=True,
        cwd=root,
        env=_environment(root),
        check=True,
    )
    return float(done.stdout.split()[-1])


def _small_set(folder: Path, answers: int) -> tuple[Path, Path]:
    """The demo's questions, and the first ``answers`` of its predictions."""
    demo = folder / "demo"
    _timed(HERE, ["demo", "--out", str(demo), "--quiet"], folder)
    predictions = folder / f"predictions-{answers}.jsonl"
    with open(demo / "predictions.jsonl", encoding="utf-8") as rows:
        predictions.write_text("".join(row for _, row in zip(range(answers), rows, strict=False)), encoding="utf-8")
    return demo / "questions.jsonl", predictions


def main(argv: list[str] | None = None) -> dict:
    """Time the start-up figures; print one line per figure (stderr) and the JSON summary (last line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=500, help="answers scored by the score command")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each figure; the best is kept")
    parser.add_argument("--other", type=Path, help="a second checkout of the toolkit to time the same way")
    parser.add_argument("--questions", type=Path, help="with --predictions: score these files, not the demo's")
    parser.add_argument("--predictions", type=Path, help="the answers scored (all of them)")
    args = parser.parse_args(argv)
    roots = {"this": HERE} | ({"other": args.other.resolve()} if args.other else {})
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.questions and args.predictions:
            questions, predictions = args.questions.resolve(), args.predictions.resolve()
        else:
            questions, predictions = _small_set(folder, args.answers)
        score = ["score", "--questions", str(questions), "--predictions", str(predictions)]
        score += ["--out", str(folder / "scored.jsonl"), "--report", str(folder / "report"), "--quiet"]
        commands = {"help": ["score", "--help"], "score": score}
        best: dict[str, dict[str, list[float]]] = {name: {} for name in roots}
        for name, root in roots.items():
            best[name]["parse"] = [_parse_seconds(root, score, args.repeat)] * 2
            for command in commands.values():
                _timed(root, command, folder)  # compiles the bytecode
        for _ in range(args.repeat):
            for name, root in roots.items():  # alternating, so that both see the same load
                for figure, command in commands.items():
                    wall, cpu = _timed(root, command, folder)
                    kept = best[name].setdefault(figure, [wall, cpu])
                    best[name][figure] = [min(kept[0], wall), min(kept[1], cpu)]
    runs = {
        name: {
            "parse_seconds": round(figures["parse"][0], 5),
            **{f"{figure}_{kind}": round(figures[figure][i], 4) for figure in commands for i, kind in _KINDS},
        }
        for name, figures in best.items()
    }
    for name, figures in runs.items():
        print(f"{name}: {json.dumps(figures)}", file=sys.stderr)
    ratio = {}
    if "other" in runs:
        ratio = {key: round(runs["other"][key] / runs["this"][key], 2) for key in runs["this"] if runs["this"][key]}
    result = {
        "answers": None if args.questions and args.predictions else args.answers,
        "repeat": args.repeat,
        "runs": runs,
        "ratio": ratio,
        "load_average": [list(load_before), list(os.getloadavg())],
    }
    print(json.dumps(result))
    return result


_KINDS = ((0, "wall_seconds"), (1, "cpu_seconds"))


if __name__ == "__main__":
    main()
