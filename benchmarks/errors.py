"""Exceptions raised by the benchmarks (every task's records and files)."""

from __future__ import annotations

__all__ = ["BenchmarkError", "InvalidRecord"]


class BenchmarkError(Exception):
    """Base class of the benchmark's errors."""


class InvalidRecord(BenchmarkError, ValueError):
    """A question, prediction or data set record is malformed; the message names the file, record and field."""
