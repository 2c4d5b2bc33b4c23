"""The Inspect AI tasks, run offline with Inspect's mock model, and Inspect's logs scored by ``reasonmap score``."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from baselines.answers import render_answer
from benchmarks.jsonl import write_jsonl
from benchmarks.plus.questions import generate_plus_questions
from benchmarks.reasonmap.generate import generate_questions
from graphkit import city_graph
from reasonmap.score_files import ScoreSettings, evaluate_files

pytestmark = pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None, reason="the [inspect] extra is absent")


@pytest.fixture(autouse=True, scope="module")
def _inspect_imported():
    """Inspect takes seconds to import: it is imported when the first test here runs, not in every collection."""
    global inspect_ai, ModelOutput, ModelUsage, get_model, TASK_VERSION, plus, route
    import inspect_ai
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from reasonmap.inspect_tasks import TASK_VERSION, plus, route


ROOT = Path(__file__).resolve().parents[2]
REFUSAL = "Sorry, I cannot answer that."
OUTPUT_TOKENS = 7


def _output(text):
    output = ModelOutput.from_content("mockllm/model", text)
    # without usage the mock model counts tokens with tiktoken, which downloads its encoding
    output.usage = ModelUsage(input_tokens=3, output_tokens=OUTPUT_TOKENS, total_tokens=3 + OUTPUT_TOKENS)
    return output


def _route_answers(questions, refused):
    """Question text to answer: the first reference route, or a refusal for the ids in ``refused``."""
    answers = {}
    for question in questions:
        for kind in ("short", "long"):
            template = question.long_template if kind == "long" else None
            text = REFUSAL if question.id in refused else render_answer(question.routes[0], kind, template)
            answers[question.text(kind)] = text
    return answers


def _mock(answers):
    def respond(messages, tools, tool_choice, config):
        return _output(answers.get(messages[-1].text, REFUSAL))

    return get_model("mockllm/model", custom_outputs=respond)


def _paper_weight(question):
    # the paper's 3x3 matrix: 1 + 0.5 (question level + map level), easy 0, middle 1, hard 2
    level = {"easy": 0, "middle": 1, "hard": 2}
    return 1 + 0.5 * (level[question.difficulty_question] + level[question.difficulty_city])


@pytest.fixture(scope="module")
def route_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inspect")
    questions = generate_questions(city_graph("rome"), seed=1, per_city=3)
    path = folder / "questions.jsonl"
    write_jsonl(path, questions)
    refused = {questions[2].id}
    (log,) = inspect_ai.eval(
        route(mode="text-only", questions=str(path)),
        model=_mock(_route_answers(questions, refused)),
        log_dir=str(folder / "logs"),
        display="none",
    )
    return questions, refused, path, log


def test_the_toolkits_scorer_judges_each_sample(route_run):
    questions, refused, _, log = route_run
    assert log.status == "success"
    scores = {sample.id: next(iter(sample.scores.values())) for sample in log.samples}
    assert sorted(scores) == sorted(f"{q.id}:{kind}" for q in questions for kind in ("short", "long"))
    for question in questions:
        for kind in ("short", "long"):
            score = scores[f"{question.id}:{kind}"]
            assert score.metadata["kind"] == kind
            assert score.metadata["weight"] == _paper_weight(question)
            if question.id in refused:
                assert (score.value, score.metadata["failure"]) == ({"correct": 0, "map_score": 0.0}, "refusal")
            else:
                assert score.value["correct"] == 1 and score.explanation == "correct"
                assert score.metadata["failure"] is None
                assert set(score.metadata["components"]) >= {"dep_arr", "route_name", "stops", "bonus"}


def test_a_one_section_reference_earns_the_hand_counted_map_score(route_run):
    questions, refused, _, log = route_run
    # one section: endpoints 1 + line 2 + departure 1 + arrival 1, plus the bonus of 10 for a correct short answer
    single = [q for q in questions if len(q.routes[0]) == 1 and q.id not in refused]
    assert single, "the seed gives a one-section question"
    scores = {sample.id: next(iter(sample.scores.values())) for sample in log.samples}
    for question in single:
        assert scores[f"{question.id}:short"].value["map_score"] == 15.0


def test_the_metrics_carry_the_papers_weighting(route_run):
    questions, refused, _, log = route_run
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    answered = [q for q in questions if q.id not in refused]
    for kind in ("short", "long"):
        assert metrics[f"accuracy_{kind}"] == pytest.approx(len(answered) / len(questions))
        weighted = sum(_paper_weight(q) for q in answered) / sum(_paper_weight(q) for q in questions)
        assert metrics[f"weighted_accuracy_{kind}"] == pytest.approx(weighted)
    scores = [next(iter(s.scores.values())) for s in log.samples if s.id.endswith(":long")]
    assert metrics["map_score_unweighted_long"] == pytest.approx(
        sum(s.value["map_score"] for s in scores) / len(scores)
    )
    # and the standard error of each value, as inspect_evals' tasks give; the task's version in the log
    assert {"correct/stderr", "map_score/stderr"} <= {f"{s.name}/{m}" for s in log.results.scores for m in s.metrics}
    assert log.eval.task_version == TASK_VERSION


def test_reasonmap_score_reads_the_inspect_log_and_agrees(route_run, tmp_path):
    questions, refused, path, log = route_run
    result = evaluate_files(
        path,
        log.location,
        out=tmp_path / "scored.jsonl",
        report_dir=tmp_path / "report",
        settings=ScoreSettings(source="inspect"),
    )
    assert result.problems == ()
    inspect_scores = {sample.id: next(iter(sample.scores.values())) for sample in log.samples}
    assert len(result.verdicts) == 2 * len(questions)
    for verdict in result.verdicts:
        score = inspect_scores[f"{verdict.id}:{verdict.question}"]
        assert (verdict.correct, verdict.map_score) == (score.value["correct"], score.value["map_score"])
        assert verdict.model == "mockllm/model" and verdict.tokens == OUTPUT_TOKENS


def _tiny_map(folder, city):
    from PIL import Image

    folder.mkdir(exist_ok=True)
    Image.new("RGB", (6, 4), (10, 120, 200)).save(folder / f"{city}.png")
    return folder


def test_full_mode_sends_the_map_as_image_content(tmp_path):
    from inspect_ai.model import ContentImage, ContentText

    questions = generate_questions(city_graph("rome"), seed=1, per_city=1)
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    task = route(questions=str(path), maps=str(_tiny_map(tmp_path / "maps", "rome")), kinds="long")
    (sample,) = task.dataset
    image, text = sample.input[0].content
    assert isinstance(image, ContentImage) and image.image.startswith("data:image/png;base64,")
    assert isinstance(text, ContentText) and text.text == questions[0].question_long
    with pytest.raises(ValueError, match="maps"):
        route(questions=str(path))


def test_the_public_sets_own_maps_serve_full_mode(monkeypatch):
    from inspect_ai.model import ContentImage

    monkeypatch.delenv("REASONMAP_MAPS", raising=False)
    official = ROOT / "tests" / "benchmarks" / "reasonmap" / "fixtures" / "official_sample.jsonl"
    task = route(questions=str(official), kinds="short")
    assert [sample.metadata["city"] for sample in task.dataset] == ["rome", "rome", "beijing"]
    assert all(isinstance(sample.input[0].content[0], ContentImage) for sample in task.dataset)


def test_the_maps_folder_may_come_from_the_environment(tmp_path, monkeypatch):
    questions = generate_plus_questions(city_graph("rome"), seed=2, per_type=1)
    path = tmp_path / "plus.jsonl"
    write_jsonl(path, questions)
    monkeypatch.setenv("REASONMAP_MAPS", str(_tiny_map(tmp_path / "maps", "rome")))
    task = plus(questions=str(path))
    assert len(task.dataset) == len(questions)
    assert all(sample.input[0].content[0].image.startswith("data:image/png") for sample in task.dataset)
    monkeypatch.delenv("REASONMAP_MAPS")
    with pytest.raises(ValueError, match="REASONMAP_MAPS"):
        plus(questions=str(path))


def test_the_plus_task_scores_exact_matches(tmp_path):
    questions = generate_plus_questions(city_graph("rome"), seed=2, per_type=1)
    path = tmp_path / "plus.jsonl"
    write_jsonl(path, questions)
    wrong = questions[0]
    answers = {q.question: f"The answer is {q.answer}." for q in questions if q is not wrong}
    (log,) = inspect_ai.eval(
        plus(mode="text-only", questions=str(path)),
        model=_mock(answers),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    scores = {sample.id: next(iter(sample.scores.values())) for sample in log.samples}
    assert {id: score.value for id, score in scores.items()} == {q.id: int(q is not wrong) for q in questions}
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx((len(questions) - 1) / len(questions))
    assert metrics[f"accuracy_{wrong.type}"] == 0.0
    # one wrong answer among the questions: the bootstrap over them varies, so its standard error is positive
    assert 0 < metrics["weighted_accuracy_stderr"] < 1


_BY_NAME = """
import json, sys
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

