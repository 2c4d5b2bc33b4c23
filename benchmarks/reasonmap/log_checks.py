"""Whether a row of another harness's file was made from the route question it is matched to.

The shared pieces (the row's record, the error, the tolerant comparisons) are
:mod:`benchmarks.log_checks`; this module says what a route row must agree with.

lmms-eval (0.4 and later) names a question by its position in the file it iterated, Inspect and
VLMEvalKit by its id; neither tells one question file from another of the same length or the same
ids (two seeds of one city, before ids carried the seed). So each row's own record of its question
(the prompt it sent, the document it logged, the sheet's columns) is compared with the question it
is matched to, and the first row that disagrees refuses the whole file.

What is compared, tolerant of what legitimately differs (case, Unicode normal form, runs of
white space, a prompt wrapped around the question):

- a named field (``station_1``, ``station_2``, ``city``, plus ``type``) must equal the question's;
- a logged question text (``question_short``, ``question_long``) must hold the question's text;
- a prompt must hold the question's text for its kind; else, when it asks the route question of
  the paper's template (``how do I get from A to B?``), A and B must be the question's stations,
  and what it asks for (the short question's, or a long template's) must be the question's;
  else it must name both stations (unless the row's fields named them). A plus prompt must hold
  the plus question's text.

A row that records nothing of its question is not checked (the readers count such rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmarks.jsonl import Note
from benchmarks.log_checks import Logged, Mismatch, excerpt, field_mismatch, normalized, text_mismatch
from benchmarks.reasonmap.records import Question
from benchmarks.reasonmap.templates import TEMPLATE_ASKS

__all__ = ["ROUTE_FIELDS", "RowChecks", "route_mismatch"]

#: The fields of a route question a harness may log beside its answer (a document, a sheet's columns).
ROUTE_FIELDS = ("station_1", "station_2", "city", "question_short", "question_long")

_OPENER = "how do i get from "


def _route_prompt(prompt: str, question: Any, kind: str, *, named: bool) -> str | None:
    """How a prompt disagrees with the route question; ``named``: the row's own fields named both
    stations, and they agreed (then a prompt that names nothing, a question in the image, is no
    disagreement)."""
    text = normalized(prompt)
    if normalized(question.text(kind)) in text:
        return None
    first, second = normalized(question.station_1), normalized(question.station_2)
    asked = f"{first} to {second}?"
    if _OPENER in text:  # the paper's question, perhaps in another wording of its ask: the stations decide
        places, index = [], text.find(_OPENER)
        while index >= 0:
            places.append(index + len(_OPENER))
            index = text.find(_OPENER, index + 1)
        if not any(text.startswith(asked, place) for place in places):
            said = text[places[0] :].split("?", 1)[0]
            return f"the prompt asks the way from {excerpt(said)}, the question from {excerpt(asked[:-1])}"
        return _route_ask(text, question, kind)
    if named or (first in text and second in text):  # a prompt of its own, naming both stations
        return None
    return (
        f"the prompt {excerpt(text)} holds neither the question's text nor its stations"
        f" {question.station_1!r} and {question.station_2!r}"
    )


def _route_ask(text: str, question: Any, kind: str) -> str | None:
    """Whether a prompt that names the question's stations asks for what the question asks (its kind and,
    long, its template); a prompt in words of its own asks for nothing to compare."""
    own = "short" if kind == "short" else question.long_template
    asks = {name: normalized(ask) for name, ask in TEMPLATE_ASKS.items()}
    if own not in asks or asks[own] in text:
        return None
    other = next((name for name, ask in asks.items() if ask in text), None)
    if other is None:
        return None
    return f"the prompt asks for {excerpt(asks[other])}, the question ({kind}) for {excerpt(asks[own])}"


def route_mismatch(question: Any, kind: str, logged: Logged, *, prompts: bool = True) -> str | None:
    """How a row's record disagrees with the route question it is matched to; ``None`` when it agrees.

    Parameters
    ----------
    question : Question
        The route question.
    kind : {"short", "long"}
        The kind the row answers.
    logged : Logged
        What the row recorded: its prompts and fields.
    prompts : bool, optional
        ``False`` compares the named fields only (a prompt that renamed the stations: Inspect's ``alias`` mode).

    Returns
    -------
    str or None
        The first disagreement (the stations, the city, a question text, the prompt), in words; ``None`` when it
        agrees.
    """
    wanted = {"station_1": question.station_1, "station_2": question.station_2, "city": question.city}
    if found := field_mismatch(logged, wanted):
        return found
    for name in ("question_short", "question_long"):
        if name in logged.fields and (
            found := text_mismatch(f"field {name!r}", logged.fields[name], question.text(name[9:]))
        ):
            return found
    if prompts:
        named = "station_1" in logged.fields and "station_2" in logged.fields
        for prompt in logged.prompts:
            if found := _route_prompt(prompt, question, kind, named=named):
                return found
    return None


class RowChecks:
    """Rows compared with the route questions they are matched to.

    A row that disagrees raises :class:`~benchmarks.log_checks.Mismatch`, which no row-level
    handler catches: the file is refused at its first such row. Rows that record nothing are counted.

    Parameters
    ----------
    questions : mapping or None
        The question file's questions by id (``None``: nothing to check against).
    """

    def __init__(self, questions: Mapping[str, Any] | None) -> None:
        self.questions = questions or {}
        self.checked = 0
        self.unchecked = 0

    def check(self, identifier: str, kind: str, logged: Logged, where: str, *, prompts: bool = True) -> None:
        question = self.questions.get(identifier)
        if question is None:  # answers no question: reported when scored
            return
        if not isinstance(question, Question):
            raise Mismatch(
                f"{where}: a route answer matched to {identifier!r}, a {type(question).__name__} of the question"
                " file, not a route question; pass the route question file the log was made from"
            )
        if logged.empty:
            self.unchecked += 1
            return
        found = route_mismatch(question, kind, logged, prompts=prompts)
        if found is not None:
            raise Mismatch(
                f"{where}: not made from the question it is matched to ({identifier!r}, {kind}): {found};"
                " pass the question file the log was made from"
            )
        self.checked += 1

    def said(self) -> list[str]:
        """What was checked, when there were questions to check against."""
        if not self.questions or not (self.checked or self.unchecked):
            return []
        said = [f"{self.checked} rows checked against their questions' text and stations"]
        if self.unchecked:
            said.append(f"{self.unchecked} rows record no question: not checked")
        return said

    def note(self, path: str, head: str) -> list[Note]:
        """One line on what was checked, when there were questions to check against."""
        said = self.said()
        return [Note(path, 0, head + "; ".join(said))] if said else []
