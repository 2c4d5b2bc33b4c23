"""Reading the chosen options from a model's answer: tolerant, never raises.

:func:`parse_answer` returns a :class:`Choice` (option letters: one for a
single-choice question, the set for multiple choice, the order for sorting)
or an :class:`~benchmarks.records.Invalid` marker saying why none
could be read.

Where the answer is looked for, first found wins
    the last ``\\boxed{...}``; the last non-empty ``<answer>`` block (searched
    again for the others); the last answer marker (``Answer:``, ``The answer
    is``, ``Final answer:``, ``The correct options are``, ``答案：``, ``答案是``
    ...), whose value runs to the end of its line (or is the next line); unless
    it reads whole as letters or option texts (below, 1 and 2), it is cut at
    the first clause break (``. ``, ``because``, ``(`` ...). Without any
    of these: the last line, then the whole text. ``<think>`` blocks are
    dropped first, and so are markdown emphasis, code marks and headings.

How a value is read, first that applies wins
    1. *letters only*: letters with optional brackets and dots, separated by
       commas, ``>``, arrows, slashes, ``and``, ``then`` or spaces (``B``,
       ``(b)``, ``A, C``, ``a and c``, ``B > A > C``), or a run of distinct
       option letters (``AC``). Any case: the value holds nothing else.
    2. *option text*: the value is one option's text, or such texts separated
       as above (case and spacing ignored).
    3. *prose*: standalone capital letters of the options, in order of
       appearance (``Option B is right`` gives B). Lower-case letters never
       count here, and a bare ``A`` or ``I`` followed by a lower-case word
       that is not a verb or a conjunction (``A map``, ``I think``) is read as
       the article or pronoun it is. Prose is read inside an answer marker's
       value, and, for single-choice questions only, over a whole answer that
       has no marker, when it names exactly one option.

A value that names a letter beyond the options is invalid; so is a
single-choice answer naming several options and a sorting answer repeating
one. A multiple-choice answer is a set (order and repeats do not matter).
Text is NFKC-normalized first (full-width letters and colons are read).
Long values are only read as prose, so the time is linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from benchmarks.answer_text import after_reasoning, mentions_refusal
from benchmarks.mapqa.records import LETTERS, MapQuestion, QuestionType
from benchmarks.records import Invalid

__all__ = ["Choice", "parse_answer", "parse_letters"]

_MAX_VALUE = 300  # longer values are prose (the letters-only pattern is not tried on them)
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.IGNORECASE | re.DOTALL)
_BOXED = re.compile(r"\\boxed\s*\{")
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\s*\{([^{}]*)\}")
_MARKDOWN = re.compile(r"\*\*|__|[*`$]|^[ \t]*#+[ \t]*", re.MULTILINE)
_MARKER = re.compile(
    r"(?:\b(?:final\s+answers?|answers?|correct\s+(?:options?|choices?|answers?|order))"
    r"[ \t]*(?:(?:is|are|would\s+be|should\s+be|will\s+be)\b(?!['’])|[:=])|正确答案|答案)"
    r"[ \t]*(?:是|为|為|[:=])?[ \t]*",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"[.!?;](?=\s|$)|[。！？；]|[:](?=\s)|\s[-–—]\s|[(\[](?![A-Za-z][)\]])"
    r"|\s(?:because|since|as|so|but|which|while|whereas|given|due)\b",
    re.IGNORECASE,
)
_OPTION_WORD = re.compile(r"\b(?:options?|choices?)\b|选项", re.IGNORECASE)
_SEPARATOR_WORD = re.compile(r"\s(?:and|then|or)\s|和|与|及", re.IGNORECASE)
_ITEM = r"[(\[【]?[A-Za-z][)\]】]?\.?"
_SEPARATOR = r"(?:\s*(?:[,、;/&>→]|->|=>)\s*|\s+)"
_LETTERS_ONLY = re.compile(rf"{_ITEM}(?:{_SEPARATOR}{_ITEM})*")
_TEXT_SPLIT = re.compile(r"\s*(?:[,、;>→]|->|=>)\s*|\s+(?:and|then)\s+", re.IGNORECASE)
_PROSE_LETTER = re.compile(r"(?<![A-Za-z0-9])([(\[]?)([A-Z])(?![A-Za-z0-9'’])")
_NEXT_WORD = re.compile(r"\s+([a-z]+)")
# Words after a bare "A" or "I" that make it an option letter ("A is wrong", "I and J"), not an article or pronoun.
_LETTER_CONTEXT = frozenset(
    "and or is are was were then seems seem appears looks would should must could can has to also only too".split()
)


@dataclass(frozen=True, slots=True)
class Choice:
    """The options an answer chose, as letters: one (single), sorted (multiple) or in order (sorting)."""

    letters: tuple[str, ...]


def parse_answer(text: str, question: MapQuestion) -> Choice | Invalid:
    """The options a response chose for ``question``; never raises.

    Parameters
    ----------
    text : str
        The model's response.
    question : MapQuestion
        The question answered (its type and options say what can be chosen).

    Returns
    -------
    Choice or Invalid
        The letters chosen, in the response's order for a sorting question; :class:`Invalid` when none
        could be read.

    Examples
    --------
    >>> record = {"id": "q", "image": "m.png", "question": "Which?", "options": ["x", "y", "z"],
    ...           "answer": ["A", "C"], "type": "multiple", "level": 1, "category": "metro", "language": "en"}
    >>> question = MapQuestion.from_dict(record)
    >>> parse_answer("**Answer:** C and a", question)
    Choice(letters=('A', 'C'))
    >>> parse_answer("This is a map.", question)
    Invalid(reason='no option found', refusal=False)
    """
    return parse_letters(text, question.type, question.options)


def parse_letters(text: str, kind: QuestionType, options: tuple[str, ...]) -> Choice | Invalid:
    """The options a response chose, given the question type and its options; never raises.

    Examples
    --------
    >>> parse_letters("\\\\boxed{B}", "single", ("north", "south"))
    Choice(letters=('B',))
    >>> parse_letters("The answer is B > A > C.", "sorting", ("x", "y", "z"))
    Choice(letters=('B', 'A', 'C'))
    >>> parse_letters("Answer: South", "single", ("North", "South"))
    Choice(letters=('B',))
    >>> parse_letters("Answer: E", "single", ("x", "y", "z"))
    Invalid(reason='E is not an option', refusal=False)
    """
    if not isinstance(text, str):
        return Invalid("not text")
    if not text or text.isspace():
        return Invalid("empty response")
    answer = after_reasoning(text)
    if answer is None:
        return Invalid("no answer after reasoning")
    answer = _MARKDOWN.sub("", unicodedata.normalize("NFKC", answer).replace("\r\n", "\n").replace("\r", "\n"))
    valid = LETTERS[: len(options)]
    found = _find(answer, kind, valid, tuple(_normal(option) for option in options))
    if isinstance(found, Invalid):
        if found.reason == "no option found" and mentions_refusal(answer):
            return Invalid("refusal", refusal=True)
        return found
    return _checked(found, kind)


def _boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (braces balanced; an unclosed one runs to the end)."""
    last = None
    for match in _BOXED.finditer(text):
        last = match
    if last is None:
        return None
    depth, start = 1, last.end()
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start:index]
    return text[start:]


