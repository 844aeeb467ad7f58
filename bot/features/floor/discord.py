"""Floor calls on Discord: the call posted for the directors with a thread, rulings in it.

``/floor`` answers with ``Effect("floor_call", CallPost)``: the call is posted to the league's
results channel with the director role mentioned and pinged, and nothing else (the allowed
mentions name that one role: never ``@everyone``, never a member, whatever the note says);
a thread is made on that message and both ids are stored on the call. ``/td ruling`` answers
with ``Effect("floor_ruling", RulingPost)``: the ruling is posted in the call's thread (or in
the results channel when the call has no thread), pinging nobody.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord

from bot.features.floor import wording
from bot.features.floor.handlers import CallPost, RulingPost
from bot.reply import Effect
from bot.surfaces.discord import render
from storage.floor import set_floor_call_post
from storage.guild_settings import get_guild_settings

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
"""A call's thread hides itself after a day without messages (a night is over by then)."""
THREAD_NAME_CHARS = 100


def thread_name(number: int, note: str) -> str:
    """A call's thread name: ``Floor call #3: dealer exposed…`` (Discord's 100 characters).

    >>> thread_name(3, "dealer exposed   the top card")
    'Floor call #3: dealer exposed the top card'
    """
    name = f"Floor call #{number}: {' '.join(note.split())}"
    return name if len(name) <= THREAD_NAME_CHARS else name[: THREAD_NAME_CHARS - 1] + "…"


def director_ping(role_id: int | None) -> discord.AllowedMentions:
    """Allowed mentions that ping the director role and nobody else (none without a role)."""
    if role_id is None:
        return render.NO_MENTIONS
    return discord.AllowedMentions(
        everyone=False, users=False, roles=[discord.Object(id=role_id)], replied_user=False
    )


async def carry_out(bot: LeagueBot, interaction: discord.Interaction, effect: Effect) -> None:
    """Carry out a ``floor_call`` or ``floor_ruling`` effect in the interaction's server."""
    if effect.kind == "floor_call":
        await post_call(bot, interaction, effect.value)
    else:
        await post_ruling(bot, interaction, effect.value)


async def _tell(interaction: discord.Interaction, text: str) -> None:
    await interaction.followup.send(text, ephemeral=True, allowed_mentions=render.NO_MENTIONS)


async def post_call(bot: LeagueBot, interaction: discord.Interaction, post: CallPost) -> None:
    """Post the call to the results channel pinging the director role, then make its thread."""
    settings = await bot.db.run(get_guild_settings, guild_id=interaction.guild_id)
    channel_id = settings.results_channel_id
    if channel_id is None:
        await _tell(interaction, wording.no_channel(post.number))
        return
    role = settings.director_role_id
    channel = bot.get_partial_messageable(channel_id, guild_id=interaction.guild_id)
    try:
        message = await channel.send(
            content=f"<@&{role}>" if role is not None else None,
            embed=render.render(post.reply).embed,
            allowed_mentions=director_ping(role),
        )
    except discord.HTTPException as exc:
        log.warning("floor call #%s: could not post to %s: %s", post.number, channel_id, exc)
        await _tell(
            interaction,
            f"Floor call #{post.number} is stored, but I could not post it to the results "
            "channel: find a director in person.",
        )
        return
    thread_id: int | None = None
    try:
        thread = await bot.http.start_thread_with_message(
            channel_id,
            message.id,
            name=thread_name(post.number, post.note),
            auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            reason=f"floor call #{post.number}",
        )
        thread_id = int(thread["id"])
    except discord.HTTPException as exc:  # the ruling then goes to the results channel
        log.warning("floor call #%s: no thread on %s: %s", post.number, message.id, exc)
    await bot.db.run(
        set_floor_call_post, call_id=post.call_id, message_id=message.id, thread_id=thread_id
    )


async def post_ruling(bot: LeagueBot, interaction: discord.Interaction, post: RulingPost) -> None:
    """Post the ruling in its call's thread (the results channel without one); no pings."""
    target = post.thread_id
    if target is None:
        settings = await bot.db.run(get_guild_settings, guild_id=interaction.guild_id)
        target = settings.results_channel_id
    if target is None or target == interaction.channel_id:
        return  # the director's reply is there already
    channel = bot.get_partial_messageable(target, guild_id=interaction.guild_id)
    try:
        await channel.send(
            embed=render.render(post.reply).embed, allowed_mentions=render.NO_MENTIONS
        )
    except discord.HTTPException as exc:
        log.warning("ruling: could not post to %s: %s", target, exc)
        await _tell(interaction, "Ruled and stored, but I could not post it in the call's thread.")
