"""Map QA scoring: every registered metric checked for its declared properties, option-order independence,
Kendall's tau at its ends, and files to report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.mapqa.io import load_questions
from benchmarks.mapqa.parsing import Choice
from benchmarks.mapqa.records import LETTERS, QUESTION_TYPES, MapPrediction, MapQuestion
from benchmarks.mapqa.report import markdown_table
from benchmarks.mapqa.scoring import (
    METRICS,
    exact_match,
    jaccard,
    kendall_tau,
    metrics_for,
    score_answer,
    score_prediction,
)
from benchmarks.records import Invalid
from reasonmap.cli import main
from reasonmap.score_files import evaluate_files

QUESTIONS = Path(__file__).resolve().parent / "fixtures" / "questions.jsonl"

# Every metric, classified: the types it scores and whether it is 1 exactly and only for the right answer.
# A metric added to METRICS without a line here fails test_every_metric_is_classified.
CLASSIFIED = {
    "exact": {"types": ("single", "multiple", "sorting"), "one_iff_right": True},
    "jaccard": {"types": ("multiple",), "one_iff_right": True},
    "kendall_tau": {"types": ("sorting",), "one_iff_right": True},
}


def test_every_metric_is_classified():
    assert set(METRICS) == set(CLASSIFIED)
    for name, metric in METRICS.items():
        assert metric.name == name and metric.types == CLASSIFIED[name]["types"]
        assert metric.higher_is_better and metric.aggregation == "mean"
        assert metric.low <= metric.invalid <= metric.high


def test_every_type_is_scored_by_exact_match_and_its_own_metrics():
    assert [m.name for m in metrics_for("single")] == ["exact"]
    assert [m.name for m in metrics_for("multiple")] == ["exact", "jaccard"]
    assert [m.name for m in metrics_for("sorting")] == ["exact", "kendall_tau"]
    with pytest.raises(ValueError, match="single"):
        metrics_for("truefalse")


@st.composite
def questions_and_choices(draw, kinds=QUESTION_TYPES):
    """A question and letters an answer could choose (any subset or order of its options)."""
    kind = draw(st.sampled_from(kinds))
    count = draw(st.integers(2, 9))
    letters = list(LETTERS[:count])
    if kind == "single":
        answer = [draw(st.sampled_from(letters))]
        chosen = [draw(st.sampled_from(letters))]
    elif kind == "multiple":
        answer = draw(st.lists(st.sampled_from(letters), min_size=1, max_size=count, unique=True))
        chosen = sorted(draw(st.lists(st.sampled_from(letters), min_size=1, max_size=count, unique=True)))
    else:
        answer = draw(st.permutations(letters))
        chosen = draw(st.one_of(st.permutations(letters), st.lists(st.sampled_from(letters), min_size=1, unique=True)))
    record = {
        "id": "q",
        "image": "m.png",
        "question": "Which?",
        "options": [f"place {i}" for i in range(count)],
        "answer": answer,
        "type": kind,
        "level": draw(st.sampled_from([1, 2, 3])),
        "category": "metro",
        "language": "en",
    }
    return MapQuestion.from_dict(record), tuple(chosen)


@pytest.mark.parametrize("name", sorted(METRICS))
@settings(max_examples=100, deadline=None)
@given(case=questions_and_choices())
def test_each_metric_keeps_its_bounds_and_is_one_exactly_for_the_right_answer(name, case):
    question, chosen = case
    metric = METRICS[name]
    scores = score_answer(Choice(chosen), question)
    if question.type not in metric.types:
        assert name not in scores
        return
    value = scores[name]
    assert metric.low <= value <= metric.high
    right = score_answer(Choice(question.answer), question)[name]
    assert right == metric.high == 1.0
    if CLASSIFIED[name]["one_iff_right"]:
        assert (value == 1.0) == (scores["exact"] == 1.0)
    assert score_answer(Invalid("no option found"), question)[name] == metric.invalid


@settings(max_examples=100, deadline=None)
@given(case=questions_and_choices(), data=st.data())
def test_scores_do_not_depend_on_the_options_order(case, data):
    """Permute the options, re-letter the answer and the choice: every score is the same, through the parser too."""
    question, chosen = case
    count = len(question.options)
    order = data.draw(st.permutations(range(count)))  # new position i holds old option order[i]
    new_letter = {LETTERS[old]: LETTERS[new] for new, old in enumerate(order)}
    record = question.to_dict()
    record["options"] = [question.options[old] for old in order]
    record["answer"] = [new_letter[letter] for letter in question.answer]
    permuted = MapQuestion.from_dict(record)
    relettered = tuple(new_letter[letter] for letter in chosen)
    if question.type == "multiple":
        relettered = tuple(sorted(relettered))
    assert score_answer(Choice(relettered), permuted) == score_answer(Choice(chosen), question)
    separator = " > " if question.type == "sorting" else ", "
    before = score_prediction(MapPrediction("q", "m", "Answer: " + separator.join(chosen)), question)
    after = score_prediction(MapPrediction("q", "m", "Answer: " + separator.join(relettered)), permuted)
    assert before.scores == after.scores and before.correct == after.correct


@settings(max_examples=100, deadline=None)
@given(st.permutations(list("ABCDEFGH")), st.integers(1, 8))
def test_kendall_tau_is_one_exactly_for_the_right_order_and_minus_one_reversed(items, size):
    reference = items[:size]
    assert kendall_tau(reference, reference) == 1.0
    if size >= 2:
        assert kendall_tau(reference[::-1], reference) == -1.0
        swapped = [reference[1], reference[0], *reference[2:]]  # one adjacent swap: one discordant pair
        pairs = size * (size - 1) // 2
        assert kendall_tau(swapped, reference) == (pairs - 2) / pairs


@settings(max_examples=100, deadline=None)
@given(st.permutations(list("ABCDEF")), st.permutations(list("ABCDEF")))
def test_kendall_tau_is_symmetric_and_bounded(first, second):
    tau = kendall_tau(first, second)
    assert tau == kendall_tau(second, first)
    assert -1.0 <= tau <= 1.0


def test_kendall_tau_refuses_orders_of_different_items():
    with pytest.raises(ValueError, match="same distinct items"):
        kendall_tau("AB", "ABC")
    with pytest.raises(ValueError, match="same distinct items"):
        kendall_tau("AA", "AA")


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from("ABCDEF"), min_size=1), st.sets(st.sampled_from("ABCDEF"), min_size=1))
def test_partial_credit_is_between_zero_and_one_and_one_only_for_the_right_set(chosen, answer):
    credit = jaccard(chosen, answer)
    assert 0.0 <= credit <= 1.0
    assert (credit == 1.0) == (chosen == answer) == (exact_match(sorted(chosen), sorted(answer), ordered=False) == 1)
    assert (credit == 0.0) == chosen.isdisjoint(answer)
    assert credit == jaccard(answer, chosen)


def test_partial_credit_and_tau_of_examples():
    question = MapQuestion.from_dict(
        {
            "id": "q",
            "image": "m.png",
            "question": "?",
            "options": ["a", "b", "c", "d"],
            "answer": "A, B",
            "type": "multiple",
            "level": 1,
            "category": "metro",
            "language": "en",
        }  # fmt: skip
    )
    assert score_answer(Choice(("A",)), question) == {"exact": 0.0, "jaccard": 0.5}
    assert score_answer(Choice(("A", "B", "C", "D")), question) == {"exact": 0.0, "jaccard": 0.5}
    assert score_answer(Choice(("A", "B")), question) == {"exact": 1.0, "jaccard": 1.0}
    order = MapQuestion.from_dict({**question.to_dict(), "type": "sorting", "answer": "D > C > B > A"})
    assert score_answer(Choice(tuple("ABCD")), order) == {"exact": 0.0, "kendall_tau": -1.0}
    assert score_answer(Choice(tuple("DCB")), order) == {"exact": 0.0, "kendall_tau": 0.0}  # not every option ranked


def test_a_prediction_for_another_question_is_refused():
    questions, _ = load_questions(QUESTIONS)
    with pytest.raises(ValueError, match="another question"):
        score_prediction(MapPrediction("m02", "m", "A"), questions["m01"])


# -- files to report ----------------------------------------------------------------------------------------------

RESPONSES = {  # model "good" answers all right; "mixed" as commented
    "m01": "A",  # right
    "m02": "Answer: B",  # wrong
    "m03": "Answer: A",  # half the set: jaccard 0.5
    "t01": "The correct options are B and C.",  # right
    "t02": "Answer: B > A > C",  # one swap: tau 1/3
    "t03": "I cannot see it, sorry.",  # refusal
    "g01": "答案：C > A > B > D",  # right
}


def test_files_to_scored_rows_summary_and_tables(tmp_path, capsys):
    questions, _ = load_questions(QUESTIONS)
    rows = [{"id": id, "model": "mixed", "response": text} for id, text in RESPONSES.items()]
    rows += [{"id": q.id, "model": "good", "response": "Answer: " + ", ".join(q.answer)} for q in questions.values()]
    rows += [{"id": "m01", "model": "mixed", "response": "B"}, {"id": "zzz", "model": "mixed", "response": "A"}]
    rows.append({"id": "m02", "model": "mixed"})  # no response field: still a row (a failed call), but answered
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    result = evaluate_files(QUESTIONS, predictions, out=tmp_path / "scored.jsonl", report_dir=tmp_path / "report")
    assert any("answered m01 again" in problem for problem in result.problems)
    assert any("'zzz' matches no question" in problem for problem in result.problems)
    assert any("answered m02 again" in problem for problem in result.problems)

    good, mixed = result.summary["models"]["good"], result.summary["models"]["mixed"]
    assert good["accuracy"] == 1.0 and good["mean_jaccard"] == 1.0 and good["mean_kendall_tau"] == 1.0
    assert mixed["n"] == 7 and mixed["n_unanswered"] == 1 and mixed["n_invalid"] == 1
    assert mixed["accuracy"] == round(3 / 7, 6)
    multiple = dict(mixed["per_type"]["multiple"])
    interval = multiple.pop("intervals")["accuracy"]
    assert multiple == {
        "n": 2, "n_invalid": 0, "accuracy": 0.5, "mean_jaccard": 0.75, "mean_kendall_tau": None,
    }  # fmt: skip
    # two questions, one right, with Poisson(1) weights A and B: the estimate is A / (A + B) (A = B = 0 dropped),
    # 0 or 1 in 27% of kept resamples each, so the 95% interval runs from 0 to 1. Given S = A + B > 0, A is
    # Binomial(S, 1/2): the variance is E[1/(4S) | S > 0] with S ~ Poisson(2), Σ_s≥1 e^-2 2^s / (s · s!) / (1 − e^-2)
    # / 4 = 0.498542 / 0.864665 / 4 = 0.144144, so the SE is 0.380
    assert (interval["n"], interval["low"], interval["high"]) == (2, 0.0, 1.0)
    assert interval["se"] == pytest.approx(0.380, abs=0.02)
    assert mixed["per_type"]["sorting"]["mean_kendall_tau"] == round((1 / 3 + 1) / 2, 6)
    assert list(mixed["per_level"]) == ["1", "2", "3"]
    assert mixed["per_level"]["1"]["accuracy"] == 0.5  # m01 right, m03 wrong
    chinese = {key: value for key, value in mixed["per_language"]["zh"].items() if key != "intervals"}
    assert chinese == {
        "n": 2, "n_invalid": 0, "accuracy": 0.5, "mean_jaccard": None, "mean_kendall_tau": 1.0,
    }  # fmt: skip
    assert set(mixed["per_category"]) == {"metro", "topographic", "street-grid"}
    assert result.summary["metrics"]["kendall_tau"]["types"] == ["sorting"]

    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    t03 = next(row for row in scored if row["id"] == "t03" and row["model"] == "mixed")
    assert t03 == {"id": "t03", "model": "mixed", "parsed": None, "correct": 0, "exact": 0.0,
                   "invalid_reason": "refusal", "tokens": None}  # fmt: skip
    table = markdown_table(result.summary)
    full = "100.00 ± –"  # every answer right: every resample is too, so there is no interval to give
    assert f"| good | {full} | {full} | {full} | 1.000 | {full} | 1.000 | {full} | {full} | {full} | 0/8 | 0 |" in table
    assert "| mixed | 42.86 ± " in table and "Accuracy (%) by language:" in table

    argv = ["mapqa-score", "--questions", str(QUESTIONS), "--predictions", str(predictions), "--out",
            str(tmp_path / "again.jsonl"), "--report", str(tmp_path / "again")]  # fmt: skip
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out == table and "skipped:" in err
    assert (tmp_path / "again" / "summary.json").read_bytes() == (tmp_path / "report" / "summary.json").read_bytes()
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "scored.jsonl").read_bytes()
