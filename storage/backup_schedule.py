"""The scheduled backup: exactly one instance of several takes each one (a lease, as clocks have).

``run_scheduled_backup`` is one tick of the schedule: it claims the ``backup_run`` row with one
conditional update (due, and nobody's lease running; ``storage.backup_models``), writes every
league with ``storage.backup.write_backup`` to ``pokerfloor-<UTC time>.jsonl.gz``, deletes all
but the newest ``keep`` such files and records the outcome, which ``/admin backup`` reads
(``get_last_backup``). An instance that dies mid-backup leaves a lease that runs out; the next
instance to tick after that takes the backup over.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from storage.backup import BackupSummary, write_backup
from storage.backup_models import BackupRun
from storage.errors import BackupError

log = logging.getLogger(__name__)

JOB = "backup"
FILE_PREFIX = "pokerfloor-"
FILE_SUFFIX = ".jsonl.gz"


def _utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


@dataclass(frozen=True)
class LastBackup:
    """The scheduled backup as ``/admin backup`` tells it.

    Attributes:
        ok_at: when the last good backup finished (None: never).
        path: its file, on the machine of ``instance``.
        size_bytes: its size.
        rows: rows in it.
        seconds: how long it took.
        instance: the bot instance that took it (host:pid:...).
        finished_at: when the last attempt ended (good or not).
        error: why the last attempt failed (None: it did not).
        running_since: an attempt under way (its start), else None.
    """

    ok_at: dt.datetime | None
    path: str | None
    size_bytes: int | None
    rows: int | None
    seconds: float | None
    instance: str | None
    finished_at: dt.datetime | None
    error: str | None
    running_since: dt.datetime | None


def backup_file_name(now: dt.datetime) -> str:
    """The scheduled backup's file name for ``now``: sorts by time.

    >>> backup_file_name(dt.datetime(2026, 12, 1, 16, 5, 9, tzinfo=dt.UTC))
    'pokerfloor-20261201T160509Z.jsonl.gz'
    """
    return f"{FILE_PREFIX}{_utc(now).strftime('%Y%m%dT%H%M%SZ')}{FILE_SUFFIX}"


def prune_backups(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` scheduled backups in ``folder``; return the deleted.

    Only files named as ``backup_file_name`` names them are counted or deleted.
    """
    found = sorted(folder.glob(f"{FILE_PREFIX}*{FILE_SUFFIX}"))
    gone = found[: max(0, len(found) - keep)]
    for old in gone:
        old.unlink(missing_ok=True)
    return gone


def _insert_job(session: Session) -> None:
    table: Any = BackupRun.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    insert_fn: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(insert_fn(table).values(job=JOB).on_conflict_do_nothing(index_elements=["job"]))


def claim_backup(
    *,
    session: Session,
    owner_id: str,
    now: dt.datetime,
    every: dt.timedelta,
    lease: dt.timedelta,
) -> bool:
    """Take the scheduled backup if it is due and nobody holds it: True for the one that does.

    Due: none finished yet, or the last attempt finished ``every`` ago or more. One
    conditional update decides, so instances racing for it never both win; a holder that died
    leaves its lease to run out (``lease``), after which the backup is due again.
    """
    _insert_job(session)
    now = _utc(now)
    claimed = session.execute(
        update(BackupRun)
        .where(
            col(BackupRun.job) == JOB,
            or_(col(BackupRun.finished_at).is_(None), col(BackupRun.finished_at) <= now - every),
            or_(col(BackupRun.owner_id).is_(None), col(BackupRun.lease_expires_at) < now),
        )
        .values(owner_id=owner_id, lease_expires_at=now + lease, started_at=now)
    )
    return int(getattr(claimed, "rowcount", 0)) == 1


def finish_backup(
    *,
    session: Session,
    owner_id: str,
    now: dt.datetime,
    summary: BackupSummary | None = None,
    error: str | None = None,
) -> bool:
    """Record the outcome of a claimed backup and release the lease (False: lease lost)."""
    values: dict[str, Any] = {
        "owner_id": None,
        "lease_expires_at": None,
        "finished_at": _utc(now),
        "error": None if error is None else error[:500],
    }
    if summary is not None:
        values.update(
            ok_at=_utc(now),
            ok_path=str(summary.path)[:500],
            ok_bytes=summary.size_bytes,
            ok_rows=summary.rows,
            ok_seconds=round(summary.seconds, 3),
            ok_instance=owner_id[:64],
        )
    done = session.execute(
        update(BackupRun)
        .where(col(BackupRun.job) == JOB, col(BackupRun.owner_id) == owner_id)
        .values(**values)
    )
    return int(getattr(done, "rowcount", 0)) == 1


def get_last_backup(*, session: Session) -> LastBackup | None:
    """The scheduled backup's last outcome (None: no instance ever tried one)."""
    row = session.get(BackupRun, JOB)
    if row is None:
        return None

    def at(value: dt.datetime | None) -> dt.datetime | None:
        return None if value is None else _utc(value)

    return LastBackup(
        ok_at=at(row.ok_at),
        path=row.ok_path,
        size_bytes=row.ok_bytes,
        rows=row.ok_rows,
        seconds=row.ok_seconds,
        instance=row.ok_instance,
        finished_at=at(row.finished_at),
        error=row.error,
        running_since=at(row.started_at) if row.owner_id is not None else None,
    )


def run_scheduled_backup(
    engine: Engine,
    *,
    folder: Path,
    every: dt.timedelta,
    keep: int,
    owner_id: str,
    now: Callable[[], dt.datetime],
    lease: dt.timedelta = dt.timedelta(minutes=15),
) -> BackupSummary | None:
    """One tick of the schedule: claim, write ``folder/pokerfloor-<time>.jsonl.gz``, prune.

    Returns the backup this instance took, or None when it was not due or another instance
    holds it. A failure is recorded (``/admin backup`` shows it) and raised.
    """
    from storage.db import session_scope

    with session_scope(engine) as session:
        if not claim_backup(
            session=session, owner_id=owner_id, now=now(), every=every, lease=lease
        ):
            return None
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackupError(f"cannot write the backup in {folder}: {exc.strerror}") from exc
        summary = write_backup(engine, folder / backup_file_name(now()), now=now())
        prune_backups(folder, keep)
    except Exception as exc:
        with session_scope(engine) as session:
            finish_backup(session=session, owner_id=owner_id, now=now(), error=str(exc))
        raise
    with session_scope(engine) as session:
        finish_backup(session=session, owner_id=owner_id, now=now(), summary=summary)
    log.info("backup %s: %d rows, %d bytes", summary.path, summary.rows, summary.size_bytes)
    return summary


__all__ = [
    "LastBackup",
    "backup_file_name",
    "claim_backup",
    "finish_backup",
    "get_last_backup",
    "prune_backups",
    "run_scheduled_backup",
]
