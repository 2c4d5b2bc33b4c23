"""ReasonMap-Plus: counting and true/false questions on the ReasonMap maps, with exact answers.

Submodules: ``questions`` (records, templates, seeded generation),
``scoring`` (exact-match verdicts, map-difficulty weights), ``report``,
``official`` (the hub's records and the public ``main_plus.py`` reading),
``task`` (the registry entry).
"""