questions, logs = sys.argv[1], sys.argv[2]
assert "reasonmap.inspect_tasks" not in sys.modules
answers = {}
for line in open(questions, encoding="utf-8"):
    record = json.loads(line)
    answers[record["question_short"]] = "Route Name: " + record["routes"]["route_1"][0]["route_name"]

def respond(messages, tools, tool_choice, config):
    output = ModelOutput.from_content("mockllm/model", answers.get(messages[-1].text, "no"))
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output

model = get_model("mockllm/model", custom_outputs=respond)
(log,) = inspect_eval(
    "reasonmap/route", model=model, limit=5, task_args={"mode": "text-only", "questions": questions},
    log_dir=logs, display="none",
)
print(json.dumps({"status": log.status, "task": log.eval.task, "samples": len(log.samples),
                  "metrics": sorted(log.results.scores[0].metrics)}))
"""


@pytest.mark.slow
def test_the_task_loads_by_name_through_the_entry_point(tmp_path):
    """A fresh interpreter finds ``reasonmap/route`` only through the entry point pyproject.toml declares."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    site = tmp_path / "site" / "reasonmap_toolkit_entry-0.dist-info"
    site.mkdir(parents=True)
    site.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: reasonmap-toolkit-entry\nVersion: 0\n")
    site.joinpath("entry_points.txt").write_text(
        "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in declared.items())
    )
    questions = generate_questions(city_graph("rome"), seed=1, per_city=3)
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BY_NAME), str(path), str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "success" and result["task"] == "reasonmap/route" and result["samples"] == 5
    assert "weighted_accuracy_short" in result["metrics"] and "map_score_long" in result["metrics"]


