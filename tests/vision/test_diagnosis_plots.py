"""Figures of a diagnosis: crops that keep whole labels, and both figures written as PNG and PDF."""

from __future__ import annotations

import pytest

from graphkit.cities import city_graph
from vision.diagnose import Diagnosis
from vision.diagnosis_plots import ConfusionCrop, confusion_crops, crop_window, plot_confusions, plot_labels
from vision.evidence import MapEvidence
from vision.render import render_map

pytestmark = pytest.mark.figures  # these tests look at the drawn figures


@pytest.fixture(scope="module")
def rome():
    graph = city_graph("rome")
    rendered = render_map(graph, seed=0, size=1400)
    return graph, rendered.image, MapEvidence.from_truth(rendered.truth, city="rome")


def _inside(box, window):
    return window[0] <= box[0] and window[1] <= box[1] and box[2] <= window[2] and box[3] <= window[3]


def _overlaps(box, window):
    return box[0] < window[2] and box[2] > window[0] and box[1] < window[3] and box[3] > window[1]


def test_every_crop_holds_its_station_and_cuts_no_label(rome):
    _, image, evidence = rome
    for name, station in evidence.stations.items():
        window = crop_window(evidence, name, image.size)
        assert 0 <= window[0] < window[2] <= image.width and 0 <= window[1] < window[3] <= image.height
        assert _inside((*station.point, *station.point), window) and _inside(station.box, window), name
        for other in evidence.stations.values():
            assert not _overlaps(other.box, window) or _inside(other.box, window), (name, other.name)


def _confusion(graph, model="m"):
    station = graph.stations[5]
    lines = sorted(graph.lines)
    evidence = {"station": station, "claimed_line": lines[0], "right_line": lines[1], "colour_distance": 4.2}
    return Diagnosis("q1", model, "short", "line_confusion_colour", "grounding", evidence, "rome")


def test_confusion_crops_take_one_per_station_and_pair_of_lines(rome):
    graph, image, evidence = rome
    twice = [_confusion(graph), _confusion(graph, "other")]
    questions = {"q1": None}
    crops = confusion_crops(twice, questions, {}, lambda _: graph, {"rome": (image, evidence)}, models=["other", "m"])
    assert [(crop.diagnosis.model, crop.station) for crop in crops] == [("other", graph.stations[5])]
    assert confusion_crops(twice, questions, {}, lambda _: graph, {}) == []  # no image of the city: no crop


@pytest.mark.slow
def test_figures_are_png_and_pdf_and_byte_stable(rome, tmp_path):
    graph, image, evidence = rome
    crops = [ConfusionCrop(_confusion(graph), graph.stations[5], image, evidence)]
    first = [*plot_confusions(crops, tmp_path / "c.png"), *plot_labels([_confusion(graph)], tmp_path / "l.png")]
    assert [path.name for path in first] == ["c.png", "c.pdf", "l.png", "l.pdf"]
    again = [*plot_confusions(crops, tmp_path / "c2.png"), *plot_labels([_confusion(graph)], tmp_path / "l2.png")]
    assert [path.read_bytes() for path in again] == [path.read_bytes() for path in first]
    assert plot_confusions([], tmp_path / "none.png")[0].stat().st_size > 0


def test_the_labels_plot_draws_the_top_12_models_by_share_correct(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    import vision.diagnosis_plots

    drawn = []
    monkeypatch.setattr(vision.diagnosis_plots, "save_figure", lambda figure, path: drawn.append(figure))
    # model i answers 4 questions and gets i % 5 of them right: the top 12 are the ten with 4 right (i % 5 == 4)
    # and the first two by name with 3 right (m03, m08)
    rows = [
        Diagnosis(f"q{n}", f"m{i:02}", "short", *(("correct", "correct") if n < i % 5 else ("refusal", "other")), {})
        for i in range(50)
        for n in range(4)
    ]
    plot_labels(rows, tmp_path / "labels.png")
    (figure,) = drawn
    names = [label.get_text() for label in figure.axes[0].get_xticklabels()]
    assert names == sorted([f"m{i:02}" for i in range(4, 50, 5)] + ["m03", "m08"])
    assert [text.get_text() for text in figure.texts] == [
        "plots show the top 12 of 50 models by share correct; the tables list all"
    ]
    plt.close(figure)


def test_crops_of_one_figure_share_one_scale_and_stay_inside_their_maps():
    from vision.diagnosis_plots import common_scale

    windows = [(100, 100, 140, 130), (0, 0, 200, 90), (950, 10, 990, 50)]
    sizes = [(1000, 800), (1000, 800), (1000, 100)]
    shared = common_scale(windows, sizes)
    assert {(x1 - x0, y1 - y0) for x0, y0, x1, y1 in shared} == {(200, 90)}  # the largest window's size
    for (x0, y0, x1, y1), (width, height), window in zip(shared, sizes, windows):
        assert 0 <= x0 and x1 <= width and 0 <= y0 and y1 <= height
        assert x0 <= window[0] and window[2] <= x1 and y0 <= window[1] and window[3] <= y1  # the crop still holds it
