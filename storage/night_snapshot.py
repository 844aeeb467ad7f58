"""A night's snapshot beside its log: sealed when written, checked when read, rebuilt when wrong.

``tournament.chart`` holds the chart the live log entries lead to, so a command reads one row
instead of replaying the night. The log is the truth: every snapshot is written sealed
(``rulings.snapshot_to_data``: its format, the night's version ``seq`` and a digest of both with
the chart), and every load reads, in the same statement as the row, how many writes the log
holds (``loaded``). A snapshot that is not sealed for the row's version, or whose version is
not the log's count, is rebuilt from the log on the spot (``current_chart``), stored, and the
repair noted once in the audit log with the snapshot it replaced.

The snapshot and its log entry are written in one transaction (``save_entry``), so a crash
cannot part them. What can still leave a snapshot that is not its log's: one written by
another version of the code (``rulings.SNAPSHOT_FORMAT``), one edited by hand or garbled, a
tournament row restored apart from its entries.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import func, insert, literal, union_all, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from rulings import (
    Chart,
    Night,
    TournamentError,
    chart_to_data,
    entry_from_data,
    replay_night,
    room_from_data,
    snapshot_from_data,
    snapshot_to_data,
)
from storage.audit import add_audit_entry
from storage.db import core_table, insert_rows
from storage.errors import StorageError
from storage.league_models import AuditEntry
from storage.tournament_models import Tournament, TournamentEntryRow

log = logging.getLogger(__name__)

CHANGED_MEANWHILE = "the tournament changed while this was decided (another director?); try again"

REPAIRER = "pokerfloor"
"""The actor of a snapshot repair in the audit log (no one asked for it)."""


def logged_writes() -> Any:
    """How many writes a night's log holds (an entry each, and an undo each marking one).

    A correlated subquery, read with the tournament row in the same statement: a snapshot is
    current only when its version is this count.
    """
    entry = core_table(TournamentEntryRow)
    return (
        select(func.count() + func.count(entry.c.undone_at))
        .where(entry.c.tournament_id == col(Tournament.id))
        .scalar_subquery()
    )


def loaded(query: Any) -> Any:
    """``query`` of tournament rows, each with its log's count; stored values always win.

    ``populate_existing``: a row read earlier in the same transaction is refreshed, not taken
    from the session as it was (writes go by Core ``UPDATE``, which the session never sees).
    """
    return query.add_columns(logged_writes()).execution_options(populate_existing=True)


def current_chart(session: Session, row: Tournament, logged: int) -> tuple[Chart, int]:
    """The night's chart and version: the stored snapshot's, or the log's replay when unsound.

    Args:
        session: the unit of work (a repair commits with it).
        row: the tournament as ``loaded`` read it.
        logged: its log's count, read with it.
    """
    chart, why = snapshot_from_data(row.chart, row.seq)
    if chart is not None and logged == row.seq:
        return chart, row.seq
    if chart is not None:
        why = f"at version {row.seq}, its log at {logged}"
    return repair_snapshot(session, row, why)


def repair_snapshot(session: Session, row: Tournament, why: str) -> tuple[Chart, int]:
    """Rebuild a night's snapshot from its log, store it, and say so once in the audit log.

    The row is locked and read again first, so of two instances loading the same night one
    repairs it and the other reads the repair. The log is never changed; the snapshot replaced
    is kept whole in the audit entry (``before``), the reason and the new version in ``after``.

    Args:
        session: the unit of work (the repair commits with it).
        row: the tournament as loaded.
        why: what was wrong with the snapshot.

    Returns:
        The chart the live log replays to, and the night's version (the log's count).

    Raises:
        StorageError: the log itself cannot be replayed (nothing is changed).
    """
    locked, logged = session.execute(
        loaded(select(Tournament).where(Tournament.id == row.id).with_for_update(of=Tournament))
    ).one()
    chart, _ = snapshot_from_data(locked.chart, locked.seq)
    if chart is not None and logged == locked.seq:
        return chart, locked.seq  # another instance repaired it first
    rows = session.exec(
        select(TournamentEntryRow)
        .where(TournamentEntryRow.tournament_id == row.id)
        .where(col(TournamentEntryRow.undone_at).is_(None))
        .order_by(col(TournamentEntryRow.seq))
    ).all()
    try:
        night = replay_night(room_from_data(locked.room), [entry_from_data(r.data) for r in rows])
    except (KeyError, TypeError, ValueError, IndexError, TournamentError) as exc:
        raise StorageError(
            f"tournament {row.id}: its log cannot be replayed ({exc}); nothing was changed"
        ) from exc
    before = {"snapshot": locked.chart, "seq": locked.seq}
    snapshot = snapshot_to_data(night.chart, logged)
    # Written by the code before snapshots were sealed, and the very chart the log replays
    # to: an upgrade, not a repair (sealed quietly; nothing was wrong to tell a director).
    upgrade = (
        why == "format 1" and locked.seq == logged and locked.chart == chart_to_data(night.chart)
    )
    session.execute(
        update(Tournament)
        .where(col(Tournament.id) == row.id)
        .values(chart=snapshot, status=night.chart.status, seq=logged)
    )
    for copy in (row, locked):  # the session's copy (one object, or two after a refresh)
        set_committed_value(copy, "chart", snapshot)
        set_committed_value(copy, "status", night.chart.status)
        set_committed_value(copy, "seq", logged)
    if upgrade:
        log.info("tournament %s: snapshot sealed (written before snapshots were)", row.id)
        return night.chart, logged
    add_audit_entry(
        session=session,
        league_id=locked.league_id,
        actor=REPAIRER,
        action="tournament repair",
        target=f"tournament {row.id}",
        before=before,
        after={"why": why, "seq": logged, "entries": len(rows)},
    )
    log.warning(
        "tournament %s: snapshot %s; rebuilt from its log (%d live entries, version %d)",
        row.id,
        why,
        len(rows),
        logged,
    )
    return night.chart, logged


def snapshot_columns(night: Night, seq: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The tournament row's columns for ``night`` at version ``seq`` (sealed snapshot)."""
    return {
        "chart": snapshot_to_data(night.chart, seq),
        "status": night.chart.status,
        "seq": seq,
        **(extra or {}),
    }


