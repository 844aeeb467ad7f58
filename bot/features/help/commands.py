"""/help: the commands this user can use."""

from __future__ import annotations

from bot.command.model import Command

HELP = Command(
    path=("help",),
    league=False,
    description="List pokerfloor's commands and what they do",
    handler="bot.features.help.handlers:help_reply",
)

COMMANDS = (HELP,)
