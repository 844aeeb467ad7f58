"""/admin: the bot owner's tools (health, forced command sync, backups).

``backup`` and ``restore`` exist only on the command line (``surfaces=CLI_ONLY``): they act on
the whole database, every league, and are run by whoever runs the bot's machine.
"""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Command, Group, Opt, Surface, Who

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
    Command(
        path=("admin", "backup"),
        description="Show when the last scheduled backup ran, where its file is and its size",
        handler="bot.features.admin.backup:last_backup",
        who=Who.OWNER,
        private=True,
        guild_only=True,
        surfaces=frozenset({"discord", "console"}),
    ),
    Command(
        path=("backup",),
        description="Write every league of the database to FILE, to restore later",
        handler="bot.features.admin.backup:backup",
        options=(
            Opt("file", "The file to write (.gz: compressed)", required=True, positional=True),
        ),
        who=Who.OWNER,
        surfaces=CLI_ONLY,
        league=False,
        whole_database=True,
    ),
    Command(
        path=("restore",),
        description="Restore a backup FILE into an empty database, all or nothing",
        handler="bot.features.admin.backup:restore",
        options=(
            Opt("file", "The backup file", required=True, positional=True),
            Opt("replace", "Delete what the database holds first (same transaction)", kind="yes"),
        ),
        who=Who.OWNER,
        surfaces=CLI_ONLY,
        league=False,
        whole_database=True,
    ),
)
