"""/standings, /toc and /stack: the league tables everyone may look at."""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Action, Command, Opt

SEASON = "The season (default: the current one)"

STANDINGS = Command(
    path=("standings",),
    description="Show the season's standings (RP, BP, events), paged",
    handler="bot.features.league.handlers:standings",
    guild_only=True,
    options=(
        Opt("season", SEASON, complete="season", positional=True),
        Opt("location", "Only this location's standings", complete="location"),
        Opt("player", "Only this player's line", complete="player"),
        Opt(
            "by",
            "Rank by RP, BP or both",
            choices=("rp", "bp", "total"),
            default="rp",
            surfaces=CLI_ONLY,
        ),
        Opt("json", "Print the rows as JSON", kind="yes", default=False, surfaces=CLI_ONLY),
        Opt(
            "chart",
            "Attach the points race of the top ten as a picture",
            kind="yes",
            default=False,
            surfaces=frozenset({"discord", "console"}),  # the console saves the picture
        ),
    ),
)

TOC = Command(
    path=("toc",),
    description="Show who is qualified for the Tournament of Champions and who is short",
    handler="bot.features.league.handlers:toc",
    guild_only=True,
    options=(
        Opt("player", "Only this player's status", complete="player", positional=True),
        Opt("season", SEASON, complete="season"),
        Opt(
            "staff", "A director, host or sponsor (staff TOC stack)", repeat=True, surfaces=CLI_ONLY
        ),
        Opt("json", "Print the rows as JSON", kind="yes", default=False, surfaces=CLI_ONLY),
    ),
)

STACK = Command(
    path=("stack",),
    description="Work out a player's starting stack with every extra and the late penalty",
    handler="bot.features.league.handlers:stack",
    options=(
        Opt("player", "Whose stack (shown in the title)", positional=True),
        Opt("early", "Signed in 15 minutes early", kind="yes", default=False),
        Opt("on_time", "Seated before the announcements", kind="yes", default=False),
        Opt("birthday", "This is the player's birthday event", kind="yes", default=False),
        Opt("new_player", "The player's first night in the league", kind="yes", default=False),
        Opt(
            "brought",
            "New players this player brought tonight",
            kind="int",
            min=0,
            max=20,
            default=0,
        ),
        Opt(
            "late_big_blind",
            "Late: the big blind of the level the player sits down in",
            kind="int",
            min=1,
            max=1_000_000,
        ),
    ),
)

COMMANDS = (STANDINGS, TOC, STACK)

ACTIONS = (
    Action("st", "bot.features.league.handlers:standings_page", edit=True),
    Action("toc", "bot.features.league.handlers:toc_page", edit=True),
)
