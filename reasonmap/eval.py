"""``reasonmap eval``: one model, every (task, prompt mode), in one resumable command.

For each task (route, plus, map QA) the questions are generated (``--split``)
or read (``--questions``), cut to ``--limit`` per task, and written to
``DIR/questions/<task>.jsonl``; for each mode the task has, the requests are
built, asked through the resumable client, scored, and logged::

    DIR/eval.json                          the run's settings (compared when it is run again)
    DIR/questions/<task>.jsonl             the questions asked
    DIR/<task>/<mode>/requests.jsonl       the exact requests
    DIR/<task>/<mode>/predictions.jsonl    the answers (appended; a rerun asks only what is missing)
    DIR/<task>/<mode>/scored.jsonl         the verdicts
    DIR/<task>/<mode>/samples.jsonl        verdict + response + what the question was (for reading failures)
    DIR/<task>/<mode>/report/              the task's summary.json, table.md and figures
    DIR/results.json, DIR/results.md       everything in one record, and one table per task
    DIR/resolution.md, DIR/resolution.png  accuracy against pixels (``--pixel-budget 1M,4M,16M``: the full
                                           mode asked at each budget, in DIR/<task>/full@1M/ and so on)
    DIR/manifest.json                      every file above with its size and SHA-256, written last
                                           (marked incomplete while a run is under way or was killed)

Running it again resumes: nothing already answered is asked again. A setting
that changes the answers (endpoint, model, name, questions, limit, seed,
generation and prompt settings) differs from the run's: refused, naming it;
``--force`` starts a new run in place: it removes only the files the run
recorded in its manifest (never a folder whole, never through a symbolic link).
A folder that holds a file no run here wrote (a link, a map, notes) is refused,
naming it, and so is a folder another live run writes to (``DIR/.reasonmap.lock``).

The settings record a run takes, and the checks that build it, are :mod:`reasonmap.eval_settings`.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonmap.eval_settings import _UNRECORDED, OPERATIONAL, EvalError, EvalSettings, NothingDone, eval_settings

# the settings record and the errors are defined in reasonmap.eval_settings, and importable from here as before
__all__ = ["EvalSettings", "EvalResult", "EvalError", "eval_settings", "run_eval", "results_markdown"]

EVAL_FILE = "eval.json"
RESULTS_FILES = ("results.json", "results.md")
#: What a sweep of pixel budgets (``--pixel-budget 1M,4M,16M``) writes beside them.
RESOLUTION_FILES = ("resolution.md", "resolution.png", "resolution.pdf")
#: What a run writes in the subfolders of DIR, which an unfinished run leaves in doubt (see the layout above).
_NESTED = ("questions/*.jsonl", "*/*/*.jsonl", "*/*/report/*")
#: What a run writes in each ``DIR/<task>/<mode>/`` besides its report.
_MODE_FILES = (
    "requests.jsonl",
    "predictions.jsonl",
    "predictions.jsonl.settings.json",
    "scored.jsonl",
    "samples.jsonl",
)


@dataclass(frozen=True, slots=True)
class EvalResult:
    """What a run produced: the results rows, the files written, and the questions skipped and why.

    Attributes
    ----------
    results : tuple of dict
        One row per (task, mode, model): its headline figures.
    files : tuple of Path
        The files written.
    problems : tuple of str
        The questions skipped, and why.
    """

    results: tuple[dict[str, Any], ...]
    files: tuple[Path, ...]
    problems: tuple[str, ...]


def _drawn_order(ids: Sequence[str], seed: int) -> list[str]:
    return sorted(ids, key=lambda id: hashlib.sha256(f"{seed}:{id}".encode()).hexdigest())


def _limited(questions: Mapping[str, Any], limit: int | None, seed: int) -> list[Any]:
    """``limit`` questions drawn by a seeded hash of their ids (the same ones every time), in file order."""
    if limit is None or limit >= len(questions):
        return list(questions.values())
    chosen = set(_drawn_order(list(questions), seed)[:limit])
    return [question for id, question in questions.items() if id in chosen]


def _generated(task: str, split: str, seed: int, *, progress: bool = False) -> list[Any]:
    """The task's questions of a cross-city split, as ``reasonmap generate`` makes them with its defaults."""
    from benchmarks.splits import split_cities
    from benchmarks.tasks import get_task
    from graphkit.cities import city_graph, city_names

    generation = get_task(task).generation
    if generation is None:
        raise EvalError(f"{task} questions are not generated: pass their file with --questions FILE")
    graphs = [city_graph(name) for name in split_cities(split, city_names())]
    return generation.make(graphs, seed=seed, progress=progress, **generation.defaults)


