"""Collection settings for the doctest run over the packages.

A module that imports an optional package at its top (the Inspect tasks) is
left out when that package is absent; its tests skip then too, and CI, which
installs every extra, runs both.
"""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("inspect_ai") else ["reasonmap/inspect_tasks.py"]
