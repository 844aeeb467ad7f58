"""LeagueTree: the one place where errors become replies, and the helpers that send replies.

Callbacks never catch errors. ``bot.errors.describe`` (the one error path) says what the user
sees: a user mistake is answered privately with its message and logged at DEBUG; anything else
is a bug: logged at ERROR with the command, user, guild and options, and answered with a
private apology, never a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.errors import APOLOGY, describe, unwrap
from bot.reply import Reply, error_reply
from bot.surfaces.discord import render

log = logging.getLogger(__name__)

__all__ = [
    "APOLOGY",
    "LeagueTree",
    "is_user_error",
    "reply_privately",
    "respond",
    "unwrap",
    "user_message",
]


def is_user_error(error: BaseException) -> bool:
    """Whether ``error`` is a user mistake (answered with its message) rather than a bug."""
    return not describe(error)[1]


def user_message(error: BaseException) -> str:
    """What the user reads for ``error`` (``bot.errors.describe``)."""
    return describe(error)[0]


async def respond(interaction: discord.Interaction, reply: Reply) -> None:
    """Send ``reply``: as the interaction response, or as a follow-up once it was deferred.

    Every message goes out with mentions disabled (player names may contain ``@everyone``).
    """
    rendered = render.render(reply)
    if interaction.response.is_done():
        await interaction.followup.send(
            embed=rendered.embed,
            ephemeral=rendered.ephemeral,
            allowed_mentions=render.NO_MENTIONS,
        )
    else:
        await interaction.response.send_message(
            embed=rendered.embed,
            ephemeral=rendered.ephemeral,
            allowed_mentions=render.NO_MENTIONS,
        )


async def reply_privately(interaction: discord.Interaction, text: str) -> None:
    """Answer privately with ``text``; never raises (the error is already being handled)."""
    try:
        await respond(interaction, error_reply(text))
    except discord.HTTPException:
        log.warning("could not send the error reply for interaction %s", interaction.id)


def command_name(interaction: discord.Interaction) -> str:
    """The full name of the invoked command, e.g. ``td result``."""
    command = interaction.command
    return command.qualified_name if command is not None else "?"


def _options(interaction: discord.Interaction) -> dict[str, Any]:
    data: Any = interaction.data or {}
    options: list[dict[str, Any]] = list(data.get("options") or [])
    flat: dict[str, Any] = {}
    while options:
        opt = options.pop(0)
        if "options" in opt:
            options.extend(opt["options"])
        elif "value" in opt:
            flat[opt["name"]] = opt["value"]
    return flat


class LeagueTree(app_commands.CommandTree[Any]):
    """The bot's command tree: turns every command error into a private reply."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Answer a failed command privately; log bugs with their context."""
        cause = unwrap(error)
        text, is_bug = describe(cause)
        if not is_bug:
            log.debug("/%s rejected: %s", command_name(interaction), cause)
        else:
            log.error(
                "/%s failed for user %s in guild %s with options %s",
                command_name(interaction),
                interaction.user.id,
                interaction.guild_id,
                _options(interaction),
                exc_info=cause,
            )
        if interaction.type is discord.InteractionType.autocomplete:
            return  # an autocomplete cannot show a message; an empty list was not sent either
        await reply_privately(interaction, text)
