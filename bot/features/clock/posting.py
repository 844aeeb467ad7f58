"""Where a clock's messages go: the poster the service is given, and one post with its retries.

Posting goes through an injected ``ClockPoster`` (the Discord cog provides one; tests and the
benchmark use others), so the clock service never imports discord. A post is retried with the
same nonce unless Discord refused it for good (``PostRejected``); what did not go out is
handed to the service's ``on_post_failure``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.features.clock.leases import announcement_nonce
from bot.reply import Reply
from rulings import Announcement
from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

POST_RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class ClockStatus:
    """What the live status message shows.

    Attributes:
        clock_id: the clock (director buttons carry it).
        reply: the message itself.
        is_paused: the pause button reads "Resume" when True.
        is_ended: no buttons once the clock ended.
    """

    clock_id: int
    reply: Reply
    is_paused: bool
    is_ended: bool


class PostRejected(Exception):
    """A poster's refusal for good (no access to the channel...): the post is not retried."""


class ClockPoster(Protocol):
    """Where a clock's messages go (Discord in production)."""

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        """Post one announcement; ping ``ping_role_id`` only when ``announcement.pings``.

        ``nonce`` goes with the message (``enforce_nonce``): Discord drops a repeat. Raise
        ``PostRejected`` for a refusal that a retry cannot fix; anything else is retried.
        """

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        """Post the live status message; return its id (``PostRejected``: refused for good)."""

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        """Edit the live status message; return False when it no longer exists."""


PostFailed = Callable[[ClockRecord, str, BaseException], Awaitable[None]]
"""What the service calls when an announcement did not go out (see ``ClockService``)."""


async def post_announcement(
    poster: ClockPoster,
    record: ClockRecord,
    announcement: Announcement,
    *,
    retry_delays: Sequence[float],
    failed: Callable[[ClockRecord, str, BaseException], None],
) -> None:
    """Post one claimed announcement, retrying (same nonce) until it goes or is refused."""
    nonce = announcement_nonce(record, announcement.key)
    for delay in (*retry_delays, None):
        try:
            await poster.announce(record.channel_id, announcement, record.ping_role_id, nonce=nonce)
            return
        except PostRejected as exc:
            log.warning("clock %s: %s refused: %s", record.id, announcement.key, exc)
            failed(record, announcement.key, exc)
            return
        except Exception as exc:
            if delay is None:  # claimed: lost rather than repeated; the status still tells
                log.exception("clock %s: gave up posting %s", record.id, announcement.key)
                failed(record, announcement.key, exc)
                return
            log.warning(
                "clock %s: posting %s failed; again in %g s",
                record.id,
                announcement.key,
                delay,
                exc_info=True,
            )
            await asyncio.sleep(delay)


async def post_announcements(
    poster: ClockPoster,
    record: ClockRecord,
    announcements: Sequence[Announcement],
    *,
    retry_delays: Sequence[float],
    failed: Callable[[ClockRecord, str, BaseException], None],
) -> None:
    """Post one clock's claimed announcements in order (``post_announcement`` each)."""
    for announcement in announcements:
        await post_announcement(
            poster, record, announcement, retry_delays=retry_delays, failed=failed
        )
