"""/admin: the bot owner's tools (health, forced command sync)."""

from __future__ import annotations

from bot.command.model import Command, Group, Surface, Who

GROUPS = (Group(("admin",), "Look after the bot", who=Who.OWNER),)

DISCORD_ONLY: frozenset[Surface] = frozenset({"discord"})

COMMANDS = (
    Command(
        path=("admin", "health"),
        description="Show the gateway latency, the database round trip and what is loaded",
        handler="bot.features.admin.handlers:health",
        who=Who.OWNER,
        private=True,
        guild_only=True,
        surfaces=frozenset({"discord", "console"}),
    ),
    Command(
        path=("admin", "sync"),
        description="Push the slash commands to Discord now, even if unchanged",
        handler="bot.features.admin.handlers:sync",
        who=Who.OWNER,
        private=True,
        guild_only=True,
        surfaces=DISCORD_ONLY,  # only the bot process talks to Discord's command API
    ),
)