def test_logs_of_other_inspect_tasks_map_ids_kinds_and_epochs(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.solver import generate

    from benchmarks.reasonmap.harnesses import read_inspect_log

    questions = generate_questions(city_graph("rome"), seed=1, per_city=2)
    first, second = questions
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    # someone's own task: the kind in the sample id, or nowhere (then --kind says it); two epochs
    # (a sample's input is checked against the question it is matched to: the second asks in words of its own)
    own = f"Which lines take me from {second.station_1} to {second.station_2}?"
    samples = [Sample(input=first.question_long, id=f"{first.id}:long"), Sample(input=own, id=second.id)]
    answers = {first.question_long: render_answer(first.routes[0], "long", first.long_template)}
    (log,) = inspect_ai.eval(
        Task(dataset=MemoryDataset(samples), solver=generate(), epochs=2),
        model=_mock(answers),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    predictions, problems = read_inspect_log(log.location, model="mine")
    assert [(p.id, p.question, p.model) for p in predictions] == [(first.id, "long", "mine")] * 2
    assert sorted(p.repeat for p in predictions) == [0, 1]
    assert len(problems) == 2 and all("--kind" in problem.message for problem in problems)
    result = evaluate_files(
        path,
        log.location,
        out=tmp_path / "s.jsonl",
        report_dir=tmp_path / "r",
        settings=ScoreSettings(source="inspect", kind="short"),
    )
    # each epoch is a repeat of its sample
    assert sorted((v.id, v.question, v.repeat, v.correct) for v in result.verdicts) == [
        (first.id, "long", 0, 1),
        (first.id, "long", 1, 1),
        (second.id, "short", 0, 0),
        (second.id, "short", 1, 0),
    ]
    assert not [problem for problem in result.problems if "again" in problem]


def test_a_missing_map_in_full_mode_is_a_one_line_prerequisite_error(tmp_path, monkeypatch):
    from inspect_ai._util.error import PrerequisiteError

    monkeypatch.delenv("REASONMAP_MAPS", raising=False)
    questions = generate_questions(city_graph("rome"), seed=1, per_city=1)
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    (tmp_path / "maps").mkdir()
    with pytest.raises(PrerequisiteError) as raised:  # Inspect prints its message alone, no traceback
        route(questions=str(path), maps=str(tmp_path / "maps"))
    message = raised.value.message
    assert message.startswith("reasonmap/route: no map of 'rome' in ") and "\n" not in message
    assert isinstance(raised.value, ValueError)
    plus_path = tmp_path / "plus.jsonl"
    write_jsonl(plus_path, generate_plus_questions(city_graph("rome"), seed=2, per_type=1))
    with pytest.raises(PrerequisiteError, match="reasonmap/plus: no map of 'rome'"):
        plus(questions=str(plus_path), maps=str(tmp_path / "maps"))


def test_the_inspect_extra_brings_what_the_readmes_inspect_examples_need():
    """The README's `inspect eval` lines use `openai/` and `vllm/` models: Inspect 0.3.285 reaches both through
    the `openai` package (inspect_ai/model/_providers/providers.py, `validate_openai_client`, at least 3.4.0)."""
    needs = {"openai": "openai", "vllm": "openai", "mockllm": None}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    providers = set(re.findall(r"^inspect eval \S+\s+--model ([a-z-]+)/", readme, flags=re.MULTILINE))
    assert providers and providers <= set(needs)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", requirement, maxsplit=1)[0] for requirement in extra["inspect"]}
    assert {needs[provider] for provider in providers} - {None} <= names


def _first_right_then_refused(questions):
    """Each prompt's first call gets the reference route, the next ones a refusal (epochs run in any order)."""
    right = _route_answers(questions, refused=set())
    asked: dict[str, int] = {}

    def respond(messages, tools, tool_choice, config):
        text = messages[-1].text
        asked[text] = asked.get(text, 0) + 1
        return _output(right.get(text, REFUSAL) if asked[text] == 1 else REFUSAL)

    return get_model("mockllm/model", custom_outputs=respond)


def test_epochs_are_repeats_and_inspects_metrics_agree_with_reasonmap_score(tmp_path):
    questions = generate_questions(city_graph("rome"), seed=1, per_city=3)
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    (log,) = inspect_ai.eval(
        route(mode="text-only", questions=str(path)),
        model=_first_right_then_refused(questions),
        epochs=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    result = evaluate_files(
        path,
        log.location,
        out=tmp_path / "s.jsonl",
        report_dir=tmp_path / "r",
        settings=ScoreSettings(source="inspect"),
    )
    assert len(result.verdicts) == 4 * len(questions) and result.problems == ()
    figures = result.summary["models"]["mockllm/model"]
    for kind in ("short", "long"):
        # one epoch right, one refused: half of every question's answers are right
        assert metrics[f"accuracy_{kind}"] == pytest.approx(0.5) == figures[f"accuracy_{kind}"]
        assert metrics[f"weighted_accuracy_{kind}"] == pytest.approx(figures[f"weighted_accuracy_{kind}"], abs=1e-6)
        # the map score too is the mean over both epochs (the refusal scores 0), not the first epoch's
        right = [v.map_score for v in result.verdicts if v.question == kind and v.correct]
        assert metrics[f"map_score_unweighted_{kind}"] == pytest.approx(sum(right) / (2 * len(questions)))
        assert metrics[f"map_score_{kind}"] == pytest.approx(figures[f"map_score_{kind}"], abs=1e-4)
        # the standard error beside each headline figure is the report's bootstrap over questions: with every
        # question asked in both epochs, Inspect's per-sample mean over epochs gives the same resampled ratios
        for name in (f"weighted_accuracy_{kind}", f"map_score_{kind}"):
            if figures["intervals"][name]["se"] is None:  # every question half right: no variance, no error given
                assert metrics.get(f"{name}_stderr") is None and name.startswith("weighted_accuracy")
            else:
                assert metrics[f"{name}_stderr"] == pytest.approx(figures["intervals"][name]["se"], abs=1e-6)
    # every request right in one epoch of two: pass@2 is 1, and no request agrees with itself
    assert figures["repeats"]["pass_at_k"] == {"1": 0.5, "2": 1.0} and figures["repeats"]["consistency"] == 0.0
    assert figures["repeats"]["n_requests"] == 2 * len(questions)


def _failed_copy(log, folder, status="error"):
    from inspect_ai.log import EvalError, write_eval_log

    failed = log.model_copy(deep=True)
    failed.status = status
    failed.error = EvalError(message="RuntimeError: the endpoint went away\nmore", traceback="", traceback_ansi="")
    failed.samples = failed.samples[:3]
    target = folder / f"failed-{status}.eval"
    write_eval_log(failed, str(target))
    return target


def test_a_failed_run_is_refused_naming_its_status_unless_partial_is_asked(route_run, tmp_path):
    from benchmarks.errors import InvalidRecord

    questions, _, path, log = route_run
    failed = _failed_copy(log, tmp_path)
    given = dict(out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="inspect"))
    with pytest.raises(InvalidRecord, match=r"status 'error' \(RuntimeError: the endpoint went away\); pass --partial"):
        evaluate_files(path, failed, **given)
    partial = ScoreSettings(source="inspect", partial=True)
    result = evaluate_files(path, failed, out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=partial)
    assert len(result.verdicts) == 3  # the samples it finished


def test_the_command_line_refuses_a_failed_run_in_one_line(route_run, tmp_path, capsys):
    from reasonmap.cli import main

    _, _, path, log = route_run
    failed = _failed_copy(log, tmp_path, status="cancelled")
    # in this process, where Inspect is imported already (a new interpreter would spend seconds importing it)
    command = ["score", "--questions", str(path), "--predictions", str(failed), "--from", "inspect"]
    command += ["--out", str(tmp_path / "s.jsonl"), "--report", str(tmp_path / "r")]
    assert main(command) == 2
    error = capsys.readouterr().err
    assert "status 'cancelled'" in error and len(error.strip().splitlines()) == 1, error
    assert main([*command, "--partial"]) == 0
    assert len((tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()) == 3  # the samples it finished


def test_a_sample_over_the_bound_is_skipped_unread(route_run, tmp_path, monkeypatch):
    import zipfile

    from benchmarks import inspect_logs
    from benchmarks.reasonmap import harnesses

    _, _, path, log = route_run
    with zipfile.ZipFile(log.location) as archive:
        sizes = {info.filename: info.file_size for info in archive.infolist() if info.filename.startswith("samples/")}
    largest = max(sizes.values())
    monkeypatch.setattr(inspect_logs, "MAX_SAMPLE_BYTES", largest - 1)
    predictions, problems = harnesses.read_inspect_log(log.location)
    over = [name for name, size in sizes.items() if size == largest]
    assert len(predictions) == len(sizes) - len(over)
    assert len(problems) == len(over) and "not read" in problems[0].message


def test_a_task_is_asked_in_the_modes_its_record_declares(tmp_path, monkeypatch):
    from benchmarks.tasks import get_task

    monkeypatch.delenv("REASONMAP_MAPS", raising=False)
    questions = generate_plus_questions(city_graph("rome"), seed=2, per_type=1)
    path = tmp_path / "plus.jsonl"
    write_jsonl(path, questions)
    assert get_task("plus").modes == ("full", "text-only", "symbolic")
    task = plus(mode="symbolic", questions=str(path))
    # the question after the city's textualized network: a text of its own, longer than the question
    texts = [sample.input[0].content for sample in task.dataset]
    assert len(texts) == len(questions)
    assert all(text.endswith(q.question) and len(text) > len(q.question) for text, q in zip(texts, questions))
    with pytest.raises(ValueError, match=r"^reasonmap/plus: plus prompt mode must be one of .*got 'alias'"):
        plus(mode="alias", questions=str(path))
    route_path = tmp_path / "q.jsonl"
    write_jsonl(route_path, generate_questions(city_graph("rome"), seed=1, per_city=1))
    with pytest.raises(ValueError, match=r"^reasonmap/route: mode 'full' needs .*REASONMAP_MAPS"):
        route(questions=str(route_path))


def test_an_unreadable_sample_is_reported_and_skipped_the_others_kept(route_run, tmp_path):
    # campaign 4, F5 and F6: one member of broken JSON, one nested 200,000 deep, added to a good .eval archive
    import shutil
    import zipfile

    from benchmarks.reasonmap.harnesses import read_inspect_log

    questions, _, path, log = route_run
    bad = tmp_path / "bad.eval"
    shutil.copy(log.location, bad)
    with zipfile.ZipFile(bad, "a") as archive:
        archive.writestr("samples/broken_epoch_1.json", "{not json")
        archive.writestr("samples/deep_epoch_1.json", "[" * 200_000 + "]" * 200_000)
    good, _ = read_inspect_log(log.location)
    predictions, problems = read_inspect_log(bad)
    assert predictions == good and len(predictions) == 2 * len(questions)
    assert [problem.message.split(" is not")[0] for problem in problems] == [
        "samples/broken_epoch_1.json",
        "samples/deep_epoch_1.json",
    ]
    assert all("\n" not in str(problem) and "not a readable sample" in str(problem) for problem in problems)
    result = evaluate_files(
        path, bad, out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="inspect")
    )
    assert len(result.verdicts) == 2 * len(questions)
    assert sum("broken_epoch_1.json" in problem for problem in result.problems) == 1


def _other_seed(questions, seed):
    """Another seed's questions of the same city, given these ids, as every seed's file had them before."""
    import dataclasses

    other = generate_questions(city_graph(questions[0].city), seed=seed, per_city=len(questions))
    assert [(q.station_1, q.station_2) for q in other] != [(q.station_1, q.station_2) for q in questions]
    return [dataclasses.replace(q, id=p.id) for q, p in zip(other, questions)]


def test_a_log_scored_against_another_seeds_questions_is_refused(route_run, tmp_path):
    # campaign 4, F17: samples are matched by id, and the ids were the same for every seed
    from inspect_ai.log import read_eval_log, write_eval_log

    from benchmarks.errors import InvalidRecord

    questions, _, path, log = route_run
    other = tmp_path / "other.jsonl"
    write_jsonl(other, _other_seed(questions, 5))
    given = dict(out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="inspect"))
    with pytest.raises(InvalidRecord, match=r"\.eval:1: not made from the question it is matched to .*'station_1'"):
        evaluate_files(other, log.location, **given)
    # a log of an older task, without the stations in its metadata: its prompt asks the way between others
    older = read_eval_log(log.location)
    for sample in older.samples:
        sample.metadata = {k: v for k, v in sample.metadata.items() if k not in ("station_1", "station_2")}
    write_eval_log(older, str(tmp_path / "older.eval"))
    with pytest.raises(InvalidRecord, match=r"\.eval:1: not made from .*the prompt asks the way from"):
        evaluate_files(other, tmp_path / "older.eval", **given)
    result = evaluate_files(path, tmp_path / "older.eval", **given)
    assert len(result.verdicts) == 2 * len(questions)
    assert any(f"{2 * len(questions)} rows checked" in note for note in result.notes)


def test_an_alias_log_is_checked_by_the_stations_its_samples_name(tmp_path):
    # alias mode renames Beijing's stations in the prompt: the metadata's names are compared instead
    from benchmarks.errors import InvalidRecord

    questions = generate_questions(city_graph("beijing"), seed=1, per_city=2)
    path = tmp_path / "q.jsonl"
    write_jsonl(path, questions)
    (log,) = inspect_ai.eval(
        route(mode="alias", questions=str(path), kinds="short"),
        model=_mock({}),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    asked = log.samples[0].input[0].content
    assert questions[0].question_short not in asked  # renamed
    given = dict(out=tmp_path / "s.jsonl", report_dir=tmp_path / "r", settings=ScoreSettings(source="inspect"))
    assert len(evaluate_files(path, log.location, **given).verdicts) == len(questions)
    other = tmp_path / "other.jsonl"
    write_jsonl(other, _other_seed(questions, 2))
    with pytest.raises(InvalidRecord, match=r"\.eval:\d+: not made from .*'station_1'"):
        evaluate_files(other, log.location, **given)
