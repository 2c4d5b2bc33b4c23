"""ReasonMap-Plus: the hub's records read as they are, and the public ``main_plus.py`` extraction by hand."""

from __future__ import annotations

import json

import pytest

from benchmarks.errors import InvalidRecord
from benchmarks.plus.official import official_plus_answer, score_official_plus
from benchmarks.plus.public_dataset import hub_plus_question
from reasonmap.score_files import ScoreSettings, evaluate_files, explain_files


def hub(kind, answer, **extra):
    record = {
        "country": "italy",
        "city": "rome",
        "type": kind,
        "question": "According to the subway map, ...",
        "station_1": "Termini",
        "station_2": "",
        "answer": answer,
        "figure": "",
        "difficulty_city": "easy",
        "city_line_count": 3,
        "city_transfer_count": 1,
    }
    record.update(extra)
    return record


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # no "oxed{": "The answer is" (capitalised form) splits off " B. Because ...", stripped, first line,
        # before ". ": "B"; find_math_answer lower-cases: "b"
        ("Let me see. The answer is B. Because it is.", "b"),
        # one box: its content "12"
        ("So \\boxed{12}", "12"),
        # two boxes: "\\boxed{" + the text after the last "oxed{" = "\\boxed{D}."; its content: "d"
        ("\\boxed{A}? No, \\boxed{D}.", "d"),
        # no phrase, no box: the whole text lower-cased, blanks removed, "." off the end: "yes"
        ("Yes.", "yes"),
        # "Final Answer: yes" holds none of the phrases: "finalanswer:yes" (":" only stripped at the start)
        ("Final Answer: yes", "finalanswer:yes"),
        # "the answer is" -> "3 stations" -> blanks removed: "3stations"
        ("I think the answer is 3 stations", "3stations"),
        # after the last "=": " 5" -> "5"; "$" removed
        ("the answer is $x = 5$", "5"),
        # read whole (any model but Kimi's): the text after the phrase's last occurrence: "8"
        ("<think>the answer is 7</think>the answer is 8", "8"),
    ],
)
def test_official_extraction_by_hand(response, expected):
    assert official_plus_answer(response) == expected


def test_official_verdicts_by_type():
    torf = hub_plus_question(hub("TorF1", 1), position=0, where="record 0")
    choice = hub_plus_question(hub("Counting1", 3), position=1, where="record 1")
    count = hub_plus_question(hub("Counting2", 3), position=2, where="record 2")
    assert (torf.answer, choice.answer, count.answer) == ("yes", "D", 3)
    assert score_official_plus("Yes.", torf) == (1, "yes")
    assert score_official_plus("Final Answer: yes", torf) == (0, None)
    assert score_official_plus("\\boxed{A}? No, \\boxed{D}.", choice) == (1, "D")
    assert score_official_plus("the answer is 3 stations", count) == (0, None)
    # Python's int() reads " 3" after the phrase as 3: correct
    assert score_official_plus("the answer is 3", count) == (1, 3)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (hub("TorF2", 2), "0 or 1"),
        (hub("Counting1", 4), "0 to 3"),
        (hub("Counting3", "three"), "integer"),
        (hub("Counting9", 1), "type"),
    ],
)
def test_bad_hub_records_name_the_field(record, message):
    with pytest.raises(InvalidRecord, match=message):
        hub_plus_question(record, position=5, where="record 5")


@pytest.mark.slow
def test_hub_files_score_with_both_readers_and_compare(tmp_path):
    records = [hub("TorF1", 1), hub("Counting2", 2), {"type": "TorF1", "answer": 7}]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    predictions = [
        {"id": "0", "model": "m", "response": "Final Answer: yes"},
        {"id": "1", "model": "m", "response": "The answer is 2."},
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
    ours = evaluate_files(
        tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "a.jsonl", report_dir=tmp_path / "a"
    )
    theirs = evaluate_files(
        tmp_path / "q.jsonl",
        tmp_path / "p.jsonl",
        out=tmp_path / "b.jsonl",
        report_dir=tmp_path / "b",
        settings=ScoreSettings(variant="official"),
    )
    assert [v.correct for v in ours.verdicts] == [1, 1]
    assert [v.correct for v in theirs.verdicts] == [0, 1]
    assert len(ours.problems) == 1 and "record 2" not in ours.problems[0] and ":2:" in ours.problems[0]
    compared = explain_files(
        tmp_path / "q.jsonl",
        tmp_path / "p.jsonl",
        out=tmp_path / "c.jsonl",
        report_dir=tmp_path / "c",
        settings=ScoreSettings(weighting="none"),
    )
    torf = compared.explanation["models"]["m"]["TorF1"]
    # explain_files' default pair (paper, official) takes paper as plus's toolkit, its former name
    assert (torf["toolkit"]["accuracy"], torf["official"]["accuracy"], torf["causes"]["extraction"]["verdicts"]) == (
        100.0,
        0.0,
        1,
    )
    # one question: no interval can be claimed, so none is given (± –)
    assert torf["toolkit"]["intervals"]["accuracy"] == {"n": 1, "se": None, "low": None, "high": None}  # n < 2: none
    assert "| m | TorF1 | 1 | 100.00 ± – | 0.00 ± – | -100.00 | 1 |" in (tmp_path / "c" / "compare.md").read_text(
        encoding="utf-8"
    )


def test_hub_parquet_files_are_plus_files(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from benchmarks.plus.loading import is_plus_file, load_questions

    pq.write_table(pa.Table.from_pylist([hub("TorF2", 0), hub("Counting3", 5)]), tmp_path / "plus.parquet")
    assert is_plus_file(tmp_path / "plus.parquet")
    questions, problems = load_questions(tmp_path / "plus.parquet")
    assert ({q.id: q.answer for q in questions.values()}, problems) == ({"0": "no", "1": 5}, [])


def test_plus_reports_and_comparisons_say_which_rule_read_each_model(tmp_path):
    # main_plus.py reads a Kimi path after ◁/think▷ ("The answer is 2": right), any other name whole
    # (a box is there: its content "3": wrong)
    (tmp_path / "q.jsonl").write_text(json.dumps(hub("Counting2", 2)) + "\n", encoding="utf-8")
    text = "◁think▷\\boxed{3}?◁/think▷The answer is 2"
    rows = [{"id": "0", "model": name, "response": text} for name in ("moonshotai/Kimi-VL-A3B-Thinking", "run")]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    files = dict(out=tmp_path / "c.jsonl", report_dir=tmp_path / "c", settings=ScoreSettings(weighting="none"))
    compared = explain_files(tmp_path / "q.jsonl", tmp_path / "p.jsonl", **files)
    official = compared.evaluations["official"]
    assert [v.correct for v in official.verdicts] == [1, 0]
    rules = compared.explanation["official_rules"]
    assert rules["run"] == {"rule": "whole", "model_path": None, "chosen_by": "default"}
    assert rules["moonshotai/Kimi-VL-A3B-Thinking"]["rule"] == "kimi"
    assert "| run | – | `whole` | default |" in (tmp_path / "c" / "official" / "table.md").read_text(encoding="utf-8")
    assert "| run | – | `whole` | default |" in (tmp_path / "c" / "compare.md").read_text(encoding="utf-8")
    given = evaluate_files(
        tmp_path / "q.jsonl",
        tmp_path / "p.jsonl",
        out=tmp_path / "g.jsonl",
        report_dir=tmp_path / "g",
        settings=ScoreSettings(
            variant="official", options={"official_model": {"run": "moonshotai/Kimi-VL-A3B-Instruct"}}
        ),
    )
    assert [v.correct for v in given.verdicts] == [1, 1]
