"""/me, /me link, /td link, /td unlink and the directors' Approve/Refuse buttons.

``/me`` needs a Discord member: it shows the player he is linked to (private). ``/me link
player:NAME`` links nothing: it posts a request with Approve and Refuse buttons in the
league's results channel; a director's Approve makes the link (audited), Refuse records
nothing. Directors link and unlink directly with ``/td link`` and ``/td unlink``. A member is
linked to at most one player per league and a player to at most one member.

A member has at most one request open at a time: while his last one is unanswered and younger
than ``LINK_REQUEST_OPEN`` (24 hours), another is refused with the time he asked, so nobody can
flood the results channel. Approve or Refuse closes it.
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from dataclasses import replace

import rulings
from bot.command.model import Context
from bot.errors import BadOption
from bot.features.me import wording as views
from bot.features.td.announce import announced
from bot.reply import Effect, Reply
from storage.errors import AlreadyExists, NotFound
from storage.guild_settings import get_guild_settings
from storage.player_links import (
    close_link_request,
    link_player,
    linked_player,
    member_of,
    open_link_request,
    unlink_player,
)
from storage.players import get_player
from storage.web import player_view

log = logging.getLogger(__name__)

LINK_REQUEST_OPEN = dt.timedelta(hours=24)
"""How long a member's unanswered link request blocks another one."""


def _member(ctx: Context) -> int:
    if ctx.user_id is None:
        raise BadOption("/me is about a Discord member; use it on the league's server.")
    return ctx.user_id


def me(
    ctx: Context, action: str = "show", player: str | None = None, member: int | None = None
) -> Reply:
    """``/me [link] [player] [member]``: your standing (or a member's card), or ask for a link.

    ``member`` (the "Player card" menu on a member) shows that member's player: standing, TOC
    status and strikes, privately.
    """
    user_id = _member(ctx)
    if action == "link":
        if member is not None:
            raise BadOption("member: is for showing a card; /me link is about you.")
        return _ask(ctx, user_id, player)
    if player is not None:
        raise BadOption("player: is for /me link; /me alone shows your own standing.")
    own = member is None or member == user_id
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        whom = user_id if member is None else member
        mine = linked_player(session=session, league_id=league.id, discord_id=whom)
        if mine is None and own:
            raise NotFound("you are not linked to a player yet; ask with /me link player:YOUR NAME")
        if mine is None:
            raise NotFound(
                "that member is not linked to a player; a director links him with /td link"
            )
        view = player_view(session=session, league_id=league.id, name=mine.name)
    return views.me_reply(view, public_url=ctx.settings.public_url, own=own)


def _ask(ctx: Context, user_id: int, player: str | None) -> Reply:
    if not player:
        raise BadOption("Name your player: /me link player:YOUR NAME")
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        found = get_player(session=session, league_id=league.id, name=player)
        mine = linked_player(session=session, league_id=league.id, discord_id=user_id)
        if mine is not None:
            if mine.id == found.id:
                raise AlreadyExists(f"you are linked to '{mine.name}' already")
            raise AlreadyExists(
                f"you are linked to '{mine.name}'; a director unlinks you first (/td unlink)"
            )
        if member_of(session=session, league_id=league.id, player_id=found.id) is not None:
            raise AlreadyExists(f"'{found.name}' is linked to another member; ask a director")
        channel = None
        if ctx.guild_id is not None:
            channel = get_guild_settings(session=session, guild_id=ctx.guild_id).results_channel_id
        if channel is None:
            raise rulings.RulingsError(
                "this league has no results channel for the directors' approval yet; "
                "ask a director to link you with /td link"
            )
        earlier = open_link_request(
            session=session,
            league_id=league.id,
            discord_id=user_id,
            player_id=found.id,
            now=ctx.now(),
            open_for=LINK_REQUEST_OPEN,
        )
        if earlier is not None:
            raise AlreadyExists(
                f"you asked to be linked to '{earlier.player}' on {_when(ctx, earlier.asked_at)}; "
                "wait for a director's answer (or ask again 24 hours after)"
            )
    display = ctx.display_name
    post = views.link_request_post(found, user_id, display)
    return replace(views.link_asked_reply(found), effects=(Effect("announce", post),))


def _when(ctx: Context, at: dt.datetime) -> str:
    """``2026-12-01 at 18:40 CET`` in the league's ``TIMEZONE``."""
    try:
        zone: dt.tzinfo = zoneinfo.ZoneInfo(ctx.settings.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    local = at.astimezone(zone)
    return f"{local:%Y-%m-%d} at {local:%H:%M} {local.tzname() or ''}".rstrip()


def link_decision(ctx: Context, *args: str) -> Reply:
    """A director's Approve or Refuse on a link request: ``pf:me_link:<what>:<player>:<user>``."""
    if (
        len(args) != 3
        or args[0] not in ("approve", "refuse")
        or not all(a.isdigit() for a in args[1:])
    ):
        raise BadOption("That button is out of date; ask again.")
    decision, player_id, user_id = args[0], int(args[1]), int(args[2])
    director = ctx.display_name
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        if decision == "refuse":
            from storage.league_models import Player

            row = session.get(Player, player_id)
            if row is None or row.league_id != league.id:
                raise NotFound("that player no longer exists (merged or removed)")
            info = get_player(session=session, league_id=league.id, name=row.display_name)
            close_link_request(
                session=session, league_id=league.id, discord_id=user_id, player_id=player_id
            )
            return views.refused_reply(info, user_id, director)
        info = link_player(
            session=session,
            league_id=league.id,
            discord_id=user_id,
            player_id=player_id,
            actor=ctx.actor,
            now=ctx.now(),
        )
    return views.linked_reply(info, user_id, director)


def td_link(ctx: Context, player: str, member: int) -> Reply:
    """``/td link player member``: link a member to a player directly."""
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        info = link_player(
            session=session,
            league_id=league.id,
            discord_id=member,
            name=player,
            actor=ctx.actor,
            now=ctx.now(),
        )
    return announced(ctx, views.linked_reply(info, member))


def td_unlink(ctx: Context, player: str | None = None, member: int | None = None) -> Reply:
    """``/td unlink [player] [member]``: remove a player's (or a member's) link."""
    if player is None and member is None:
        raise BadOption("Name the player or the member to unlink.")
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        if player is not None:
            found = get_player(session=session, league_id=league.id, name=player)
            was = member_of(session=session, league_id=league.id, player_id=found.id)
        else:
            was = member
        info = unlink_player(
            session=session,
            league_id=league.id,
            name=player,
            discord_id=member,
            actor=ctx.actor,
            now=ctx.now(),
        )
    return announced(ctx, views.unlinked_reply(info, was))
