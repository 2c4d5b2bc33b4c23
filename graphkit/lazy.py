"""A package's public names, each imported from its module when first used.

Every package of the toolkit declares its small public surface (``__all__``) with :func:`lazy_exports`, so
``import benchmarks.reasonmap`` stays cheap and side-effect free: the module behind a name (and igraph,
numpy or OpenCV behind it) is imported only when the name is first read.

Examples
--------
>>> namespace = {"__name__": "example"}
>>> names, getattr_, dir_ = lazy_exports(namespace, {"graphkit.names": ("fold",)})
>>> names
['fold']
>>> getattr_("fold")("Línea-２ ")
'linea2'
>>> "fold" in namespace  # imported once, then an ordinary attribute
True
>>> getattr_("nothing")
Traceback (most recent call last):
    ...
AttributeError: module 'example' has no attribute 'nothing'
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs more to import than every package's surface together
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    namespace: dict[str, Any], homes: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for a package whose public names live in its modules.

    Parameters
    ----------
    namespace : dict
        The package's ``globals()``: a name read once is stored there, so later reads are plain lookups.
    homes : mapping
        Module path to the public names it defines.

    Returns
    -------
    names : list of str
        The public names, sorted case-insensitively (the package's ``__all__``).
    getattr_ : callable
        The package's module ``__getattr__``: imports a public name's module on first use; any other name
        raises :class:`AttributeError`.
    dir_ : callable
        The package's ``__dir__``: its globals and the public names.
    """
    home_of = {name: module for module, names in homes.items() for name in names}
    package = namespace["__name__"]

    def getattr_(name: str) -> Any:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *home_of})

    return sorted(home_of, key=str.casefold), getattr_, dir_
