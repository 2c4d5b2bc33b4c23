"""The diagnosis on evidence the vision side estimates (OCR, grounding, colours), not on the renderer's truth.

Failures are injected with the truth in hand (which line really is a colour
twin, which one runs near), then labelled with what OCR and colour estimation
found on the rendered map: the pipeline a study would run on a real map.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy
import pytest

import vision.ocr
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.records import KINDS, Prediction
from graphkit.cities import city_graph
from tests.vision.fonts import needs_cjk_font
from tests.vision.maps import rendered_city
from tests.vision.test_diagnose import INJECTIONS, TARGET, City
from vision.colours import with_lines
from vision.diagnose import diagnose
from vision.evidence import MapEvidence, ciede2000
from vision.grounding import ground_stations

pytestmark = [needs_cjk_font, pytest.mark.slow]  # Hefei's labels are Chinese; OCR of a rendered map

CITIES = ("rome", "hefei")


@pytest.fixture(scope="module")
def pipeline() -> dict[str, tuple[City, MapEvidence]]:
    found = {}
    for name in CITIES:
        graph = city_graph(name)
        rendered = rendered_city(name, seed=1, palette="confusable")  # the one test_diagnose.py reads
        image = numpy.asarray(rendered.image)
        # through the module, so that a second xdist worker reads the first one's OCR (tests/ocr_once.py)
        grounding = ground_stations(vision.ocr.ocr_array(image).texts, graph.stations)
        estimated = MapEvidence(name, grounding.stations, with_lines(grounding.stations, image, graph))
        truth = MapEvidence.from_truth(rendered.truth, city=name)
        found[name] = (City(graph, truth, generate_questions(graph, seed=5, per_city=10)), estimated)
    return found


def test_estimated_evidence_agrees_with_the_truth(pipeline):
    for city, estimated in pipeline.values():
        assert sum(s.found for s in estimated.stations.values()) >= 0.97 * len(estimated.stations)
        close = [
            ciede2000(line.colour, city.evidence.lines[name].colour) <= 10 for name, line in estimated.lines.items()
        ]
        assert sum(close) >= 0.95 * len(close)


@pytest.mark.parametrize("label", list(INJECTIONS))
def test_injected_failures_get_their_label_from_estimated_evidence(pipeline, label):
    hits = total = 0
    misses: Counter = Counter()
    for city, estimated in pipeline.values():
        for inject in INJECTIONS[label]:
            for question in city.questions:
                for kind in KINDS:
                    injected = inject(city, question, kind, random.Random(f"{inject.__name__}:{question.id}:{kind}"))
                    if injected is None:
                        continue
                    text, made_up_evidence, error = injected
                    if made_up_evidence is not None:
                        continue  # an injection that edits the evidence itself (an unreadable label)
                    found = diagnose(
                        Prediction(question.id, "test", kind, text), question, city.graph, estimated, error=error
                    )
                    total += 1
                    hits += found.label == label
                    misses[found.label] += found.label != label
    assert total >= 10
    assert hits / total >= TARGET, f"{label}: {hits}/{total}; misses {dict(+misses)}"
