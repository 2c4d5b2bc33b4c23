"""Every option chosen by name is checked by graphkit.choices, with one error message (scikit-learn's common-test
style: one parametrized suite over every registry of named choices)."""

from __future__ import annotations

import pytest

from graphkit.choices import UnknownChoice, check_choice, close_choices


def _registries():
    """``(what, names, call)``: the option, its registry's names in order, and a call that checks one name."""
    from baselines.alias import STRATEGIES, alias_mapping
    from baselines.solvers import SOLVERS, solve
    from baselines.textualize import TEXTUALIZATIONS, render
    from benchmarks.difficulty import WEIGHTINGS, get_weighting
    from benchmarks.reasonmap.harnesses import SOURCES, read_harness_predictions
    from benchmarks.reasonmap.rewards import REWARDS, compute_score
    from benchmarks.reasonmap.scoring import MAP_SCORE_RULES, get_map_score_rule
    from benchmarks.tasks import TASKS, get_task
    from graphkit import city_graph
    from graphkit.executors import EXECUTORS, open_executor
    from graphkit.stats import TIERS
    from graphkit.synth import SCRIPTS, synthesize_network, tier_shapes
    from vision.engines import DEVICES, ENGINES, EngineConfig
    from vision.ocr import ROTATIONS, OcrSettings
    from vision.render import PALETTES, line_colours

    rome = city_graph("rome")
    variants = [(f"{name} scoring variant", get_task(name).variant_names, get_task(name).variant) for name in TASKS]
    sources = [(f"{name} prediction source", tuple(get_task(name).readers), get_task(name).reader) for name in TASKS]
    return [
        *variants,
        *sources,
        ("variant", tuple(MAP_SCORE_RULES), get_map_score_rule),
        ("weighting", tuple(WEIGHTINGS), get_weighting),
        ("task", tuple(TASKS), get_task),
        ("textualization", tuple(TEXTUALIZATIONS), lambda name: render(rome, name)),
        ("solver", tuple(SOLVERS), lambda name: solve(name, None, rome, "short")),
        ("extra_info['reward']", tuple(REWARDS), lambda name: compute_score("reasonmap", "", {}, {"reward": name})),
        ("executor", tuple(EXECUTORS), open_executor),
        ("source", SOURCES, lambda name: read_harness_predictions("nowhere.jsonl", name)),
        ("alias strategy", STRATEGIES, lambda name: alias_mapping(rome, name)),
        ("difficulty", TIERS, tier_shapes),
        ("script", SCRIPTS, lambda name: synthesize_network(stations=30, lines=2, script=name)),
        ("engine", ENGINES, lambda name: EngineConfig(engine=name)),
        ("device", DEVICES, lambda name: EngineConfig(device=name)),
        ("rotations", ROTATIONS, lambda name: OcrSettings(rotations=name)),
        ("palette", tuple(sorted(PALETTES)), lambda name: line_colours(rome, name)),
    ]


REGISTRIES = _registries()
IDS = [what for what, _, _ in REGISTRIES]


@pytest.mark.parametrize(("what", "names", "call"), REGISTRIES, ids=IDS)
def test_a_misspelt_name_is_refused_with_the_choices_and_the_close_one(what, names, call):
    wanted = names[-1]
    misspelt = wanted + wanted[-1]  # a key held down: ratio 2n / (2n + 1) >= 6/7, over the 70 cutoff
    with pytest.raises(UnknownChoice) as caught:
        call(misspelt)
    error = caught.value
    assert isinstance(error, ValueError)  # callers that catch ValueError still catch it
    assert error.what == what and error.choices == names and error.value == misspelt
    assert wanted in error.close
    assert str(error).startswith(f"{what} must be one of {list(names)}, got {misspelt!r}; did you mean ")


@pytest.mark.parametrize(("what", "names", "call"), REGISTRIES, ids=IDS)
def test_a_name_like_none_of_them_lists_the_choices_only(what, names, call):
    with pytest.raises(UnknownChoice, match=r"^.* must be one of \[.*\], got 'qqqqqqqqqqqq'$"):
        call("qqqqqqqqqqqq")


@pytest.mark.parametrize(("what", "names", "call"), REGISTRIES, ids=IDS)
def test_a_value_that_is_no_name_is_refused_the_same_way(what, names, call):
    for value in (None, 3, ["x"]):  # unhashable too: never a TypeError from a membership test
        with pytest.raises(UnknownChoice) as caught:
            call(value)
        assert caught.value.close == () and caught.value.value == value


def test_check_choice_returns_a_valid_name():
    assert check_choice("city", {"paper": 1, "city": 2}, what="weighting") == "city"


def test_close_choices_ignores_case_and_punctuation_and_keeps_the_closest_first():
    # "Route" is "route" once case is folded (ratio 100); "routes" is one letter more (ratio 2*5/11 = 91)
    assert close_choices("Route", ("plus", "routes", "route")) == ("route", "routes")
    assert close_choices("text_oracle", ("oracle", "text-oracle", "echo")) == ("text-oracle", "oracle")


def test_a_long_value_is_echoed_shortened():
    with pytest.raises(UnknownChoice) as caught:
        check_choice("x" * 1000, ("a", "b"), what="task")
    assert len(str(caught.value)) < 200 and "(1002 chars)" in str(caught.value)
