"""Who answers without seeing the map.

Textualized maps, prompt modes and ablations, symbolic solvers, and a
resumable client for OpenAI-compatible chat endpoints.
"""
