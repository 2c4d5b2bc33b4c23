"""Reading a short answer (an option letter, an integer, or yes/no) from a model's response, never raising.

What ReasonMap-Plus questions (:mod:`benchmarks.plus.scoring`) and the probe task's ``same_line`` and
``count_between`` questions (:mod:`benchmarks.probe.scoring`) share: one reading of the same answer kinds.

Where the answer is looked for, first hit wins:

1. after the last ``</think>`` (nothing left: invalid), inside the last
   non-empty ``<answer>`` block when there is one;
2. the last ``\\boxed{...}``;
3. after an answer phrase (``the answer is``, ``Answer:``, ``final answer =``,
   ``the correct option is``, ``答案是``), the last first (of the last 16): the
   rest of its line, or the next non-empty line;
4. the start of the first, then of the last, non-empty line (``Yes, ...``,
   ``No.``, ``B) 4``, ``**3**``);
5. anywhere: the last marked letter (``(B)``, ``**B**``, ``option B``, ``B.``),
   the last integer, or the last yes/no word (a line's letter or number, as in
   ``Line C.`` or ``Line 2``, is not taken for an answer).

In 2–4 an option letter is read at the start only, and ``A`` or a lowercase
letter followed by a word (``A station lies...``) is the article, not an
option, unless it is marked (``(A)``, ``option a``) or the word is a verb
(``A is correct``); ``B``–``D`` are options whatever follows. Markdown, quotes, LaTeX wrappers, case, whitespace
and punctuation around the answer never matter. ``true``/``false`` count as
``yes``/``no``; numbers may be digits or words up to twenty.
"""

from __future__ import annotations

import bisect
import re
from typing import Literal

from benchmarks.answer_text import after_reasoning, mentions_refusal
from benchmarks.records import Invalid

__all__ = ["AnswerKind", "OPTION_LETTERS", "read_short_answer"]

AnswerKind = Literal["choice", "integer", "yes_no"]
OPTION_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

_ANSWER_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_ANSWER_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\s*+\{")
_MAX_BOXED = 200
# An answer phrase, then the value: no digit between "answer" and "is" (so "answer for line 2 is" does not match).
_PHRASE = re.compile(
    r"\b(?:final\s++)?answers?\b[^\n\d]{0,30}?(?:\bis\b|\bwould\s++be\b|\bshould\s++be\b|[:：=])"
    r"|\bcorrect\s++(?:option|choice|answer)\s++is\b|答案\s*+(?:是|为|:|：)",
    re.IGNORECASE,
)
_MAX_REGION = 120
_MAX_PHRASES = 16  # the last ones; more is not an answer but a loop
# The next non-empty line after a phrase that ends its own line (the whitespace run is scanned once).
_NEXT_LINE = re.compile(rf"[^\n]{{0,{_MAX_REGION}}}\n\s*+([^\n]{{1,{_MAX_REGION}}})")
_LATEX_WRAPPER = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|fbox|boxed)\s*+\{")
_DROPPED = str.maketrans({ch: " " for ch in "*_`~${}\"'“”‘’„「」『』«»＂＇"})
_LEAD = " \t\u00a0\u3000\u200b\ufeff#>:：-–—•·+=,"
# A letter at the start of a region: with its marker ("(", "option") when there is one, and what follows.
_LEAD_LETTER = re.compile(
    r"(?P<marker>(?:option|choice)\s*+[(\[]?+|[(\[])?+(?P<letter>[A-Da-d])(?!\w)(?P<after>[^\n]{0,3})", re.IGNORECASE
)
_WORD_AFTER = re.compile(r"[\s\u00a0]++[^\W\d_]")
# The article "A" may precede one of these and still be option A ("A is correct").
_VERB_AFTER = re.compile(r"[\s\u00a0]++(?:is|was|would|should)\b", re.IGNORECASE)
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
# Digits, not inside a word or a decimal; anywhere in a text, not a line's number either ("Line 2").
_INTEGER = re.compile(r"(?<![A-Za-z0-9.])(?<![Ll]ine )(?<!LINE )(\d{1,9})(?!\d|\.\d)")
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(\d{1,9})(?![\d]|\.\d)|\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_YES_NO = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)
_YES_NO_VALUE = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
# Letters marked as options anywhere in a text: (B), [B], **B**, option B, or a capital letter closed by . ) :
_MARKED_LETTER = re.compile(
    r"[(\[]([A-Da-d])[)\]]|\*\*([A-Da-d])\*\*|(?i:\b(?:option|choice)\s++\(?([A-D])\b)"
    r"|(?<![\w.])(?<![Ll]ine )(?<!LINE )([A-D])[.):](?![\w.])"
)


def _answer_block(text: str) -> str:
    """The content of the last non-empty ``<answer>`` block, or the text when there is none."""
    openings = list(_ANSWER_OPEN.finditer(text))
    closings = [match.start() for match in _ANSWER_CLOSE.finditer(text)]
    for index in range(len(openings) - 1, -1, -1):
        start = openings[index].end()
        end = len(text) if index + 1 == len(openings) else openings[index + 1].start()
        after = bisect.bisect_left(closings, start)
        if after < len(closings):
            end = min(end, closings[after])
        content = text[start:end]
        if content and not content.isspace():
            return content
    return text


