"""What the map shows: OCR, line colours, grounding, a synthetic renderer and failure diagnosis.

Heavy parts (OpenCV, the OCR engines) are imported inside the functions that
need them, so importing ``vision`` is cheap and has no side effects.
"""
