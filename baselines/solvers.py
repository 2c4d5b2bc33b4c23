"""Symbolic solvers: answers without a model, as floors and ceilings for model numbers.

- ``oracle``: the graph's best route (the ceiling);
- ``text-oracle``: reads only the symbolic prompt, rebuilds the network from
  its text and solves (it scores 100% when the textualization loses nothing);
- ``direct-line``: a line serving both stations if there is one, else the
  first line of the departure station (the naive floor);
- ``echo``: the two stations on one made-up line (the format-only floor);
- ``noisy``: the oracle seen through controllable perception and reasoning
  noise (see :class:`Noise`), seeded per question: the test bed for failure
  diagnosis and for metric sensitivity.

Every solver is deterministic for a seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from baselines.answers import render_answer
from benchmarks.reasonmap.records import KINDS, Kind, Prediction, Question
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph
from graphkit.names import has_cjk
from graphkit.routes import shortest_route, shortest_routes
from graphkit.segments import Route, Segment

__all__ = ["Noise", "SOLVERS", "solve", "run_solver", "solve_route"]

_MADE_UP_LINE = "Line 0"


@dataclass(frozen=True, slots=True)
class Noise:
    """Error rates of the ``noisy`` solver.

    Attributes
    ----------
    wrong_line : float
        Perception: chance that a segment is read on another line serving its
        departure (a line of similar colour when ``colours`` are known).
    wrong_transfer : float
        Reasoning: chance that a transfer is planned one stop off, at a
        neighbour of the right station.
    detour : float
        Reasoning: chance of a suboptimal plan (a route with up to three more
        stops, when one exists).
    miscount : float
        Chance that a segment's via-stop count or list is off by one.
    colours : mapping of line name to "#rrggbb", optional
        Known line colours; wrong lines are then drawn by colour likeness.
    misread : float
        Perception: chance that one station of the route is misread, spelt
        one or two letters off wherever the answer names it.
    """

    wrong_line: float = 0.1
    wrong_transfer: float = 0.1
    detour: float = 0.1
    miscount: float = 0.1
    colours: Mapping[str, str] | None = None
    misread: float = 0.0

    def __post_init__(self) -> None:
        for name in ("wrong_line", "wrong_transfer", "detour", "miscount", "misread"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"noise {name} must be a probability in [0, 1], got {value!r}")


def _oracle(question: Question, graph: TransitGraph, kind: Kind, rng: random.Random, **_) -> str:
    route = shortest_route(graph, question.station_1, question.station_2)
    return render_answer(graph.display_route(route).segments, kind, question.long_template)


def _text_oracle(question: Question, graph: TransitGraph, kind: Kind, rng: random.Random, **options) -> str:
    from baselines.prompts import symbolic_prompt
    from baselines.textualize import text_oracle_routes

    prompt = symbolic_prompt(question.text(kind), graph, textualization=options.get("textualization", "lines"))
    found = text_oracle_routes(prompt, question.station_1, question.station_2)
    return render_answer(found.routes[0].segments, kind, question.long_template)


def _via(graph: TransitGraph, line: str, here: str, there: str) -> tuple[str, ...]:
    ride = graph.ride(line, here, there)
    return ride[1][0] if ride else ()


def _direct_line(question: Question, graph: TransitGraph, kind: Kind, rng: random.Random, **_) -> str:
    here, there = graph.resolve_station(question.station_1), graph.resolve_station(question.station_2)
    shared = [line for line in graph.lines_at(here) if line in graph.lines_at(there)]
    line = shared[0] if shared else graph.lines_at(here)[0]
    segment = Segment(line, here, there, _via(graph, line, here, there) if shared else ())
    return render_answer(graph.display_route(Route((segment,))).segments, kind, question.long_template)


def _echo(question: Question, graph: TransitGraph, kind: Kind, rng: random.Random, **_) -> str:
    return render_answer([Segment(_MADE_UP_LINE, question.station_1, question.station_2)], kind, question.long_template)


def _colour_distance(a: str, b: str) -> float:
    ra, ga, ba = (int(a[i : i + 2], 16) for i in (1, 3, 5))
    rb, gb, bb = (int(b[i : i + 2], 16) for i in (1, 3, 5))
    return ((ra - rb) ** 2 + (ga - gb) ** 2 + (ba - bb) ** 2) ** 0.5


def _wrong_line(graph: TransitGraph, segment: Segment, noise: Noise, rng: random.Random) -> str:
    others = [line for line in graph.lines_at(segment.departure_stop) if line != segment.route_name]
    if not others:
        others = [line for line in graph.lines if line != segment.route_name] or [_MADE_UP_LINE]
    colours = noise.colours or {}
    mine = colours.get(segment.route_name)
    if mine and all(line in colours for line in others):
        return min(others, key=lambda line: (_colour_distance(mine, colours[line]), line))
    return rng.choice(sorted(others))


def _noisy(question: Question, graph: TransitGraph, kind: Kind, rng: random.Random, **options) -> str:
    noise: Noise = options.get("noise") or Noise()
    if rng.random() < noise.detour:
        plans = shortest_routes(graph, question.station_1, question.station_2, slack=3, max_routes=20).routes
        route = plans[-1]
    else:
        route = shortest_route(graph, question.station_1, question.station_2)
    segments = list(route.segments)
    for index in range(len(segments) - 1):
        if rng.random() < noise.wrong_transfer:
            here = segments[index].arrival_stop
            near = sorted(graph.line(segments[index].route_name).adjacency[here])
            if near:
                moved = rng.choice(near)
                first, second = segments[index], segments[index + 1]
                segments[index] = Segment(first.route_name, first.departure_stop, moved, first.via_stops)
                segments[index + 1] = Segment(second.route_name, moved, second.arrival_stop, second.via_stops)
    for index, segment in enumerate(segments):
        if rng.random() < noise.wrong_line:
            segments[index] = Segment(
                _wrong_line(graph, segment, noise, rng), segment.departure_stop, segment.arrival_stop, segment.via_stops
            )
        if rng.random() < noise.miscount:
            via = segments[index].via_stops
            via = via[:-1] if via and rng.random() < 0.5 else via + (segments[index].departure_stop,)
            segments[index] = Segment(
                segments[index].route_name, segments[index].departure_stop, segments[index].arrival_stop, via
            )
    segments = list(graph.display_route(Route(tuple(segments))).segments)  # as the map names them
    if noise.misread and rng.random() < noise.misread:  # drawn last: the other noises stay as they were
        stops = sorted({name for segment in segments for name in (segment.departure_stop, segment.arrival_stop)})
        misread = rng.choice(stops)
        wrong = misspell(misread, rng)
        segments = [
            Segment(
                segment.route_name,
                wrong if segment.departure_stop == misread else segment.departure_stop,
                wrong if segment.arrival_stop == misread else segment.arrival_stop,
                segment.via_stops,
            )
            for segment in segments
        ]
    return render_answer(segments, kind, question.long_template)


def misspell(name: str, rng: random.Random) -> str:
    """``name`` as a misread label: two neighbouring letters swapped, or a Chinese character doubled.

    Examples
    --------
    >>> misspell("Colosseo Station", random.Random(1))
    'Cloosseo Station'
    >>> misspell("西直门站", random.Random(1))
    '西直直门站'
    """
    base, suffix = (name[:-8], name[-8:]) if name.endswith(" Station") else (name, "")
    letters = [
        i for i in range(len(base) - 1) if base[i].isalpha() and base[i + 1].isalpha() and base[i] != base[i + 1]
    ]
    if has_cjk(base) or not letters:
        at = rng.randrange(len(base))
        return base[: at + 1] + base[at:] + suffix
    at = rng.choice(letters)
    return base[:at] + base[at + 1] + base[at] + base[at + 2 :] + suffix


# name -> (solver, one-line description)
SOLVERS: dict[str, tuple[Callable[..., str], str]] = {
    "oracle": (_oracle, "the graph's best route (ceiling)"),
    "text-oracle": (_text_oracle, "solves from the symbolic prompt's text alone"),
    "direct-line": (_direct_line, "a common line if there is one, else the departure's first line (floor)"),
    "echo": (_echo, "the two stations on one made-up line (format-only floor)"),
    "noisy": (_noisy, "the oracle through perception and reasoning noise"),
}


def solve(name: str, question: Question, graph: TransitGraph, kind: Kind, *, seed: int = 0, **options) -> str:
    """One solver's answer text to one question kind.

    Parameters
    ----------
    name : str
        One of :data:`SOLVERS`.
    question : Question
        A route question.
    graph : TransitGraph
        Its city's graph.
    kind : {"short", "long"}
        Which of its questions to answer.
    seed : int, optional
        Seeds the solver's draws, together with the solver, question and kind (the same seed, the same answer).
    **options
        The solver's own: ``noise`` (a :class:`Noise`) for ``noisy``, ``textualization`` for ``text-oracle``.

    Returns
    -------
    str
        The answer text, in the format the question asks for.

    Raises
    ------
    ValueError
        ``name`` is not a solver; the message lists them.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap import generate_questions
    >>> graph = city_graph("rome")
    >>> question = generate_questions(graph, seed=1, per_city=1)[0]
    >>> print(solve("oracle", question, graph, "short"))
    Route Name: Line B
    Departure Stop: Colosseo Station
    Arrival Stop: Marconi Station
    """
    check_choice(name, SOLVERS, what="solver")
    rng = random.Random(f"{name}:{seed}:{question.id}:{kind}")
    return SOLVERS[name][0](question, graph, kind, rng, **options)


def run_solver(
    name: str,
    questions: Iterable[Question],
    graph_for: Callable[[Question], TransitGraph],
    *,
    seed: int = 0,
    **options,
) -> list[Prediction]:
    """Predictions of one solver for both kinds of every question (model ``baseline:<name>``).

    Parameters
    ----------
    name : str
        One of :data:`SOLVERS`.
    questions : iterable of Question
        The route questions.
    graph_for : callable
        A question's city graph.
    seed : int, optional
        Seeds the solver's draws (see :func:`solve`).
    **options
        The solver's own (see :func:`solve`).

    Returns
    -------
    list of Prediction
        Two per question (short, then long), in question order.

    Raises
    ------
    ValueError
        ``name`` is not a solver.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> from benchmarks.reasonmap import generate_questions
    >>> graph = city_graph("rome")
    >>> predictions = run_solver("echo", generate_questions(graph, seed=1, per_city=1), lambda question: graph)
    >>> [(prediction.question, prediction.model) for prediction in predictions]
    [('short', 'baseline:echo'), ('long', 'baseline:echo')]
    """
    model = f"baseline:{name}"
    return [
        Prediction(question.id, model, kind, solve(name, question, graph_for(question), kind, seed=seed, **options))
        for question in questions
        for kind in KINDS
    ]


def solve_route(
    name: str,
    questions: Iterable[Question],
    graph_for: Callable[[Question], TransitGraph],
    *,
    seed: int = 0,
    settings: Mapping[str, Any] = MappingProxyType({}),
) -> list[Prediction]:
    """The route task's solver entry (its record's ``solve``): :func:`run_solver` with the options ``name`` takes
    from ``settings`` (``noisy``: ``wrong_line``, ``wrong_transfer``, ``detour``, ``miscount``, ``misread``;
    ``text-oracle``: ``textualization``); the other settings are ignored.

    Parameters
    ----------
    name : str
        One of :data:`SOLVERS`.
    questions : iterable
        The task's questions.
    graph_for : callable
        A question's city graph.
    seed : int, optional
        Seeds the solver's draws.
    settings : mapping, optional
        The command line's solver settings.

    Returns
    -------
    list of Prediction
        :func:`run_solver`.

    Raises
    ------
    ValueError
        ``name`` is not a solver.
    """
    options: dict[str, Any] = {}
    if name == "noisy":
        options["noise"] = Noise(
            settings["wrong_line"],
            settings["wrong_transfer"],
            settings["detour"],
            settings["miscount"],
            misread=settings["misread"],
        )
    if name == "text-oracle":
        options["textualization"] = settings["textualization"]
    return run_solver(name, questions, graph_for, seed=seed, **options)
