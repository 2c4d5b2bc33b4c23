"""``reasonmap serve``: a solver behind an OpenAI-compatible endpoint, read from the prompt as a model would."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from benchmarks.reasonmap.templates import long_question, short_question
from graphkit.cities import city_graph
from reasonmap.cli import main
from reasonmap.serve import SolverServer, read_route_question


def _graphs(*names: str):
    return {name: (lambda name=name: city_graph(name)) for name in names}


def _post(url: str, body: object, *, raw: bytes | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(url + "/chat/completions", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def _ask(url: str, text: str) -> str:
    status, body = _post(url, {"model": "m", "messages": [{"role": "user", "content": text}]})
    assert status == 200, body
    return body["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    ("text", "kind", "template"),
    [
        (short_question("Termini", "Jonio"), "short", "via_count"),
        (long_question("Termini", "Jonio", "via_count"), "long", "via_count"),
        (long_question("Termini", "Jonio", "via_stops"), "long", "via_stops"),
    ],
)
def test_the_question_and_its_form_are_read_from_the_template(text, kind, template):
    assert read_route_question("Lines of the map:\n...\n\n" + text) == ([("Termini", "Jonio")], kind, template)


def test_a_station_name_holding_to_gives_every_split_and_a_non_question_none():
    pairs, _, _ = read_route_question(short_question("Back to Bay", "Town"))
    assert pairs == [("Back", "Bay to Town"), ("Back to Bay", "Town")]
    assert read_route_question("Describe this picture.") is None


def test_the_oracle_answers_the_graphs_best_route_in_the_asked_form():
    with SolverServer("oracle", _graphs("beijing", "rome")) as server:
        short = _ask(server.url, short_question("Termini", "Jonio Station"))
        count = _ask(server.url, long_question("Termini", "Jonio Station", "via_count"))
        stops = _ask(server.url, long_question("Termini", "Jonio Station", "via_stops"))
    # Rome's Line B list: Termini, Castro Pretorio, Policlinico, Bologna (where the branch to Jonio starts), then
    # S. Agnese Annibaliano, Libia, Conca d'Oro, Jonio: one ride, six stops between
    head = ["Route Name: Line B", "Departure Stop: Termini Station", "Arrival Stop: Jonio Station"]
    via = "Castro Pretorio Station, Policlinico Station, Bologna Station, S. Agnese Annibaliano Station, Libia Station"
    assert short.splitlines() == head
    assert count.splitlines() == [*head, "Number of Via Stops: 6"]
    assert stops.splitlines() == [*head, f"Via Stops: {via}, Conca d'Oro Station"]


def test_a_prompt_without_a_route_question_or_with_unknown_stations_is_answered_without_a_route():
    with SolverServer("oracle", _graphs("rome")) as server:
        assert "Route Name" not in _ask(server.url, "What is the capital of France?")
        assert "Route Name" not in _ask(server.url, short_question("Atlantis", "Nowhere"))


def test_a_full_mode_message_is_read_from_its_text_part_beside_the_image():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    text = short_question("Termini", "Jonio Station")
    with SolverServer("oracle", _graphs("rome")) as server:
        status, body = _post(
            server.url, {"messages": [{"role": "user", "content": [image, {"type": "text", "text": text}]}]}
        )
        assert status == 200
        assert body["choices"][0]["message"]["content"] == _ask(server.url, text)


def test_bad_requests_get_an_error_body_not_a_dropped_connection():
    with SolverServer("echo", _graphs("rome")) as server:
        assert _post(server.url, None, raw=b"{not json")[0] == 400
        assert _post(server.url, [1, 2])[0] == 400
        with urllib.request.urlopen(server.url + "/models", timeout=10) as response:
            assert json.load(response)["data"][0]["id"] == "baseline:echo"


def test_requests_at_once_on_a_fresh_server_are_all_answered():
    # the first requests arrive before any graph is built: building them in two threads at once broke igraph's
    # import ("partially initialized module") before answers were taken one at a time
    text = short_question("Termini", "Jonio Station")
    results: list[int] = []
    with SolverServer("oracle", _graphs("rome")) as server:
        threads = [
            threading.Thread(
                target=lambda: results.append(_post(server.url, {"messages": [{"role": "user", "content": text}]})[0])
            )
            for _ in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert server.answered == 8
    assert results == [200] * 8


@pytest.fixture(scope="module")
def rome_questions(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve") / "q.jsonl"
    assert main(["generate", "--city", "rome", "--per-city", "12", "--out", str(out), "--quiet"]) == 0
    return out


def _eval(server: SolverServer, questions, out) -> None:
    argv = ["eval", "--endpoint", server.url, "--model", f"baseline:{server.solver}", "--questions", str(questions)]
    assert main([*argv, "--tasks", "route", "--modes", "text-only", "--out", str(out), "--quiet"]) == 0


@pytest.mark.parametrize("solver", ["oracle", "text-oracle", "echo", "noisy"])
def test_eval_against_the_server_scores_as_the_solver_does_offline(solver, rome_questions, tmp_path, capsys):
    with SolverServer(solver, _graphs("rome"), seed=3) as server:
        _eval(server, rome_questions, tmp_path / "run")
    scored = [json.loads(line) for line in (tmp_path / "run/route/text-only/scored.jsonl").read_text().splitlines()]
    assert len(scored) == 24
    share = sum(row["correct"] for row in scored) / len(scored)
    assert {"oracle": share == 1.0, "text-oracle": share == 1.0, "echo": share == 0.0, "noisy": 0.0 < share < 1.0}[
        solver
    ], share


def test_noisy_answers_are_the_same_for_the_same_seed():
    text = long_question("Termini", "Jonio Station", "via_stops")
    with (
        SolverServer("noisy", _graphs("rome"), seed=7) as first,
        SolverServer("noisy", _graphs("rome"), seed=7) as second,
    ):
        assert _ask(first.url, text) == _ask(second.url, text)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "70000"], "--port must be 0 to 65535, got 70000"),
        (["serve", "--city", "atlantis"], "atlantis"),
    ],
)
def test_bad_options_are_refused_before_serving(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err
