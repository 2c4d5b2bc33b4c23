"""Prompt modes: the exact requests sent to a model for every question.

- ``full``: the map image and the question (the benchmark's setting). The
  request names the image (path, checksum, pixel budget); it is sent as a PNG
  data URL, downscaled under ``pixel_budget`` pixels, encoded once per map
  when the request is sent (see :mod:`baselines.map_images`). Images come
  from ``maps`` (a folder with ``<city>.png`` or ``<country>__<city>.png``,
  as ``export_figures`` writes them); the toolkit ships none.
- ``text-only``: the question alone (the paper's visual-masking setting).
- ``symbolic``: a textualization of the Metro Data, then the question (the
  paper's Appendix C.4).
- ``alias``: the symbolic prompt with non-English station names replaced by
  unique English aliases, consistently (see :mod:`baselines.alias`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baselines.map_images import DEFAULT_PIXEL_BUDGET, DEFAULT_PIXEL_LIMIT, image_data_url, map_image_part
from baselines.requests import Request
from benchmarks.samples import find_map
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph

if TYPE_CHECKING:
    from benchmarks.tasks import Task

__all__ = [
    "MODES",
    "DEFAULT_PIXEL_BUDGET",
    "DEFAULT_PIXEL_LIMIT",
    "build_requests",
    "symbolic_prompt",
    "image_data_url",
    "find_map",
]

MODES = ("full", "text-only", "symbolic", "alias")

_SYMBOLIC_LEAD = (
    "Here is the subway network of the city, as text. Use it in place of the map to answer the question that follows."
)


def symbolic_prompt(text: str, graph: TransitGraph, *, textualization: str = "lines") -> str:
    """The symbolic prompt: the lead-in, the textualized network (between ``<map>`` tags), then the question.

    Parameters
    ----------
    text : str
        The question's text.
    graph : TransitGraph
        Its city's graph, textualized in place of the map.
    textualization : str, optional
        Which textualization of the network (:data:`baselines.TEXTUALIZATIONS`).

    Returns
    -------
    str
        The prompt.

    Examples
    --------
    >>> from graphkit.metro import load_metro
    >>> from graphkit.graph import compile_graph
    >>> print(symbolic_prompt("From A to C?", compile_graph(load_metro({"L1": ["A", "B", "C"]}))))
    Here is the subway network of the city, as text. Use it in place of the map to answer the question that follows.
    <BLANKLINE>
    <map name="lines">
    # Metro map: 1 line, 3 stations.
    # Each row is one line: its stations in order, separated by commas.
    L1: A, B, C
    </map>
    <BLANKLINE>
    From A to C?
    """
    from baselines.textualize import render, symbolic_context

    return f"{_SYMBOLIC_LEAD}\n\n{symbolic_context(render(graph, textualization))}\n\n{text}"


def _inside(path: Path, folder: str | Path) -> bool:
    """Whether ``path`` lies in ``folder`` as written (``..`` resolved; symbolic links in the folder are the
    user's own and may point anywhere).

    >>> _inside(Path("maps/rome.png"), "maps"), _inside(Path("maps/../secret.png"), "maps")
    (True, False)
    """
    return Path(os.path.normpath(os.path.abspath(path))).is_relative_to(os.path.normpath(os.path.abspath(folder)))


def _messages(content: Any) -> tuple[dict[str, Any], ...]:
    return ({"role": "user", "content": content},)


def _embedded_graph(question: Any) -> TransitGraph:
    """The graph of ``question``'s city, from the embedded data (:func:`build_requests`'s default)."""
    from graphkit.cities import city_graph

    return city_graph(question.city)


def build_requests(
    questions: Iterable[Any],
    *,
    mode: str,
    task: Task | None = None,
    graph_for: Callable[[Any], TransitGraph] | None = None,
    textualization: str = "lines",
    maps: str | Path | None = None,
    pixel_budget: int = DEFAULT_PIXEL_BUDGET,
    pixel_limit: int = DEFAULT_PIXEL_LIMIT,
    alias_strategy: str = "romanize",
    missing_maps: list[str] | None = None,
) -> list[Request]:
    """Requests for every prompt of every question of a task (:mod:`benchmarks.tasks`) in one prompt mode.

    Parameters
    ----------
    questions : iterable
        The task's questions (route: :class:`~benchmarks.reasonmap.records.Question`, both kinds each).
    mode : {"full", "text-only", "symbolic", "alias"}
        One of the task's modes.
    task : Task, optional
        Default: the route task.
    graph_for : callable, optional
        The graph of a question's city (default: the embedded city).
    textualization : str
        For ``symbolic`` and ``alias``: which textualization of the network.
    maps : path, optional
        For ``full``: the folder of map images (a map QA question's ``image`` is relative to it).
    pixel_budget, pixel_limit : int
        For ``full``: downscaling target and decoding limit (see the module notes).
    alias_strategy : str
        For ``alias``: ``romanize`` or ``borrow`` (see :mod:`baselines.alias`).
    missing_maps : list, optional
        For ``full``: when given, a question whose map is missing or unreadable is skipped and the reason
        appended here (default: an error).

    Returns
    -------
    list of Request
        One per prompt of each question, in question order.

    Raises
    ------
    ValueError
        A mode the task does not have, or ``full`` without ``maps``.
    FileNotFoundError
        A map is missing from ``maps`` (unless ``missing_maps`` collects them).

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap import generate_questions
    >>> requests = build_requests(generate_questions(city_graph("rome"), seed=1, per_city=1), mode="text-only")
    >>> [(request.id, request.question, request.mode) for request in requests]
    [('rome-s1-0000', 'short', 'text-only'), ('rome-s1-0000', 'long', 'text-only')]
    """
    if task is None:
        from benchmarks.tasks import get_task

        task = get_task("route")
    check_choice(mode, task.modes, what=f"{task.name} prompt mode")
    if mode == "full" and maps is None:
        raise ValueError("mode 'full' needs the folder of map images (maps=...; the toolkit ships none)")
    graph_for = _embedded_graph if graph_for is None else graph_for
    requests: list[Request] = []
    for question in questions:
        prompts = task.prompts(question)
        image = None
        if mode == "full":
            image = _map_part(question, prompts[0], maps, pixel_budget, pixel_limit, missing_maps)
            if image is None:
                continue
        for prompt in prompts:
            content, meta = _content(mode, question, prompt, image, graph_for, textualization, alias_strategy)
            requests.append(Request(prompt.id, prompt.kind, mode, _messages(content), meta))
    return requests


def _map_part(
    question: Any,
    prompt: Any,
    maps: str | Path,
    pixel_budget: int,
    pixel_limit: int,
    missing_maps: list[str] | None,
) -> dict[str, Any] | None:
    """The image part of the map of ``question`` (named by its first ``prompt``) for mode ``full``; ``None``, the
    reason appended to ``missing_maps``, when the map is missing or unreadable and ``missing_maps`` collects them."""
    try:
        where = Path(maps) / prompt.image if prompt.image else find_map(maps, prompt)
        if not _inside(where, maps):  # a record's path must not send another file to the endpoint
            raise ValueError(f"{where}: outside the maps folder {maps}")
        if not where.is_file():
            raise FileNotFoundError(f"no map image at {where}")
        return map_image_part(where, pixel_budget=pixel_budget, pixel_limit=pixel_limit)
    except (FileNotFoundError, ValueError) as error:  # missing, or not a readable image
        if missing_maps is None:
            raise
        missing_maps.append(f"question {question.id!r}: {error}; skipped")
        return None


def _content(
    mode: str,
    question: Any,
    prompt: Any,
    image: dict[str, Any] | None,
    graph_for: Callable[[Any], TransitGraph],
    textualization: str,
    alias_strategy: str,
) -> tuple[Any, dict[str, Any]]:
    """The message content of one prompt in ``mode``, and the request's metadata."""
    meta: dict[str, Any] = {}
    if mode == "full":
        content: Any = [
            image,
            {"type": "text", "text": prompt.text},
        ]
    elif mode == "text-only":
        content = prompt.text
    elif mode == "symbolic":
        content = symbolic_prompt(prompt.text, graph_for(question), textualization=textualization)
        meta["textualization"] = textualization
    else:
        from baselines.alias import aliased

        renamed_question, renamed_graph, mapping = aliased(question, graph_for(question), alias_strategy)
        text = renamed_question.text(prompt.kind)
        content = symbolic_prompt(text, renamed_graph, textualization=textualization)
        meta.update(textualization=textualization, alias_strategy=alias_strategy, aliases=len(mapping))
    return content, meta
