"""What is asked and how answers are judged: the benchmarks on graphkit, and their shared plumbing.

Tasks: :mod:`benchmarks.reasonmap` (route questions), :mod:`benchmarks.plus`
(ReasonMap-Plus counting and true/false questions), :mod:`benchmarks.mapqa`
(OmniMapBench-style map QA) and :mod:`benchmarks.probe` (perception probes),
each with its own public surface. The root's public names (``__all__``) are the task registry and the shared plumbing a
researcher's script needs: JSON Lines read with line-numbered problems,
atomic writes, summaries, whether an output folder holds one complete run
(``check_manifest``), and paired comparisons and leaderboards of scored
rows with their intervals. The submodules are internal (import from the
package, not from them); ``benchmarks.speed`` is the toolkit's own speed
benchmarks, not library code.

Examples
--------
>>> import benchmarks
>>> benchmarks.task_names()[:3]
('route', 'plus', 'mapqa')
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "benchmarks.comparisons": ("compare_scored", "comparison_markdown", "headline_intervals", "plot_comparison"),
        "benchmarks.errors": ("BenchmarkError", "InvalidRecord"),
        "benchmarks.jsonl": ("Problem", "read_jsonl", "unique_by_id", "write_jsonl"),
        "benchmarks.leaderboards": ("leaderboard_markdown", "leaderboard_table", "plot_leaderboard"),
        "benchmarks.manifests": ("check_manifest",),
        "benchmarks.provenance": ("file_sha256",),
        "benchmarks.records": ("Invalid",),
        "benchmarks.summaries": ("write_summary", "write_text"),
        "benchmarks.tasks": ("detect_task", "get_task", "task_names"),
    },
)
