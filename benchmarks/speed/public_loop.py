"""The public evaluation code's scoring loop as a command, for :mod:`benchmarks.speed.command` to time beside ours.

Run ``python -m benchmarks.speed.public_loop --public DIR [--save-results] QUESTIONS PREDICTIONS`` in an empty
folder, where
``DIR`` is a checkout of fscdc/ReasonMap at e68dd65 (its ``main.py``, ``tools.py`` and ``stations/``; the
toolkit ships none of it). Nothing of the public code is copied here: its lines are read from the checkout
and executed as written, once per (question, model), with no model and no inference:

- ``main.py`` lines 427–681 (the short question's evaluation) and 906–1233 (the long one's), in one
  namespace, as ``main.py`` runs them at module level; lines 137–143 set its counters. With
  ``--save-results``, lines 1234–1267 too: the per-sample JSON it saves under ``./results/{country}/{city}/``
  (a file per question and model, which on a shared disk costs more than the scoring; left out by default,
  as ``reasonmap score`` writes one file of rows);
- ``main.py`` lines 182–192 read the Metro Data and strip its annotations, once per city here (``main.py``
  reads it again per sample, which would only make the public side slower);
- ``tools.py`` lines 13–16 (``clean_string``).

A prediction's whole response is its answer (the public rule for every model path but Kimi's, Skywork's
and QVQ's); a kind a model did not answer is the empty answer. The line numbers hold for e68dd65 only, so
a checkout whose ``main.py`` or ``tools.py`` differs from that commit's (sha256 below) is refused.

Example, from the README: ``python -m benchmarks.speed.command --compare-with "python -m
benchmarks.speed.public_loop --public ~/ReasonMap {questions} {predictions}"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import textwrap
from pathlib import Path

#: sha256 of the two files at fscdc/ReasonMap e68dd65, whose line numbers this module names
PUBLIC_FILES = {
    "main.py": "2de729b109c89b3abeb61e928e439be9ea531714f456e60f296a55617c8244c9",
    "tools.py": "799c869220488a767db4142b5c2dddc5457b6d2fdcfff0b2f75e32a65385de33",
}


def _lines(source: list[str], first: int, last: int) -> str:
    return textwrap.dedent("\n".join(source[first - 1 : last])) + "\n"


def read_checkout(public: Path) -> dict[str, list[str]]:
    """The checkout's ``main.py`` and ``tools.py`` as lines; raises ``SystemExit`` naming what is missing or
    which file is not the e68dd65 one."""
    found = {}
    for name, digest in PUBLIC_FILES.items():
        path = public / name
        try:
            data = path.read_bytes()
        except OSError as error:
            raise SystemExit(f"public_loop: {path}: cannot read it ({error.strerror or error})") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise SystemExit(f"public_loop: {path}: not fscdc/ReasonMap e68dd65's {name} (its sha256 differs)")
        found[name] = data.decode("utf-8").splitlines()
    if not (public / "stations").is_dir():
        raise SystemExit(f"public_loop: {public / 'stations'}: no Metro Data folder in the checkout")
    return found


def run(public: Path, questions_path: Path, predictions_path: Path, *, save_results: bool = False) -> int:
    """Score every (question, model) of the predictions with the public lines (``save_results``: and write its
    per-sample JSON file); returns how many were scored."""
    source = read_checkout(public)
    main, tools = source["main.py"], source["tools.py"]
    namespace: dict = {"__name__": "public_main", "json": json, "os": os, "re": re}
    exec(_lines(tools, 13, 16), namespace)  # clean_string
    exec(_lines(main, 137, 143), namespace)  # the counters
    saving = _lines(main, 1234, 1267) if save_results else ""
    per_sample = compile(_lines(main, 427, 681) + _lines(main, 906, 1233) + saving, "main.py", "exec")
    load_city = compile(_lines(main, 182, 192), "main.py", "exec")

    questions: dict[str, dict] = {}
    with open(questions_path, encoding="utf-8") as handle:
        for line in handle:
            question = json.loads(line)
            questions[question["id"]] = question
    index = {question_id: position for position, question_id in enumerate(questions)}
    answers: dict[tuple[str, str], dict[str, str]] = {}
    with open(predictions_path, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            answers.setdefault((row["id"], row["model"]), {})[row["question"]] = row["response"]

    if not os.path.lexists("stations"):  # main.py reads ./stations/{country}/{city}.json
        os.symlink(public.resolve() / "stations", "stations")
    metro: dict[tuple[str, str], object] = {}
    for (question_id, model), given in answers.items():
        sample = questions[question_id]
        country, city = sample["country"], sample["city"]
        if (country, city) not in metro:
            namespace["country"], namespace["city"] = country, city
            exec(load_city, namespace)
            metro[country, city] = namespace["metro_data"]
        short, long = given.get("short", ""), given.get("long", "")
        namespace.update(
            sample=sample,
            i_sample=index[question_id],
            country=country,
            city=city,
            metro_data=metro[country, city],
            question_short=sample["question_short"],
            question_long=sample["question_long"],
            station1=sample["station_1"],
            station2=sample["station_2"],
            model_path=model,
            short_response=short,
            short_final_answer=short,
            token_count_short=0,
            long_response=long,
            long_final_answer=long,
            token_count_long=0,
        )
        exec(per_sample, namespace)
    return len(answers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.public_loop", description=__doc__.split("\n")[0])
    parser.add_argument("--public", type=Path, required=True, help="a checkout of fscdc/ReasonMap at e68dd65")
    parser.add_argument(
        "--save-results", action="store_true", help="also write main.py's JSON file per question and model"
    )
    parser.add_argument("questions", type=Path)
    parser.add_argument("predictions", type=Path)
    args = parser.parse_args(argv)
    scored = run(args.public, args.questions, args.predictions, save_results=args.save_results)
    print(f"scored {scored} (question, model) pairs with the public loop", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
