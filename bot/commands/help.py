"""/help: the commands this user can use."""

from __future__ import annotations

from bot.commands.model import Command

HELP = Command(
    path=("help",),
    description="List pokerfloor's commands and what they do",
    handler="bot.answers.help:help_reply",
)

COMMANDS = (HELP,)
