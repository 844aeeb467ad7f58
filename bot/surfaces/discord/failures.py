"""A post that failed for good reaches the league's directors, once, privately.

A clock announcement (``ClockCog``), a results-channel post (``SlashRunner.announce``) or a
night's reminder (``NightCog.remind``) that Discord still refuses after its retries calls
``report_post_failure``: the failure is recorded (``storage.post_failures``; ``/admin health``
lists them) and, unless the directors heard of the same kind of post failing in that channel
within the hour, told to them with the fix in words: in the league's results channel when that
is not the channel that failed, else by a direct message to the member who started it (the
clock's starter, the command's user, whoever scheduled the night).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.features.admin.wording import failure_notice
from bot.surfaces.discord import render
from storage.guild_settings import get_guild_settings
from storage.post_failures import QUIET_FOR, PostFailureInfo, add_post_failure, set_told

log = logging.getLogger(__name__)


def discord_error(exc: BaseException | None) -> tuple[int, int, str]:
    """(HTTP status, Discord's error code, message) of a failure, or of what caused it."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, discord.HTTPException):
            return exc.status, exc.code, exc.text or str(exc)
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return 0, 0, "no answer from Discord"


def actor_user_id(actor: str | None) -> int | None:
    """The Discord user of an audit actor (``discord:<id>:<name>``), else None.

    >>> actor_user_id("discord:42:ann"), actor_user_id("console")
    (42, None)
    """
    parts = (actor or "").split(":")
    if len(parts) >= 2 and parts[0] == "discord" and parts[1].isdigit():
        return int(parts[1])
    return None


async def report_post_failure(
    bot: Any,
    *,
    guild_id: int,
    kind: str,
    channel_id: int,
    exc: BaseException | None,
    starter_id: int | None = None,
    told_already: bool = False,
) -> PostFailureInfo | None:
    """Record a failed post and tell the directors once (see the module docstring).

    ``told_already``: the one who started it has just been told (a command's private answer);
    the failure is recorded as told so (``reply``) and nobody else is messaged. Never raises:
    a failure to record or tell is logged.
    """
    status, code, text = discord_error(exc)
    log.warning(
        "%s post in channel %s of guild %s failed for good: %s %s %s",
        kind,
        channel_id,
        guild_id,
        status,
        code,
        text,
    )
    if not guild_id:
        return None
    try:
        info: PostFailureInfo = await bot.db.run(
            add_post_failure,
            guild_id=guild_id,
            kind=kind,
            channel_id=channel_id,
            status=status,
            code=code,
            error=text,
        )
        if not info.should_tell:
            return info
        how = "reply" if told_already else await _tell(bot, info, starter_id)
        await bot.db.run(set_told, failure_id=info.id, how=how)
    except Exception:
        log.exception("could not record or tell the failed %s post of guild %s", kind, guild_id)
        return None
    return info


async def _tell(bot: Any, info: PostFailureInfo, starter_id: int | None) -> str | None:
    """Tell the directors; how it went (``results``, ``dm``) or None when nobody could be."""
    text = failure_notice(
        info.kind, info.channel_id, info.status, info.code, int(QUIET_FOR.total_seconds() // 60)
    )
    settings = await bot.db.run(get_guild_settings, guild_id=info.guild_id)
    results = settings.results_channel_id
    if results is not None and results != info.channel_id:
        try:
            channel = bot.get_partial_messageable(results, guild_id=info.guild_id)
            await channel.send(render.content(text), allowed_mentions=render.NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not tell the directors in results channel %s: %s", results, exc)
        else:
            return "results"
    if starter_id:
        try:
            opened = await bot.http.start_private_message(starter_id)
            dm = bot.get_partial_messageable(int(opened["id"]), type=discord.ChannelType.private)
            await dm.send(render.content(text), allowed_mentions=render.NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not tell user %s by DM: %s", starter_id, exc)
        else:
            return "dm"
    log.warning("nobody to tell of the failed %s post in guild %s", info.kind, info.guild_id)
    return None


async def results_post_failed(
    bot: Any, interaction: discord.Interaction, channel_id: int, exc: discord.HTTPException
) -> None:
    """A command's post to the results channel was refused: record it, tell its user the fix.

    A director's private answer is the notice (the results channel is the one that failed); a
    player's (``/me link`` asks the directors there) is not: the failure stays untold, and the
    next one is told, ``/td settings`` and ``/admin health`` listing it meanwhile.
    """
    from bot.features.admin.wording import failure_fix

    try:
        director = bool(await bot.slash.is_director(interaction))
    except Exception:  # the failure is still recorded below
        log.warning("could not tell whether user %s directs", interaction.user.id, exc_info=True)
        director = False
    await report_post_failure(
        bot,
        guild_id=interaction.guild_id or 0,
        kind="results",
        channel_id=channel_id,
        exc=exc,
        told_already=director,
    )
    fix = failure_fix("results", channel_id, exc.status, exc.code)
    await interaction.followup.send(
        f"Saved, but I could not post to the results channel: {fix}.",
        ephemeral=True,
        allowed_mentions=render.NO_MENTIONS,
    )