def _marker_value(text: str) -> tuple[str, str] | None:
    """What follows the last answer marker (the rest of its line, or the next line), whole and cut at a clause
    break."""
    last = None
    for match in _MARKER.finditer(text):
        last = match
    if last is None:
        return None
    rest = text[last.end() :]
    lines = rest.split("\n")
    value = lines[0]
    if not value.strip():
        value = next((line for line in lines[1:] if line.strip()), "")
    value = value.strip()
    cut = _CLAUSE_BREAK.search(value, 1)  # from 1: a value may open with "(B)" or "(" of its own
    return value, value[: cut.start()] if cut else value


def _find(text: str, kind: QuestionType, valid: str, options: tuple[str, ...]) -> list[str] | Invalid:
    """The letters named where the answer is, in order, or why there are none."""
    blocks = [match.group(1) for match in _ANSWER_BLOCK.finditer(text) if match.group(1).strip()]
    if blocks:
        text = blocks[-1]
    boxed = _boxed(text)
    if boxed is not None:
        return _read(_LATEX_TEXT.sub(r"\1", boxed), valid, options, prose=True)
    marked = _marker_value(text)
    if marked is not None:
        whole, cut = marked
        # the whole value first: letters ("A. > B") or an option's text ("St. Paul") may hold a clause break
        found = _read(whole, valid, options, prose=False)
        return found if not isinstance(found, Invalid) else _read(cut, valid, options, prose=True)
    if blocks:
        return _read(text, valid, options, prose=True)
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) > 1:
        found = _read(lines[-1], valid, options, prose=False)
        if not isinstance(found, Invalid) or found.reason != "no option found":
            return found
    return _read(text, valid, options, prose=kind == "single", only_one=True)


