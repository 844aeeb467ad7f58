"""/td: the director's commands.

Every write is audited with ``ctx.actor``, confirmed with what changed, and
(``Effect("announce")``) posted to the league's results channel on Discord.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.commands.model import Context
from bot.reply import Effect, Reply
from bot.views import td as views

log = logging.getLogger(__name__)


def announced(ctx: Context, reply: Reply, *, private: bool = False) -> Reply:
    """``reply`` for the director, with its public copy for the results channel."""
    public = views.announcement(reply, ctx.extras.get("display_name") or ctx.actor)
    return replace(reply, private=private, effects=(*reply.effects, Effect("announce", public)))


def season_add(ctx: Context, name: str) -> Reply:
    """``/td season add name``: start a new season."""
    with ctx.transaction() as session:
        info = views.season_add_for(
            session=session, guild_id=ctx.guild_id, name=name, actor=ctx.actor
        )
    return announced(ctx, views.season_added_reply(info))


def season_list(ctx: Context) -> Reply:
    """``/td season list``: the league's seasons, oldest first."""
    with ctx.transaction() as session:
        found = views.seasons_for(session=session, guild_id=ctx.guild_id)
    reply = views.names_reply("Seasons", [s.name for s in found], empty="No seasons yet.")
    return replace(reply, private=True)


def location_add(ctx: Context, name: str, confirm: bool = False) -> Reply:
    """``/td location add name [confirm]``: a new host location."""
    with ctx.transaction() as session:
        info = views.location_add_for(
            session=session, guild_id=ctx.guild_id, name=name, actor=ctx.actor, confirm=confirm
        )
    return announced(ctx, views.location_added_reply(info))


def location_list(ctx: Context) -> Reply:
    """``/td location list``: the league's host locations by name."""
    with ctx.transaction() as session:
        found = views.locations_for(session=session, guild_id=ctx.guild_id)
    reply = views.names_reply("Locations", [x.name for x in found], empty="No locations yet.")
    return replace(reply, private=True)
