"""``reasonmap render`` of one city shows the labels placed on stderr once the map takes more than two seconds."""

from __future__ import annotations

from graphkit.cities import city_graph
from reasonmap.vision_commands import _LabelProgress
from vision.render import render_map


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_appears_after_two_seconds_and_starts_afresh_for_each_try(capsys):
    clock = _Clock()
    show = _LabelProgress(clock=clock)
    show(0, 10, 1000)
    show(4, 10, 1000)
    assert show.bar is None and capsys.readouterr().err == ""  # a quick map shows nothing
    clock.now = 2.5
    show(5, 10, 1000)
    assert show.bar is not None and show.bar.n == 5 and show.bar.total == 10
    show(0, 10, 1200)  # drawn again on a sparser grid: a new bar, named by its size
    assert show.bar.n == 0 and show.size == 1200
    show(7, 10, 1200)
    show(0, 10, 1200)  # again at the same (largest) size: a new try all the same
    assert show.bar.n == 0
    show.close()
    err = capsys.readouterr().err
    assert "labels of the 1000 px map" in err and "labels of the 1200 px map" in err


def test_a_quiet_render_shows_no_bar(capsys):
    clock = _Clock()
    show = _LabelProgress(disable=True, clock=clock)
    clock.now = 10.0
    show(3, 10, 1000)
    assert show.bar is None and capsys.readouterr().err == ""


def test_render_map_reports_each_label_placed_on_the_map_it_returns():
    calls = []
    rendered = render_map(city_graph("miami"), progress=lambda *call: calls.append(call))
    stations = len(city_graph("miami").stations)
    size = max(rendered.image.size)
    # each try counts 0, 1, ..., all: the last try is the map returned
    assert calls[-stations - 1 :] == [(done, stations, size) for done in range(stations + 1)]
    assert all(total == stations for _, total, _ in calls)
