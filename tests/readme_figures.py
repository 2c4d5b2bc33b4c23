"""The README's measured figures, read from its text and checked against the commands that produce them.

Run ``python -m tests.readme_figures [--only demo,references,render,ocr,commands]`` from the checkout: each check
runs its command (the demo, ``references --all``, ``python -m benchmarks.speed.render``, ``python -m
benchmarks.speed.ocr``; the last two need a CJK font and the real maps; ``commands`` runs the README's shell blocks
marked runnable, in a fresh shell, as a reader would after ``make demo``), compares the figures the README
states with the command's output or final JSON line (counts exactly, sizes within 2%), prints one line per
figure that differs, and last one JSON line ``{"checked": N, "differ": [...]}``; the exit status is 1 when
any differs. ``tests/test_readme.py`` checks, without running anything heavy, that every figure is still
found in the README and agrees with what is cheap to recompute (station counts, pair counts).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def demo_table(readme: str) -> dict[str, list[float]]:
    """The README's demo table: solver → short acc., short map score, long acc., long map score (the figures;
    :func:`demo_halves` has what follows their ``±``)."""
    return {name: [value for value, _ in cells] for name, cells in _demo_cells(readme).items()}


def demo_halves(readme: str) -> dict[str, list[float]]:
    """The half-widths of the 95% intervals the README's demo table prints after each figure's ``±``."""
    return {name: [half for _, half in cells] for name, cells in _demo_cells(readme).items() if all(cells)}


def _demo_cells(readme: str) -> dict[str, list[tuple[float, float | None]]]:
    cell = r"([\d.]+)(?: ± ([\d.]+|–))?"  # – : no interval (no variance)
    rows = re.findall(rf"^\| ([a-z-]+) \([^|]*\) \| {cell} \| {cell} \| {cell} \| {cell} \|$", readme, re.M)
    found = {}
    for name, *values in rows:
        pairs = zip(values[::2], values[1::2])
        found[name] = [(float(value), _half(half)) for value, half in pairs]
    return found


def _half(text: str) -> float | str | None:
    """What follows a figure's ``±``: half its interval's width, ``"–"`` (no interval), or ``None`` (no ``±``)."""
    return text if text == "–" else float(text) if text else None


def references_figures(readme: str) -> dict[str, float]:
    """``references --all``: its ordered pairs and the size of its JSON Lines in MB."""
    found = re.search(r"`references --all` covers the ([\d,]+) ordered pairs of the 30 cities \(([\d,]+) MB", readme)
    return {"pairs": _number(found[1]), "megabytes": _number(found[2])} if found else {}


def render_figures(readme: str) -> dict[str, float]:
    """The render benchmark's totals as the README states them."""
    found = re.search(
        r"([\d,]+) labels on ([\d,]+) lines: ([\d,]+) ambiguous, ([\d,]+) leader lines, ([\d.]+) bends per line", readme
    )
    keys = ("labels", "lines", "ambiguous", "leaders", "bends_per_line")
    figures = {key: _number(value) for key, value in zip(keys, found.groups())} if found else {}
    crossed = re.search(
        r"crossings ([\d,]+) leader/label, ([\d,]+) leader/line, ([\d,]+) line/label, ([\d,]+) leader/marker, "
        r"([\d,]+) line/marker; ([\d,]+) far labels",
        readme,
    )
    keys = ("leader_label", "leader_line", "line_label", "leader_marker", "line_marker", "far")
    return figures | ({key: _number(value) for key, value in zip(keys, crossed.groups())} if crossed else {})


def ocr_table(readme: str) -> dict[str, tuple[int, int]]:
    """The OCR table's stations found and stations, by map file stem."""
    rows = re.findall(r"^\| ([a-z_]+__[a-z_]+) \|.*\| [\d.]+% \((\d+)/(\d+)\) \|", readme, re.M)
    return {stem: (int(found), int(total)) for stem, found, total in rows}


def _last_json(command: list[str]) -> dict:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _differ(name: str, stated: float, measured: float, *, tolerance: float = 0.0) -> list[str]:
    if abs(stated - measured) <= tolerance * max(abs(measured), 1e-9):
        return []
    return [f"{name}: the README says {stated:g}, measured {measured:g}"]


def check_demo(readme: str, scratch: Path) -> tuple[int, list[str]]:
    out = scratch / "demo"
    subprocess.run([sys.executable, "-m", "reasonmap.cli", "demo", "--out", str(out), "--quiet"], cwd=ROOT, check=True)
    models = json.loads((out / "report" / "summary.json").read_text("utf-8"))["models"]
    keys = ("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long")
    differ, checked = [], 0
    halves = demo_halves(readme)
    for solver, stated in demo_table(readme).items():
        row = models[f"baseline:{solver}"]
        for index, (key, value) in enumerate(zip(keys, stated)):
            scale = 100 if key.startswith("weighted") else 1
            measured = round(row[key] * scale, 2)
            differ += _differ(f"demo {solver} {key}", value, measured)
            checked += 1
            if solver in halves:  # ± half the width of the 95% interval, or – where there is none
                interval = row["intervals"][key]
                if halves[solver][index] == "–" or interval["low"] is None:
                    if (halves[solver][index] == "–") != (interval["low"] is None):
                        differ.append(f"demo {solver} {key} ±: the README says {halves[solver][index]}, not the run")
                else:
                    half = round((interval["high"] - interval["low"]) / 2 * scale, 2)
                    differ += _differ(f"demo {solver} {key} ±", halves[solver][index], half)
                checked += 1
    return checked, differ


