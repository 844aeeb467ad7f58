"""/clock: the live tournament clock (directors run it; everyone may ask its status)."""

from __future__ import annotations

from bot.command.model import Action, Command, Group, Opt, Surface, Who

GROUPS = (Group(("clock",), "Run the live tournament clock"),)

LIVE: frozenset[Surface] = frozenset({"discord", "console"})
"""A running clock needs a process that posts its announcements: the bot, or the console."""


def _clock(name: str, description: str, handler: str, *options: Opt) -> Command:
    return Command(
        path=("clock", name),
        description=description,
        handler=f"bot.features.clock.handlers:{handler}",
        options=options,
        who=Who.DIRECTOR,
        private=True,
        guild_only=True,
        surfaces=LIVE,
    )


COMMANDS = (
    _clock(
        "start",
        "Start the tournament clock in this channel (or the one given)",
        "start",
        Opt(
            "structure",
            "Blind structure (default: the league's)",
            complete="structure",
            positional=True,
        ),
        Opt(
            "level_minutes",
            "Level length in minutes; decimals allowed (default: the structure's)",
            kind="number",
            min=0.02,
            max=1440.0,
        ),
        Opt("channel", "Channel for the announcements (default: this one)", kind="channel"),
        Opt(
            "ping_role",
            "Role to ping at each level and break (default: the league's clock role)",
            kind="role",
        ),
        Opt(
            "warnings",
            "Minutes before each level ends to warn, e.g. '5 1' or 'none' (default: 1)",
            max_length=100,
        ),
    ),
    _clock("pause", "Pause the clock (e.g. during a re-draw, 2.D.d)", "pause"),
    _clock("resume", "Resume a paused clock", "resume"),
    _clock("next", "Go to the next level or break now", "next_level"),
    _clock("back", "Go back to the start of the previous level or break", "back"),
    _clock(
        "level",
        "Jump to level N, from its start",
        "level",
        Opt(
            "n",
            "The level number to jump to",
            kind="int",
            required=True,
            min=1,
            max=100,
            positional=True,
        ),
    ),
    _clock(
        "add-time",
        "Add (or take off) time in the current level",
        "add_time",
        Opt(
            "minutes",
            "Minutes to add to this level; negative to take time off",
            kind="number",
            required=True,
            min=-600.0,
            max=600.0,
            positional=True,
        ),
    ),
    _clock(
        "ante",
        "Set the ante from this level on (never above the small blind)",
        "ante",
        Opt(
            "amount",
            "Ante in chips from this level on; 0 removes it",
            kind="int",
            required=True,
            min=0,
            max=1_000_000_000,
            positional=True,
        ),
    ),
    _clock("end", "Stop the clock for good", "end"),
    Command(
        path=("clock", "status"),
        description="Show the level, time left, next level and next break",
        handler="bot.features.clock.handlers:status",
        private=True,
        guild_only=True,
    ),
)

ACTIONS = (Action("clock", "bot.features.clock.handlers:button", who=Who.DIRECTOR),)
"""The director buttons on a clock's status message: ``pf:clock:<pause|resume|plus1>:<id>``."""
