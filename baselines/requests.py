"""A request: the exact chat messages sent for one question kind, ready for any harness."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.records import Kind

__all__ = ["Request"]


@dataclass(frozen=True, slots=True)
class Request:
    """One chat request: OpenAI-style ``messages`` for question ``id`` and kind ``question``.

    ``question`` is the request's kind within its question: ``short`` or
    ``long`` for ReasonMap route questions, the type (``Counting1``, ...) of
    a ReasonMap-Plus question, ``mapqa`` for map QA, ``describe`` for the
    descriptions of :mod:`reasonmap.vdi`.
    ``mode`` names the prompt mode (``full``, ``text-only``, ``symbolic``,
    ``alias``); ``meta`` holds what a harness may want beside the messages
    (textualization, its size, the alias strategy).

    Attributes
    ----------
    id : str
        The question's id.
    question : str
        The request's kind within its question (see above).
    mode : str
        The prompt mode.
    messages : tuple of dict
        The chat messages, OpenAI-style.
    meta : dict
        What a harness may want beside the messages.
    """

    id: str
    question: Kind | str
    mode: str
    messages: tuple[dict[str, Any], ...]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        """What identifies a request within a run: the question id and kind."""
        return (self.id, self.question)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "mode": self.mode,
            "messages": list(self.messages),
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "request") -> Request:
        """A request from its record form; :class:`InvalidRecord` naming ``where`` and the field when it is not one.

        Examples
        --------
        >>> record = {"id": "q1", "question": "short", "messages": [{"role": "user", "content": "Route?"}]}
        >>> Request.from_dict(record).key
        ('q1', 'short')
        >>> Request.from_dict({**record, "question": "TorF1"}).key
        ('q1', 'TorF1')
        >>> Request.from_dict({**record, "id": None}, where="r.jsonl:3")
        Traceback (most recent call last):
        ...
        benchmarks.errors.InvalidRecord: r.jsonl:3: field 'id' must be a non-empty string, got None
        """
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a request must be a JSON object")
        identifier = record.get("id")
        # an int id is the same question as its string (as question and prediction files read it); nothing else is
        if isinstance(identifier, int) and not isinstance(identifier, bool):
            identifier = str(identifier)
        if not isinstance(identifier, str) or not identifier.strip():
            got = "it is missing" if "id" not in record else f"got {identifier!r:.80}"
            raise InvalidRecord(f"{where}: field 'id' must be a non-empty string, {got}")
        kind = record.get("question")
        # any task's kind (short, long, a plus type, mapqa, describe): the client only needs it to key the request
        if not isinstance(kind, str) or not kind.strip():
            got = "it is missing" if "question" not in record else f"got {kind!r:.80}"
            raise InvalidRecord(f"{where}: field 'question' must be a non-empty string (the request's kind), {got}")
        messages = record.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, Mapping) for m in messages):
            raise InvalidRecord(f"{where}: field 'messages' must be a non-empty list of chat messages")
        mode = record.get("mode")
        if mode is not None and not isinstance(mode, str):
            raise InvalidRecord(f"{where}: field 'mode' must be a string (the prompt mode), got {mode!r:.80}")
        meta = record.get("meta")
        if meta is not None and not isinstance(meta, Mapping):
            raise InvalidRecord(f"{where}: field 'meta' must be a JSON object, got {meta!r:.80}")
        return cls(
            id=identifier,
            question=kind,
            mode=mode or "",
            messages=tuple(dict(m) for m in messages),
            meta=dict(meta or {}),
        )
