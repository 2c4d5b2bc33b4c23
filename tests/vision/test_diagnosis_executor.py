"""Diagnosing files on a process pool gives the same labels and summaries as diagnosing inline."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest

from baselines.solvers import Noise, run_solver
from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_set
from graphkit.cities import city_graph
from graphkit.executors import LocalExecutor
from vision.diagnosis_report import OneNetwork, diagnose_files, summary_paths
from vision.evidence import read_truth
from vision.render import render_map, truth_json


@pytest.mark.slow
def test_a_pool_diagnoses_blocks_in_order_to_the_same_bytes(tmp_path):
    graph = city_graph("rome")
    evidence_graph = OneNetwork(graph.metro, graph.overlay)
    assert pickle.loads(pickle.dumps(evidence_graph))(None).stations == graph.stations  # it travels to workers
    truth = tmp_path / "rome.truth.json"
    truth.write_text(truth_json(render_map(graph, seed=1).truth), encoding="utf-8")
    evidence = read_truth(truth, city="rome")
    questions = generate_set([graph], seed=3, per_city=20)
    noisy = run_solver("noisy", questions, lambda q: graph, noise=Noise(0.4, 0.3, 0.2, 0.2, misread=0.2))
    # more rows than one block holds (10,000), and one that answers no question
    predictions = [replace(p, model=f"m{copy}") for copy in range(10_050 // len(noisy) + 1) for p in noisy]
    predictions.append(replace(noisy[0], id="nowhere"))
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / "p.jsonl", predictions)
    inline = diagnose_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", evidence, evidence_graph, out=tmp_path / "a")
    with LocalExecutor(2) as executor:
        pooled = diagnose_files(
            tmp_path / "q.jsonl", tmp_path / "p.jsonl", evidence, evidence_graph, out=tmp_path / "b", executor=executor
        )
    assert len(pooled.diagnoses) == len(predictions) - 1 > 10_000
    assert (tmp_path / "b").read_bytes() == (tmp_path / "a").read_bytes()
    for inline_path, pooled_path in zip(summary_paths(tmp_path / "a"), summary_paths(tmp_path / "b")):
        assert pooled_path.read_bytes() == inline_path.read_bytes()
    assert pooled.problems == inline.problems and any("nowhere" in problem for problem in pooled.problems)
