"""``synth --sweep`` and the knob options of ``render``: every network drawn at every value of one knob, with
the same questions and probes, only the picture changing."""

from __future__ import annotations

import json

import pytest

from reasonmap.cli import main
from reasonmap.synthetic import parse_sweep


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


BASE = ["synth", "--count", "2", "--stations", "16", "--lines", "3", "--questions", "--probes", "--render"]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep") / "set"
    argv = [*BASE, "--sweep", "label-scale=0.6,1.4", "--out", str(folder), "--workers", "1", "--quiet"]
    assert main(argv) == 0
    return folder


def test_a_sweep_draws_every_network_at_every_value(sweep):
    for value in ("label_scale=0.6", "label_scale=1.4"):
        for city in ("synth_0000", "synth_0001"):
            assert (sweep / "maps" / value / f"{city}.png").stat().st_size > 0
            truth = json.loads((sweep / "maps" / value / f"{city}.truth.json").read_text(encoding="utf-8"))
            assert truth["knobs"]["asked_label_scale"] == float(value.split("=")[1])
            assert {"colour_distance", "label_height_px", "crossings"} <= set(truth["knobs"])
    assert not (sweep / "maps" / "synth_0000.png").exists() and not (sweep / "probes.jsonl").exists()
    manifest = json.loads((sweep / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sweep"] == {
        "knob": "label_scale",
        "values": [0.6, 1.4],
        "maps": ["maps/label_scale=0.6", "maps/label_scale=1.4"],
        "probes": ["probes/label_scale=0.6.jsonl", "probes/label_scale=1.4.jsonl"],
    }
    small, large = (manifest["networks"][0]["knobs"][f"label_scale={v}"]["label_height_px"] for v in ("0.6", "1.4"))
    assert small < large


def test_a_sweep_pairs_its_questions_and_probes_across_values(sweep, tmp_path, capsys):
    small, large = (records(sweep / "probes" / f"label_scale={v}.jsonl") for v in ("0.6", "1.4"))
    assert small and [(p["id"], p["question"], p["answer"]) for p in small] == [
        (p["id"], p["question"], p["answer"]) for p in large
    ]
    assert {p["knobs"]["asked_label_scale"] for p in small} == {0.6}
    assert {p["knobs"]["asked_label_scale"] for p in large} == {1.4}
    # the route and Plus questions are those of the same set drawn once, as today
    plain = tmp_path / "plain"
    assert run(capsys, *BASE, "--out", plain, "--workers", "1", "--quiet")[0] == 0
    for name in ("questions.jsonl", "plus.jsonl"):
        assert (sweep / name).read_bytes() == (plain / name).read_bytes()
    assert [p["id"] for p in records(plain / "probes.jsonl")] == [p["id"] for p in small]
    manifest = json.loads((plain / "manifest.json").read_text(encoding="utf-8"))
    assert "sweep" not in manifest and "label_scale" not in manifest["options"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sweep", "size=1,2"], "unknown knob 'size'"),
        (["--sweep", "label-scale"], "give KNOB=v1,v2"),
        (["--sweep", "label-scale=0.5,x"], "must be a number"),
        (["--sweep", "colour-distance=0,10"], "--colour-distance 0: must be above 0"),
    ],
)
def test_a_bad_sweep_is_refused_in_one_line(capsys, tmp_path, argv, message):
    code, _, err = run(capsys, *BASE, *argv, "--out", tmp_path / "set")
    assert code == 2 and message in err and not (tmp_path / "set").exists()


def test_a_sweep_through_todays_value_records_its_knobs_too(capsys, tmp_path):
    argv = [*BASE, "--sweep", "label-scale=1,2", "--out", tmp_path / "set", "--workers", "1", "--quiet"]
    assert run(capsys, *argv)[0] == 0
    today = json.loads((tmp_path / "set" / "maps" / "label_scale=1" / "synth_0000.truth.json").read_text("utf-8"))
    assert set(today["knobs"]) == {"colour_distance", "label_height_px", "crossings"}
    assert all("knobs" in p for p in records(tmp_path / "set" / "probes" / "label_scale=1.jsonl"))


def test_knobs_need_render(capsys, tmp_path):
    code, _, err = run(capsys, "synth", "--count", "1", "--questions", "--label-scale", "2", "--out", tmp_path / "s")
    assert code == 2 and "add --render" in err


def test_parse_sweep_reads_either_spelling():
    assert parse_sweep("label_scale=0.5,2") == parse_sweep("label-scale=0.5, 2") == ("label_scale", (0.5, 2.0))
    assert parse_sweep("crossings=0,4,8") == ("crossings", (0, 4, 8))
    with pytest.raises(ValueError, match="whole numbers"):
        parse_sweep("crossings=1.5")


def test_render_records_the_knobs_asked_and_realised(capsys, tmp_path):
    out = tmp_path / "rome.png"
    code, _, _ = run(capsys, "render", "--city", "rome", "--size", "900", "--colour-distance", "6", "--out", out)
    truth = json.loads((tmp_path / "rome.truth.json").read_text(encoding="utf-8"))
    assert code == 0 and truth["knobs"]["asked_colour_distance"] == 6.0
    assert 6.0 <= truth["knobs"]["colour_distance"] <= 6.5
