"""/td: the tournament director's commands (results, awards, corrections, seasons, settings).

Directors only (the league's director role, or Manage Server); on Discord the group is hidden
from other members by default permissions and checked again at run time.
"""

from __future__ import annotations

from bot.commands.model import Command, Group, Opt, Who

GROUPS = (
    Group(("td",), "Tournament director tools", who=Who.DIRECTOR),
    Group(("td", "season"), "Seasons of the league", who=Who.DIRECTOR),
    Group(("td", "location"), "Host locations of the league", who=Who.DIRECTOR),
)

CONFIRM = "Add it even if it resembles an existing one"


def _td(
    path: tuple[str, ...],
    description: str,
    handler: str,
    *options: Opt,
    writes: bool = True,
    private: bool = False,
) -> Command:
    return Command(
        path=("td", *path),
        description=description,
        handler=f"bot.answers.td:{handler}",
        options=options,
        who=Who.DIRECTOR,
        writes=writes,
        private=private,
        guild_only=True,
    )


COMMANDS = (
    _td(
        ("season", "add"),
        "Start a new season",
        "season_add",
        Opt("name", "The season's name, e.g. '2026 Fall'", required=True, positional=True),
    ),
    _td(("season", "list"), "List the league's seasons", "season_list", writes=False, private=True),
    _td(
        ("location", "add"),
        "Add a host location",
        "location_add",
        Opt("name", "The location's name", required=True, positional=True),
        Opt("confirm", CONFIRM, kind="yes", default=False),
    ),
    _td(
        ("location", "list"),
        "List the league's host locations",
        "location_list",
        writes=False,
        private=True,
    ),
)
