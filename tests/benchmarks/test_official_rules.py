"""Variant ``official``: the answer text the public scripts score, chosen by model path.

Follows fscdc/ReasonMap at commit e68dd65 (``main.py``, ``main_closed_models.py``):
- Kimi paths: ``response.split("◁/think▷")[-1].strip()`` (main.py lines 223, 251; long 712, 740);
- Skywork paths: ``response.split("</think>")[-1].strip()`` (lines 312; long 802);
- ``Qwen/QVQ-72B-Preview``: the ``\\text{...}`` parts of ``re.search(r'boxed{(.+)}', ...)`` joined by line
  breaks, the whole response when there is no box (lines 289-296; long 779-786);
- Qwen2.5-VL and InternVL3 paths: the whole response (lines 353, 386, 399, 414; long 841, 874, 887, 900);
- every ``--model`` of ``main_closed_models.py``: the reply's content as it is (lines 93-387; long 657-950).
and ``main_plus.py`` at commit 7ac3bcb (Kimi line 136, the Qwen2.5-VL and DeepEyes paths line 175).
Every expected number is worked out by hand in the comment above it, with the cases of
``test_official_scoring.py`` (city ``hanzi``, a ride on Line 1 from 甲站 to 丁站).
"""

from __future__ import annotations

import json

import pytest

from benchmarks.official_rules import (
    ANSWER_RULES,
    OFFICIAL_MODELS,
    check_official_models,
    choose_rule,
    official_answer_text,
    official_rules,
    resolve_rules,
)
from benchmarks.plus.official import PLUS_MODELS, official_plus_answer, official_plus_verdict
from benchmarks.plus.records import PlusPrediction
from benchmarks.reasonmap.official_scoring import score_official_predictions
from benchmarks.reasonmap.records import Prediction
from reasonmap.score_files import read_official_model
from tests.benchmarks.reasonmap.test_official_scoring import HANZI, ONE_RIDE, official, question, section

Q = question(HANZI, "甲站", "丁站", ONE_RIDE)
RIGHT = section("Line 1", "甲站", "丁站")
DRAFT = section("Line 2", "戊站", "庚站")
KIMI_INSTRUCT = "moonshotai/Kimi-VL-A3B-Instruct"


def test_the_table_holds_every_model_path_of_the_public_scripts():
    # main.py: 4 Kimi, QVQ, 2 Skywork, 6 Qwen2.5-VL, 4 InternVL3 paths; main_closed_models.py: 8 names
    rules = [OFFICIAL_MODELS[path] for path in OFFICIAL_MODELS]
    assert len(OFFICIAL_MODELS) == 25
    assert (rules.count("kimi"), rules.count("qvq"), rules.count("skywork"), rules.count("whole")) == (4, 1, 2, 18)
    assert {OFFICIAL_MODELS[name] for name in ("Gemini", "Doubao-415", "Doubao-428", "o3", "4o")} == {"whole"}
    assert set(OFFICIAL_MODELS.values()) == set(ANSWER_RULES)
    # main_plus.py: 2 Kimi paths, 4 Qwen2.5-VL paths and DeepEyes
    assert sorted(PLUS_MODELS.values()) == ["kimi", "kimi", *["whole"] * 5]


@pytest.mark.parametrize(
    ("model", "text", "expected"),
    [
        # Kimi: the text after the last ◁/think▷: the right answer; 1 + 2 (Line 1) + 1 (departure) + 0 (the
        # arrival is compared with the reference's departure 甲站) = 4, +10 = 14
        ("moonshotai/Kimi-VL-A3B-Thinking", "◁think▷" + DRAFT + "◁/think▷" + RIGHT, 14.0),
        # Kimi does not cut </think>: the draft's fields come first (Line 2, 戊站): wrong endpoints, 0
        ("moonshotai/Kimi-VL-A3B-Instruct-onlytext", "<think>" + DRAFT + "</think>" + RIGHT, 0.0),
        # Skywork cuts after </think>: 14; it does not cut ◁/think▷: 0
        ("Skywork/Skywork-R1V2-38B", "<think>" + DRAFT + "</think>\n" + RIGHT, 14.0),
        ("Skywork/Skywork-R1V-38B", "◁think▷" + DRAFT + "◁/think▷" + RIGHT, 0.0),
        # every other model reads the whole response: the draft first, 0
        ("Qwen/Qwen2.5-VL-72B-Instruct", "<think>" + DRAFT + "</think>\n" + RIGHT, 0.0),
        ("OpenGVLab/InternVL3-78B", "<think>" + DRAFT + "</think>\n" + RIGHT, 0.0),
        ("o3", "<think>" + DRAFT + "</think>\n" + RIGHT, 0.0),
        ("a-run-nobody-knows", "<think>" + DRAFT + "</think>\n" + RIGHT, 0.0),
        # and an answer without tags the same for all: 14
        ("Qwen/Qwen2.5-VL-3B-Instruct", RIGHT, 14.0),
    ],
)
def test_think_tags_are_cut_only_for_the_kimi_and_skywork_paths(model, text, expected):
    assert official(text, Q, HANZI, rule=choose_rule(model).rule).map_score == expected


