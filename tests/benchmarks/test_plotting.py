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


def _lab(colour):
    from matplotlib.colors import to_rgb

    def linear(c):
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92

    r, g, b = (linear(c) for c in to_rgb(colour))
    x, y, z = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_twenty_models_get_twenty_distinct_colours_and_more_get_hatches_and_markers():
    from benchmarks.plotting import model_style

    labs = [_lab(colour) for colour in COLOURS]
    closest = min(sum((p - q) ** 2 for p, q in zip(a, b)) ** 0.5 for i, a in enumerate(labs) for b in labs[i + 1 :])
    assert len(COLOURS) == 20 and closest > 25  # ΔE76; Okabe and Ito's closest pair is 26.4 apart
    styles = [model_style(index) for index in range(60)]
    assert len({(s.colour, s.hatch) for s in styles}) == 60 == len({(s.colour, s.marker) for s in styles})
    assert {s.hatch for s in styles[:20]} == {""} and styles[20].colour == styles[0].colour != styles[1].colour
