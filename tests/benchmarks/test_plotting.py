"""The toolkit's figure style and saver: PNG and PDF side by side, byte-stable."""

from __future__ import annotations

from benchmarks.plotting import COLOURS, figure_style, save_figure, vector_path


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