def _check_resume(out: Path, settings: EvalSettings, force: bool, inputs: Sequence[Path] = ()) -> None:
    """Refuse a run whose recorded settings differ (naming the first that does), or clear it with ``force``.

    A folder that holds files but no run is refused whatever ``force`` says: it is somebody's, not a run's.
    """
    import json

    from benchmarks.manifests import MANIFEST, unrecorded_file
    from graphkit.files import LOCK

    recorded = out / EVAL_FILE
    if not recorded.exists():
        if any(path.name != LOCK for path in out.iterdir()):
            raise EvalError(f"{out}: holds files but no evaluation run ({EVAL_FILE}); give an empty or new folder")
        return
    foreign = unrecorded_file(out, out / MANIFEST)
    if foreign is not None:  # never deleted, never written over: refused, with or without --force
        raise EvalError(
            f"{out}: holds {foreign}, which no evaluation run here wrote; move it out of {out} or give another --out"
        )
    try:
        before = json.loads(recorded.read_text(encoding="utf-8"))["settings"]
        if not isinstance(before, dict):
            raise TypeError("settings is not an object")
    except (OSError, ValueError, KeyError, TypeError) as error:
        if not force:
            raise EvalError(f"{out}: not an evaluation's settings ({error}); pass --force to start anew") from None
        before = {}
    if force:
        _clear_run(out, inputs)
        return
    now = settings.to_dict()
    for key in (*now, *(key for key in _UNRECORDED if key not in now)):
        was, is_now = before.get(key, _UNRECORDED.get(key)), now.get(key, _UNRECORDED.get(key))
        if was != is_now:
            flag = "--questions" if key == "questions" else f"--{key.replace('_', '-')}"
            raise EvalError(
                f"{out}: this run was made with {flag} {_shown(was)}, not {_shown(is_now)};"
                " rerun with the same settings, or pass --force to start a new run in place"
            )


def _clear_run(out: Path, inputs: Sequence[Path]) -> None:
    """Remove the files the run recorded in its manifest, never an input (the run's questions given back)."""
    import os

    from benchmarks.manifests import MANIFEST, recorded_names, remove_recorded

    manifest = out / MANIFEST
    protected = {os.path.realpath(path) for path in inputs}
    remove_recorded(
        manifest, keep={name for name in recorded_names(manifest) if os.path.realpath(out / name) in protected}
    )


def _shown(value: Any) -> str:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return ",".join(f"{item['file']} ({item['sha256'][:12]})" for item in value)
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "(none)" if value is None else str(value)


def _questions_of(
    task: Any, settings: EvalSettings, files: Mapping[str, Path], out: Path, *, progress: bool = False
) -> tuple[Path, list[Any], tuple[str, ...], Path | None]:
    """The task's questions, written to ``DIR/questions/<task>.jsonl``; their problems; a maps folder they carry."""
    from benchmarks.jsonl import write_jsonl
    from benchmarks.manifests import MANIFEST, record_outputs

    def record(path: Path) -> None:  # before it is written, so that --force knows it for the run's
        record_outputs(out / MANIFEST, [path])

    carried = None
    if task.name in files:
        source = files[task.name]
        loaded = task.load(source)
        questions = _limited(loaded.questions, settings.limit, settings.seed)
        problems = loaded.problems
        exported = None
        if task.maps.carried is not None and settings.maps is None:  # the maps the file carries (the public set's)
            exported = task.maps.carried(source, out / "maps", before_write=record)
        if exported is not None:
            written, figure_problems = exported
            problems += tuple(str(problem) for problem in figure_problems)
            carried = out / "maps" if written else None
    else:
        questions = _generated(task.name, settings.split or "test", settings.seed, progress=progress)
        questions = _limited({question.id: question for question in questions}, settings.limit, settings.seed)
        problems = ()
    path = out / "questions" / f"{task.name}.jsonl"
    record(path)
    if task.name in files and path.resolve() == files[task.name].resolve():
        if len(questions) != len(loaded.questions):
            raise EvalError(f"{path}: --limit would write over this input; copy it out of {out} first")
        return path, questions, problems, carried  # the run's own questions, given back: read, never rewritten
    path.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, questions)
    return path, questions, problems, carried


