"""The toolkit's figure style and saver: PNG and PDF side by side, byte-stable."""

from __future__ import annotations

import pytest
from PIL import Image

from benchmarks.plotting import COLOURS, figure_style, save_figure, vector_path

pytestmark = pytest.mark.figures  # these tests look at the drawn figures


def _draw(path):
    with figure_style() as plt:
        figure, axis = plt.subplots(figsize=(3, 2))
        axis.bar(["a", "b"], [1, 2], label="x")
        axis.legend()
        return save_figure(figure, path)


def test_writes_png_and_pdf_beside_it_with_equal_bytes_each_time(tmp_path):
    (tmp_path / "one").mkdir()
    png, pdf = _draw(tmp_path / "one" / "plot.png")
    assert (png, pdf) == (tmp_path / "one" / "plot.png", tmp_path / "one" / "plot.pdf")
    assert png.read_bytes().startswith(b"\x89PNG") and pdf.read_bytes().startswith(b"%PDF")
    with Image.open(png) as image:  # drawn for real (the figures marker), not a placeholder
        assert image.size[0] > 100 and image.size[1] > 50
    (tmp_path / "two").mkdir()
    again = _draw(tmp_path / "two" / "plot.png")
    assert again[0].read_bytes() == png.read_bytes() and again[1].read_bytes() == pdf.read_bytes()
    assert b"CreationDate" not in pdf.read_bytes()


def test_the_style_is_scoped_and_colour_blind_safe():
    import matplotlib

    before = matplotlib.rcParams["font.size"]
    with figure_style() as plt:
        assert plt.rcParams["font.size"] == 8 and plt.rcParams["pdf.fonttype"] == 42
        assert [c.lower() for c in plt.rcParams["axes.prop_cycle"].by_key()["color"]] == [c.lower() for c in COLOURS]
    assert matplotlib.rcParams["font.size"] == before
    assert vector_path("a/b.png").name == "b.pdf"


def test_top_models_ranks_by_score_then_name_and_keeps_the_given_order():
    import math

    import pytest

    from benchmarks.plotting import PLOT_MODELS, top_models

    scores = {"e": 0.2, "d": None, "c": 0.9, "b": 0.2, "a": math.nan, "f": 0.5}
    cap = top_models(scores, metric="accuracy", limit=3)
    assert cap.shown == ("c", "b", "f")  # 0.9, 0.5, then b before e at 0.2; in the given order
    assert (cap.total, cap.capped) == (6, True)
    assert cap.note == "plots show the top 3 of 6 models by accuracy; the tables list all"
    # None and NaN rank last, and between them by name: a (NaN) before d (None)
    assert top_models(scores, metric="accuracy", limit=5).shown == ("e", "c", "b", "a", "f")
    everyone = top_models(scores, metric="accuracy")
    assert everyone.shown == tuple(scores) and everyone.note == "" and not everyone.capped
    many = top_models({f"m{i:04}": 1.0 for i in range(7803)}, metric="x")
    assert many.shown == tuple(f"m{i:04}" for i in range(PLOT_MODELS)) and "top 12 of 7,803 models" in many.note
    with pytest.raises(ValueError, match="limit"):
        top_models(scores, metric="accuracy", limit=0)
