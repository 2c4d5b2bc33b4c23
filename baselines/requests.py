"""A request: the exact chat messages sent for one question kind, ready for any harness."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.reasonmap.records import KINDS, Kind

__all__ = ["Request"]


@dataclass(frozen=True, slots=True)
class Request:
    """One chat request: OpenAI-style ``messages`` for question ``id`` and kind ``question``.

    ``question`` is ``short`` or ``long`` for ReasonMap questions (the only
    kinds :meth:`from_dict` reads); other harnesses name their own kind
    (``mapqa``, and ``describe`` for the descriptions of :mod:`baselines.vdi`).
    ``mode`` names the prompt mode (``full``, ``text-only``, ``symbolic``,
    ``alias``); ``meta`` holds what a harness may want beside the messages
    (textualization, its size, the alias strategy).
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
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a request must be a JSON object")
        kind = record.get("question")
        if kind not in KINDS:
            raise InvalidRecord(f"{where}: field 'question' must be one of {list(KINDS)}, got {kind!r}")
        messages = record.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, Mapping) for m in messages):
            raise InvalidRecord(f"{where}: field 'messages' must be a non-empty list of chat messages")
        return cls(
            id=str(record.get("id")),
            question=kind,
            mode=str(record.get("mode", "")),
            messages=tuple(dict(m) for m in messages),
            meta=dict(record.get("meta") or {}),
        )
