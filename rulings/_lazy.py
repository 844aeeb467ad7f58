"""Lazy re-exports: a package's ``__init__`` names what it offers without importing it all.

A package ``__init__`` keeps its re-exports as ordinary ``from X import (...)`` blocks under
``if TYPE_CHECKING:`` (type checkers and readers see them as usual) and ends with
``__getattr__ = lazy_exports(__name__, __file__)``. The first use of a name imports only the
module that defines it, so ``pokerfloor hand`` never loads the rulebook search and
``pokerfloor rule`` never builds the hand tables.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def exported_from(source: str) -> dict[str, str]:
    r"""Name -> module for every absolute ``from X import name`` in ``source``.

    >>> exported_from("if TYPE_CHECKING:\n    from rulings.poker.cards import Card, Rank\n")
    {'Card': 'rulings.poker.cards', 'Rank': 'rulings.poker.cards'}
    """
    where: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "__future__":
                continue
            for alias in node.names:
                where[alias.asname or alias.name] = node.module
    return where


def lazy_exports(package: str, init_file: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for ``package``, reading its ``init_file``'s imports.

    Returns:
        ``__getattr__(name)``: the re-exported object (imported on first use and kept), or a
        sub-module of the package.
    """
    where: dict[str, str] | None = None

    def __getattr__(name: str) -> Any:
        nonlocal where
        if where is None:
            where = exported_from(Path(init_file).read_text(encoding="utf-8"))
        source = where.get(name)
        if source is None:
            if name.startswith("__"):
                raise AttributeError(name)
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
