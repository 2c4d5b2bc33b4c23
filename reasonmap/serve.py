"""``reasonmap serve``: an OpenAI-compatible chat endpoint answered by a symbolic solver.

A model to talk to on any machine: ``eval``, ``run``, Inspect (``--model openai/...``) and other harnesses'
configs can be tried end to end without a GPU server. The server reads each request as a model would, from
the prompt's text alone: the two stations of the route question (the paper's template, in any prompt mode:
the question is the prompt's last paragraph, after the map's text in ``symbolic``), and which answer the
template asks for (short, via-stop count, via stops). The city is the one whose map has both stations
(``--city`` / ``--metro`` narrow the search); a prompt that asks no route question, or names stations no
map has, gets a reply saying so, which the scorer counts as an invalid answer, as it would a model's.

Only loopback is served unless ``--host`` says otherwise: the endpoint has no key and answers anyone.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from benchmarks.reasonmap.records import Kind, LongTemplate, Question
from benchmarks.reasonmap.templates import long_question, short_question
from graphkit.errors import TransitError
from reasonmap.options import SERVED_SOLVERS

if TYPE_CHECKING:
    from graphkit.graph import TransitGraph

__all__ = ["SERVED_SOLVERS", "AskedRoute", "read_route_question", "SolverServer"]

_ASKED = re.compile(r"how do I get from (?P<pair>.+?)\? Provide only one optimal route", re.DOTALL)
_NOT_A_ROUTE_QUESTION = "I can only answer route questions of a subway map."
_BODY_LIMIT = 64 * 1024 * 1024  # a full-mode request carries its map as a data URL


@dataclass(frozen=True, slots=True)
class AskedRoute:
    """What a prompt asks: a route between two stations, in one answer form.

    Attributes
    ----------
    start, end : str
        The two stations.
    kind : {"short", "long"}
        The question kind.
    template : {"via_count", "via_stops"}
        The long answer's form.
    """

    start: str
    end: str
    kind: Kind
    template: LongTemplate


def _prompt_text(messages: Any) -> str:
    """The text of the last user message (its text parts, when it carries an image too)."""
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(
                str(part.get("text", ""))
                for part in content
                if isinstance(part, Mapping) and part.get("type") == "text"
            )
    return ""


def read_route_question(text: str) -> tuple[list[tuple[str, str]], Kind, LongTemplate] | None:
    """The station pairs a route question may name (every split of "from A to B" at " to ") and its form.

    Parameters
    ----------
    text : str
        A prompt's text.

    Returns
    -------
    pairs : list of (str, str)
        The candidate station pairs.
    kind : {"short", "long"}
    template : {"via_count", "via_stops"}
        Or ``None`` for a text that asks no route question.

    Examples
    --------
    >>> from benchmarks.reasonmap.templates import short_question
    >>> read_route_question("Map text.\\n" + short_question("Termini", "Jonio"))
    ([('Termini', 'Jonio')], 'short', 'via_count')
    >>> read_route_question("What is the capital of France?") is None
    True
    """
    found = list(_ASKED.finditer(text))
    if not found:
        return None
    pair = found[-1].group("pair")  # the question is the prompt's last part
    parts = pair.split(" to ")
    pairs = [(" to ".join(parts[:cut]).strip(), " to ".join(parts[cut:]).strip()) for cut in range(1, len(parts))]
    rest = text[found[-1].end() :]
    if rest.lstrip(" ,.").startswith("with only the line name"):
        return pairs, "short", "via_count"
    return pairs, "long", "via_count" if "number of via stops" in rest else "via_stops"


class _Cities:
    """The graphs a server answers from, each built on first use; a station pair's city is the first (in
    name order) whose map has both stations."""

    def __init__(self, graphs: Mapping[str, Callable[[], TransitGraph]]):
        self._build = dict(sorted(graphs.items()))
        self._built: dict[str, TransitGraph] = {}
        self._lock = threading.Lock()

    def graph(self, city: str) -> TransitGraph:
        with self._lock:
            if city not in self._built:
                self._built[city] = self._build[city]()
            return self._built[city]

    def locate(self, pairs: Sequence[tuple[str, str]]) -> tuple[TransitGraph, str, str] | None:
        from graphkit.routes import shortest_route_length

        for city in self._build:
            graph = self.graph(city)
            for start, end in pairs:
                try:
                    shortest_route_length(graph, start, end)
                except TransitError:  # not this city's stations (or no route between them)
                    continue
                return graph, start, end
        return None


def _question(graph: TransitGraph, asked: AskedRoute) -> Question:
    """A question record for the solver: the stations and form the prompt asked (nothing else is read)."""
    city = graph.city or "custom"
    return Question(
        id=f"serve:{city}:{asked.start}:{asked.end}",
        country=graph.metro.country,
        city=city,
        station_1=asked.start,
        station_2=asked.end,
        question_short=short_question(asked.start, asked.end),
        question_long=long_question(asked.start, asked.end, asked.template),
        long_template=asked.template,
        routes=(),
        difficulty_question="easy",
        difficulty_city="easy",
        city_line_count=0,
        city_transfer_count=0,
        question_transfer_count=0,
    )


class SolverServer:
    """A chat-completions endpoint on ``host:port`` answering with one symbolic solver; a context manager that
    serves in a background thread (``port=0``: the system picks one, see :attr:`url`).

    Parameters
    ----------
    solver : {"oracle", "text-oracle", "noisy", "direct-line", "echo"}
    graphs : mapping of city name to a function building its graph
    seed : int
        Seeds the noisy solver, per question: the same prompt gets the same answer.
    host, port : str, int
    """

    def __init__(
        self,
        solver: str,
        graphs: Mapping[str, Callable[[], TransitGraph]],
        *,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        from graphkit.choices import check_choice

        check_choice(solver, SERVED_SOLVERS, what="solver")
        self.solver = solver
        self.seed = seed
        self.cities = _Cities(graphs)
        self.answered = 0
        # one answer at a time: graphs are built (and igraph imported) on first use, and the solvers are quick
        self.lock = threading.Lock()
        self._http = ThreadingHTTPServer((host, port), _handler(self))
        self._http.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL clients are given (``http://host:port/v1``)."""
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}/v1"

    def answer(self, messages: Any) -> str:
        """The solver's answer to a request's messages."""
        from baselines.solvers import solve

        read = read_route_question(_prompt_text(messages))
        if read is None:
            return _NOT_A_ROUTE_QUESTION
        pairs, kind, template = read
        located = self.cities.locate(pairs)
        if located is None:
            return f"I cannot find {pairs[0][0]} and {pairs[0][1]} on any map I know."
        graph, start, end = located
        asked = AskedRoute(start, end, kind, template)
        return solve(self.solver, _question(graph, asked), graph, kind, seed=self.seed)

    def serve_forever(self) -> None:
        """Serve until interrupted (the command's foreground loop)."""
        self._http.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self._http.shutdown()
            self._thread.join()
        self._http.server_close()

    def __enter__(self) -> SolverServer:
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _completion(number: int, model: str, content: str, prompt: str) -> dict[str, Any]:
    """An OpenAI chat-completion body (token counts are words: there is no tokenizer)."""
    prompt_tokens, completion_tokens = len(prompt.split()), len(content.split())
    return {
        "id": f"chatcmpl-serve-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _handler(server: SolverServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the command prints its own lines
            pass

        def _send(self, status: int, body: Mapping[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                model = {"id": f"baseline:{server.solver}", "object": "model", "created": 0, "owned_by": "reasonmap"}
                self._send(200, {"object": "list", "data": [model]})
            else:
                self._error(404, f"no such path {self.path!r}: POST /v1/chat/completions")

        def do_POST(self) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._error(404, f"no such path {self.path!r}: POST /v1/chat/completions")
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                length = -1
            if not 0 < length <= _BODY_LIMIT:
                self._error(400, f"a request body of 1 to {_BODY_LIMIT} bytes with its Content-Length is needed")
                return
            try:
                body = json.loads(self.rfile.read(length))
            except (ValueError, RecursionError):
                self._error(400, "the request body is not JSON")
                return
            if not isinstance(body, dict):
                self._error(400, "the request body must be a JSON object")
                return
            messages = body.get("messages")
            with server.lock:
                try:
                    content = server.answer(messages)
                except Exception as error:  # a solver's failure is this request's, not the server's
                    self._error(500, f"the {server.solver} solver failed: {type(error).__name__}: {error}")
                    return
                server.answered += 1
                number = server.answered
            model = body.get("model") if isinstance(body.get("model"), str) else f"baseline:{server.solver}"
            self._send(200, _completion(number, model, content, _prompt_text(messages)))

    return Handler
