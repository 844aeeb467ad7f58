"""The audit log: every write records who did it, when, and the state before and after."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from storage.db import insert_rows
from storage.league_models import AuditEntry, AuditPart, merge_part

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AuditRecord:
    """One audit log entry as read back."""

    id: int
    actor: str
    at: dt.datetime
    action: str
    target: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None


def utc_now(now: dt.datetime | None = None) -> dt.datetime:
    """Return ``now`` (which must be timezone-aware) or the current UTC time."""
    if now is None:
        return dt.datetime.now(dt.UTC)
    if now.tzinfo is None:
        raise ValueError("audit times must be timezone-aware")
    return now


def add_audit_entry(
    *,
    session: Session,
    league_id: int,
    actor: str,
    action: str,
    target: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    now: dt.datetime | None = None,
) -> None:
    """Record one write in the audit log (part of the caller's transaction)."""
    add_audit_entries(
        session=session,
        league_id=league_id,
        actor=actor,
        entries=[(action, target, before, after)],
        now=now,
    )


def add_audit_entries(
    *,
    session: Session,
    league_id: int,
    actor: str,
    entries: Sequence[tuple[str, str, Mapping[str, Any] | None, Mapping[str, Any] | None]],
    now: dt.datetime | None = None,
) -> None:
    """Record many writes at once: ``(action, target, before, after)`` each, one statement."""
    if not entries:
        return
    at = utc_now(now)
    rows = [
        {
            "league_id": league_id,
            "actor": actor,
            "at": at,
            "action": action,
            "target": target,
            "before": dict(before) if before is not None else None,
            "after": dict(after) if after is not None else None,
        }
        for action, target, before, after in entries
    ]
    held = session.info.get(HELD_AUDIT)
    if held is not None:  # inside ``holding_audit``: its caller writes them
        held.extend(rows)
        return
    insert_rows(session, AuditEntry, rows)


HELD_AUDIT = "pokerfloor.audit_held"
"""The session's ``info`` key of the audit rows ``holding_audit`` holds."""


@contextmanager
def holding_audit(session: Session) -> Iterator[list[dict[str, Any]]]:
    """Inside the block the audit rows are held in the list yielded, not written yet.

    The caller writes them with a statement of its own (``storage.tournaments.add_entry``
    takes them, in their order, into the statement that writes its own audit row) and empties
    the list; rows still held at the end of the block are written then, in one statement. An
    error leaves them unwritten, as the transaction it rolls back would have.
    """
    held: list[dict[str, Any]] = []
    outer = session.info.get(HELD_AUDIT)
    session.info[HELD_AUDIT] = held
    try:
        yield held
    finally:
        if outer is None:
            del session.info[HELD_AUDIT]
        else:
            session.info[HELD_AUDIT] = outer
    insert_rows(session, AuditEntry, held)


def list_audit(
    *, session: Session, league_id: int, target: str | None = None, limit: int = 50
) -> list[AuditRecord]:
    """Return the latest audit entries, newest first, optionally for one target only."""
    columns = ("id", "actor", "at", "action", "target", "before", "after")
    query = sa_select(*(getattr(AuditEntry, c) for c in columns)).where(
        col(AuditEntry.league_id) == league_id
    )
    if target is not None:
        query = query.where(col(AuditEntry.target) == target)
    query = query.order_by(col(AuditEntry.id).desc()).limit(limit)
    # Columns, not entities: each read decodes ``after`` afresh, which its parts extend.
    entries = [dict(zip(columns, row, strict=True)) for row in session.execute(query)]
    afters = {e["id"]: e["after"] for e in entries if e["after"] is not None}
    if afters:  # a streamed night's import entry holds its ``after`` in parts (``AuditPart``)
        for aid, body in session.execute(_PARTS, {"ids": list(afters)}):
            merge_part(afters[aid], body)
    return [
        AuditRecord(
            id=e["id"],
            actor=e["actor"],
            at=e["at"] if e["at"].tzinfo else e["at"].replace(tzinfo=dt.UTC),
            action=e["action"],
            target=e["target"],
            before=e["before"],
            after=e["after"],
        )
        for e in entries
    ]


_PARTS = (
    sa_select(col(AuditPart.audit_id), col(AuditPart.body))
    .where(col(AuditPart.audit_id).in_(bindparam("ids", expanding=True)))
    .order_by(col(AuditPart.audit_id), col(AuditPart.seq))
)
