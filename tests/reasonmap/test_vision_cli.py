"""``reasonmap render``, ``ocr`` and ``diagnose`` end to end on a rendered map, and their clean errors."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchmarks.jsonl import write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from graphkit.cities import city_graph
from reasonmap.cli import main
from vision.analyse import read_evidence
from vision.evidence import read_truth


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("map")
    assert (
        main(["render", "--city", "rome", "--seed", "2", "--palette", "confusable", "--out", str(folder / "rome.png")])
        == 0
    )
    return folder / "rome.png"


def test_render_writes_the_map_and_its_truth_deterministically(rendered, tmp_path, capsys):
    truth = read_truth(rendered.with_name("rome.truth.json"))
    assert set(truth.stations) == set(city_graph("rome").stations)
    code, _, err = run(
        capsys, "render", "--city", "rome", "--seed", "2", "--palette", "confusable", "--out", tmp_path / "again.png"
    )
    assert code == 0 and "again.truth.json" in err
    assert (tmp_path / "again.png").read_bytes() == rendered.read_bytes()


@pytest.mark.slow
def test_ocr_json_reports_recall_boxes_and_unmatched_texts(rendered, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "ocr",
        rendered,
        "--city",
        "rome",
        "--json",
        "--lines",
        "--cache-dir",
        tmp_path,
        "--quiet",
        "--evidence",
        tmp_path / "evidence.json",
    )
    assert code == 0
    report = json.loads(out)
    assert {"recall", "seconds", "stations", "unmatched_texts"} <= set(report)
    assert report["recall"] >= 0.97 and not report["ocr_cached"]
    station = report["stations"][0]
    assert set(station) >= {"name", "found", "box", "score"}
    found = [s for s in report["stations"] if s["found"]]
    assert all(len(s["box"]) == 4 and s["score"] > 0 for s in found)
    assert report["recall"] == round(len(found) / len(report["stations"]), 4)
    truth = read_truth(rendered.with_name("rome.truth.json"))
    for name, line in report["lines"].items():
        assert line["colour"] is not None, name
    assert report["colour_pairs"] and all(len(pair["lines"]) == 2 for pair in report["colour_pairs"])
    evidence = read_evidence(tmp_path / "evidence.json")
    assert evidence.stations.keys() == truth.stations.keys()
    code, out, _ = run(capsys, "ocr", rendered, "--city", "rome", "--json", "--cache-dir", tmp_path, "--quiet")
    assert json.loads(out)["ocr_cached"]


@pytest.mark.slow
def test_diagnose_labels_answers_from_the_truth_or_from_ocr(rendered, tmp_path, capsys):
    graph = city_graph("rome")
    questions = generate_questions(graph, seed=4, per_city=4)
    write_jsonl(tmp_path / "q.jsonl", questions)
    rows = [{"id": q.id, "model": "m", "question": "short", "response": "I cannot see the map."} for q in questions]
    rows.append({"id": questions[0].id, "model": "m", "question": "long", "response": "", "error": "HTTP 500"})
    rows.append({"id": "nope", "model": "m", "question": "short", "response": "x"})
    write_jsonl(tmp_path / "p.jsonl", rows)
    code, out, err = run(
        capsys,
        "diagnose",
        "--questions",
        tmp_path / "q.jsonl",
        "--predictions",
        tmp_path / "p.jsonl",
        "--map",
        rendered,
        "--truth",
        "--city",
        "rome",
        "--out",
        tmp_path / "d.jsonl",
    )
    assert code == 0 and "skipped:" in err and "nope" in err
    labels = [json.loads(line)["label"] for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert labels == ["refusal"] * len(questions) + ["endpoint_error"]
    code, _, _ = run(
        capsys,
        "diagnose",
        "--questions",
        tmp_path / "q.jsonl",
        "--predictions",
        tmp_path / "p.jsonl",
        "--map",
        rendered,
        "--city",
        "rome",
        "--out",
        tmp_path / "ocr.jsonl",
        "--cache-dir",
        tmp_path,
        "--quiet",
    )
    assert code == 0
    assert (tmp_path / "ocr.jsonl").read_text(encoding="utf-8") == (tmp_path / "d.jsonl").read_text(encoding="utf-8")


def test_vision_commands_fail_cleanly(rendered, tmp_path, capsys):
    (tmp_path / "bad.png").write_text("not an image", encoding="utf-8")
    code, _, err = run(capsys, "ocr", tmp_path / "bad.png", "--city", "rome", "--no-cache", "--quiet")
    assert code == 2 and "bad.png: not a readable image" in err
    code, _, err = run(capsys, "render", "--city", "rome", "--size", "9000", "--out", tmp_path / "x.png")
    assert code == 2 and "8000" in err
    code, _, err = run(capsys, "ocr", rendered, "--city", "rome", "--engine", "paddleocr", "--no-cache", "--quiet")
    assert code == 2 and "det_model_dir" in err


def _refusals(tmp_path, counts):
    """Questions of several cities and one refusal per question: ``counts`` is {city: questions}."""
    questions = [
        question
        for city, count in counts.items()
        for question in generate_questions(city_graph(city), seed=4, per_city=count)
    ]
    write_jsonl(tmp_path / "q.jsonl", questions)
    rows = [{"id": q.id, "model": "m", "question": "short", "response": "I cannot see the map."} for q in questions]
    write_jsonl(tmp_path / "p.jsonl", rows)
    return questions


def test_diagnose_with_one_map_leaves_other_cities_out_of_the_summary(rendered, tmp_path, capsys):
    questions = _refusals(tmp_path, {"rome": 5, "miami": 3})
    rome = sum(q.city == "rome" for q in questions)
    code, out, err = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--map", rendered, "--truth", "--city", "rome", "--out", tmp_path / "d.jsonl",
    )  # fmt: skip
    assert code == 0
    assert (
        f"{len(questions) - rome} predictions about other cities than the map's (miami ({len(questions) - rome}))"
        in err
    )
    summary = json.loads((tmp_path / "d.summary.json").read_text(encoding="utf-8"))
    assert summary["models"]["m"]["total"] == rome and set(summary["models"]["m"]["cities"]) == {"rome"}
    assert f"| m | {rome} |" in out


def test_diagnose_refuses_the_truth_or_evidence_of_another_citys_map(rendered, tmp_path, capsys):
    """Rome's map truth given for Beijing questions: its stations would all be "unreadable" and its lines
    "confused"; the map is refused, naming both cities, before anything is written."""
    from vision.analyse import write_evidence

    _refusals(tmp_path, {"beijing": 2})
    argv = ["diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl"]
    code, _, err = run(capsys, *argv, "--map", rendered, "--truth", "--city", "beijing", "--out", tmp_path / "d.jsonl")
    assert code == 2 and "the truth of a map of 'rome', not of 'beijing'" in err
    truth = read_truth(str(rendered).replace(".png", ".truth.json"), city="rome")
    write_evidence(tmp_path / "rome.evidence.json", truth)
    code, _, err = run(
        capsys, *argv, "--evidence", tmp_path / "rome.evidence.json", "--city", "beijing", "--out", tmp_path / "d.jsonl"
    )
    assert code == 2 and "read from a map of 'rome', not of 'beijing'" in err
    assert not (tmp_path / "d.jsonl").exists()


def test_diagnose_maps_folder_reads_each_citys_own_map(tmp_path, capsys):
    from vision.analyse import write_evidence
    from vision.render import render_map, write_rendered

    maps = tmp_path / "maps"
    write_rendered(render_map(city_graph("rome"), seed=1), maps / "italy__rome.png")
    miami = read_truth(write_rendered(render_map(city_graph("miami"), seed=1), tmp_path / "miami.png")[1], city="miami")
    write_evidence(maps / "miami.evidence.json", miami)
    questions = _refusals(tmp_path, {"rome": 4, "miami": 3, "geneva": 2})
    code, out, err = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--maps", maps, "--truth", "--out", tmp_path / "d.jsonl",
    )  # fmt: skip
    assert code == 0
    assert "no map evidence for city 'geneva'" in err and "rome" not in err and "miami" not in err
    summary = json.loads((tmp_path / "d.summary.json").read_text(encoding="utf-8"))
    per_city = {city: counts["total"] for city, counts in summary["models"]["m"]["cities"].items()}
    assert per_city == {city: sum(q.city == city for q in questions) for city in ("geneva", "miami", "rome")}


def test_diagnose_needs_a_city_with_a_single_map(rendered, tmp_path, capsys):
    _refusals(tmp_path, {"rome": 2})
    code, _, err = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--map", rendered, "--truth", "--out", tmp_path / "d.jsonl",
    )  # fmt: skip
    assert code == 2 and "--city or --metro" in err
    code, _, err = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--maps", tmp_path / "nowhere", "--out", tmp_path / "d.jsonl",
    )  # fmt: skip
    assert code == 2 and "nowhere: not a folder of maps" in err


def test_a_cache_dir_that_is_a_file_is_refused_before_any_ocr(rendered, tmp_path, capsys, monkeypatch):
    import vision.ocr

    def no_ocr(*args, **kwargs):
        raise AssertionError("the OCR ran")

    monkeypatch.setattr(vision.ocr, "ocr_array", no_ocr)
    monkeypatch.setattr(vision.ocr, "open_engine", no_ocr)
    taken = tmp_path / "cache.txt"
    taken.write_text("mine", encoding="utf-8")
    _refusals(tmp_path, {"rome": 2})
    for folder, why in [(taken, "it is a file"), (taken / "ocr", f"{taken} is a file")]:
        expected = f"{folder}: cannot be the OCR cache folder: {why} (give a folder, or turn the cache off)"
        code, _, err = run(capsys, "ocr", rendered, "--city", "rome", "--cache-dir", folder, "--quiet")
        assert (code, err) == (2, f"reasonmap ocr: error: {expected}\n")
        code, _, err = run(
            capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
            "--map", rendered, "--city", "rome", "--cache-dir", folder, "--out", tmp_path / "d.jsonl",
        )  # fmt: skip
        assert (code, err) == (2, f"reasonmap diagnose: error: {expected}\n")
    assert taken.read_text(encoding="utf-8") == "mine" and not (tmp_path / "d.jsonl").exists()


@pytest.mark.slow
@pytest.mark.figures  # the drawings are written for real
def test_diagnose_draws_each_wrong_answer_and_one_example_per_label(rendered, tmp_path, capsys):
    from baselines.answers import render_answer

    questions = generate_questions(city_graph("rome"), seed=4, per_city=3)
    write_jsonl(tmp_path / "q.jsonl", questions)
    right = render_answer(list(questions[0].routes[0]), "short", None)
    made_up = render_answer(
        [dataclasses.replace(questions[2].routes[0][-1], arrival_stop="Quillfeather Junction")], "short", None
    )
    rows = [
        {"id": questions[0].id, "model": "m", "question": "short", "response": right},
        {"id": questions[1].id, "model": "m", "question": "short", "response": "I cannot see the map."},
        {"id": questions[2].id, "model": "m", "question": "short", "response": made_up},
        {"id": questions[1].id, "model": "other", "question": "short", "response": "I cannot see the map."},
    ]
    write_jsonl(tmp_path / "p.jsonl", rows)
    code, out, _ = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--map", rendered, "--truth", "--city", "rome", "--out", tmp_path / "d.jsonl", "--draw", tmp_path / "drawn",
        "--quiet",
    )  # fmt: skip
    assert code == 0
    labels = [json.loads(line)["label"] for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert labels == ["correct", "refusal", "hallucinated_station", "refusal"]
    # the three wrong answers, each in its own file
    expected = {f"{questions[1].id}__m__short.png", f"{questions[2].id}__m__short.png"}
    expected.add(f"{questions[1].id}__other__short.png")
    assert {path.name for path in (tmp_path / "drawn").iterdir()} == expected
    summary = json.loads((tmp_path / "d.summary.json").read_text(encoding="utf-8"))
    # one example per failure label: the first refusal (m's, not other's), and the made-up station
    assert summary["examples"] == {
        "refusal": f"drawn/{questions[1].id}__m__short.png",
        "hallucinated_station": f"drawn/{questions[2].id}__m__short.png",
    }
    assert f"| refusal | ![refusal](drawn/{questions[1].id}__m__short.png) |" in out
    assert all((tmp_path / path).is_file() for path in summary["examples"].values())
    manifest = json.loads((tmp_path / "d.manifest.json").read_text(encoding="utf-8"))
    assert {entry["name"] for entry in manifest["files"]} >= {f"drawn/{name}" for name in expected}


def test_diagnose_draw_must_name_a_folder(rendered, tmp_path, capsys):
    _refusals(tmp_path, {"rome": 1})
    (tmp_path / "afile").write_text("", encoding="utf-8")
    code, _, err = run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--map", rendered, "--truth", "--city", "rome", "--out", tmp_path / "d.jsonl", "--draw", tmp_path / "afile",
    )  # fmt: skip
    assert code == 2 and "afile: a file, not a folder" in err and not (tmp_path / "d.jsonl").exists()


def _diagnose_and_draw(capsys, rendered, tmp_path, draw):
    return run(
        capsys, "diagnose", "--questions", tmp_path / "q.jsonl", "--predictions", tmp_path / "p.jsonl",
        "--map", rendered, "--truth", "--city", "rome", "--out", tmp_path / "d.jsonl", "--draw", draw, "--quiet",
    )  # fmt: skip


def test_diagnose_draws_any_model_name_into_a_file_name_the_file_system_takes(rendered, tmp_path, capsys):
    """A 300-character model name gave 'File name too long' and no diagnoses at all (campaign 4, C28)."""
    questions = _refusals(tmp_path, {"rome": 2})
    # two names alike in their first 300 characters, and one of emoji (4 bytes each in UTF-8)
    models = ["M" * 300, "M" * 300 + "2", "\N{GRINNING FACE}" * 200]
    rows = [
        {"id": q.id, "model": model, "question": "short", "response": "I cannot see the map."}
        for q in questions
        for model in models
    ]
    write_jsonl(tmp_path / "p.jsonl", rows)
    code, _, err = _diagnose_and_draw(capsys, rendered, tmp_path, tmp_path / "drawn")
    assert code == 0, err
    names = [path.name for path in (tmp_path / "drawn").iterdir()]
    assert len(names) == len(rows)  # one each, none overwritten by another
    assert all(len(name.encode("utf-8")) <= 255 for name in names), max(map(len, names))
    assert len((tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()) == len(rows)


def test_a_drawing_that_fails_is_reported_and_the_diagnoses_are_written(rendered, tmp_path, capsys):
    from vision.diagnose import Diagnosis
    from vision.diagnosis_drawings import drawing_name

    questions = _refusals(tmp_path, {"rome": 3})
    blocked = drawing_name(Diagnosis(questions[1].id, "m", "short", "refusal", "other", {}, "rome"))
    (tmp_path / "drawn" / blocked).mkdir(parents=True)  # a folder where the drawing would go: it cannot be written
    code, _, err = _diagnose_and_draw(capsys, rendered, tmp_path, tmp_path / "drawn")
    assert code == 0
    assert f"skipped: {tmp_path / 'drawn' / blocked}: not drawn (" in err
    drawn = {path.name for path in (tmp_path / "drawn").iterdir() if path.is_file()}
    assert drawn == {f"{questions[0].id}__m__short.png", f"{questions[2].id}__m__short.png"}
    assert len((tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()) == 3
    assert (tmp_path / "d.summary.json").is_file() and (tmp_path / "d.summary.md").is_file()
    # a drawing folder that cannot be made at all: reported once, the diagnoses written all the same
    (tmp_path / "afile").write_text("", encoding="utf-8")
    (tmp_path / "d.jsonl").unlink()
    code, _, err = _diagnose_and_draw(capsys, rendered, tmp_path, tmp_path / "afile" / "sub")
    assert code == 0 and f"skipped: --draw {tmp_path / 'afile' / 'sub'}: no drawing made (" in err
    assert len((tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def _font_lacks(text):
    """The characters of ``text`` the Latin label font's character map lacks, read here with fontTools
    (``fontTools.ttLib.TTFont(...)["cmap"].getBestCmap()``), spaces and joiners aside."""
    import unicodedata

    from fontTools.ttLib import TTFont

    from vision.fonts import find_font, font_index

    path = find_font("latin")
    cmap = TTFont(str(path), fontNumber=font_index(path, "latin") or 0)["cmap"].getBestCmap()
    return [c for c in text if not c.isspace() and unicodedata.category(c) != "Cf" and ord(c) not in cmap]


@pytest.mark.parametrize(
    ("station", "line"),
    [
        ("\N{METRO}\N{METRO} Emoji", "Line 1"),
        ("Alpha", "\N{MATHEMATICAL BOLD FRAKTUR CAPITAL A}\N{MATHEMATICAL BOLD FRAKTUR SMALL B} Line"),
    ],
)
def test_render_refuses_a_name_its_font_would_draw_as_boxes(tmp_path, capsys, station, line):
    """Such names were drawn as empty boxes while the truth recorded them (campaign 4, L-render)."""
    name = station if station != "Alpha" else line
    assert _font_lacks(name)  # what makes the case: the font found has no glyph for it
    metro = {line: [station, "Beta", "Gamma"], "Line 2": ["Beta", "Delta", "Epsilon"]}
    (tmp_path / "names.json").write_text(json.dumps(metro, ensure_ascii=False), encoding="utf-8")
    code, _, err = run(capsys, "render", "--metro", tmp_path / "names.json", "--out", tmp_path / "map.png")
    kind = "station" if name == station else "line"
    missing = ", ".join(f"U+{ord(c):04X} {c!r}" for c in dict.fromkeys(_font_lacks(name)))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{kind} {name!r} holds characters its label font" in err and f"no glyph for: {missing};" in err
    assert "REASONMAP_FONT" in err
    assert not (tmp_path / "map.png").exists() and not (tmp_path / "map.truth.json").exists()


def test_render_draws_names_of_joiners_marks_and_other_scripts(tmp_path, capsys):
    names = ["Cafe\N{COMBINING ACUTE ACCENT}", "A\N{ZERO WIDTH JOINER}B", "Zürich", "Gare"]
    assert not any(_font_lacks(name) for name in names)
    (tmp_path / "names.json").write_text(json.dumps({"Line 1": names}, ensure_ascii=False), encoding="utf-8")
    code, _, err = run(capsys, "render", "--metro", tmp_path / "names.json", "--out", tmp_path / "map.png")
    assert code == 0, err
    assert set(read_truth(tmp_path / "map.truth.json").stations) == set(names)
