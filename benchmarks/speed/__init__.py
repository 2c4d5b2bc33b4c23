"""The toolkit's own speed benchmarks, each run as ``python -m benchmarks.speed.<name>`` (``make bench``).

Not library code: nothing in the toolkit imports it (import-linter's contract "no library module imports the
speed benchmarks"), its functions are no public surface, and its figures are reported, never timed inside tests.
It lives here only because the layout puts every benchmark under ``benchmarks/``.
"""
