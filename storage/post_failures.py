"""Posts Discord refused for good: recorded, told once to the directors, listed for the owner.

``add_post_failure`` records one failure and decides in the same transaction whether the
directors are told of it (one conditional write on ``post_failure_notice``: of two failures
recorded at once, one is told): not when they were told of the same kind of post in the same
channel within ``QUIET_FOR`` (a clock whose channel lost the bot's access fails at every level; the
directors hear of it once an hour, not twenty times a night). ``list_post_failures`` gives a
server's last ones for ``/admin health``.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from storage.audit import utc_now
from storage.clocks import utc
from storage.post_failure_models import PostFailure, PostFailureNotice

log = logging.getLogger(__name__)

QUIET_FOR = dt.timedelta(hours=1)
"""How long the directors are not told again of the same kind of post failing in one channel."""
KINDS = ("clock", "results", "reminder")
"""What was being posted: a clock announcement, a results-channel post, a night's reminder."""


@dataclass(frozen=True)
class PostFailureInfo:
    """One recorded failure.

    Attributes:
        id: its row.
        guild_id: the server.
        kind: one of ``KINDS``.
        channel_id: where the post was meant to go.
        status: Discord's HTTP status (0: no answer).
        code: Discord's JSON error code (50013 Missing Permissions, 10003 Unknown Channel...).
        error: Discord's message, shortened.
        at: when it failed (UTC).
        told_at: when the directors were told of it (None: not told, or told of an earlier one).
        told_how: ``"results"`` (the results channel), ``"dm"`` or ``"reply"`` (the answer to
            the command whose post failed).
        should_tell: from ``add_post_failure``: the caller is to tell the directors now.
    """

    id: int
    guild_id: int
    kind: str
    channel_id: int
    status: int
    code: int
    error: str
    at: dt.datetime
    told_at: dt.datetime | None = None
    told_how: str | None = None
    should_tell: bool = False


def _info(row: PostFailure, *, should_tell: bool = False) -> PostFailureInfo:
    return PostFailureInfo(
        id=row.id or 0,
        guild_id=row.guild_id,
        kind=row.kind,
        channel_id=row.channel_id,
        status=row.status,
        code=row.code,
        error=row.error,
        at=utc(row.at),
        told_at=utc(row.told_at) if row.told_at is not None else None,
        told_how=row.told_how,
        should_tell=should_tell,
    )


def add_post_failure(
    *,
    session: Session,
    guild_id: int,
    kind: str,
    channel_id: int,
    error: str,
    status: int = 0,
    code: int = 0,
    now: dt.datetime | None = None,
    quiet_for: dt.timedelta = QUIET_FOR,
) -> PostFailureInfo:
    """Record a post that failed for good; ``should_tell`` says whether to tell the directors.

    The failure is marked told at once when the directors are to hear of it (so a second
    failure meanwhile is not told twice); ``set_told`` corrects that when nobody could be told.

    Raises:
        ValueError: an unknown ``kind`` (a bug).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of post: {kind!r}")
    at = utc_now(now)
    should_tell = _claim_notice(session, (guild_id, kind, channel_id), at, quiet_for)
    row = PostFailure(
        guild_id=guild_id,
        kind=kind,
        channel_id=channel_id,
        status=status,
        code=code,
        error=error[:300],
        at=at,
        told_at=at if should_tell else None,
    )
    session.add(row)
    session.flush()
    return _info(row, should_tell=should_tell)


def _claim_notice(
    session: Session, key: tuple[int, str, int], at: dt.datetime, quiet_for: dt.timedelta
) -> bool:
    """Whether this failure is the one to tell (one conditional write: a race has one winner)."""
    guild_id, kind, channel_id = key
    dialect = session.get_bind().dialect.name
    insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
    table: Any = PostFailureNotice.__table__  # type: ignore[attr-defined]
    made = session.execute(
        insert(table)
        .values(guild_id=guild_id, kind=kind, channel_id=channel_id, told_at=at)
        .on_conflict_do_nothing(index_elements=["guild_id", "kind", "channel_id"])
        .returning(table.c.guild_id)
    ).first()
    if made is not None:
        return True
    renewed = session.execute(
        update(table)
        .where(table.c.guild_id == guild_id)
        .where(table.c.kind == kind)
        .where(table.c.channel_id == channel_id)
        .where(table.c.told_at <= at - quiet_for)
        .values(told_at=at)
        .returning(table.c.guild_id)
    ).first()
    return renewed is not None


def set_told(*, session: Session, failure_id: int, how: str | None) -> None:
    """How the directors were told of a failure; ``None``: nobody could be (told again later)."""
    values: dict[str, object] = {"told_how": how}
    if how is None:
        values["told_at"] = None
        row = session.get(PostFailure, failure_id)
        if row is not None:
            session.execute(
                delete(PostFailureNotice)
                .where(col(PostFailureNotice.guild_id) == row.guild_id)
                .where(col(PostFailureNotice.kind) == row.kind)
                .where(col(PostFailureNotice.channel_id) == row.channel_id)
            )
    session.execute(update(PostFailure).where(col(PostFailure.id) == failure_id).values(**values))


def list_post_failures(*, session: Session, guild_id: int, limit: int = 5) -> list[PostFailureInfo]:
    """A server's last failed posts, newest first."""
    rows = session.exec(
        select(PostFailure)
        .where(PostFailure.guild_id == guild_id)
        .order_by(col(PostFailure.at).desc(), col(PostFailure.id).desc())
        .limit(limit)
    )
    return [_info(r) for r in rows]
