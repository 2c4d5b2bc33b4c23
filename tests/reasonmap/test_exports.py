"""The command line's bridges to other tools: ``export --format hf`` and ``score --from``."""

from __future__ import annotations

import json

import pytest

from reasonmap.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def scored_set(tmp_path, capsys):
    """A small generated set and the oracle's answers, scored from the JSON Lines files."""
    questions, predictions = tmp_path / "q.jsonl", tmp_path / "p.jsonl"
    assert run(capsys, "generate", "--cities", "rome,kl", "--per-city", "3", "--out", str(questions), "--quiet")[0] == 0
    assert run(capsys, "baseline", "oracle", "--questions", str(questions), "--out", str(predictions))[0] == 0
    code, _, _ = run(
        capsys, "score", "--questions", str(questions), "--predictions", str(predictions),
        "--out", str(tmp_path / "scored.jsonl"), "--report", str(tmp_path / "report"),
    )  # fmt: skip
    assert code == 0
    return questions, predictions, (tmp_path / "scored.jsonl").read_text(encoding="utf-8")


def test_an_exported_dataset_scores_like_the_questions_it_came_from(tmp_path, capsys, scored_set):
    datasets = pytest.importorskip("datasets")
    questions, predictions, expected = scored_set
    from PIL import Image

    (tmp_path / "maps").mkdir()
    Image.new("RGB", (5, 5), (0, 0, 0)).save(tmp_path / "maps" / "rome.png")
    code, _, err = run(
        capsys, "export", "--format", "hf", "--questions", str(questions), "--maps", str(tmp_path / "maps"),
        "--out", str(tmp_path / "D"),
    )  # fmt: skip
    assert code == 0 and "wrote 6 questions" in err
    assert "no map of 'kl'" in err  # reported; its questions are kept, without a figure
    loaded = datasets.load_from_disk(str(tmp_path / "D"))
    assert [row["figure"] is None for row in loaded] == [row["city"] == "kl" for row in loaded]
    embedded = json.loads((tmp_path / "q.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert loaded[0]["id"] == embedded["id"] and json.loads(loaded[0]["json"])  # the city's Metro Data
    code, _, _ = run(
        capsys, "score", "--questions", str(tmp_path / "D"), "--predictions", str(predictions),
        "--out", str(tmp_path / "again.jsonl"), "--report", str(tmp_path / "again"),
    )  # fmt: skip
    assert code == 0 and (tmp_path / "again.jsonl").read_text(encoding="utf-8") == expected


def test_score_from_lmms_eval_rows_matches_the_same_answers_as_jsonl(tmp_path, capsys, scored_set):
    _, predictions, expected = scored_set
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "baseline:oracle" / "samples_reasonmap_short.jsonl"
    log.parent.mkdir()
    short = [row for row in rows if row["question"] == "short"]
    log.write_text(
        "".join(json.dumps({"doc_id": i, "doc": {"id": r["id"]}, "filtered_resps": [r["response"]]}) + "\n"
                for i, r in enumerate(short)),
        encoding="utf-8",
    )  # fmt: skip
    code, _, _ = run(
        capsys, "score", "--questions", str(tmp_path / "q.jsonl"), "--predictions", str(log), "--from", "lmms-eval",
        "--out", str(tmp_path / "lmms.jsonl"), "--report", str(tmp_path / "lmms"),
    )  # fmt: skip
    assert code == 0
    # the oracle's rows carry no token counts, as lmms-eval's logs carry none: short rows score byte for byte alike
    wanted = [line for line in expected.splitlines() if json.loads(line)["question"] == "short"]
    assert (tmp_path / "lmms.jsonl").read_text(encoding="utf-8").splitlines() == wanted


def test_score_from_a_harness_needs_the_kind_it_cannot_tell(tmp_path, capsys, scored_set):
    sheet = tmp_path / "m_ReasonMap.csv"
    sheet.write_text("index,prediction\nrome-0000,Route Name: Line A\n", encoding="utf-8")
    code, _, err = run(
        capsys, "score", "--questions", str(tmp_path / "q.jsonl"), "--predictions", str(sheet),
        "--from", "vlmevalkit", "--out", str(tmp_path / "s.jsonl"), "--report", str(tmp_path / "r"),
    )  # fmt: skip
    # nothing could be scored: the skipped record says why, and the exit status says nothing came of it
    assert code == 1 and "--kind" in err and "nothing scored" in err
    assert (tmp_path / "s.jsonl").read_text(encoding="utf-8") == ""


def test_predictions_converts_a_harness_file_into_the_toolkits_rows(tmp_path, capsys):
    sheet = tmp_path / "m_ReasonMap.csv"
    sheet.write_text("index,kind,prediction\nrome-0000,short,Route Name: Line A\n,long,x\n", encoding="utf-8")
    code, _, err = run(
        capsys, "predictions", str(sheet), "--from", "vlmevalkit", "--model", "m", "--out", str(tmp_path / "p")
    )
    assert code == 0 and "wrote 1 prediction rows" in err and ":3:" in err
    rows = [json.loads(line) for line in (tmp_path / "p").read_text(encoding="utf-8").splitlines()]
    assert rows == [
        {"id": "rome-0000", "model": "m", "question": "short", "response": "Route Name: Line A", "tokens": None}
    ]


def test_export_replaces_a_dataset_folder_but_never_a_folder_of_other_files(tmp_path, capsys, scored_set):
    pytest.importorskip("datasets")
    questions = str(scored_set[0])
    research = tmp_path / "research"
    (research / "sub").mkdir(parents=True)
    (research / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "export", "--questions", questions, "--out", str(research))
    assert code == 2 and "research: holds files that are not a dataset (notes.txt, sub/)" in err
    assert (research / "notes.txt").read_text(encoding="utf-8") == "mine" and (research / "sub").is_dir()
    assert run(capsys, "export", "--questions", questions, "--out", str(tmp_path / "D"))[0] == 0
    first = {path.name: path.read_bytes() for path in (tmp_path / "D").iterdir()}
    assert run(capsys, "export", "--questions", questions, "--out", str(tmp_path / "D"))[0] == 0  # replaced
    assert {path.name: path.read_bytes() for path in (tmp_path / "D").iterdir()} == first
    (tmp_path / "empty").mkdir()
    assert run(capsys, "export", "--questions", questions, "--out", str(tmp_path / "empty"))[0] == 0
    (tmp_path / "E.partial").mkdir()  # where the dataset is written first: not someone's folder either
    (tmp_path / "E.partial" / "draft.md").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "export", "--questions", questions, "--out", str(tmp_path / "E"))
    assert code == 2 and "E.partial: holds files that are not a dataset (draft.md)" in err
    assert (tmp_path / "E.partial" / "draft.md").is_file()
    (tmp_path / "E.partial" / "draft.md").unlink()
    (tmp_path / "E.partial" / "data-00000-of-00001.arrow").write_bytes(b"")  # what a killed export leaves
    assert run(capsys, "export", "--questions", questions, "--out", str(tmp_path / "E"))[0] == 0
    assert not (tmp_path / "E.partial").exists()


def test_export_reads_no_map_outside_the_maps_folder(tmp_path, capsys):
    pytest.importorskip("datasets")
    from PIL import Image

    record = json.loads(next(line for line in _generated(tmp_path, capsys).read_text(encoding="utf-8").splitlines()))
    (tmp_path / "a" / "maps").mkdir(parents=True)
    Image.new("RGB", (5, 5)).save(tmp_path / "secret.png")
    record["city"] = "../../secret"
    questions = tmp_path / "out.jsonl"
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    argv = [
        "export",
        "--questions",
        str(questions),
        "--maps",
        str(tmp_path / "a" / "maps"),
        "--out",
        str(tmp_path / "D"),
    ]
    code, _, err = run(capsys, *argv)
    assert code == 0 and "is not a file name inside" in err
    import datasets

    assert [row["figure"] for row in datasets.load_from_disk(str(tmp_path / "D"))] == [None]


def _generated(tmp_path, capsys, *options):
    out = tmp_path / "generated.jsonl"
    argv = ["generate", "--city", "rome", "--per-city", "2", "--quota", "1:1:0", *options, "--out", str(out), "--quiet"]
    assert run(capsys, *argv)[0] == 0
    return out


def test_export_of_another_tasks_questions_or_of_no_question_is_one_line(tmp_path, capsys):
    plus = _generated(tmp_path, capsys, "--task", "plus")
    code, _, err = run(capsys, "export", "--questions", str(plus), "--out", str(tmp_path / "D"))
    assert code == 2 and err.splitlines() == [
        f"reasonmap export: error: {plus}: holds plus questions; `export --format hf` writes route questions only"
        " (the public ReasonMap set's schema)"
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n', encoding="utf-8")
    code, _, err = run(capsys, "export", "--questions", str(bad), "--out", str(tmp_path / "D"))
    assert code == 1 and err.splitlines()[-1] == f"reasonmap export: nothing exported: {bad} holds no route question"
    assert len(err) < 300 and not (tmp_path / "D").exists()


def test_a_repeated_question_is_reported_at_its_own_line(tmp_path, capsys, scored_set):
    """``export`` of a file holding its questions twice said ``q2.jsonl:0`` for each (campaign 4, L-export)."""
    pytest.importorskip("datasets")
    questions, _, _ = scored_set
    lines = questions.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6  # rome and kl, 3 each
    # the file twice, a blank line between: the copies are lines 8 to 13, the first of each on lines 1 to 6
    (tmp_path / "q2.jsonl").write_text("\n".join([*lines, "", *lines]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "export", "--questions", str(tmp_path / "q2.jsonl"), "--out", str(tmp_path / "hf"))
    assert code == 0
    ids = [json.loads(line)["id"] for line in lines]
    expected = [
        f"skipped: {tmp_path / 'q2.jsonl'}:{8 + index}: question id {id!r} appears twice (first on line {1 + index});"
        " the first is used"
        for index, id in enumerate(ids)
    ]
    assert [line for line in err.splitlines() if line.startswith("skipped:")] == expected
