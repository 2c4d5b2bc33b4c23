"""Test-wide settings."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# CI machines are slow and shared: no per-example deadline; a failing example is printed for reproduction.
settings.register_profile("toolkit", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("toolkit")
