"""Prompt modes: the exact requests sent to a model for every question.

- ``full``: the map image and the question (the benchmark's setting). The
  image is sent as a PNG data URL. Maps larger than ``pixel_budget`` pixels
  are downscaled, keeping their aspect ratio, by the factor that brings them
  just under the budget (Lanczos filter); smaller maps are sent as they are.
  Images come from ``maps`` (a folder with ``<city>.png`` or
  ``<country>__<city>.png``, as ``export_figures`` writes them); the
  toolkit ships none.
- ``text-only``: the question alone (the paper's visual-masking setting).
- ``symbolic``: a textualization of the Metro Data, then the question (the
  paper's Appendix C.4).
- ``alias``: the symbolic prompt with non-English station names replaced by
  unique English aliases, consistently (see :mod:`baselines.alias`).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from baselines.requests import Request
from benchmarks.reasonmap.records import KINDS, Kind, Question
from graphkit.graph import TransitGraph

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
# About what hosted models accept for one image before they shrink it themselves.
DEFAULT_PIXEL_BUDGET = 4_000_000
# Refuse to decode images above this size (decompression bombs); the benchmark's largest map has 278 MP.
DEFAULT_PIXEL_LIMIT = 300_000_000

_SYMBOLIC_LEAD = (
    "Here is the subway network of the city, as text. Use it in place of the map to answer the question that follows."
)


def symbolic_prompt(question: Question, graph: TransitGraph, kind: Kind, *, textualization: str = "lines") -> str:
    """The symbolic prompt: the lead-in, the textualized network (between ``<map>`` tags), then the question."""
    from baselines.textualize import render, symbolic_context

    return f"{_SYMBOLIC_LEAD}\n\n{symbolic_context(render(graph, textualization))}\n\n{question.text(kind)}"


def find_map(maps: str | Path, question: Question) -> Path:
    """The map image of a question's city in ``maps``.

    Raises
    ------
    FileNotFoundError
        Naming the folder and the file names looked for.
    """
    folder = Path(maps)
    names = [f"{question.city}.png", f"{question.country}__{question.city}.png"]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no map of {question.city!r} in {folder}: looked for {' or '.join(names)}")


@lru_cache(maxsize=32)
def image_data_url(
    path: str, *, pixel_budget: int = DEFAULT_PIXEL_BUDGET, pixel_limit: int = DEFAULT_PIXEL_LIMIT
) -> str:
    """A PNG data URL of the image at ``path``, downscaled under ``pixel_budget`` pixels.

    Raises
    ------
    ValueError
        The file is not a readable image, or it has more than ``pixel_limit`` pixels.
    """
    from PIL import Image

    try:
        with Image.open(path) as probe:
            width, height = probe.size
            if width * height > pixel_limit:
                raise ValueError(
                    f"{path}: {width}x{height} = {width * height:,} pixels exceeds the limit of {pixel_limit:,}"
                    " (raise pixel_limit to allow it)"
                )
            previous, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, pixel_limit
            try:
                image = probe.convert("RGB")
            finally:
                Image.MAX_IMAGE_PIXELS = previous
    except (OSError, Image.DecompressionBombError) as error:
        raise ValueError(f"{path}: not a readable image ({error})") from None
    if width * height > pixel_budget:
        scale = (pixel_budget / (width * height)) ** 0.5
        image = image.resize((max(1, int(width * scale)), max(1, int(height * scale))), Image.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _messages(content: Any) -> tuple[dict[str, Any], ...]:
    return ({"role": "user", "content": content},)


def build_requests(
    questions: Iterable[Question],
    *,
    mode: str,
    graph_for: Callable[[Question], TransitGraph] | None = None,
    textualization: str = "lines",
    maps: str | Path | None = None,
    pixel_budget: int = DEFAULT_PIXEL_BUDGET,
    pixel_limit: int = DEFAULT_PIXEL_LIMIT,
    alias_strategy: str = "romanize",
) -> list[Request]:
    """Requests for both kinds of every question in one prompt mode.

    Parameters
    ----------
    questions : iterable of Question
    mode : {"full", "text-only", "symbolic", "alias"}
    graph_for : callable, optional
        The graph of a question's city (default: the embedded city).
    textualization : str
        For ``symbolic`` and ``alias``: which textualization of the network.
    maps : path, optional
        For ``full``: the folder of map images.
    pixel_budget, pixel_limit : int
        For ``full``: downscaling target and decoding limit (see the module notes).
    alias_strategy : str
        For ``alias``: ``romanize`` or ``borrow`` (see :mod:`baselines.alias`).

    Raises
    ------
    ValueError
        An unknown mode, or ``full`` without ``maps``.
    FileNotFoundError
        A city's map is missing from ``maps``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    if mode == "full" and maps is None:
        raise ValueError("mode 'full' needs the folder of map images (maps=...; the toolkit ships none)")
    if graph_for is None:
        from graphkit.cities import city_graph

        def graph_for(question: Question) -> TransitGraph:
            return city_graph(question.city)

    requests: list[Request] = []
    for question in questions:
        for kind in KINDS:
            meta: dict[str, Any] = {}
            if mode == "full":
                url = image_data_url(str(find_map(maps, question)), pixel_budget=pixel_budget, pixel_limit=pixel_limit)
                content: Any = [
                    {"type": "image_url", "image_url": {"url": url}},
                    {"type": "text", "text": question.text(kind)},
                ]
            elif mode == "text-only":
                content = question.text(kind)
            elif mode == "symbolic":
                content = symbolic_prompt(question, graph_for(question), kind, textualization=textualization)
                meta["textualization"] = textualization
            else:
                from baselines.alias import aliased

                renamed_question, renamed_graph, mapping = aliased(question, graph_for(question), alias_strategy)
                content = symbolic_prompt(renamed_question, renamed_graph, kind, textualization=textualization)
                meta.update(textualization=textualization, alias_strategy=alias_strategy, aliases=len(mapping))
            requests.append(Request(question.id, kind, mode, _messages(content), meta))
    return requests
