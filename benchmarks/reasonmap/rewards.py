"""Rewards for reinforcement learning on ReasonMap questions.

Two rewards: ``accuracy`` (1.0 when the answer is a correct route, Algorithm 1)
and ``format`` (1.0 when the answer parses in the asked format). Each comes
in the two calling conventions trainers use, without importing either
library:

- TRL's ``GRPOTrainer(reward_funcs=[accuracy_reward, format_reward])``: called
  as ``f(completions, **columns)``; ``completions`` are strings or chat
  messages, and the data set's columns arrive as lists: ``question`` (the
  question record, a dict or its JSON text) and ``kind`` (``"short"`` or
  ``"long"``).
- verl's ``compute_score(data_source, solution_str, ground_truth, extra_info)``:
  ``ground_truth`` is the question record (dict or JSON text); the kind comes
  from ``extra_info["kind"]`` (default ``"short"``); set
  ``extra_info["reward"]`` to ``"format"`` for the format reward.

A record may carry its Metro Data under ``"metro"``; otherwise the embedded
city named by ``city`` is used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from benchmarks.reasonmap.parsing import parse_answer
from benchmarks.reasonmap.records import ParsedAnswer, Question
from benchmarks.reasonmap.scoring import score_answer
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph

__all__ = ["accuracy_reward", "format_reward", "compute_score", "REWARDS"]


def _text(completion: Any) -> str:
    """The assistant text of a completion: a string, or the last message of a chat."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence) and completion:
        return _text(completion[-1])
    return ""


@lru_cache(maxsize=256)
def _graph_of_metro(text: str, city: str) -> TransitGraph:
    from graphkit.graph import compile_graph
    from graphkit.metro import load_metro

    return compile_graph(load_metro(text, city=city))


def _question_and_graph(record: Any) -> tuple[Question, TransitGraph]:
    from graphkit.cities import city_graph

    if isinstance(record, str):
        record = json.loads(record)
    question = Question.from_dict(record, where="reward record")
    metro = record.get("metro") if isinstance(record, Mapping) else None
    if metro is not None:
        text = metro if isinstance(metro, str) else json.dumps(metro, ensure_ascii=False, sort_keys=True)
        return question, _graph_of_metro(text, question.city)
    return question, city_graph(question.city)


def _accuracy(text: str, record: Any, kind: str) -> float:
    question, graph = _question_and_graph(record)
    answer = parse_answer(text, kind=kind, template=question.long_template)
    return float(score_answer(answer, question, graph, kind=kind).correct)


def _format(text: str, record: Any, kind: str) -> float:
    template = None
    if record is not None:
        data = json.loads(record) if isinstance(record, str) else record
        template = data.get("long_template") if isinstance(data, Mapping) else None
    answer = parse_answer(text, kind=kind, template=template)
    if not isinstance(answer, ParsedAnswer):
        return 0.0
    if kind == "long" and template == "via_count":
        return float(all(section.num_via_stops is not None for section in answer.sections))
    if kind == "long" and template == "via_stops":
        return float(all(section.via_stops is not None for section in answer.sections))
    return 1.0


def _column(values: Any, index: int, default: Any) -> Any:
    if values is None:
        return default
    if isinstance(values, (list, tuple)):
        return values[index] if index < len(values) else default
    return values


def accuracy_reward(completions: Sequence[Any], question: Sequence[Any] | None = None, kind: Any = "short", **_: Any):
    """TRL reward: 1.0 per completion that gives a correct route, else 0.0.

    Parameters
    ----------
    completions : sequence
        The completions: strings or chat messages (the last message's content).
    question : sequence, optional
        The data set's ``question`` column: each completion's question record (a dict or its JSON text).
    kind : str or sequence of str, optional
        ``"short"`` or ``"long"``, one for all or one per completion.
    **_
        The data set's other columns, ignored.

    Returns
    -------
    list of float
        One reward per completion.

    Raises
    ------
    ValueError
        Without the ``question`` column.
    """
    if question is None:
        raise ValueError("accuracy_reward needs the data set column 'question' (the question record)")
    return [
        _accuracy(_text(completion), _column(question, index, None), _column(kind, index, "short"))
        for index, completion in enumerate(completions)
    ]


def format_reward(completions: Sequence[Any], question: Sequence[Any] | None = None, kind: Any = "short", **_: Any):
    """TRL reward: 1.0 per completion that parses in the asked format, else 0.0.

    Parameters
    ----------
    completions : sequence
        The completions: strings or chat messages (the last message's content).
    question : sequence, optional
        The question records, whose ``long_template`` says the long format (without: any sections).
    kind : str or sequence of str, optional
        ``"short"`` or ``"long"``, one for all or one per completion.
    **_
        The data set's other columns, ignored.

    Returns
    -------
    list of float
        One reward per completion.
    """
    return [
        _format(_text(completion), _column(question, index, None), _column(kind, index, "short"))
        for index, completion in enumerate(completions)
    ]


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None
) -> float:
    """verl reward: accuracy (default) or format of one solution against its question record.

    Parameters
    ----------
    data_source : str
        verl's data source (unused).
    solution_str : str
        The model's answer.
    ground_truth : Any
        The question record (a dict or its JSON text).
    extra_info : mapping, optional
        ``kind`` (default ``"short"``) and ``reward`` (``"accuracy"``, default, or ``"format"``).

    Returns
    -------
    float
        1.0 or 0.0.

    Raises
    ------
    ValueError
        ``extra_info["reward"]`` is not a reward of :data:`REWARDS`.
    """
    extra = dict(extra_info or {})
    kind = extra.get("kind", "short")
    reward = extra.get("reward", "accuracy")
    check_choice(reward, REWARDS, what="extra_info['reward']")
    if reward == "format":
        return _format(solution_str, ground_truth, kind)
    return _accuracy(solution_str, ground_truth, kind)


# name -> (TRL reward function, description)
REWARDS = {
    "accuracy": (accuracy_reward, "1.0 when the answer is a correct route (Algorithm 1)"),
    "format": (format_reward, "1.0 when the answer parses in the asked format"),
}
