"""/admin health and sync: the bot owner's view of the process and a forced command sync."""

from __future__ import annotations

import logging
import time
from typing import Any

from bot.command.model import Context
from bot.features.admin.wording import failures_field
from bot.reply import Field, Reply
from storage.post_failures import list_post_failures

log = logging.getLogger(__name__)


def _ping(*, session: Any) -> None:
    from sqlalchemy import text

    session.execute(text("SELECT 1"))


def health(ctx: Context) -> Reply:
    """``/admin health``: gateway latency, database round trip, servers, what is loaded.

    On a server, also that server's last failed posts (``storage.post_failures``).
    """
    started = time.perf_counter()
    ctx.db.run_sync(_ping)
    db_ms = (time.perf_counter() - started) * 1000
    bot = ctx.extras.get("bot")
    fields = [Field("Database", f"{db_ms:.1f} ms", inline=True)]
    if bot is not None:
        fields.insert(0, Field("Gateway", f"{bot.latency * 1000:.0f} ms", inline=True))
        fields.append(Field("Servers", str(len(bot.guilds)), inline=True))
        fields.append(Field("Rulebooks", "loaded" if bot.rules is not None else "not loaded"))
        fields.append(Field("Cogs", ", ".join(sorted(bot.cogs)) or "none"))
    else:
        fields.append(Field("Rulebooks", ", ".join(ctx.rules().book_names)))
    if ctx.guild_id is not None:
        fields.append(failures_field(ctx.db.run_sync(list_post_failures, guild_id=ctx.guild_id)))
    return Reply(title="Health", fields=tuple(fields), private=True)


def sync(ctx: Context) -> Reply:
    """``/admin sync``: push the command set to Discord now, even if unchanged."""
    bot = ctx.extras["bot"]
    ctx.extras["run"](bot.sync_commands(force=True))
    scope, _ = bot.sync_scope()
    return Reply(title="Synced", text=f"Commands pushed to {scope}.", private=True)
