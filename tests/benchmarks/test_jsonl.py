"""The shared JSON Lines reader: one bad line never costs another, and no input can hang or exhaust it."""

from __future__ import annotations

import json
import os

import pytest

from baselines.solvers import run_solver
from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import decode_line, first_record, read_jsonl, write_jsonl
from benchmarks.reasonmap.generate import generate_questions
from graphkit.cities import city_graph
from reasonmap.cli import main


def _ids(obj, where):
    if not isinstance(obj, dict) or "id" not in obj:
        raise InvalidRecord(f"{where}: no id")
    return obj["id"]


def _write(path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def test_a_bad_byte_skips_its_line_only_with_its_true_line_number(tmp_path):
    lines = [json.dumps({"id": n}).encode() for n in range(1, 81)]
    lines[40] = b'{"id": "caf\xe9"}'  # line 41: one latin-1 byte
    _write(tmp_path / "p.jsonl", lines)
    records, problems = read_jsonl(tmp_path / "p.jsonl", _ids)
    assert records == [n for n in range(1, 81) if n != 41]
    assert [str(problem) for problem in problems] == [
        f"{tmp_path / 'p.jsonl'}:41: not UTF-8 (invalid continuation byte at byte 12)"
    ]


def test_lone_surrogates_and_deep_nesting_are_reported_per_line(tmp_path):
    lines = [
        b'{"id": 1}',
        b'{"id": 2, "response": "\\ud800"}',
        b'{"id": 3, "response": "\\ud83d\\ude00"}',  # a proper pair: one emoji
        b"[" * 100_000,
        b'{"id": 5, "x": ' + b"[" * 150 + b"]" * 150 + b"}",
        b'{"id": 6, "response": "' + b"{" * 300 + b'"}',  # a model stuck in a loop: text, scored as invalid
    ]
    _write(tmp_path / "p.jsonl", lines)
    records, problems = read_jsonl(tmp_path / "p.jsonl", _ids)
    assert records == [1, 3, 5, 6]
    assert [(problem.line, problem.message.split(" (")[0]) for problem in problems] == [
        (2, "holds an unpaired surrogate escape"),
        (4, "nested too deeply to read"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": 1, "response": "x"}\n',
        b'  \t{"id": 1}  \r\n',  # blanks around the value
        b"[1, 2.5e3, null, true]",
        b'"text"\n',
        b'{"a": NaN, "b": -Infinity}',  # json.loads reads these too
        b'{"id": 1} {"id": 2}\n',  # extra data
        b'{"id": 1}\n\n x',
        b'\xef\xbb\xbf{"id": 1}',  # a byte-order mark inside the line: json.loads refuses it
        b'{"id": 1',  # unterminated
        b'{"id": "a\x01b"}',  # a control character in a string
        b"",
        b" \n",
        b"\x0c{}",  # a form feed is no JSON blank
    ],
)
def test_a_line_decodes_as_json_loads_reads_it(line):
    # decode_line skips json.loads's Python layers: its value and its refusal (the message json.loads gives)
    # must stay json.loads's own, the expectation computed by json.loads here
    try:
        expected = (json.loads(line.decode("utf-8")), None)
    except json.JSONDecodeError as error:
        expected = (None, f"not valid JSON ({error.msg} at column {error.colno})")
    value, why = decode_line(line)
    assert (value, why) == expected or (why is None and json.dumps(value) == json.dumps(expected[0]))


def test_each_written_line_is_json_dumps_of_its_record(tmp_path):
    # write_jsonl keeps one C encoder for every line: each line must stay what json.dumps writes alone
    records = [
        {"id": "q1", "score": 12.5, "parts": [1, 2.0, None, True], "name": '西直门站 «x» \u2028 \\ "q"'},
        {"nested": {"a": {"b": [float("inf"), -0.0, 1e-300]}}, "empty": {}, "list": []},
        ["a list", 3],
        "a lone string\n",
        7,
        None,
        {"id": "q2", "nan": float("nan")},
    ]
    write_jsonl(tmp_path / "rows.jsonl", records)
    lines = (tmp_path / "rows.jsonl").read_text(encoding="utf-8").split("\n")
    assert lines == [json.dumps(record, ensure_ascii=False) for record in records] + [""]


def test_a_bad_first_line_does_not_change_what_kind_of_file_it_is(tmp_path):
    plus = {"id": "p1", "type": "TorF1", "city": "rome"}
    _write(tmp_path / "p.jsonl", [b'{"id": "broken\xe9"}', b"not json", json.dumps(plus).encode()])
    assert first_record(tmp_path / "p.jsonl") == plus


def test_a_byte_order_mark_is_read_and_utf16_is_named(tmp_path):
    (tmp_path / "bom.jsonl").write_bytes(b'\xef\xbb\xbf{"id": 1}\n{"id": 2}\n')
    assert read_jsonl(tmp_path / "bom.jsonl", _ids) == ([1, 2], [])
    (tmp_path / "wide.jsonl").write_bytes('{"id": 1}\n'.encode("utf-16"))
    with pytest.raises(InvalidRecord, match=r"wide.jsonl: is UTF-16 text; save it as UTF-8"):
        read_jsonl(tmp_path / "wide.jsonl", _ids)


@pytest.mark.parametrize(
    ("kind", "written"),
    [("a PNG image", "png"), ("a JPEG image", "jpeg"), ("a zip archive", "zip"), ("a PDF document", "pdf")],
)
def test_an_image_or_archive_given_as_json_lines_is_named_in_one_line(kind, written, tmp_path, capsys):
    import zipfile

    from PIL import Image

    path = tmp_path / f"map.{written}"
    if written == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("a.json", "{}")
    elif written == "pdf":
        path.write_bytes(b"%PDF-1.4\n% x\n%%EOF\n")
    else:  # a picture big enough to hold many newline bytes: each would have been a skipped "line"
        Image.effect_noise((200, 200), 64).convert("RGB").save(path, format=written.upper())
    with pytest.raises(InvalidRecord, match=rf"map.{written}: is {kind}"):
        read_jsonl(path, _ids)
    assert main(["baseline", "oracle", "--questions", str(path), "--out", str(tmp_path / "p.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_fifo_a_device_and_a_folder_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # no writer: opening it to read would block for ever
    with pytest.raises(InvalidRecord, match="pipe.jsonl: a FIFO, not a JSON Lines file"):
        read_jsonl(fifo, _ids)
    assert first_record(fifo) is None
    with pytest.raises(InvalidRecord, match="/dev/zero: a character device, not a JSON Lines file"):
        read_jsonl("/dev/zero", _ids)
    with pytest.raises(InvalidRecord, match="a folder, not a JSON Lines file"):
        read_jsonl(tmp_path, _ids)


def test_an_overlong_line_is_skipped_and_the_next_one_read(tmp_path, monkeypatch):
    import benchmarks.jsonl as jsonl

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 64)
    _write(tmp_path / "p.jsonl", [b'{"id": 1}', b'{"id": 2, "pad": "' + b"x" * 500 + b'"}', b'{"id": 3}'])
    records, problems = read_jsonl(tmp_path / "p.jsonl", _ids)
    assert records == [1, 3]
    assert [(problem.line, problem.message) for problem in problems] == [(2, "longer than 64 bytes")]


@pytest.fixture(scope="module")
def route_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("route")
    graph = city_graph("rome")
    questions = generate_questions(graph, seed=0, per_city=5)
    (folder / "q.jsonl").write_text("".join(json.dumps(q.to_dict()) + "\n" for q in questions), encoding="utf-8")
    predictions = run_solver("oracle", questions, lambda question: graph)
    rows = [json.dumps(p.to_dict(), ensure_ascii=False) for p in predictions]
    return folder, questions, rows


def _score(questions, folder) -> int:
    """``reasonmap score`` of ``folder/p.jsonl`` against ``questions``, into ``folder/s.jsonl`` and ``folder/r``."""
    given = ["--questions", str(questions), "--predictions", str(folder / "p.jsonl")]
    return main(["score", *given, "--out", str(folder / "s.jsonl"), "--report", str(folder / "r")])


def test_score_keeps_every_good_row_around_bad_bytes_and_surrogates(route_files, tmp_path, capsys):
    folder, _, rows = route_files
    lines = [row.encode() for row in rows]
    lines[3] = lines[3].replace(b'"response": "', b'"response": "\xff', 1)
    lines[7] = lines[7].replace(b'"model": "', b'"model": "\\udc00', 1)
    _write(tmp_path / "p.jsonl", lines)
    code = _score(folder / "q.jsonl", tmp_path)
    err = capsys.readouterr().err
    assert code == 0, err
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text("utf-8").splitlines()]
    assert len(scored) == len(rows) - 2 and all(row["correct"] == 1 for row in scored)
    assert "p.jsonl:4: not UTF-8" in err and "p.jsonl:8: holds an unpaired surrogate escape" in err


def test_a_city_without_metro_data_skips_its_answers_only(route_files, tmp_path, capsys):
    folder, questions, rows = route_files
    records = [json.loads(line) for line in (folder / "q.jsonl").read_text("utf-8").splitlines()]
    records[0] = {**records[0], "city": "atlantis"}
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (tmp_path / "p.jsonl").write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    code = _score(tmp_path / "q.jsonl", tmp_path)
    err = capsys.readouterr().err
    assert code == 0, err
    scored = (tmp_path / "s.jsonl").read_text("utf-8").splitlines()
    assert len(scored) == len(rows) - 2  # both kinds of the one question in atlantis
    assert "2 answers about 'atlantis' skipped: no Metro Data for city 'atlantis'" in err