def _boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (braces balanced, at most a few hundred characters)."""
    matches = list(_BOXED.finditer(text))
    if not matches:
        return None
    start = matches[-1].end()
    depth = 1
    for index in range(start, min(len(text), start + _MAX_BOXED)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return text[start : start + _MAX_BOXED]


def _normalized(region: str) -> str:
    """A region without markdown, quotes, LaTeX wrappers and leading punctuation."""
    return _LATEX_WRAPPER.sub(" ", region).translate(_DROPPED).replace("\\", " ").lstrip(_LEAD)


def _lead_letter(text: str) -> str | None:
    """An option letter that starts ``text`` and stands alone (not the article of a sentence)."""
    match = _LEAD_LETTER.match(text)
    if match is None:
        return None
    letter, after = match["letter"], match["after"]
    alone = not _WORD_AFTER.match(after) or (letter == "A" and _VERB_AFTER.match(text, match.end("letter")))
    if match["marker"] or letter in "BCD" or alone:
        return letter.upper()
    return None


def _number(match: re.Match) -> int:
    return int(match[1]) if match[1] is not None else _NUMBER_WORDS[match[2].lower()]


def _read_region(region: str, kind: AnswerKind, *, at_start: bool) -> str | int | None:
    """The value a short region gives: at its start only (``at_start``), else its first one."""
    text = _normalized(region)
    if kind == "choice":
        letter = _lead_letter(text)
        if letter is not None:
            return letter
    if kind == "yes_no":
        match = _YES_NO.match(text) if at_start else _YES_NO.search(text)
        return _YES_NO_VALUE[match[1].lower()] if match else None
    match = _NUMBER.match(text) if at_start else _NUMBER.search(text)
    return _number(match) if match else None


def _phrase_regions(text: str) -> list[str]:
    """What follows the last answer phrases (the rest of the line, or the next non-empty line), the last first."""
    regions = []
    for match in list(_PHRASE.finditer(text))[-_MAX_PHRASES:][::-1]:
        region = text[match.end() : match.end() + _MAX_REGION].split("\n", 1)[0]
        if not _normalized(region).strip():
            following = _NEXT_LINE.match(text, match.end())
            region = following[1] if following else ""
        regions.append(region)
    return regions


def _anywhere(text: str, kind: AnswerKind) -> str | int | None:
    """The last marked letter, integer or yes/no word of the whole text."""
    if kind == "choice":
        letter = None
        for match in _MARKED_LETTER.finditer(text):
            letter = next(group for group in match.groups() if group is not None).upper()
        if letter is not None:
            return letter
    if kind == "yes_no":
        words = _YES_NO.findall(text)
        return _YES_NO_VALUE[words[-1].lower()] if words else None
    numbers = _INTEGER.findall(text)
    return int(numbers[-1]) if numbers else None


def read_short_answer(text: object, kind: AnswerKind) -> str | int | Invalid:
    """The answer of a response: an option letter ``A``–``D`` (``choice``), an integer, or ``"yes"``/``"no"``.

    Parameters
    ----------
    text : str
        The model's response. Anything else gives ``Invalid("not text")``.
    kind : {"choice", "integer", "yes_no"}
        What is read (a caller's choice; the text never makes this function raise).

    Returns
    -------
    str or int or Invalid
        ``Invalid`` reasons: ``"not text"``, ``"empty response"``, ``"no answer after reasoning"``,
        ``"refusal"`` (with ``refusal=True``), ``"no answer found"``.

    Examples
    --------
    >>> read_short_answer("Yes, both lie on Line 1.", "yes_no"), read_short_answer("**Answer:** three", "integer")
    ('yes', 3)
    >>> read_short_answer("The map shows several.", "integer")
    Invalid(reason='no answer found', refusal=False)
    """
    if not isinstance(text, str):
        return Invalid("not text")
    if not text.strip():
        return Invalid("empty response")
    answer = after_reasoning(text.replace("\r\n", "\n").replace("\r", "\n"))
    if answer is None:
        return Invalid("no answer after reasoning")
    answer = _answer_block(answer)
    boxed = _boxed(answer)
    if boxed is not None:
        value = _read_region(boxed, kind, at_start=False)
        if value is not None:
            return value
    for region in _phrase_regions(answer):
        value = _read_region(region, kind, at_start=False)
        if value is not None:
            return value
    lines = answer.split("\n")
    for ordered in (lines, reversed(lines)):  # the first non-empty line, then the last
        line = next((line for line in ordered if _normalized(line).strip()), None)
        value = None if line is None else _read_region(line, kind, at_start=True)
        if value is not None:
            return value
    value = _anywhere(answer, kind)
    if value is not None:
        return value
    if mentions_refusal(answer):
        return Invalid("refusal", refusal=True)
    return Invalid("no answer found")