def _own_images(questions: Sequence[Any], maps: str | None, source: Path) -> str:
    """Where the images of questions that name their own (map QA) are: under ``--maps`` when it holds them (it
    may be the city maps' folder), else beside their question file, as its ``image`` paths say."""
    if maps is not None and any((Path(maps) / question.image).is_file() for question in questions):
        return maps
    return str(source.resolve().parent)


def _samples(scored: Sequence[Any], predictions_path: Path, questions: Sequence[Any]) -> list[dict[str, Any]]:
    """Each verdict with the response it judged and what a reader needs of its question."""
    import json

    responses: dict[tuple[str, str, str, Any], str] = {}
    with open(predictions_path, encoding="utf-8", errors="replace") as stream:
        for line in stream:
            try:
                row = json.loads(line)
                key = (str(row["id"]), str(row.get("question")), str(row["model"]), row.get("repeat", 0))
                responses.setdefault(key, row.get("response"))
            except (ValueError, KeyError, TypeError):
                continue
    about = {}
    for question in questions:
        record = question.to_dict()
        about[question.id] = {
            key: record[key]
            for key in ("city", "country", "difficulty_question", "difficulty_city", "type", "level", "station_1")
            if key in record
        }
        if "station_2" in record:
            about[question.id]["station_2"] = record["station_2"]
    # plus and map QA verdicts do not name the request kind: one request per question, found by id and model
    by_answer = {}
    for (id, _, model, repeat), response in responses.items():
        by_answer.setdefault((id, model, repeat), response)
    rows = []
    for verdict in scored:
        row = verdict.to_dict()
        kind, repeat = str(row.get("question", row.get("type"))), row.get("repeat", 0)
        response = responses.get(
            (row["id"], kind, row["model"], repeat), by_answer.get((row["id"], row["model"], repeat))
        )
        rows.append({**row, "response": response, "question_info": about.get(row["id"], {})})
    return rows


def run_eval(
    settings: EvalSettings,
    files: Mapping[str, Path],
    out: str | Path,
    *,
    client: Mapping[str, Any],
    force: bool = False,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    cluster: str = "question",
) -> EvalResult:
    """Evaluate ``settings.model`` on every (task, mode); see the module notes for what is written.

    ``cluster`` is what the reports' printed intervals resample: ``question``, or ``map`` (maps, then
    questions within them); it does not change the answers, so a run is resumed whatever it was.

    ``client`` holds the operational options of :func:`baselines.client.run_requests` (concurrency,
    timeout, max_retries, retry_errors, progress) and the ``api_key`` when given.

    Parameters
    ----------
    settings : EvalSettings
        What decides the answers (:func:`reasonmap.eval_settings.eval_settings`).
    files : mapping of str to Path
        The question files given, by task.
    out : str or Path
        The run's folder (resumed when it holds one).
    client : mapping
        The client's operational options and the key.
    force : bool, optional
        Start a new run in place of the one in ``out``.
    log : callable, optional
        Told of each step, in one line.
    cluster : {"question", "map"}, optional
        What the printed intervals resample.

    Returns
    -------
    EvalResult

    Raises
    ------
    EvalError
        Settings that differ from the run's, a task without questions, a folder another live run
        writes to or that holds files no run wrote, or nothing answered or scored.
    """
    from graphkit.files import FolderLocked, folder_lock

    Path(out).mkdir(parents=True, exist_ok=True)
    try:
        with folder_lock(out, "eval"):  # --force too: it must not delete what a live run appends to
            return _run_locked(settings, files, out, client=client, force=force, log=log, cluster=cluster)
    except FolderLocked as error:
        raise EvalError(str(error)) from None


@dataclass(frozen=True, slots=True)
class _Run:
    """What every stage of one locked run shares: its settings, folder, manifest, client and logs."""

    settings: EvalSettings
    out: Path
    manifest: Path
    client: Mapping[str, Any]
    log: Callable[[str], None]
    progress: bool
    graph_for: Callable[[Any], Any]
    cluster: str = "question"

    def note(self, line: str) -> None:
        """What a stage is doing, as it starts (quiet: only the results)."""
        if self.progress:
            self.log(line)


