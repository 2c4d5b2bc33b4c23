"""Scoring files on a process pool gives the same scored rows and report as scoring inline."""

from __future__ import annotations

from dataclasses import replace

import pytest

from baselines.solvers import Noise, run_solver
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_set
from graphkit.cities import city_graph
from graphkit.executors import LocalExecutor
from reasonmap.score_files import evaluate_files


@pytest.mark.slow
def test_a_pool_scores_blocks_in_order_to_the_same_bytes(tmp_path):
    questions = generate_set([city_graph("rome"), city_graph("miami")], seed=2, per_city=20)
    noisy = run_solver("noisy", questions, lambda q: city_graph(q.city), noise=Noise(0.3, 0.3, 0.2, 0.2))
    # more predictions than one block holds (10,000), from many models, and one that answers nothing
    predictions = [replace(p, model=f"m{copy}") for copy in range(10_050 // len(noisy) + 1) for p in noisy]
    predictions.append(replace(noisy[0], id="nowhere"))
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / "p.jsonl", predictions)
    inline = evaluate_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "a", report_dir=tmp_path / "ra")
    with LocalExecutor(2) as executor:
        pooled = evaluate_files(
            tmp_path / "q.jsonl",
            tmp_path / "p.jsonl",
            out=tmp_path / "b",
            report_dir=tmp_path / "rb",
            executor=executor,
        )
    assert len(pooled.verdicts) == len(predictions) - 1 > 10_000
    assert (tmp_path / "b").read_bytes() == (tmp_path / "a").read_bytes()
    assert (tmp_path / "rb" / "summary.json").read_bytes() == (tmp_path / "ra" / "summary.json").read_bytes()
    assert pooled.problems == inline.problems and any("nowhere" in problem for problem in pooled.problems)
