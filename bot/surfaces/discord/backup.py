"""The scheduled backup: one instance writes every league to ``BACKUP_DIR``, on a schedule.

Every ``BACKUP_EVERY``; the folder keeps the newest ``BACKUP_KEEP`` files (``storage.backup``).

Every instance ticks (once a minute at most); each tick is one conditional update on the
``backup_run`` row, the clocks' lease pattern, so only the instance that wins it writes the
file. The file is written in a worker thread; ``/admin backup`` reads what the row records.
Nothing runs when ``BACKUP_DIR`` is not set.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from typing import TYPE_CHECKING, Any

from discord.ext import commands

from bot.features.clock.leases import new_instance_id

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

TICK_SECONDS = 60.0


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class BackupCog(commands.Cog):
    """Runs the backup schedule of this instance (when ``BACKUP_DIR`` is set)."""

    def __init__(self, bot: Any, *, tick_seconds: float = TICK_SECONDS) -> None:
        self.bot = bot
        self.instance_id = new_instance_id()
        self.tick_seconds = tick_seconds
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        """Start ticking when backups are configured."""
        if self.bot.settings.backup_dir is not None:
            self._task = asyncio.create_task(self._schedule(), name="backup-schedule")

    async def cog_unload(self) -> None:
        """Stop ticking (a backup being written finishes in its thread, or is discarded)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def tick(self) -> None:
        """Take the backup if it is due and no other instance has it."""
        from storage.backup_schedule import run_scheduled_backup

        settings = self.bot.settings
        await asyncio.to_thread(
            run_scheduled_backup,
            self.bot.engine,
            folder=settings.backup_dir,
            every=settings.backup_every,
            keep=settings.backup_keep,
            owner_id=self.instance_id,
            now=_utcnow,
        )

    async def _schedule(self) -> None:
        every = self.bot.settings.backup_every.total_seconds()
        while True:
            try:
                await self.tick()
            except Exception:  # recorded for /admin backup; the next due tick tries again
                log.exception("the scheduled backup failed")
            await asyncio.sleep(min(self.tick_seconds, every))


async def setup(bot: LeagueBot) -> None:
    """Add the backup cog."""
    await bot.add_cog(BackupCog(bot))
