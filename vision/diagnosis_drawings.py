"""Every wrong answer of a diagnosis run drawn on its map: one PNG each, under a name any file system takes.

:func:`draw_diagnoses` draws, for each diagnosis not labelled ``correct``, the answer's route and the
reference route with :func:`vision.route_drawing.draw_routes` (``reasonmap diagnose --draw DIR``), in a
file named by :func:`drawing_name`: question id, model and question kind, each part cleaned and cut, with
a digest of the whole where it changed, so that no two names collide.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from hashlib import sha1
from pathlib import Path
from typing import Any

from benchmarks.reasonmap.records import Question
from graphkit.graph import TransitGraph
from vision.diagnose import Diagnosis
from vision.errors import VisionError
from vision.evidence import MapEvidence
from vision.route_drawing import RouteDrawing, answer_route, draw_routes, reference_route

__all__ = ["drawing_name", "draw_diagnoses"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


# a part's most characters (ASCII, once cleaned): three parts, the digests and the suffix stay far under the
# 255 bytes a file name may have on common file systems, whatever the model's name
_PART_LIMIT = 60


def _safe(part: str) -> str:
    """A file-name part: unsafe characters become ``_``, a long one is cut to :data:`_PART_LIMIT`; a changed
    part gets a digest of the whole, so none collide."""
    cleaned = _UNSAFE.sub("_", part).strip("._")[:_PART_LIMIT].rstrip("._") or "_"
    return cleaned if cleaned == part else f"{cleaned}-{sha1(part.encode('utf-8')).hexdigest()[:6]}"


def drawing_name(diagnosis: Diagnosis) -> str:
    """The file a diagnosis is drawn in: question id, model and question kind (and repeat, past the first).

    Parameters
    ----------
    diagnosis : Diagnosis

    Returns
    -------
    str
        The file's name, safe on every file system (a model's ``/`` replaced, with a digest to keep names
        apart; cut to fit).

    Examples
    --------
    >>> drawing_name(Diagnosis("rome_0001", "gpt-4o", "short", "suboptimal", "reasoning", {}, "rome"))
    'rome_0001__gpt-4o__short.png'
    >>> drawing_name(Diagnosis("q1", "Qwen/Qwen2.5-VL", "long", "refusal", "other", {}, "rome", repeat=2))
    'q1__Qwen_Qwen2.5-VL-8f0e05__long__r2.png'
    >>> drawing_name(Diagnosis("q1", "M" * 300, "short", "refusal", "other", {}, "rome"))  # cut, digest kept
    'q1__MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM-303318__short.png'
    """
    repeat = f"__r{_safe(str(diagnosis.repeat))}" if diagnosis.repeat else ""
    return f"{_safe(diagnosis.id)}__{_safe(diagnosis.model)}__{_safe(diagnosis.question)}{repeat}.png"


def _title(diagnosis: Diagnosis, question: Question, graph: TransitGraph) -> list[str]:
    repeat = f" · repeat {diagnosis.repeat}" if diagnosis.repeat else ""
    return [
        f"{diagnosis.model} · {diagnosis.city} · {diagnosis.label} ({diagnosis.category}){repeat}",
        f"{diagnosis.id} ({diagnosis.question}): {graph.display_name(question.station_1)}"
        f" → {graph.display_name(question.station_2)}",
    ]


def draw_diagnoses(
    diagnoses: Iterable[Diagnosis],
    questions: Mapping[str, Question],
    responses: Mapping[tuple[str, str, str, int], str],
    graph_for: Callable[[Question], TransitGraph],
    evidence_for: Callable[[Question], MapEvidence | None],
    image_for: Callable[[str], Any],
    folder: str | Path,
    *,
    fonts: Sequence[str | Path] = (),
    progress: Callable[[Iterable[Diagnosis]], Iterable[Diagnosis]] | None = None,
    on_failure: Callable[[Diagnosis, Exception], None] | None = None,
) -> list[tuple[Diagnosis, RouteDrawing]]:
    """Draw every wrong answer (a diagnosis not labelled ``correct``) into ``folder``, in input order.

    ``responses`` maps (model, id, kind, repeat) to the answer text; ``image_for`` gives a city's map as a PIL
    image, or ``None`` (drawn from the evidence alone; it is asked once per city). Answers whose question
    or map evidence is missing are not drawn. A drawing that cannot be made or written (a full disk, a file
    system that refuses the name) is given to ``on_failure`` and skipped, the others drawn; without
    ``on_failure`` it is raised.

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The diagnoses.
    questions : mapping of str to Question
        The route questions by id.
    responses : mapping
        ``(model, id, kind, repeat)`` to the answer text.
    graph_for : callable
        A question's city graph.
    evidence_for : callable
        A question's map evidence.
    image_for : callable
        A city's map image, or ``None``.
    folder : str or Path
        Where the drawings go (:func:`drawing_name`).
    fonts : sequence of font files, optional
        Back-up fonts (a CJK font for Chinese names).
    progress : callable, optional
        Wraps the diagnoses to show progress.
    on_failure : callable, optional
        Told of a drawing that failed.

    Returns
    -------
    list of (Diagnosis, RouteDrawing)
        The drawings written, in input order.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    images: dict[str, Any] = {}
    drawn = []
    wrong = [diagnosis for diagnosis in diagnoses if diagnosis.category != "correct"]
    for diagnosis in progress(wrong) if progress is not None else wrong:
        question = questions.get(diagnosis.id)
        evidence = evidence_for(question) if question is not None else None
        if question is None or evidence is None:
            continue
        graph = graph_for(question)
        if question.city not in images:
            images[question.city] = image_for(question.city)
        response = responses.get((diagnosis.model, diagnosis.id, diagnosis.question, diagnosis.repeat), "")
        try:
            drawing = draw_routes(
                images[question.city],
                evidence,
                answer_route(response, diagnosis.question, question, graph, evidence),
                reference_route(question, graph, evidence),
                folder / drawing_name(diagnosis),
                title=_title(diagnosis, question, graph),
                fonts=fonts,
            )
        except (OSError, ValueError, VisionError) as failure:
            if on_failure is None:
                raise
            on_failure(diagnosis, failure)
            continue
        drawn.append((diagnosis, drawing))
    return drawn
