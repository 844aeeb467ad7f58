"""/me (a member's own standing and linking) and /td link|unlink (directors link directly)."""

from __future__ import annotations

from bot.command.model import Action, Command, Menu, Opt, Who

ME = Command(
    path=("me",),
    description="Show your own standing, TOC status and strikes; or ask to be linked to a player",
    handler="bot.features.me.handlers:me",
    private=True,
    guild_only=True,
    surfaces=frozenset({"discord"}),  # about the Discord member who asks
    options=(
        Opt(
            "action",
            "show (default) or link: ask the directors to link you to a player",
            choices=("show", "link"),
            default="show",
            positional=True,
        ),
        Opt(
            "player", "With link: the player you are (your name on the results)", complete="player"
        ),
        Opt("member", "Show this member's card instead of yours", kind="member"),
    ),
    # "Player card" in a member's Apps menu: his standing, TOC status and strikes (private).
    menus=(Menu("Player card", "user", "member"),),
)

TD_LINK = Command(
    path=("td", "link"),
    description="Link a member to a player (one member per player)",
    handler="bot.features.me.handlers:td_link",
    who=Who.DIRECTOR,
    writes=True,
    guild_only=True,
    options=(
        Opt("player", "The player", required=True, complete="player", positional=True),
        Opt("member", "The Discord member", kind="member", required=True),
    ),
)

TD_UNLINK = Command(
    path=("td", "unlink"),
    description="Remove the link between a member and a player",
    handler="bot.features.me.handlers:td_unlink",
    who=Who.DIRECTOR,
    writes=True,
    guild_only=True,
    options=(
        Opt("player", "The player", complete="player", positional=True),
        Opt("member", "The Discord member", kind="member"),
    ),
)

COMMANDS = (ME, TD_LINK, TD_UNLINK)

ACTIONS = (
    Action("me_link", "bot.features.me.handlers:link_decision", who=Who.DIRECTOR, edit=True),
)
