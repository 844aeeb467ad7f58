"""/help: every command the caller may use, from the definitions themselves."""

from __future__ import annotations

import logging

from bot.command.model import Context, Who
from bot.command.options import usage
from bot.reply import Reply

log = logging.getLogger(__name__)

FOOTER = "Ask the floor: pokerfloor answers from the league's own rulebook."


def help_reply(ctx: Context) -> Reply:
    """``/help``: one ``usage: description`` line per command the caller may use."""
    from bot.features import COMMANDS

    lines = []
    for command in sorted(COMMANDS, key=lambda c: c.path):
        if ctx.surface not in command.surfaces:
            continue
        if command.who is not Who.EVERYONE and not ctx.is_director:
            continue
        lines.append(f"**{usage(command, ctx.surface)}**: {command.description}")
    title = "pokerfloor" if ctx.surface == "discord" else "pokerfloor console"
    return Reply(title=title, text="\n".join(lines), footer=FOOTER)
