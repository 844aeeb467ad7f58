"""Placeholder: this topic's sub-commands are being built (see the open issues)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this topic's sub-commands (none yet)."""
