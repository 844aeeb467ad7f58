"""Slash-command options -> clean domain input; a bad option raises ``BadOption``.

Transformers run before the callback, so a callback only ever sees tidy values. The messages
are shown to the user as they are (privately), by ``bot.tree.LeagueTree``.
"""

from __future__ import annotations

import logging
from typing import Annotated

import discord
from discord import app_commands

from bot.errors import BadOption

log = logging.getLogger(__name__)

__all__ = ["BadOption", "CardsArg", "QueryArg", "tidy_text"]

QUERY_MAX_CHARS = 200


def tidy_text(value: str, *, what: str, max_chars: int = QUERY_MAX_CHARS) -> str:
    """Collapse whitespace and check the length of a free-text option.

    Args:
        value: the raw option text.
        what: how to name the option in the error message ("a search", "cards").
        max_chars: the longest accepted text.

    Returns:
        The text with runs of whitespace collapsed to one space.

    Raises:
        BadOption: the text is empty or longer than ``max_chars``.
    """
    text = " ".join(value.split())
    if not text:
        raise BadOption(f"Please type {what}.")
    if len(text) > max_chars:
        raise BadOption(
            f"That is too long for {what} ({len(text)} characters, at most {max_chars})."
        )
    return text


class QueryTransformer(app_commands.Transformer):
    """A rule search: tidy text of 1 to 200 characters."""

    async def transform(self, interaction: discord.Interaction, value: str, /) -> str:
        """Tidy the search text."""
        return tidy_text(value, what="a search")


class CardsTransformer(app_commands.Transformer):
    """Cards or a hand query: tidy text of 1 to 200 characters, parsed by the hand engine."""

    async def transform(self, interaction: discord.Interaction, value: str, /) -> str:
        """Tidy the card text."""
        return tidy_text(value, what="some cards")


QueryArg = Annotated[str, QueryTransformer]
CardsArg = Annotated[str, CardsTransformer]