def _normal(text: str) -> str:
    """Text compared with option texts: NFKC, case-folded, single spaces, no edge punctuation or quotes."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return folded.strip(" .,;:!?。，；：！？\"'“”‘’")


def _read(
    value: str, valid: str, options: tuple[str, ...], *, prose: bool, only_one: bool = False
) -> list[str] | Invalid:
    """The letters a value names (letters only, then option texts, then prose when allowed)."""
    value = value.strip().rstrip(".。!！")
    if not value:
        return Invalid("no option found")
    if len(value) <= _MAX_VALUE:
        bare = _SEPARATOR_WORD.sub(" ", _OPTION_WORD.sub(" ", value)).strip()
        if _LETTERS_ONLY.fullmatch(bare):
            letters = [letter.upper() for letter in re.findall(r"[A-Za-z]", bare)]
            outside = [letter for letter in letters if letter not in valid]
            return Invalid(f"{outside[0]} is not an option") if outside else letters
        if re.fullmatch(r"[A-Za-z]{2,26}", bare):
            letters = list(bare.upper())
            if len(set(letters)) == len(letters) and all(letter in valid for letter in letters):
                return letters
        named = _named(value, valid, options)
        if named is not None:
            return named
    if not prose:
        return Invalid("no option found")
    letters = []
    for match in _PROSE_LETTER.finditer(value):
        letter = match.group(2)
        if letter not in valid:
            continue
        if letter in "AI" and not match.group(1):
            following = _NEXT_WORD.match(value, match.end())
            if following and following.group(1) not in _LETTER_CONTEXT:
                continue  # the article or the pronoun
        letters.append(letter)
    if not letters:
        return Invalid("no option found")
    if only_one and len(set(letters)) > 1:
        return Invalid("several options named without an answer marker")
    return letters


def _named(value: str, valid: str, options: tuple[str, ...]) -> list[str] | None:
    """The letters of the options whose texts make up ``value`` (one text, or texts separated), or None."""
    if len(value) > _MAX_VALUE * 4:
        return None
    named = _normal(value)
    if named in options:
        return [valid[options.index(named)]]
    pieces = [_normal(piece) for piece in _TEXT_SPLIT.split(value)]
    if len(pieces) > 1 and all(piece in options for piece in pieces):
        return [valid[options.index(piece)] for piece in pieces]
    return None


def _checked(letters: list[str], kind: QuestionType) -> Choice | Invalid:
    """The letters as the question type wants them, or why they do not fit it."""
    if kind == "single":
        distinct = sorted(set(letters))
        if len(distinct) != 1:
            return Invalid(f"several options named: {', '.join(distinct)}")
        return Choice((distinct[0],))
    if kind == "multiple":
        return Choice(tuple(sorted(set(letters))))
    if len(set(letters)) != len(letters):
        return Invalid("an option is named twice in the order")
    return Choice(tuple(letters))
