"""Reading chosen options: a table of answers as models write them, the article trap, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.mapqa.parsing import Choice, parse_answer, parse_letters
from benchmarks.mapqa.records import LETTERS, QUESTION_TYPES, MapQuestion
from benchmarks.records import Invalid

OPTIONS = ("North Station", "South Station", "East Station", "West Station")


@pytest.mark.parametrize(
    ("text", "kind", "letters"),
    [
        ("A", "single", "A"),
        ("(B)", "single", "B"),
        ("\\boxed{C}", "single", "C"),
        ("$\\boxed{\\text{D}}$", "single", "D"),
        ("A, C", "multiple", "AC"),
        ("A and C", "multiple", "AC"),
        ("C, A, C", "multiple", "AC"),
        ("AC", "multiple", "AC"),
        ("B > A > C", "sorting", "BAC"),
        ("B, A, C", "sorting", "BAC"),
        ("B -> A -> C -> D", "sorting", "BACD"),
        ("Answer: B", "single", "B"),
        ("answer: (b)", "single", "B"),
        ("**Answer:** **C**", "single", "C"),
        ("The answer is B, because A is farther.", "single", "B"),
        ("Answer: B. A is wrong.", "single", "B"),
        ("I think the answer is B.", "single", "B"),
        ("Final answer:\nB", "single", "B"),
        ("Looking at the map, B is the northernmost.\n\n**B**", "single", "B"),
        ("Option B is right.", "single", "B"),
        ("The correct options are A and D.", "multiple", "AD"),
        ("Reasoning about A and C.\nAnswer: a, c", "multiple", "AC"),
        ("答案：B", "single", "B"),
        ("答案是 A、C", "multiple", "AC"),
        ("<think>Maybe A? No.</think>Answer: B", "single", "B"),
        ("<answer>C</answer>", "single", "C"),
        ("<answer>Reasoning. Answer: D</answer>", "single", "D"),
        ("Ｂ", "single", "B"),  # full-width
        ("Answer: South Station", "single", "B"),  # the option's text
        ("Answer: South Station > North Station > East Station > West Station", "sorting", "BACD"),
        ("Answer: West Station and East Station", "multiple", "CD"),
        ("a", "single", "A"),  # a bare letter is the whole answer
    ],
)
def test_answers_as_models_write_them(text, kind, letters):
    assert parse_letters(text, kind, OPTIONS) == Choice(tuple(letters))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("This is a map of a city.", "no option found"),  # the article trap: "a" is not option A
        ("A map shows a river; I would say a bridge.", "no option found"),
        ("The answer is a bridge.", "no option found"),
        ("I think so.", "no option found"),
        ("A is wrong and C is right", "several options named without an answer marker"),
        ("Answer: A or C", "several options named: A, C"),
        ("Answer: E", "E is not an option"),
        ("", "empty response"),
        ("   \n", "empty response"),
        ("<think>still thinking", "no answer after reasoning"),
        ("Sorry, I cannot see the map.", "refusal"),
    ],
)
def test_what_does_not_name_one_option_is_invalid_with_a_reason(text, reason):
    found = parse_letters(text, "single", OPTIONS)
    assert isinstance(found, Invalid) and found.reason == reason
    assert found.refusal == (reason == "refusal")


def test_a_sorting_answer_naming_an_option_twice_is_invalid():
    assert parse_letters("B > B > C", "sorting", OPTIONS) == Invalid("an option is named twice in the order")
    assert parse_letters("B > A", "sorting", OPTIONS) == Choice(("B", "A"))  # incomplete: the scorer's matter


def test_prose_letters_beyond_the_options_are_ignored_but_a_bare_one_is_invalid():
    assert parse_letters("In the U.S. map, B.", "single", OPTIONS) == Choice(("B",))
    assert parse_letters("Answer: I", "single", OPTIONS) == Invalid("I is not an option")
    many = tuple(f"o{i}" for i in range(10))
    assert parse_letters("Answer: I", "single", many) == Choice(("I",))
    assert parse_letters("I guess it is J", "single", many) == Choice(("J",))  # "I guess": the pronoun


def test_the_parser_reads_the_question_it_is_given():
    question = MapQuestion.from_dict(
        {
            "id": "q",
            "image": "m.png",
            "question": "Q?",
            "options": list(OPTIONS[:3]),
            "answer": "C > A > B",
            "type": "sorting",
            "level": 3,
            "category": "metro",
            "language": "en",
        }  # fmt: skip
    )
    assert parse_answer("Answer: C > A > B", question) == Choice(("C", "A", "B"))
    assert parse_answer("Answer: D > A > B", question) == Invalid("D is not an option")


def test_long_adversarial_inputs_are_read_without_backtracking():
    for text in ("A " * 100_000, "Answer: " + "A, " * 50_000 + "!", "(" * 100_000, "answer is " * 20_000):
        assert isinstance(parse_letters(text, "multiple", OPTIONS), Choice | Invalid)


# -- properties ---------------------------------------------------------------------------------------------------

kinds = st.sampled_from(QUESTION_TYPES)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), kinds, st.integers(2, 26))
def test_the_parser_never_raises_and_returns_letters_of_the_options(text, kind, count):
    found = parse_letters(text, kind, tuple(f"option {i}" for i in range(count)))
    assert isinstance(found, Choice | Invalid)
    if isinstance(found, Choice):
        assert found.letters and set(found.letters) <= set(LETTERS[:count])
        assert len(set(found.letters)) == len(found.letters)
        if kind == "single":
            assert len(found.letters) == 1
        if kind == "multiple":
            assert list(found.letters) == sorted(found.letters)


@st.composite
def answers(draw):
    """A question type, its option count, and letters it could be answered with (in order)."""
    kind = draw(kinds)
    count = draw(st.integers(2, 8))
    letters = list(LETTERS[:count])
    if kind == "single":
        chosen = [draw(st.sampled_from(letters))]
    elif kind == "multiple":
        chosen = draw(st.lists(st.sampled_from(letters), min_size=1, max_size=count, unique=True))
    else:
        chosen = draw(st.permutations(letters))
    return kind, count, chosen


SEPARATORS = {"single": [""], "multiple": [", ", " , ", " and ", "、", " "], "sorting": [" > ", ", ", " -> ", " → "]}
WRAPPERS = [
    "{}",
    "**{}**",
    "`{}`",
    "Answer: {}",
    "**Answer:** {}",
    "The answer is {}.",
    "\\boxed{{{}}}",
    "<answer>{}</answer>",
    "Final answer: **{}**",
    "答案：{}",
    "Some thoughts first.\n\nAnswer: {}\n",
]


@settings(max_examples=100, deadline=None)
@given(answers(), st.data())
def test_exact_match_is_invariant_to_case_whitespace_and_markdown(answer, data):
    kind, count, chosen = answer
    options = tuple(f"place {i}" for i in range(count))
    expected = Choice(tuple(sorted(chosen)) if kind == "multiple" else tuple(chosen))
    separator = data.draw(st.sampled_from(SEPARATORS[kind]))
    letters = [data.draw(st.sampled_from([letter, letter.lower(), f"({letter})", f"{letter}."])) for letter in chosen]
    if separator == "" and len(letters) > 1:
        separator = ", "
    core = separator.join(letters)
    wrapped = data.draw(st.sampled_from(WRAPPERS)).format(core)
    padding = data.draw(st.sampled_from(["", " ", "\n", "\t ", "\r\n"]))
    noisy = padding + (wrapped.upper() if data.draw(st.booleans()) and "boxed" not in wrapped else wrapped) + padding
    assert parse_letters(noisy, kind, options) == expected, noisy