def check_references(readme: str, scratch: Path) -> tuple[int, list[str]]:
    out = scratch / "references.jsonl"
    command = [sys.executable, "-m", "reasonmap.cli", "references", "--all", "--out", str(out), "--quiet"]
    subprocess.run(command, cwd=ROOT, check=True)
    with out.open("rb") as stream:
        pairs = sum(1 for _ in stream)
    stated = references_figures(readme)
    differ = _differ("references pairs", stated["pairs"], pairs)
    differ += _differ("references MB", stated["megabytes"], out.stat().st_size / 1e6, tolerance=0.02)
    out.unlink()
    return 2, differ


def check_render(readme: str, scratch: Path) -> tuple[int, list[str]]:
    measured = _last_json([sys.executable, "-m", "benchmarks.speed.render"])
    stated = render_figures(readme)
    differ = []
    for key, value in stated.items():
        differ += _differ(f"render {key}", value, measured[key])
    return len(stated), differ


def check_ocr(readme: str, scratch: Path) -> tuple[int, list[str]]:
    measured = _last_json([sys.executable, "-m", "benchmarks.speed.ocr"])["maps"]
    differ = []
    for stem, (found, total) in ocr_table(readme).items():
        entry = measured[stem]
        differ += _differ(f"ocr {stem} stations", total, entry["stations"])
        differ += _differ(f"ocr {stem} found", found, entry["stations"] - len(entry["missing"]))
    return 2 * len(ocr_table(readme)), differ


def sh_blocks(readme: str) -> list[tuple[str, str]]:
    """Every ```sh block of the README: ``(marker, text)``, the marker the HTML comment just above it holds
    (``<!-- readme: run -->`` for a block a reader can paste as it is), else ``""``."""
    found = re.finditer(r"(?:<!-- readme: (\w+) -->\n)?```sh\n(.*?)```", readme, re.S)
    return [(match.group(1) or "", match.group(2)) for match in found]


def _lines_of(block: str) -> list[str]:
    """The block's command lines, continuations joined, comments and trailing ``&`` cut."""
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = []
    for line in joined.splitlines():
        line = re.sub(r"\s+#(?!\S*[\]|]).*$", "", line).strip()  # a comment, not a `#` inside an option's value
        if line:
            lines.append(line.removesuffix("&").strip())
    return lines


def readme_commands(readme: str) -> list[str]:
    """Every ``reasonmap`` command line of the README's shell blocks, with its synopsis notation resolved:
    an optional ``[...]`` part dropped, ``a|b|c`` and ``(a | b)`` read as their first choice; lines with ``...``
    left out."""
    commands = []
    for _, block in sh_blocks(readme):
        for line in _lines_of(block):
            if not line.startswith("reasonmap ") or "..." in line:
                continue
            while (shorter := re.sub(r"\s*\[[^\[\]]*\]", "", line)) != line:  # nested brackets, inside out
                line = shorter
            line = re.sub(r"\(([^()|]*?)\s*\|[^()]*\)", r"\1", line)  # (a | b): one of the two, the first
            commands.append(re.sub(r"(\S+?)(?:\|[^\s|]+)+", r"\1", line))
    return commands


def check_commands(readme: str, scratch: Path) -> tuple[int, list[str]]:
    """Run every block marked ``<!-- readme: run -->`` as a reader would: in order, in one scratch folder, each
    in a fresh ``bash -e`` whose PATH has only what the README's set-up gives (``. .venv/bin/activate``)."""
    venv = ROOT / ".venv" / "bin" / "activate"
    blocks = [block for marker, block in sh_blocks(readme) if marker == "run"]
    differ = []
    for number, block in enumerate(blocks, start=1):
        script = f"set -e\n. {venv}\n{block}\nwait\n"
        done = subprocess.run(["bash", "-c", script], cwd=scratch, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            tail = " ".join(done.stderr.split()[-30:])
            differ.append(f"README run block {number} ({block.splitlines()[0]!r}) exited {done.returncode}: {tail}")
    return len(blocks), differ


CHECKS = {
    "demo": check_demo,
    "references": check_references,
    "render": check_render,
    "ocr": check_ocr,
    "commands": check_commands,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.readme_figures", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(CHECKS), help=f"comma-separated checks of {', '.join(CHECKS)}")
    args = parser.parse_args(argv)
    readme = README.read_text("utf-8")
    checked, differ = 0, []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.only.split(","):
            count, found = CHECKS[name](readme, Path(scratch))
            checked += count
            differ += found
    for line in differ:
        print(line, file=sys.stderr)
    print(json.dumps({"checked": checked, "differ": differ}, ensure_ascii=False))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
