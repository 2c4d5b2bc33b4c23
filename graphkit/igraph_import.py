"""Importing python-igraph for the transit graph: once, when a graph is first searched, and without matplotlib.

:class:`graphkit.graph.TransitGraph` is the only user; the import is kept apart so the graph module stays about
graphs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["igraph_module", "unimportable"]


@contextmanager
def unimportable(name: str) -> Iterator[None]:
    """``import name`` raises ImportError inside the block, unless the module is loaded already; after it,
    the module imports as usual.

    Parameters
    ----------
    name : str
        The module's name.

    Yields
    ------
    None
        Inside the block the module cannot be imported.
    """
    if name in sys.modules:
        yield
        return
    sys.modules[name] = None  # type: ignore[assignment]  # how the import system spells "not importable"
    try:
        yield
    finally:
        del sys.modules[name]


def igraph_module():
    """igraph, imported when a graph is first searched (scoring reads names and lines only, and the import takes
    a tenth of a second). ``import igraph`` imports ``matplotlib.pyplot`` for its drawing module (about a second),
    though no graph here is drawn: without it, igraph's drawing helpers are placeholders.

    Returns
    -------
    module
        The ``igraph`` module (imported once, then taken from ``sys.modules``).
    """
    if "igraph" not in sys.modules:
        with unimportable("matplotlib"):
            import igraph  # noqa: F401 (loaded into sys.modules)
    return sys.modules["igraph"]