@dataclass(frozen=True, slots=True)
class _Asked:
    """What one (task, mode, pixel budget) gave: its results row and report summary, the files written, the
    problems, and whether any request was answered."""

    row: dict[str, Any]
    summary: Mapping[str, Any]
    written: tuple[Path, ...]
    problems: tuple[str, ...]
    answered: bool


def _announce(settings: EvalSettings, out: str | Path, log: Callable[[str], None], progress: bool) -> None:
    """Log what the run asks, and the settings that may not do what was meant."""
    if progress:
        log(f"eval: {settings.name} on {', '.join(settings.tasks)} in {', '.join(settings.modes)}; outputs in {out}/")
    if isinstance(settings.pixel_budget, tuple) and "full" not in settings.modes:
        log(f"eval: --pixel-budget lists {len(settings.pixel_budget)} budgets, but only the full mode sends a map")
    if settings.repeats > 1 and settings.temperature is None:  # said even when quiet: the answers may not differ
        log(f"eval: {settings.repeats} answers per request at the server's default temperature (--temperature: set it)")


def _write_sweep(
    out: Path,
    settings: EvalSettings,
    results: Sequence[Mapping[str, Any]],
    intervals: Mapping[tuple[str, int], Mapping[str, Any]],
) -> tuple[Path, ...]:
    """Write the files of a pixel-budget sweep (:data:`RESOLUTION_FILES`); returns their paths."""
    from benchmarks.metrics import headline
    from benchmarks.tasks import get_task
    from reasonmap.pixel_sweep import write_resolution

    accuracies = {  # each task's headline shares (its accuracies), as results.md shows them
        task: [(spec.label, spec.name) for spec in headline(get_task(task).metrics) if spec.is_share]
        for task in settings.tasks
    }
    return tuple(write_resolution(out, results, intervals, accuracies))


def _run_locked(
    settings: EvalSettings,
    files: Mapping[str, Path],
    out: str | Path,
    *,
    client: Mapping[str, Any],
    force: bool,
    log: Callable[[str], None],
    cluster: str = "question",
) -> EvalResult:
    """:func:`run_eval`, once this process holds the folder's lock."""
    progress = bool(client.get("progress", True))
    _announce(settings, out, log, progress)
    from benchmarks.manifests import MANIFEST, begin_outputs, record_outputs, write_manifest
    from benchmarks.provenance import input_entry, versions
    from benchmarks.summaries import write_summary, write_text
    from benchmarks.tasks import get_task
    from graphkit.cities import graphs_by_city
    from reasonmap.pixel_sweep import mode_runs

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_resume(out, settings, force, list(files.values()))
    # a run killed from here on says so, of the files in its subfolders too
    manifest = begin_outputs(out / MANIFEST, "eval", covers=_NESTED, keep_recorded=True)
    sweep = RESOLUTION_FILES if isinstance(settings.pixel_budget, tuple) else ()
    record_outputs(manifest, [out / name for name in (EVAL_FILE, *RESULTS_FILES, *sweep)])
    config = {"settings": settings.to_dict(), "versions": versions(("reasonmap-toolkit", "igraph", "numpy", "pillow"))}
    if cluster != "question":  # the default is not recorded: eval.json as it was before --cluster
        config["cluster"] = cluster
    written = [write_summary(out / EVAL_FILE, config)]
    by_city = graphs_by_city(settings.metro_dir)
    run = _Run(settings, out, manifest, client, log, progress, lambda question: by_city(question.city), cluster)
    results: list[dict[str, Any]] = []
    intervals: dict[tuple[str, int], Mapping[str, Any]] = {}  # of each task's full mode at each budget of a sweep
    asked: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    answered_any = False
    for name in settings.tasks:
        task = get_task(name)
        if name in files:
            run.note(f"{name}: reading the questions of {files[name]}")
        else:
            run.note(f"{name}: generating the {settings.split or 'test'} split's questions (seed {settings.seed})")
        questions_path, questions, skipped, carried = _questions_of(task, settings, files, out, progress=progress)
        problems.extend(skipped)
        written.append(questions_path)
        if carried is not None:
            written.extend(sorted(carried.glob("*.png")))
        asked[name] = input_entry(questions_path)  # generated questions too: what was asked, checksummed
        maps = settings.maps or (str(carried) if carried else None)
        if task.maps.own_images and name in files:
            maps = _own_images(questions, settings.maps, files[name])
        for mode, budget, shown in mode_runs(settings.modes, settings.pixel_budget):
            if mode not in task.modes:
                log(f"{name}/{shown}: not a mode of {name} questions ({', '.join(task.modes)}); skipped")
                continue
            asked_mode = _ask_mode(run, task, (mode, budget, shown), questions_path, questions, maps)
            results.append(asked_mode.row)
            written.extend(asked_mode.written)
            problems.extend(asked_mode.problems)
            answered_any = answered_any or asked_mode.answered
            if shown != mode:  # one of several budgets of the full mode
                intervals[(name, budget)] = asked_mode.summary["models"].get(settings.name, {}).get("intervals", {})
    record = {"config": {**config, "questions_asked": asked}, "results": results, "skipped_records": len(problems)}
    if not answered_any:
        write_summary(out / "results.json", record)  # what happened, for the record; the exit says it failed
        raise NothingDone(f"{out}: not one request was answered (see the error rows in {out}/*/*/predictions.jsonl)")
    if not any(row["n"] for row in results):
        write_summary(out / "results.json", record)
        raise NothingDone(f"{out}: no answer could be scored")
    files_written = (
        write_summary(out / "results.json", record),
        write_text(out / "results.md", results_markdown(record)),
    )
    if isinstance(settings.pixel_budget, tuple) and "full" in settings.modes:
        files_written += _write_sweep(out, settings, results, intervals)
    write_manifest(manifest, [*written, *files_written], "eval")
    return EvalResult(tuple(results), files_written, tuple(problems))


