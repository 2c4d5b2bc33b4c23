"""Scoring files on a process pool gives the same scored rows and report as scoring inline."""

from __future__ import annotations

from dataclasses import replace

import pytest

from baselines.solvers import Noise, run_solver
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap import task
from benchmarks.reasonmap.generate import generate_set
from graphkit.cities import city_graph
from graphkit.executors import LocalExecutor
from reasonmap.evaluate import evaluate_files


@pytest.mark.slow
def test_a_pool_scores_blocks_in_order_to_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(task, "POOL_FROM", 10_000)  # the pool from one block on, so that this file reaches it
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
        assert executor._pool is not None  # the workers scored it
    assert len(pooled.verdicts) == len(predictions) - 1 > 10_000
    assert (tmp_path / "b").read_bytes() == (tmp_path / "a").read_bytes()
    assert (tmp_path / "rb" / "summary.json").read_bytes() == (tmp_path / "ra" / "summary.json").read_bytes()
    assert pooled.problems == inline.problems and any("nowhere" in problem for problem in pooled.problems)


def test_fewer_answers_than_the_pool_threshold_are_scored_in_this_process(tmp_path, monkeypatch):
    monkeypatch.setattr(task, "_PREDICTIONS_PER_JOB", 4)  # three blocks: enough for the pool, were it used
    questions = generate_set([city_graph("rome")], seed=2, per_city=5)
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / "p.jsonl", run_solver("oracle", questions, lambda q: city_graph(q.city)))
    with LocalExecutor(2) as executor:
        result = evaluate_files(
            tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "s", report_dir=tmp_path / "r", executor=executor
        )
        # 10 answers (5 questions, short and long) < POOL_FROM: no worker was started for them
        assert len(result.verdicts) == 10 < task.POOL_FROM and executor._pool is None
