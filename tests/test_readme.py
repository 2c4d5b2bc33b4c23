"""The README's measured figures: every one is still found by tests/readme_figures.py, and the cheap ones agree."""

from __future__ import annotations

from graphkit.cities import city_graph, city_names
from tests.readme_figures import (
    README,
    _differ,
    demo_halves,
    demo_table,
    ocr_table,
    references_figures,
    render_figures,
)

TEXT = README.read_text("utf-8")


def test_every_measured_figure_is_found_in_the_readme():
    assert set(demo_table(TEXT)) == {"oracle", "text-oracle", "noisy", "direct-line", "echo"}
    assert set(demo_halves(TEXT)) == set(demo_table(TEXT))  # every figure with ± half its 95% interval
    assert set(references_figures(TEXT)) == {"pairs", "megabytes"}
    assert set(render_figures(TEXT)) == {
        "labels", "lines", "ambiguous", "leaders", "bends_per_line",
        "leader_label", "leader_line", "line_label", "leader_marker", "line_marker", "far",
    }  # fmt: skip
    assert len(ocr_table(TEXT)) == 11


def test_the_ocr_table_counts_the_stations_the_metro_data_has():
    for stem, (found, total) in ocr_table(TEXT).items():
        assert total == len(city_graph(stem.split("__")[1]).stations), stem
        assert 0 < found <= total, stem


def test_references_all_covers_every_ordered_pair_the_readme_says():
    sizes = [len(city_graph(name).stations) for name in city_names()]
    assert references_figures(TEXT)["pairs"] == sum(n * (n - 1) for n in sizes)


def test_a_figure_off_by_more_than_its_tolerance_is_reported():
    assert _differ("x", 782, 782.4, tolerance=0.02) == []
    assert _differ("x", 680, 782.0, tolerance=0.02) == ["x: the README says 680, measured 782"]
    assert _differ("x", 175, 176) == ["x: the README says 175, measured 176"]


def test_the_python_api_section_runs_as_a_doctest():
    import doctest
    import re

    section = TEXT[TEXT.index("## The Python API") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```pycon\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1 and blocks[0].count(">>> ") >= 10  # load, route, generate, answer, score
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "README: The Python API", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    lines: list[str] = []
    runner.run(test, out=lines.append)
    assert runner.summarize(verbose=False).failed == 0, "".join(lines)


def test_every_reasonmap_command_of_the_readme_parses_as_written():
    """Each command line of the README's shell blocks (synopsis brackets dropped, ``a|b`` read as ``a``) is
    accepted by the command line's parser: no option the README names is missing or misspelt."""
    import shlex

    import pytest

    from reasonmap.cli import build_parser
    from tests.readme_figures import readme_commands

    commands = readme_commands(TEXT)
    assert len(commands) >= 40  # the README's command lines are found, not silently lost
    parser = build_parser()
    for command in commands:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit:
            pytest.fail(f"the README's command does not parse: {command}")


def test_the_first_hour_blocks_are_marked_runnable():
    from tests.readme_figures import sh_blocks

    runnable = [block for marker, block in sh_blocks(TEXT) if marker == "run"]
    assert any("reasonmap serve" in block and "reasonmap eval" in block for block in runnable)
