"""Install hints name a command that works here: the checkout's own folder, with an extra it declares."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import pytest

from graphkit.executors import RAY_INSTALL
from graphkit.extras import install_hint

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("extra", ["ray", "inspect", "hf", "xlsx", "paddle"])
def test_the_hint_installs_an_extra_the_checkout_declares_from_the_checkout(extra):
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    assert extra in declared
    # not the unpublished distribution's name: pip would look it up on PyPI and find nothing
    assert shlex.split(install_hint(extra)) == ["pip", "install", "-e", f"{ROOT}[{extra}]"]


def test_more_packages_follow_the_extra_and_ray_uses_the_hint():
    assert shlex.split(install_hint("paddle", "paddlepaddle"))[-1] == "paddlepaddle"
    assert RAY_INSTALL == install_hint("ray")
