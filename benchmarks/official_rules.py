"""How the public scripts turn a response into the answer text they score: one rule per model path.

fscdc/ReasonMap's ``main.py`` and ``main_plus.py`` choose, by ``--model_path``,
what part of a response their parser reads (``main_closed_models.py`` reads
every reply's content as it is). :data:`OFFICIAL_MODELS` lists every path of
``main.py`` and every ``--model`` of ``main_closed_models.py`` with its rule
(:data:`ANSWER_RULES`); :func:`choose_rule` picks a prediction's rule from its
model's name or from the path the user gives (``--official-model``). A run's
option is resolved once, to each model's rule (:func:`resolve_rules`); the
scorers look a model up in that mapping (:func:`rule_for`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from benchmarks.cells import markdown_text

__all__ = [
    "ANSWER_RULES",
    "DEFAULT_RULE",
    "OFFICIAL_MODELS",
    "RuleChoice",
    "check_official_models",
    "choose_rule",
    "official_answer_text",
    "official_rules",
    "official_rules_lines",
    "resolve_rules",
    "rule_for",
    "rules_record",
]

#: How the public scripts turn a response into the answer text they score (rule: what is kept).
ANSWER_RULES: dict[str, str] = {
    "kimi": "the text after the last '◁/think▷', stripped (all of it, stripped, when there is none)",
    "skywork": "the text after the last '</think>', stripped (all of it, stripped, when there is none)",
    "qvq": "each \\text{...} of the first \\boxed{...} on one line, one per line (the whole response when none)",
    "whole": "the whole response, as it is",
}
#: Every model path of the public scripts and its rule. fscdc/ReasonMap e68dd65: ``main.py`` (the short
#: answer lines 197-414, the long 686-900; ``-onlytext`` paths keep their rule) and ``main_closed_models.py``
#: (``--model``, lines 93-387 and 657-950: the reply's content, as it is).
OFFICIAL_MODELS: dict[str, str] = {
    "moonshotai/Kimi-VL-A3B-Thinking": "kimi",
    "moonshotai/Kimi-VL-A3B-Instruct": "kimi",
    "moonshotai/Kimi-VL-A3B-Thinking-onlytext": "kimi",
    "moonshotai/Kimi-VL-A3B-Instruct-onlytext": "kimi",
    "Qwen/QVQ-72B-Preview": "qvq",
    "Skywork/Skywork-R1V-38B": "skywork",
    "Skywork/Skywork-R1V2-38B": "skywork",
    "Qwen/Qwen2.5-VL-3B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-32B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-72B-Instruct": "whole",
    "Qwen/Qwen2.5-VL-3B-Instruct-onlytext": "whole",
    "Qwen/Qwen2.5-VL-32B-Instruct-onlytext": "whole",
    "Qwen/Qwen2.5-VL-72B-Instruct-onlytext": "whole",
    "OpenGVLab/InternVL3-78B": "whole",
    "OpenGVLab/InternVL3-38B": "whole",
    "OpenGVLab/InternVL3-78B-onlytext": "whole",
    "OpenGVLab/InternVL3-38B-onlytext": "whole",
    "Gemini": "whole",
    "Doubao-115": "whole",
    "Doubao-115-onlytext": "whole",
    "Doubao-415": "whole",
    "Doubao-415-onlytext": "whole",
    "Doubao-428": "whole",
    "o3": "whole",
    "4o": "whole",
}
#: The rule of a name the scripts do not know: ``main_closed_models.py``'s.
DEFAULT_RULE = "whole"

_THINK_END = {"kimi": "◁/think▷", "skywork": "</think>"}
_BOXED = re.compile(r"boxed{(.+)}")
_BOXED_TEXT = re.compile(r"\\text{(.+?)}")


def official_answer_text(response: str, *, rule: str = DEFAULT_RULE) -> str:
    r"""The part of a response the public code scores under an :data:`ANSWER_RULES` rule.

    Parameters
    ----------
    response : str
        The model's whole response.
    rule : str, optional
        One of :data:`ANSWER_RULES`.

    Returns
    -------
    str
        The part scored.

    Examples
    --------
    >>> official_answer_text("<think>A?</think> B", rule="skywork"), official_answer_text("<think>A?</think> B")
    ('B', '<think>A?</think> B')
    >>> official_answer_text("so \\boxed{\\text{Route Name: 1} \\\\ \\text{Departure Stop: X}}", rule="qvq")
    'Route Name: 1\nDeparture Stop: X'
    """
    if rule in _THINK_END:
        return response.rsplit(_THINK_END[rule], 1)[-1].strip()
    if rule == "qvq":
        boxed = _BOXED.search(response)
        return "\n".join(_BOXED_TEXT.findall(boxed.group(1))) if boxed else response
    if rule != "whole":
        raise ValueError(f"rule must be one of {list(ANSWER_RULES)}, got {rule!r}")
    return response


@dataclass(frozen=True, slots=True)
class RuleChoice:
    """The rule a model's answers are read with, the model path it stands for, and what chose it.

    ``chosen_by``: ``given`` (the user named the path), ``model`` (the model's own name is a path
    of the public scripts) or ``default`` (neither: the closed-model script's rule).

    Attributes
    ----------
    rule : str
        One of :data:`ANSWER_RULES`.
    model_path : str or None
        The public scripts' model path it stands for (``None``: the default rule).
    chosen_by : {"given", "model", "default"}
        What chose it.
    """

    rule: str
    model_path: str | None
    chosen_by: Literal["given", "model", "default"]


def _canonical(name: str, table: Mapping[str, str]) -> str | None:
    """The path ``name`` is in ``table``: the path itself, or its last part (how the scripts name result files)."""
    if name in table:
        return name
    matches = [path for path in table if path.rsplit("/", 1)[-1] == name]
    return matches[0] if len(matches) == 1 else None


def check_official_models(
    given: str | Mapping[str, str] | None,
    *,
    table: Mapping[str, str] = OFFICIAL_MODELS,
    where: str = "--official-model",
) -> None:
    """Raise :class:`ValueError` unless every path ``given`` names is a model path of ``table``.

    Parameters
    ----------
    given : str, mapping or None
        A model path for every model, or a run name to path mapping (``--official-model``).
    table : mapping of str to str, optional
        Model path to rule (the public scripts').
    where : str, optional
        The option, for the message.

    Raises
    ------
    ValueError
        A path ``table`` does not know; the message lists the close ones.
    """
    if given is None:
        return
    pairs = [(None, given)] if isinstance(given, str) else list(given.items())
    for name, path in pairs:
        if not isinstance(path, str) or _canonical(path, table) is None:
            field = where if name is None else f"{where}: run {name!r}"
            raise ValueError(f"{field}: {path!r} is no model path of the public scripts; one of {list(table)}")


def choose_rule(
    model: str, *, given: str | Mapping[str, str] | None = None, table: Mapping[str, str] = OFFICIAL_MODELS
) -> RuleChoice:
    """The rule ``model``'s answers are read with: the path ``given`` for it (a path for every model, or a
    run name → path mapping), else its own name when that is a path of ``table``, else :data:`DEFAULT_RULE`.

    Parameters
    ----------
    model : str
        The model (a run name).
    given : str, mapping or None, optional
        As :func:`check_official_models`.
    table : mapping of str to str, optional
        Model path to rule.

    Returns
    -------
    RuleChoice

    Examples
    --------
    >>> choose_rule("Qwen/QVQ-72B-Preview").rule, choose_rule("my-run").rule
    ('qvq', 'whole')
    >>> choose_rule("qwen-t0", given={"qwen-t0": "Skywork/Skywork-R1V2-38B"})
    RuleChoice(rule='skywork', model_path='Skywork/Skywork-R1V2-38B', chosen_by='given')
    """
    named = given if isinstance(given, str) else (given or {}).get(model)
    if named is not None:
        path = _canonical(named, table)
        # a path of the other script (main.py vs main_plus.py) has no rule here: the default
        return RuleChoice(table[path] if path else DEFAULT_RULE, path or named, "given")
    path = _canonical(model, table)
    if path is not None:
        return RuleChoice(table[path], path, "model")
    return RuleChoice(DEFAULT_RULE, None, "default")


def resolve_rules(
    models: Iterable[str],
    *,
    given: str | Mapping[str, str] | None = None,
    table: Mapping[str, str] = OFFICIAL_MODELS,
    where: str | None = None,
) -> dict[str, RuleChoice]:
    """Each model's rule (sorted by model), chosen once for a run (:func:`choose_rule`).

    ``where``, when given, names the predictions the models come from: a run name of a ``given`` mapping
    that is none of ``models`` is then refused (a misspelt name would leave its model read with the default
    rule, without a word).

    Parameters
    ----------
    models : iterable of str
        The models of a run.
    given : str, mapping or None, optional
        As :func:`check_official_models`.
    table : mapping of str to str, optional
        Model path to rule.
    where : str, optional
        The predictions' name, for the message.

    Returns
    -------
    dict of str to RuleChoice
        Per model, sorted by name: its rule and what chose it.

    Raises
    ------
    ValueError
        A run name of ``given`` that is none of ``models`` (with ``where``); the message names the close ones.

    Examples
    --------
    >>> {model: choice.rule for model, choice in resolve_rules(["run", "Qwen/QVQ-72B-Preview"]).items()}
    {'Qwen/QVQ-72B-Preview': 'qvq', 'run': 'whole'}
    """
    models = set(models)
    if where is not None and isinstance(given, Mapping):
        _check_runs(given, models, where)
    return {model: choose_rule(model, given=given, table=table) for model in sorted(models)}


def _check_runs(given: Mapping[str, str], models: set[str], where: str) -> None:
    from graphkit.choices import close_choices

    for name in given:
        if name not in models:
            close = close_choices(name, sorted(models))
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            shown = sorted(models)[:5]
            listed = f"{shown}{' and more' if len(models) > 5 else ''}"
            raise ValueError(f"--official-model: run {name!r} is no model of {where} (its models: {listed}){hint}")


def rule_for(model: str, rules: Mapping[str, RuleChoice], *, table: Mapping[str, str] = OFFICIAL_MODELS) -> str:
    """The rule ``model``'s answers are read with: its resolved one (:func:`resolve_rules`), else the one its
    own name chooses in ``table``.

    Parameters
    ----------
    model : str
        The model (a run name).
    rules : mapping of str to RuleChoice
        A run's resolved rules (:func:`resolve_rules`).
    table : mapping of str to str, optional
        Model path to rule.

    Returns
    -------
    str
        One of :data:`ANSWER_RULES`.

    Examples
    --------
    >>> rule_for("Qwen/QVQ-72B-Preview", {}), rule_for("run", resolve_rules(["run"], given="Qwen/QVQ-72B-Preview"))
    ('qvq', 'qvq')
    """
    choice = rules.get(model)
    return (choice if choice is not None else choose_rule(model, table=table)).rule


def rules_record(rules: Mapping[str, RuleChoice]) -> dict[str, dict[str, str | None]]:
    """Per model, as a summary records it: the rule its answers were read with, the path it stands for and
    what chose it.

    Parameters
    ----------
    rules : mapping of str to RuleChoice
        Each model's rule (:func:`resolve_rules`).

    Returns
    -------
    dict
        Per model, in ``rules``' order: ``rule``, ``model_path`` and ``chosen_by`` (JSON-ready).
    """
    return {
        model: {"rule": choice.rule, "model_path": choice.model_path, "chosen_by": choice.chosen_by}
        for model, choice in rules.items()
    }


def official_rules(
    models: Iterable[str], *, given: str | Mapping[str, str] | None = None, table: Mapping[str, str] = OFFICIAL_MODELS
) -> dict[str, dict[str, str | None]]:
    """Per model (sorted): the rule its answers were read with, the path it stands for and what chose it.

    Parameters
    ----------
    models : iterable of str
        The models of a run.
    given : str, mapping or None, optional
        As :func:`check_official_models`.
    table : mapping of str to str, optional
        Model path to rule.

    Returns
    -------
    dict
        Per model: ``rule``, ``model_path`` and ``chosen_by`` (JSON-ready).
    """
    return rules_record(resolve_rules(models, given=given, table=table))


def official_rules_lines(rules: Mapping[str, Mapping[str, str | None]]) -> list[str]:
    """The rules of :func:`official_rules` as markdown lines (a table under a caption).

    Parameters
    ----------
    rules : mapping
        What :func:`official_rules` returns.

    Returns
    -------
    list of str
        The lines (none for no model).
    """
    lines = [
        "How the public code read each model's answers (`--official-model` sets the path):",
        "",
        "| Model | Model path | Rule | Chosen by |",
        "|---|---|---|---|",
    ]
    for model, row in rules.items():
        path = markdown_text(row["model_path"]) if row["model_path"] else "–"
        lines.append(f"| {markdown_text(model)} | {path} | `{row['rule']}` | {markdown_text(row['chosen_by'])} |")
    return lines
