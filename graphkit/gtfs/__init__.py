"""Real cities from GTFS: a feed compiled into Metro Data and an overlay, and Metro Data exported as a feed.

See :mod:`graphkit.gtfs.compiler` for the rules, :mod:`graphkit.gtfs.feed` for what a feed must be.
"""

from __future__ import annotations

from graphkit.gtfs.compiler import CompiledCity, CompileOptions, compile_feed
from graphkit.gtfs.feed import InvalidFeed

__all__ = ["CompileOptions", "CompiledCity", "InvalidFeed", "compile_feed"]
