"""The pieces the right-or-wrong tasks' Inspect scorers share (benchmarks/inspect_scores.py), without Inspect.

The Inspect runs themselves (plus, probes) are tests/reasonmap/test_inspect_tasks.py and
tests/benchmarks/probe/test_probe.py; here the figures are checked against sums done by hand.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from benchmarks.inspect_scores import question_set, typed_metrics
from benchmarks.plus.metrics import PLUS_ACCURACY, PLUS_WEIGHTED_ACCURACY
from benchmarks.probe.metrics import PROBE_ACCURACY


def _score(sample_id, value, **metadata):
    return SimpleNamespace(sample_id=sample_id, score=SimpleNamespace(value=value, metadata=metadata))


def test_weighted_plain_and_per_type_figures_in_their_order():
    scores = [
        _score("a", 1, type="TorF1", weight=1.0),
        _score("b", 0, type="TorF1", weight=2.0),
        _score("c", 1, type="Counting1", weight=1.0),
    ]
    figures = typed_metrics((PLUS_WEIGHTED_ACCURACY, PLUS_ACCURACY), PLUS_ACCURACY)(scores)
    assert list(figures) == [
        "weighted_accuracy",
        "accuracy",
        "accuracy_Counting1",
        "accuracy_TorF1",
        "weighted_accuracy_stderr",  # the headline's only: plain accuracy is no headline
    ]
    # (1·1 + 2·0 + 1·1) / (1 + 2 + 1); 2 of 3; per type 1 of 1 and 1 of 2
    assert figures["weighted_accuracy"] == pytest.approx(0.5)
    assert figures["accuracy"] == pytest.approx(2 / 3)
    assert (figures["accuracy_Counting1"], figures["accuracy_TorF1"]) == (1.0, 0.5)
    assert figures["weighted_accuracy_stderr"] > 0


def test_a_score_without_a_weight_weighs_one_and_means_follow_the_specs():
    scores = [_score("a", 1, type="follow", partial=1.0), _score("b", 0, type="follow", partial=0.25)]
    figures = typed_metrics((PROBE_ACCURACY,), PROBE_ACCURACY, means=("partial",))(scores)
    assert list(figures) == ["accuracy", "partial", "accuracy_follow", "accuracy_stderr"]
    assert (figures["accuracy"], figures["partial"], figures["accuracy_follow"]) == (0.5, 0.625, 0.5)
    assert typed_metrics((PROBE_ACCURACY,), PROBE_ACCURACY, means=("partial",))([])["partial"] is None


def test_a_question_file_is_read_once_until_it_changes_and_an_empty_one_is_refused(tmp_path):
    reads = []

    def load(path):
        reads.append(path)
        text = open(path, encoding="utf-8").read().split()
        return {word: SimpleNamespace(id=word) for word in text}, [f"{path}: nothing on line {n}" for n in (1, 2)]

    chosen = question_set(load, lambda graphs, seed: [], "word")
    path = tmp_path / "words.txt"
    path.write_text("a b", encoding="utf-8")
    by_id, graph, problems = chosen(str(path), "test", 0)
    assert (sorted(by_id), graph, len(problems)) == (["a", "b"], None, 2)
    assert chosen(str(path), "test", 0)[0] == by_id and len(reads) == 1
    stamp = path.stat().st_mtime_ns
    path.write_text("", encoding="utf-8")
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))  # an edit a second later, whatever the clock's grain
    with pytest.raises(ValueError, match=r"words.txt: no readable word \(.*nothing on line 1; .*line 2\)$"):
        chosen(str(path), "test", 0)
    assert len(reads) == 2
