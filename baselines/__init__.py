"""Who answers without seeing the map.

Textualized maps, prompt modes and ablations, symbolic solvers, and a
resumable client for OpenAI-compatible chat endpoints. The public surface is
``__all__``: the prompt modes and the requests they build, the
textualizations, the solvers (and the noise that makes one fail as a model
would; the probe task's solvers), the alias ablation, the client, the oracles and the errors (one root,
:class:`BaselineError`). The submodules are
internal (import from the package, not from them).

Examples
--------
>>> from graphkit import city_graph
>>> from benchmarks.reasonmap import generate_questions
>>> from baselines import solve
>>> graph = city_graph("rome")
>>> print(solve("oracle", generate_questions(graph, seed=1, per_city=1)[0], graph, "short"))
Route Name: Line B
Departure Stop: Colosseo Station
Arrival Stop: Marconi Station
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "baselines.alias": ("aliased", "unalias_text"),
        "baselines.answers": ("render_answer",),
        "baselines.client": ("RunSummary", "run_requests"),
        "baselines.errors": ("BaselineError", "ClientError", "InvalidTextualization"),
        "baselines.plus_oracle": ("plus_oracle_predictions",),
        "baselines.probe_solvers": ("solve_probe",),
        "baselines.prompts": ("MODES", "build_requests", "symbolic_prompt"),
        "baselines.requests": ("Request",),
        "baselines.solvers": ("SOLVERS", "Noise", "run_solver", "solve"),
        "baselines.textualize": ("TEXTUALIZATIONS", "text_oracle_routes"),
    },
)
