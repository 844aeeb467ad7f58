"""The bot's own bookkeeping: which command set was last synced to Discord, per scope.

Discord allows 200 command creates per day per guild, so the bot syncs only when the hash of
its command set differs from the one stored here for that scope (``global`` or ``guild:<id>``).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import Column, DateTime
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, Session, SQLModel

log = logging.getLogger(__name__)


class CommandSync(SQLModel, table=True):
    """The hash of the command set last synced to one scope."""

    __tablename__ = "command_sync"

    scope: str = Field(primary_key=True, max_length=64)
    digest: str = Field(max_length=64)
    synced_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


def get_command_digest(*, session: Session, scope: str) -> str | None:
    """The digest last synced to ``scope``, or None when it never was."""
    row = session.get(CommandSync, scope)
    return None if row is None else row.digest


def set_command_digest(*, session: Session, scope: str, digest: str, now: dt.datetime) -> None:
    """Record that the command set with ``digest`` was synced to ``scope`` at ``now``.

    An upsert: instances started together both sync and both record it; the last one wins
    (the digests are the same) and neither fails.
    """
    table: Any = CommandSync.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    insert_fn: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert_fn(table).values(scope=scope, digest=digest, synced_at=now)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["scope"],
            set_={"digest": statement.excluded.digest, "synced_at": statement.excluded.synced_at},
        )
    )
