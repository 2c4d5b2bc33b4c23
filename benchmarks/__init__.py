"""Benchmarks built on graphkit (``reasonmap``) and the toolkit's own speed benchmarks (``speed``)."""
