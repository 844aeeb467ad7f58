"""Re-exports a package makes on first use (PEP 562), for the light packages' ``__init__``.

``import rulings.errors`` runs ``rulings/__init__`` first, and every surface's error path
imports it: a package ``__init__`` that imported all it re-exports would load the clock, the
league and the tournament into ``pokerfloor hand``, which uses a few league modules. So
``rulings``, ``rulings.clock``, ``rulings.league`` and ``rulings.tournament`` list their
names in ``__all__`` and their imports under ``if TYPE_CHECKING:`` (what readers and type
checkers follow), and at run time a name is imported from the first of the package's
modules, in the order the package gives, that holds it. Nothing reads source at run time.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Sequence
from typing import Any

_MISSING = object()


def lazy_exports(
    package: str, names: Collection[str], modules: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` that import its names on first use.

    Args:
        package: the package (``__name__`` of its ``__init__``).
        names: what it exports (its ``__all__``); any other name is an ``AttributeError``.
        modules: its modules or sub-packages, relative, in the order to look in: a name is
            taken from the first that has it (so put the cheap ones first).

    Returns:
        ``(__getattr__, __dir__)``; a name found is kept in the package's namespace, so the
        next use is a plain attribute.
    """
    exported = frozenset(names)
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name in exported:
            for module in modules:
                value = getattr(importlib.import_module(f"{package}.{module}"), name, _MISSING)
                if value is not _MISSING:
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *exported})

    return __getattr__, __dir__
