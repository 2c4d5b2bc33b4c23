"""ReasonMap-Plus scoring: answer extraction, exact match and its invariances, reports, the oracle and the CLI."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baselines.plus_oracle import PLUS_ORACLE_MODEL, plus_oracle_answer, plus_oracle_predictions
from benchmarks.jsonl import write_jsonl
from benchmarks.plus.loading import is_plus_file
from benchmarks.plus.questions import generate_plus_set as generate
from benchmarks.plus.records import ANSWER_KINDS, OPTION_LETTERS, PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.plus.report import REPORT_FILES
from benchmarks.plus.scoring import (
    PLUS_SCORERS,
    PlusAnswer,
    parse_answer,
    plus_weight,
    score_answer,
    score_prediction,
)
from benchmarks.records import Invalid
from graphkit import city_graph
from reasonmap.cli import main
from reasonmap.score_files import evaluate_files

# -- extraction -------------------------------------------------------------------

REALISTIC = [
    ("A) 3", "Counting1", "A"),
    ("**B**", "Counting1", "B"),
    ("\\boxed{C}", "Counting1", "C"),
    ("$\\boxed{\\text{D}}$", "Counting1", "D"),
    ("The answer is 4.", "Counting2", 4),
    ("The answer is 4.", "Counting1", 4),  # a value: scored as the option holding it
    ("<answer>yes</answer>", "TorF1", "yes"),
    ("Yes, Termini is on Line B.", "TorF1", "yes"),
    ("No.", "TorF2", "no"),
    ("A station lies between them, so the answer is C", "Counting1", "C"),
    ("A station lies between them, so the answer is C", "Counting2", None),
    ("There is a line serving both.", "Counting1", None),
    ("There is a line serving both.", "TorF2", None),
    ("a", "Counting1", "A"),
    ("The answer is a.", "Counting1", "A"),
    ("The answer is a total of 3 stops.", "Counting1", 3),
    ("A is correct.", "Counting1", "A"),
    ("I count them: the correct option is (b).", "Counting1", "B"),
    ("Option A: 3\nOption B: 4\nAnswer: B", "Counting1", "B"),
    ("**Answer:**\n\nB", "Counting1", "B"),
    ("Final answer = D", "Counting1", "D"),
    ("答案是 B", "Counting1", "B"),
    ("There are 3 stops between them on Line C.", "Counting1", 3),
    ("Washington D.C. has many lines", "Counting1", None),
    ("Line 2 has 14 stations.", "Counting3", 14),
    ("Three lines serve it.", "Counting2", 3),
    ("It is served by Line 1 and Line 2, so 2 lines.", "Counting2", 2),
    ("**3**", "Counting2", 3),
    ("4.5", "Counting3", None),
    ("Yes.\nNo transfer is needed.", "TorF2", "yes"),
    ("There is no line serving both, so you must change.", "TorF2", "no"),
    ("It is true.", "TorF1", "yes"),
    ("FALSE", "TorF1", "no"),
    ("<think>Line 2 serves both... yes.</think>\nNo", "TorF2", "no"),
    ("<think>Counting: B</think>\n<answer>C</answer>", "Counting1", "C"),
    ("<answer></answer><answer> 7 </answer>", "Counting3", 7),
]


@pytest.mark.parametrize("text, kind, expected", REALISTIC)
def test_realistic_outputs(text, kind, expected):
    found = parse_answer(text, kind)
    if expected is None:
        assert isinstance(found, Invalid) and found.reason == "no answer found"
    else:
        assert found == PlusAnswer(expected)


@pytest.mark.parametrize(
    "text, reason, refusal",
    [
        ("", "empty response", False),
        (" \n\t", "empty response", False),
        ("<think>I think B", "no answer after reasoning", False),
        ("<think>B</think>  ", "no answer after reasoning", False),
        ("Sorry, I cannot read the map.", "refusal", True),
        (None, "not text", False),
        (42, "not text", False),
    ],
)
def test_invalid_answers_say_why(text, reason, refusal):
    assert parse_answer(text, "Counting2") == Invalid(reason, refusal=refusal)


def test_an_unknown_type_is_the_callers_mistake():
    with pytest.raises(ValueError, match="TorF1"):
        parse_answer("yes", "TorF3")


# -- the scorers and their properties ---------------------------------------------

KNOWN_INVARIANCES = {"case", "whitespace", "punctuation", "markdown", "option_order"}


def test_every_type_has_a_classified_scorer():
    assert set(PLUS_SCORERS) == set(PLUS_TYPES)
    for kind, scorer in PLUS_SCORERS.items():
        assert scorer.type == kind and scorer.answer_kind == ANSWER_KINDS[kind]
        assert scorer.higher_is_better and scorer.aggregation == "weighted_mean"
        assert {"case", "whitespace", "punctuation", "markdown"} <= set(scorer.invariances) <= KNOWN_INVARIANCES
        assert ("option_order" in scorer.invariances) == (scorer.answer_kind == "choice")


def question_of(kind: str, answer, options=None) -> PlusQuestion:
    entities = {
        "Counting1": {"station_1": "P", "station_2": "Q", "line": "Line 1"},
        "Counting2": {"station": "P"},
        "Counting3": {"line": "Line 1"},
        "TorF1": {"station": "P", "line": "Line 1"},
        "TorF2": {"station_1": "P", "station_2": "Q"},
    }[kind]
    return PlusQuestion(f"x-{kind}", kind, "c", "x", "...", answer, "middle", options=options, **entities)


@st.composite
def cases(draw, kind):
    """A question of ``kind`` and an answer value: the right one or a wrong one."""
    answer_kind = ANSWER_KINDS[kind]
    if answer_kind == "choice":
        options = tuple(draw(st.lists(st.integers(0, 40), min_size=4, max_size=4, unique=True)))
        truth = draw(st.sampled_from(OPTION_LETTERS))
        question = question_of(kind, truth, options)
        value = draw(st.sampled_from(OPTION_LETTERS))
    elif answer_kind == "integer":
        truth = draw(st.integers(0, 60))
        question = question_of(kind, truth)
        value = draw(st.sampled_from([truth, draw(st.integers(0, 10**6))]))
    else:
        truth = draw(st.sampled_from(["yes", "no"]))
        question = question_of(kind, truth)
        value = draw(st.sampled_from(["yes", "no"]))
    return question, value


PREFIXES = ["", "Answer: ", "The answer is ", "Final answer: ", "**Answer:** ", "So the answer is\n", "答案是"]
MARKDOWN = ["{}", "**{}**", "*{}*", "`{}`", "__{}__", "\\boxed{{{}}}", "$\\boxed{{{}}}$", "<answer>{}</answer>"]
PUNCTUATION = ["{}", "{}.", "{}!", "({})", "[{}]", '"{}"', "'{}'", "“{}”", "{};", "{}。"]
SPACE = st.text(alphabet=" \t\n\u00a0", max_size=3)


def recased(draw, text: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(ch.swapcase() if flip else ch for ch, flip in zip(text, flips))


@st.composite
def renderings(draw, kind):
    """A question, an answer value, and that value written with noise of every declared invariance."""
    question, value = draw(cases(kind))
    token = str(value)
    invariances = PLUS_SCORERS[kind].invariances
    if "case" in invariances:
        token = recased(draw, token)
    if "punctuation" in invariances:
        token = draw(st.sampled_from(PUNCTUATION)).format(token)
    if "markdown" in invariances:
        token = draw(st.sampled_from(MARKDOWN)).format(token)
    prefix = draw(st.sampled_from(PREFIXES))
    if "case" in invariances:
        prefix = recased(draw, prefix)
    text = prefix + token
    if "whitespace" in invariances:
        text = draw(SPACE) + text + draw(SPACE)
    return question, value, text


@pytest.mark.parametrize("kind", PLUS_TYPES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_exact_match_ignores_case_whitespace_punctuation_and_markdown(kind, data):
    question, value, text = data.draw(renderings(kind))
    plain = score_answer(PlusAnswer(value), question)
    assert parse_answer(text, kind) == PlusAnswer(value), text
    assert score_answer(parse_answer(text, kind), question) == plain
    assert plain.correct == (value == question.answer)


COMMON_FORMS = ["The answer is {}.", "{}", "\\boxed{{{}}}", "<answer>{}</answer>"]
VALUE_FORMS = [*COMMON_FORMS, "**{}** stops", "There are {} stops."]
LETTER_FORMS = [*COMMON_FORMS, "({})", "Option {} is right.", "{}) is my choice"]


@pytest.mark.parametrize(
    "kind", [kind for kind, scorer in PLUS_SCORERS.items() if "option_order" in scorer.invariances]
)
@settings(max_examples=100, deadline=None)
@given(
    options=st.lists(st.integers(0, 40), min_size=4, max_size=4, unique=True),
    truth=st.integers(0, 3),
    order=st.permutations(range(4)),
    named=st.integers(0, 40),
    value_form=st.sampled_from(VALUE_FORMS),
    letter_form=st.sampled_from(LETTER_FORMS),
)
def test_multiple_choice_does_not_depend_on_option_order(kind, options, truth, order, named, value_form, letter_form):
    first = question_of(kind, OPTION_LETTERS[truth], tuple(options))
    permuted = tuple(options[i] for i in order)
    second = question_of(kind, OPTION_LETTERS[list(order).index(truth)], permuted)
    assert permuted[OPTION_LETTERS.index(second.answer)] == options[truth]

    def judged(question, text):
        return score_answer(parse_answer(text, kind), question).correct

    # an answer that names a value scores the same, whatever the order
    text = value_form.format(named)
    assert judged(first, text) == judged(second, text) == int(named == options[truth])
    # an answer that names the letter holding a value scores the same
    for value in options:
        left = letter_form.format(OPTION_LETTERS[options.index(value)])
        right = letter_form.format(OPTION_LETTERS[permuted.index(value)])
        assert judged(first, left) == judged(second, right) == int(value == options[truth])


NOISE = st.text() | st.lists(
    st.sampled_from(
        [
            "answer",
            " is ",
            "A",
            "a",
            "B.",
            "(c)",
            "**",
            "\\boxed{",
            "{",
            "}",
            "<think>",
            "</think>",
            "<answer>",
            "</answer>",
            "yes",
            "NO",
            "7",
            "4.5",
            "\n",
            " ",
            "option",
            "Line ",
            "答案是",
            "$",
            "\\text{",
            "sorry",
        ]
    ),
    max_size=30,
).map("".join)


@pytest.mark.parametrize("kind", PLUS_TYPES)
@settings(max_examples=100, deadline=None)
@given(text=NOISE)
def test_the_parser_never_raises_and_returns_a_value_of_the_types_kind(kind, text):
    found = parse_answer(text, kind)
    assert isinstance(found, PlusAnswer | Invalid)
    if isinstance(found, PlusAnswer):
        answer_kind = ANSWER_KINDS[kind]
        if answer_kind == "yes_no":
            assert found.value in ("yes", "no")
        elif answer_kind == "integer":
            assert isinstance(found.value, int) and found.value >= 0
        else:
            assert found.value in OPTION_LETTERS or isinstance(found.value, int)


def test_a_value_that_is_no_option_is_wrong_not_invalid():
    question = question_of("Counting1", "B", (4, 2, 3, 5))
    score = score_answer(parse_answer("The answer is 9.", "Counting1"), question)
    assert (score.correct, score.chosen) == (0, None)
    assert score_answer(Invalid("empty response"), question).correct == 0


def test_weights_follow_map_difficulty_under_every_scheme():
    questions = {level: question_of("TorF1", "yes") for level in ("easy", "middle", "hard")}
    weights = {}
    for level, question in questions.items():
        question = PlusQuestion(**{**question.to_dict(), "difficulty_city": level, "options": None})
        weights[level] = tuple(plus_weight(question, scheme) for scheme in ("city", "paper", "none"))
    assert weights == {"easy": (1.0, 1.0, 1.0), "middle": (1.5, 1.5, 1.0), "hard": (2.0, 2.0, 1.0)}
    with pytest.raises(ValueError, match="weighting"):
        plus_weight(questions["easy"], "uniform")
    with pytest.raises(ValueError, match="another question"):
        score_prediction(PlusPrediction("other", "m", "yes"), questions["easy"])


# -- files, report, oracle, CLI ---------------------------------------------------


@pytest.fixture(scope="module")
def questions():
    # an easy, a middle and a hard map
    return generate([city_graph(name) for name in ("rome", "lisboa", "beijing")], seed=2, per_type=6)


def test_the_oracle_answers_everything_right_from_the_graph(questions):
    predictions = plus_oracle_predictions(questions, lambda question: city_graph(question.city))
    by_id = {question.id: question for question in questions}
    for prediction in predictions:
        verdict = score_prediction(prediction, by_id[prediction.id])
        assert verdict.correct == 1 and verdict.model == PLUS_ORACLE_MODEL
    assert plus_oracle_answer(questions[0], city_graph("rome")).startswith("The answer is ")


@pytest.mark.figures
def test_scoring_plus_files_writes_rows_summary_table_and_plot(tmp_path, questions):
    write_jsonl(tmp_path / "q.jsonl", questions)
    assert is_plus_file(tmp_path / "q.jsonl") and not is_plus_file(tmp_path / "missing.jsonl")
    rows = [p.to_dict() for p in plus_oracle_predictions(questions, lambda q: city_graph(q.city))]
    # right on the hard map only, without a question field
    rows += [
        {"id": q.id, "model": "hard-only", "response": f"**{q.answer}**" if q.city == "beijing" else "", "tokens": 2}
        for q in questions
    ]
    rows += [
        {"id": "nope", "model": "m", "response": "1"},
        {"id": questions[0].id, "model": "hard-only", "response": "again"},
        {"id": questions[0].id, "model": "m", "question": "TorF2", "response": "yes"},
        {"id": questions[0].id, "model": "m", "question": "long", "response": "yes"},
    ]
    with open(tmp_path / "p.jsonl", "w", encoding="utf-8") as stream:
        stream.writelines(json.dumps(row) + "\n" for row in rows)
        stream.write('{"broken\n')
    result = evaluate_files(
        tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "s.jsonl", report_dir=tmp_path / "r"
    )
    assert [path.name for path in result.report_files] == list(REPORT_FILES)
    assert all(path.stat().st_size > 0 for path in result.report_files)
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert len(scored) == len(result.verdicts) == 2 * len(questions)
    assert {"id", "model", "question", "parsed", "answer", "correct", "weight", "invalid_reason"} <= set(scored[0])
    assert len(result.problems) == 5  # no such question, answered again, another type, a route kind, bad JSON
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["question_set"] == "plus" and summary["skipped_records"] == 5
    assert summary["weights"] == {"easy": 1.0, "middle": 1.5, "hard": 2.0}
    oracle, hard = summary["models"][PLUS_ORACLE_MODEL], summary["models"]["hard-only"]
    assert oracle["weighted_accuracy"] == oracle["accuracy"] == 1.0 and oracle["n_invalid"] == 0
    assert set(oracle["per_type"]) == set(PLUS_TYPES) and set(oracle["per_city"]) == {"rome", "lisboa", "beijing"}
    assert list(oracle["per_difficulty"]) == ["easy", "hard", "middle"]  # sorted keys in the file
    counts = {city: sum(q.city == city for q in questions) for city in ("rome", "lisboa", "beijing")}
    total = counts["rome"] * 1.0 + counts["lisboa"] * 1.5 + counts["beijing"] * 2.0
    assert hard["weighted_accuracy"] == round(2.0 * counts["beijing"] / total, 6)
    assert hard["accuracy"] == round(counts["beijing"] / len(questions), 6)
    assert hard["n"] == len(questions) and hard["n_invalid"] == counts["rome"] + counts["lisboa"]
    assert hard["per_difficulty"]["hard"]["accuracy"] == 1.0 and hard["per_city"]["rome"]["accuracy"] == 0.0
    table = (tmp_path / "r" / "table.md").read_text()
    full = "100.00 ± –"  # every answer right: every resample is too, so there is no interval to give
    assert f"| {PLUS_ORACLE_MODEL} | {full} | {full} | {full} | {full} | {full} | {full} | 0/" in table
    again = evaluate_files(
        tmp_path / "q.jsonl", tmp_path / "p.jsonl", out=tmp_path / "s2.jsonl", report_dir=tmp_path / "r2"
    )
    assert again.summary == result.summary
    assert (tmp_path / "r2" / "types.png").read_bytes() == (tmp_path / "r" / "types.png").read_bytes()


def test_reasonmap_score_handles_plus_files(tmp_path, capsys, questions):
    write_jsonl(tmp_path / "q.jsonl", questions)
    write_jsonl(tmp_path / "p.jsonl", plus_oracle_predictions(questions, lambda q: city_graph(q.city)))
    code = main(
        ["score", "--questions", str(tmp_path / "q.jsonl"), "--predictions", str(tmp_path / "p.jsonl"),
         "--out", str(tmp_path / "s.jsonl"), "--report", str(tmp_path / "r"), "--weighting", "none"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("Weighting: `none` (map difficulty: easy 1, middle 1, hard 1)")
    assert "| Model | Counting1 | Counting2 | Counting3 | TorF1 | TorF2 | Overall | Invalid |" in out


def test_the_types_plot_draws_the_top_12_models_and_the_table_lists_all(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    import benchmarks.plotting
    from benchmarks.plus.report import markdown_table, write_report

    drawn = []
    monkeypatch.setattr(benchmarks.plotting, "save_figure", lambda figure, path: drawn.append(figure))
    # model i has weighted accuracy (i % 25) / 25: the top 12 are 24 down to 19 (two models each: i and i + 25)
    models = {
        f"m{i:02}": {
            "weighted_accuracy": (i % 25) / 25,
            "n": 4,
            "n_invalid": 0,
            "per_type": {"TorF1": {"weighted_accuracy": (i % 25) / 25}},
            "per_difficulty": {},
        }
        for i in range(50)
    }
    summary = {"weighting": "city", "weights": {"easy": 1.0, "middle": 1.5, "hard": 2.0}, "models": models}
    write_report(tmp_path, summary)
    (figure,) = drawn
    top = sorted(f"m{i:02}" for j in range(19, 25) for i in (j, j + 25))
    assert [container.get_label() for container in figure.axes[0].containers] == top
    note = "plots show the top 12 of 50 models by overall weighted accuracy; the tables list all"
    assert [text.get_text() for text in figure.texts] == [note]
    plt.close(figure)
    table = markdown_table(summary)
    assert sum(line.startswith("| m") for line in table.splitlines()) == 2 * 50  # types, then map difficulty
    assert f"{note[0].upper()}{note[1:]}." in table
    written = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert len(written["models"]) == 50 and written["plots"]["shown"] == top


def test_the_types_figure_draws_the_chance_level_of_each_type_that_has_one(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    import benchmarks.plotting
    from benchmarks.plus.report import _plot_types, chance_accuracy

    kept = []
    monkeypatch.setattr(benchmarks.plotting, "save_figure", lambda figure, path: kept.append(figure))
    per_type = {kind: {"weighted_accuracy": 0.5} for kind in ("Counting1", "Counting2", "Counting3", "TorF1", "TorF2")}
    _plot_types({"models": {"a": {"per_type": per_type}, "b": {"per_type": per_type}}}, tmp_path / "t.png")
    (figure,) = kept
    (axis,) = figure.axes
    labels = [collection.get_label() for collection in axis.collections]  # the bars are patches: these are lines
    assert sum(label.startswith("chance") for label in labels) == 1, "one legend entry"
    levels = sorted(round(float(s[0][1]), 6) for line in axis.collections for s in line.get_segments())
    assert levels == [25.0, 50.0, 50.0]  # one of four options; yes or no twice; the counts have none
    assert chance_accuracy("Counting2") is None
    plt.close(figure)


def test_the_types_figure_draws_each_bars_interval_where_the_summary_has_one(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer

    import benchmarks.plotting
    from benchmarks.plus.report import _plot_types

    kept = []
    monkeypatch.setattr(benchmarks.plotting, "save_figure", lambda figure, path: kept.append(figure))
    interval = {"n": 9, "se": 0.1, "low": 0.3, "high": 0.8}
    per_type = {
        "TorF1": {"weighted_accuracy": 0.5, "intervals": {"weighted_accuracy": interval}},
        "TorF2": {"weighted_accuracy": 0.5},  # a summary without intervals: a bar, no error bar
    }
    _plot_types({"models": {"a": {"per_type": per_type}}}, tmp_path / "t.png")
    (figure,) = kept
    (errors,) = [c for c in figure.axes[0].containers if isinstance(c, ErrorbarContainer)]
    (segment,) = errors.lines[2][0].get_segments()
    # from 30% to 80% around the 50% bar: 20 points below, 30 above
    assert [round(float(y), 6) for _, y in segment] == [30.0, 80.0]
    plt.close(figure)