def _requests_of(
    run: _Run, task: Any, mode: str, budget: int, shown: str, questions: Sequence[Any], maps: str | None
) -> tuple[list[Any], list[str]]:
    """The requests of one (task, mode, budget), and one message per question skipped for want of its map."""
    from baselines.prompts import build_requests

    settings, name = run.settings, task.name
    if mode == "full" and maps is None:
        if settings.require_maps:
            raise EvalError(f"{name}/full: no maps (pass --maps DIR)")
        run.log(f"{name}/full: no maps given (--maps DIR); its {len(questions)} questions skipped")
        return [], [f"question {question.id!r}: no maps given; skipped" for question in questions]
    run.note(f"{name}/{shown}: building the requests of {len(questions)} questions")
    missing: list[str] = []
    requests = build_requests(
        questions,
        mode=mode,
        task=task,
        graph_for=run.graph_for,
        textualization=settings.textualization,
        maps=maps,
        pixel_budget=budget,
        alias_strategy=settings.alias_strategy,
        missing_maps=None if settings.require_maps else missing,
    )
    return requests, missing


def _ask_mode(
    run: _Run,
    task: Any,
    mode_run: tuple[str, int, str],
    questions_path: Path,
    questions: Sequence[Any],
    maps: str | None,
) -> _Asked:
    """Build, ask and score one (task, mode, pixel budget) in ``DIR/<task>/<shown>/``."""
    from baselines.client import run_requests
    from benchmarks.jsonl import write_jsonl
    from benchmarks.manifests import MANIFEST, record_outputs
    from benchmarks.tasks import results_of
    from reasonmap.paths import REPORT_FILES
    from reasonmap.score_files import ScoreSettings, evaluate_files

    mode, budget, shown = mode_run
    settings, client, name = run.settings, run.client, task.name
    folder = run.out / name / shown
    folder.mkdir(parents=True, exist_ok=True)
    record_outputs(
        run.manifest, [*(folder / file for file in _MODE_FILES), *(folder / "report" / file for file in REPORT_FILES)]
    )
    requests, missing = _requests_of(run, task, mode, budget, shown, questions, maps)
    write_jsonl(folder / "requests.jsonl", requests)
    predictions = folder / "predictions.jsonl"
    answered = False
    if requests:
        summary = run_requests(
            requests,
            endpoint=client.get("endpoint_with_key", settings.endpoint),
            model=settings.model,
            name=settings.name,
            out=predictions,
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            repeats=settings.repeats,
            **{key: client[key] for key in (*OPERATIONAL, "api_key", "force_repeats") if key in client},
            progress=f"{name}/{shown} {settings.name}" if run.progress else False,  # the bar's label
        )
        run.log(f"{name}/{shown}: {summary}")
        answered = not summary.all_failed
    else:
        predictions.touch()
    run.note(f"{name}/{shown}: scoring the answers")
    evaluation = evaluate_files(
        questions_path,
        predictions,
        out=folder / "scored.jsonl",
        report_dir=folder / "report",
        # answers are appended as they come: ordered, the scored rows follow the questions
        settings=ScoreSettings(task=name, ordered=True, cluster=run.cluster, options={"metro_dir": settings.metro_dir}),
    )
    write_jsonl(folder / "samples.jsonl", _samples(evaluation.verdicts, predictions, questions))
    names = (*_MODE_FILES, f"report/{MANIFEST}")
    rows = [row for row in results_of(evaluation.summary) if row["model"] == settings.name]
    row = rows[0] if rows else {"model": settings.name, "n": 0, "n_invalid": 0, "metrics": {}}
    swept = {} if shown == mode else {"pixel_budget": budget}  # one of several budgets of the full mode
    row = {"task": name, "mode": mode, **swept, **row, "n_skipped_no_map": len(missing)}
    if settings.repeats > 1:  # mean@K, pass@k and consistency beside the headline
        row["repeats"] = evaluation.summary["models"].get(settings.name, {}).get("repeats")
    return _Asked(
        row,
        evaluation.summary,
        (*(folder / file for file in names), *evaluation.report_files),
        tuple(f"{name}/{shown}: {message}" for message in missing),
        answered,
    )


