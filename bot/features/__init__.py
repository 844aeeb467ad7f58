"""Every command, defined once (``bot.command.model``); each topic module adds its tuple.

A feature's ``commands`` module (``bot.features.rule.commands``) exports ``COMMANDS`` (and,
when it has them, ``GROUPS`` and ``ACTIONS``) and imports nothing but the model: handlers are
``"module:function"`` names, imported when first run. Add a topic with one line in ``MODULES``.
"""

from __future__ import annotations

import importlib

from bot.command.model import Action, Command, Group

MODULES: tuple[str, ...] = (
    "bot.features.help.commands",
    "bot.features.rule.commands",
    "bot.features.hand.commands",
    "bot.features.league.commands",
    "bot.features.td.commands",
    "bot.features.clock.commands",
    "bot.features.admin.commands",
    "bot.features.me.commands",
    "bot.features.tournament.commands",
    "bot.features.night.commands",
    "bot.features.records.commands",
    "bot.features.floor.commands",
    "bot.features.serve.commands",
)

_topics = [importlib.import_module(name) for name in MODULES]

COMMANDS: tuple[Command, ...] = tuple(c for m in _topics for c in m.COMMANDS)
GROUPS: tuple[Group, ...] = tuple(g for m in _topics for g in getattr(m, "GROUPS", ()))
ACTIONS: tuple[Action, ...] = tuple(a for m in _topics for a in getattr(m, "ACTIONS", ()))


def find(path: tuple[str, ...]) -> Command:
    """The command with these words.

    Raises:
        KeyError: no such command.
    """
    for command in COMMANDS:
        if command.path == path:
            return command
    raise KeyError(" ".join(path))


def group_description(path: tuple[str, ...]) -> str:
    """A group's description (its words when no ``Group`` describes it)."""
    for group in GROUPS:
        if group.path == path:
            return group.description
    return f"The {' '.join(path)} commands"