def test_kimi_and_skywork_strip_the_answer_and_the_others_do_not():
    # a long answer whose last field is the arrival: its value runs to the next line break. Read whole,
    # the trailing break is there: arrival 丁站, correct: 1 + 2 + 1 + 1 + via part 0 (no via text with 站:
    # IoU 0, nothing matched) = 5, +20 = 25. Stripped (Kimi's rule), no break follows: arrival Wrong, 0.
    text = section("Line 1", "甲站", "丁站")
    assert official(text, Q, HANZI, kind="long").map_score == 25.0
    assert official(text, Q, HANZI, kind="long", rule="kimi").map_score == 0.0


def test_qvq_keeps_the_text_parts_of_its_box_one_per_line():
    boxed = "\\boxed{\\text{Route Name: Line 1} \\\\ \\text{Departure Stop: 甲站} \\\\ \\text{Arrival Stop: 丁站}}"
    reasoning = "Let me think. " + DRAFT
    assert official_answer_text(boxed, rule="qvq") == "Route Name: Line 1\nDeparture Stop: 甲站\nArrival Stop: 丁站"
    # short: the arrival is the rest after "Arrival Stop:": 丁站, correct; 14 as above (the draft is not read)
    assert official(reasoning + "\n" + boxed, Q, HANZI, rule="qvq").map_score == 14.0
    # read whole, the fields run to the line break: the draft's Line 2 and 戊站 first: 0
    assert official(reasoning + "\n" + boxed, Q, HANZI).map_score == 0.0
    # a box broken over lines: boxed{(.+)} stops at the first line's last "}", so its one part
    # "\\text{Route Name: Line 1" has no closing brace of its own: no part, the empty text: invalid
    broken = boxed.replace(" \\\\ ", " \\\\\n")
    assert official_answer_text(broken, rule="qvq") == ""
    assert official(broken, Q, HANZI, rule="qvq").failure == "invalid_format"
    # no box (cut off while thinking): the whole response, the draft first: 0
    assert official_answer_text(reasoning, rule="qvq") == reasoning
    # a box without \text{} parts: the empty text, no section: invalid, 0
    assert official_answer_text("\\boxed{Line 1}", rule="qvq") == ""
    assert official("\\boxed{Line 1}", Q, HANZI, rule="qvq").failure == "invalid_format"


def test_a_prediction_model_chooses_its_rule_unless_one_is_given():
    assert choose_rule("Qwen/QVQ-72B-Preview").chosen_by == "model"
    # the scripts name result files by the path's last part
    assert choose_rule("Skywork-R1V-38B").model_path == "Skywork/Skywork-R1V-38B"
    assert choose_rule("my-run") == choose_rule("my-run", given={"other": "Qwen/QVQ-72B-Preview"})
    assert choose_rule("my-run").chosen_by == "default"
    # a path for every model overrides the model's own name; a mapping only for the runs it names
    assert choose_rule("moonshotai/Kimi-VL-A3B-Thinking", given="Qwen/QVQ-72B-Preview").rule == "qvq"
    assert choose_rule("qwen-t0", given={"qwen-t0": "Qwen/QVQ-72B-Preview"}).chosen_by == "given"
    # a main.py path scoring plus answers: main_plus.py has no rule for it, the default
    assert choose_rule("m", given="Qwen/QVQ-72B-Preview", table=PLUS_MODELS).rule == "whole"
    assert official_rules(["b", "Qwen/QVQ-72B-Preview"], given={"b": "Skywork/Skywork-R1V2-38B"}) == {
        "Qwen/QVQ-72B-Preview": {"rule": "qvq", "model_path": "Qwen/QVQ-72B-Preview", "chosen_by": "model"},
        "b": {"rule": "skywork", "model_path": "Skywork/Skywork-R1V2-38B", "chosen_by": "given"},
    }
    with pytest.raises(ValueError, match="run 'x'.*'Qwen/QVQ'"):
        check_official_models({"x": "Qwen/QVQ"})
    with pytest.raises(ValueError, match="rule must be one of"):
        official_answer_text("", rule="nope")


