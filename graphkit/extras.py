"""How to install an optional part, said in a way that works where the toolkit was installed from.

The distribution is not published on PyPI, so ``pip install 'reasonmap-toolkit[ray]'`` finds nothing: from a
checkout (the usual case, ``make demo`` / ``pip install -e .``) the extra is installed from that checkout's
folder; ``make install`` installs every extra at once.
"""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["install_hint"]


def _checkout() -> Path | None:
    """The checkout the toolkit runs from (the folder holding its ``pyproject.toml``), if it runs from one."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() else None


def install_hint(extra: str, *more: str) -> str:
    """The command that installs the optional part ``extra`` (and the packages ``more``) here.

    Parameters
    ----------
    extra : str
        The toolkit's extra (``"ray"``, ``"inspect"``).
    *more : str
        Other packages the same command installs.

    Returns
    -------
    str
        A ``pip install`` command: of the checkout when the toolkit runs from one, else of the package.

    Examples
    --------
    >>> hint = install_hint("ray")
    >>> hint.startswith("pip install -e ") and hint.endswith("[ray]'") or hint == "pip install 'reasonmap-toolkit[ray]'"
    True
    """
    root = _checkout()
    target = f"-e {shlex.quote(f'{root}[{extra}]')}" if root is not None else f"'reasonmap-toolkit[{extra}]'"
    return " ".join(["pip install", target, *more])
