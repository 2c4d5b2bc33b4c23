"""The scoring speed benchmark runs on a small mix and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

from benchmarks.speed.scoring import main


def test_benchmark_scores_a_mixed_batch_and_prints_one_json_object_last(capsys):
    assert main(["--answers", "400", "--cities", "rome,beijing", "--chunks", "2", "--distinct", "300"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out.strip().splitlines()[-1])
    assert {"answers", "seconds", "answers_per_second"} <= set(figures)
    assert figures["answers"] == 400  # the times are reported, not bounded: a benchmark says them
    assert isinstance(figures["seconds"], float) and isinstance(figures["answers_per_second"], (int, float))
    outcomes = figures["outcomes"]
    assert sum(outcomes.values()) == 400
    assert outcomes["correct"] > 100 and len(outcomes) > 3, "right and wrong answers, and several kinds of wrong"
    assert sum(figures["cases"].values()) == 400
    assert "scored 400/400" in captured.err
    assert figures["distinct_answers"] == 300 and figures["distinct_answers_per_second"] > 0
    assert figures["distinct_answers_per_cpu_second"] > 0


def test_realistic_predictions_are_distinct_one_per_slot_in_every_form_and_parse_as_written():
    from benchmarks.reasonmap.generate import generate_questions
    from benchmarks.reasonmap.parsing import parse_answer
    from benchmarks.records import Invalid
    from benchmarks.speed.scoring import FORMS, realistic_predictions
    from graphkit import city_graph

    graphs = {"rome": city_graph("rome")}
    questions = generate_questions(graphs["rome"], seed=0)
    found, forms = realistic_predictions(questions, graphs, 4 * len(questions), seed=3)
    assert len(found) == 4 * len(questions) == len({p.response for p in found})
    assert len({(p.id, p.question, p.model) for p in found}) == len(found), "one answer per question, kind, model"
    assert set(forms) == set(FORMS) and sum(forms.values()) == len(found)
    assert len({p.model for p in found}) > 20
    # a draft then a correction: the answer is the last statement, so most such answers parse
    drafts = [p for p in found if "Corrected answer:" in p.response]
    parsed = [parse_answer(p.response, kind=p.question, template="via_count") for p in drafts]
    assert drafts and sum(not isinstance(answer, Invalid) for answer in parsed) > len(drafts) / 2
