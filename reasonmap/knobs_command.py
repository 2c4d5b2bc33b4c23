"""``reasonmap knobs``: accuracy against a visual knob, from a sweep folder and a model's scored answers per value.

A sweep (``synth --sweep KNOB=v1,v2,...  --out SWEEP``) names each value's folder ``KNOB=v``
(``SWEEP/maps/colour_distance=2``, ``SWEEP/probes/colour_distance=2.jsonl``). The scored answers are laid out
the same way: ``--probes DIR`` holds ``DIR/colour_distance=2.jsonl`` (``score --task probe --out``) for each
value, ``--routes DIR`` the same for route answers. The report (:mod:`benchmarks.knob_analysis`) goes into
``--out``: ``summary.json``, ``table.md`` and, with ``--figures``, ``knobs.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_knobs_command"]


def _scored(folder: str, labels: list[str], option: str) -> dict[str, list[dict[str, Any]]]:
    """The scored rows of each sweep value found in ``folder`` (``<label>.jsonl``)."""
    from benchmarks.jsonl import read_jsonl

    if not Path(folder).is_dir():
        raise ValueError(f"{option} {folder}: not a folder")
    found = {}
    for label in labels:
        path = Path(folder) / f"{label}.jsonl"
        if path.is_file():
            rows, problems = read_jsonl(path, lambda record, where: record)
            if problems:
                raise ValueError(f"{option}: {problems[0]}")
            found[label] = [row for row in rows if isinstance(row, dict)]
    if not found:
        names = ", ".join(f"{label}.jsonl" for label in labels)
        raise ValueError(f"{option} {folder}: holds none of the sweep's scored files ({names})")
    return found


def _cities(sweep: Path) -> dict[str, str]:
    """Question id → network of the sweep's route questions (scored route rows do not name their network)."""
    from benchmarks.jsonl import read_jsonl

    path = sweep / "questions.jsonl"
    if not path.is_file():
        return {}
    records, _ = read_jsonl(path, lambda record, where: record)
    return {str(r["id"]): str(r["city"]) for r in records if isinstance(r, dict) and "id" in r and "city" in r}


def cmd_knobs(args: argparse.Namespace) -> int:
    import json

    from benchmarks.knob_analysis import knob_markdown, knob_summary, plot_knobs
    from benchmarks.plotting import remove_figures
    from benchmarks.summaries import summary_json, write_text

    manifest_path = Path(args.sweep) / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{manifest_path}: cannot read the sweep's manifest ({error})") from None
    sweep = manifest.get("sweep") if isinstance(manifest, dict) else None
    if not isinstance(sweep, dict):
        raise ValueError(f"{manifest_path}: no sweep recorded (run synth --sweep KNOB=v1,v2,... --out {args.sweep})")
    labels = [Path(str(folder)).name for folder in sweep.get("maps", [])]
    if not (args.probes or args.routes):
        raise ValueError("give --probes DIR and/or --routes DIR (scored files named <knob>=<value>.jsonl)")
    scored = {}
    if args.probes:
        scored["probe"] = _scored(args.probes, labels, "--probes")
    if args.routes:
        scored["route"] = _scored(args.routes, labels, "--routes")
    summary = knob_summary(manifest, scored, cities=_cities(Path(args.sweep)), resamples=args.resamples, seed=args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "summary.json", summary_json(summary))
    table = knob_markdown(summary)
    write_text(out / "table.md", table)
    if args.figures:
        plot_knobs(summary, out / "knobs.png")
    else:
        remove_figures(out, ["knobs"])
    print(table, end="")
    print(f"wrote the knob report to {out}/", file=sys.stderr)
    return 0


def add_knobs_command(commands: Any) -> None:
    """Register ``reasonmap knobs``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The command line's subcommands.
    """
    from reasonmap.compare_commands import add_figure_options
    from reasonmap.options import add_resampling_options

    knobs = commands.add_parser(
        "knobs",
        help="accuracy against a sweep's knob: per value and question type, paired intervals, a logistic fit",
        description="Given a sweep folder (synth --sweep) and a model's scored answers at each of its values,"
        " report the accuracy per value for each probe type (and route), the paired difference from the first"
        " value (as compare computes it) and a logistic fit of correctness on the realised knob value.",
    )
    knobs.add_argument("sweep", metavar="SWEEP", help="the folder synth --sweep wrote (its manifest.json is read)")
    knobs.add_argument(
        "--probes", metavar="DIR", help="scored probe files, one per value, named as SWEEP/probes/ (KNOB=v.jsonl)"
    )
    knobs.add_argument("--routes", metavar="DIR", help="scored route files, one per value, named KNOB=v.jsonl")
    add_resampling_options(knobs, seed_help="seed of the paired resamples")
    knobs.add_argument("--out", required=True, metavar="DIR", help="folder for summary.json, table.md, knobs.png")
    add_figure_options(knobs, "knobs")
    knobs.set_defaults(run=cmd_knobs)
