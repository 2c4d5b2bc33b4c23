"""What the map shows: OCR, line colours, grounding, a synthetic renderer and failure diagnosis.

The public surface is ``__all__``: reading a map (:func:`analyse_map`: OCR,
grounding and line colours) or a folder of maps, the evidence a diagnosis
reads, the synthetic renderer and its ground truth, the diagnosis of
predictions with its labels, summary and plots, the attribution of wrong
routes by the same model's ``follow`` probes, and the errors. The
submodules are internal (import from the package, not from them).

Heavy parts (OpenCV, the OCR engines) are imported inside the functions that
need them, and each public name is imported when first used, so importing
``vision`` is cheap and has no side effects.

Examples
--------
>>> import vision
>>> vision.CATEGORIES
('correct', 'grounding', 'reasoning', 'other')
"""

from __future__ import annotations

from graphkit.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "vision.analyse": ("analyse_map", "folder_evidence", "map_files"),
        "vision.diagnose": ("CATEGORIES", "LABELS", "Diagnosis"),
        "vision.diagnosis_plots": ("confusion_crops", "plot_confusions", "plot_labels"),
        "vision.diagnosis_report": (
            "diagnose_files",
            "diagnose_predictions",
            "prediction_row",
            "summarize",
            "summary_markdown",
        ),
        "vision.errors": ("EngineUnavailable", "VisionError"),
        "vision.evidence": ("MapEvidence", "read_truth"),
        "vision.fonts": ("find_font",),
        "vision.probe_attribution": ("attribute_diagnoses", "follow_results"),
        "vision.render": ("render_map", "write_rendered"),
        "vision.route_drawing": ("answer_route", "draw_routes", "reference_route"),
    },
)