def results_markdown(record: Mapping[str, Any]) -> str:
    """One table per task (a page holds it): models × its modes, routes in the paper's Table 2 shape (text-only
    beside full is its visual-masking ablation); accuracies in %, weighted as each task's report weights them.

    Parameters
    ----------
    record : mapping
        The run's ``results.json``.

    Returns
    -------
    str
    """
    from benchmarks.cells import markdown_code, markdown_text
    from benchmarks.metrics import headline
    from benchmarks.tasks import get_task
    from reasonmap.pixel_sweep import mode_shown

    results = record["results"]
    pairs = list(dict.fromkeys((row["task"], mode_shown(row)) for row in results))
    columns = {task: headline(get_task(task).metrics) for task, _ in pairs}  # each task's headline metrics
    lines: list[str] = []
    for task in dict.fromkeys(task for task, _ in pairs):
        modes = [mode for name, mode in pairs if name == task]
        header = ["Model", *(f"{mode}: {spec.label}" for mode in modes for spec in columns[task])]
        lines += [f"**{markdown_text(get_task(task).title)}** (`{task}`)", ""]
        lines += ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
        for model in dict.fromkeys(row["model"] for row in results if row["task"] == task):
            cells = [markdown_text(model)]
            for mode in modes:
                found = (r for r in results if (r["task"], mode_shown(r), r["model"]) == (task, mode, model))
                row = next(found, None)
                for spec in columns[task]:
                    interval = row.get("intervals", {}).get(spec.name) if row else None
                    cells.append(spec.cell(row["metrics"].get(spec.name), interval) if row else "–")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    notes = [
        f"- {row['task']}/{mode_shown(row)}: {row['n']} answers scored, {row['n_invalid']} invalid"
        + (f", {row['n_skipped_no_map']} questions skipped (no map)" if row["n_skipped_no_map"] else "")
        for row in results
    ]
    settings = record["config"]["settings"]
    lead = f"Model {markdown_code(settings['name'])} at {markdown_text(settings['endpoint'])}" + (
        f", temperature {settings['temperature']}" if settings["temperature"] is not None else ""
    )
    if settings.get("repeats", 1) > 1:
        lead += f", {settings['repeats']} answers per request (every answer counts; pass@k in each report's table.md)"
    if any(row.get("intervals") for row in results):
        from benchmarks.intervals import interval_method, interval_note

        method = interval_method(cluster=record["config"].get("cluster", "question"))
        notes.append(f"- {interval_note({'interval_method': method}).strip()}")
    return "\n".join([lead + ".", "", *lines, *notes]) + "\n"
