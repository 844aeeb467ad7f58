"""The search's weights, read from ``rulings/data/search_weights.toml`` (one table a stage)."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any


@functools.cache
def _all() -> dict[str, dict[str, float]]:
    text = (resources.files("rulings") / "data" / "search_weights.toml").read_text("utf-8")
    tables = tomllib.loads(text)
    return {stage: {k: float(v) for k, v in table.items()} for stage, table in tables.items()}


@functools.cache
def _answers() -> dict[str, dict[str, float]]:
    text = (resources.files("rulings") / "data" / "answer_weights.toml").read_text("utf-8")
    return {name: {k: float(v) for k, v in t.items()} for name, t in tomllib.loads(text).items()}


def answer_weights(fit: str) -> dict[str, float]:
    """One fit of the "does it answer" decision (``seen`` or ``unseen``), by feature name."""
    return _answers()[fit]


def stage_weights(stage: str) -> dict[str, float]:
    """The weights of one pipeline stage, by name (the constant's name in lower case)."""
    return _all()[stage]


@functools.cache
def _words() -> dict[str, dict[str, Any]]:
    text = (resources.files("rulings") / "data" / "search_words.toml").read_text("utf-8")
    return tomllib.loads(text)


def stage_words(stage: str) -> dict[str, Any]:
    """The word lists of one pipeline stage: space-separated words, or tables of word -> value."""
    return _words()[stage]
