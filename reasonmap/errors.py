"""Exceptions raised by the application: one root, :class:`ReasonmapError`.

The classes themselves live beside the code that raises them (an evaluation that cannot start in
:mod:`reasonmap.eval`, an output that would replace an input in :mod:`reasonmap.paths`, a bad input to an
Inspect task in :mod:`reasonmap.inspect_tasks`); each also derives from the built-in a caller catches
(``ValueError``), so that nothing is caught differently for being the application's.
"""

from __future__ import annotations

__all__ = ["ReasonmapError"]


class ReasonmapError(Exception):
    """Base class of every error the application raises (the libraries below have their own roots)."""