def save_snapshot(
    session: Session, tournament_id: int, read_seq: int, values: dict[str, Any]
) -> None:
    """Write ``values`` (``snapshot_columns``) if the night is still at version ``read_seq``.

    Raises:
        TournamentError: someone else wrote to the night since it was read.
    """
    result = session.execute(
        update(Tournament)
        .where(col(Tournament.id) == tournament_id)
        .where(col(Tournament.seq) == read_seq)
        .values(**values)
    )
    if getattr(result, "rowcount", 1) != 1:
        raise TournamentError(CHANGED_MEANWHILE)


def save_entry(
    session: Session,
    tournament_id: int,
    read_seq: int,
    values: dict[str, Any],
    logged: dict[str, Any],
    audited: list[dict[str, Any]],
) -> None:
    """The snapshot (``save_snapshot``), the log entry ``logged`` and the audit rows ``audited``.

    On PostgreSQL one statement instead of three: the UPDATE (still checking ``read_seq``) and
    two INSERTs that take their rows from it, so when the night changed meanwhile nothing is
    inserted either (the audit rows in their order, one ``SELECT`` a row joined by
    ``UNION ALL``; more than ``FOLDED_AUDIT_ROWS`` go first in a statement of their own).
    SQLite has no round trips to save and no writing CTEs: three statements.

    Raises:
        TournamentError: someone else wrote to the night since it was read.
    """
    if session.get_bind().dialect.name != "postgresql":
        save_snapshot(session, tournament_id, read_seq, values)
        session.execute(insert(TournamentEntryRow).values(**logged))
        insert_rows(session, AuditEntry, audited)
        return
    if len(audited) > FOLDED_AUDIT_ROWS:
        insert_rows(session, AuditEntry, audited[:-1])
        audited = audited[-1:]
    tournament = core_table(Tournament)
    saved = (
        update(tournament)
        .where(tournament.c.id == tournament_id, tournament.c.seq == read_seq)
        .values(**values)
        .returning(tournament.c.id)
        .cte("saved")
    )

    def from_saved(model: Any, rows: list[dict[str, Any]], name: str) -> Any:
        table = core_table(model)
        ones = [
            select(*(literal(v, table.c[k].type).label(k) for k, v in row.items())).select_from(
                saved
            )
            for row in rows
        ]
        both = ones[0] if len(ones) == 1 else union_all(*ones)
        return insert(table).from_select(list(rows[0]), both).cte(name)

    count = select(func.count()).select_from(saved)
    count = count.add_cte(
        from_saved(TournamentEntryRow, [logged], "logged"),
        from_saved(AuditEntry, audited, "audited"),
    )
    if session.execute(count).scalar_one() != 1:
        raise TournamentError(CHANGED_MEANWHILE)


FOLDED_AUDIT_ROWS = 8
"""The most audit rows ``save_entry`` takes into its one statement (each a ``SELECT`` there)."""
