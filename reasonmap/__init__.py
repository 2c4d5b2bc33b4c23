"""The ``reasonmap`` application: the command line, and the evaluation pipeline over the libraries below it.

Thin commands over graphkit, benchmarks, baselines and vision. The public surface (``__all__``) is what a
notebook composes from finished runs: scoring files (:func:`evaluate_files`, how: :class:`ScoreSettings`),
reading run folders, paired comparisons and leaderboards, a name escaped for a notebook's own Markdown table
(:func:`markdown_text`), a synthetic benchmark set built in one call (:func:`build_synthetic_set` with its
:class:`SynthOptions`), and the application's error root. The submodules are internal (import from the
package, not from them), and each name is imported when first used, so ``reasonmap --help`` stays quick.
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.cells": ("markdown_text",),
        "benchmarks.comparisons": ("scored_values",),
        "reasonmap.comparisons": (
            "compare_runs",
            "compare_scored",
            "comparison_markdown",
            "plot_comparison",
            "write_comparison",
        ),
        "reasonmap.errors": ("ReasonmapError",),
        "reasonmap.leaderboard": ("build_leaderboard", "write_leaderboard"),
        "reasonmap.runs": ("RunError", "read_run", "read_scored"),
        "reasonmap.score_files": ("ScoreSettings", "evaluate_files"),
        "reasonmap.synthetic": ("SynthOptions", "build_synthetic_set"),
    },
)