def test_a_batch_reads_each_model_with_its_own_rule():
    text = "◁think▷" + DRAFT + "◁/think▷" + RIGHT
    predictions = [Prediction("q", model, "short", text) for model in ("moonshotai/Kimi-VL-A3B-Thinking", "run")]
    verdicts, _ = score_official_predictions({"q": Q}, predictions, lambda q: HANZI)
    assert [v.map_score for v in verdicts] == [14.0, 0.0]
    verdicts, _ = score_official_predictions(
        {"q": Q}, predictions, lambda q: HANZI, rules=resolve_rules(["run"], given={"run": KIMI_INSTRUCT})
    )
    assert [v.map_score for v in verdicts] == [14.0, 14.0]


def test_plus_answers_follow_main_plus_rules():
    from benchmarks.plus.public_dataset import hub_plus_question
    from tests.benchmarks.plus.test_official import hub

    # Kimi: the text after ◁/think▷, "The answer is 4": "4". Read whole, a box is there: its content "3"
    text = "◁think▷\\boxed{3}?◁/think▷The answer is 4"
    assert (official_plus_answer(text, rule="kimi"), official_plus_answer(text)) == ("4", "3")
    counting = hub_plus_question(hub("Counting2", 4), position=0, where="record 0")
    for model, correct in (("moonshotai/Kimi-VL-A3B-Thinking", 1), ("Qwen/Qwen2.5-VL-7B-Instruct", 0), ("x", 0)):
        verdict = official_plus_verdict(PlusPrediction("0", model, text), counting, 1.0)
        assert verdict.correct == correct, model
    rules = resolve_rules(["x"], given={"x": KIMI_INSTRUCT}, table=PLUS_MODELS)
    given = official_plus_verdict(PlusPrediction("0", "x", text), counting, 1.0, rules=rules)
    assert given.correct == 1


def test_the_option_reads_a_path_or_a_file_of_runs(tmp_path):
    assert read_official_model("Qwen/QVQ-72B-Preview") == "Qwen/QVQ-72B-Preview"
    assert read_official_model("ChenShawn/DeepEyes-7B") == "ChenShawn/DeepEyes-7B"  # main_plus.py's
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps({"qwen-t0": "Qwen/QVQ-72B-Preview"}), encoding="utf-8")
    assert read_official_model(str(runs)) == {"qwen-t0": "Qwen/QVQ-72B-Preview"}
    runs.write_text(json.dumps({"qwen-t0": "QVQ"}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"runs.json: run 'qwen-t0': 'QVQ' is no model path"):
        read_official_model(str(runs))
    runs.write_text("[1]", encoding="utf-8")
    with pytest.raises(ValueError, match="runs.json: must be a JSON object"):
        read_official_model(str(runs))
    with pytest.raises(ValueError, match="--official-model: 'Qwen' is no model path"):
        read_official_model("Qwen")


def test_a_runs_official_model_is_resolved_once_and_reaches_only_the_variants_that_read_it():
    from benchmarks.tasks import get_task

    for name in ("route", "plus"):
        task = get_task(name)
        assert [variant.name for variant in task.variants if variant.options] == ["official"], name
        given = {**task.options, "official_model": {"run": KIMI_INSTRUCT}}
        rules = task.resolve(given, {"run", "Skywork/Skywork-R1V-38B"}, "p.jsonl")["rules"]
        # the run named in the file: the Kimi path's rule; the other model: its own name's (main.py's or not)
        expected = {"Skywork/Skywork-R1V-38B": "skywork" if name == "route" else "whole", "run": "kimi"}
        assert {model: choice.rule for model, choice in rules.items()} == expected
        assert rules["run"].chosen_by == "given"
        misspelt = {**task.options, "official_model": {"runn": KIMI_INSTRUCT}}
        with pytest.raises(
            ValueError, match=r"^--official-model: run 'runn' is no model of p.jsonl .*did you mean 'run'\?$"
        ):
            task.resolve(misspelt, {"run"}, "p.jsonl")
    assert [get_task(name).resolve for name in ("mapqa", "probe")] == [None, None]
