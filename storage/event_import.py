"""Storing events and their points, all or nothing: new nights, corrections, un-voids.

Each public function plans the import (``storage.import_plan``: every check, before anything
but new names is written) and writes it with one multi-row insert per table, whatever the
number of events and players. Importing the same content again changes nothing and says so;
different content for a stored night is refused by ``import_events`` and replaces it with
``correct_events`` (the audit log keeps both versions). Every write happens in the caller's
transaction (``session_scope``), so a bad event anywhere leaves the database as it was.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import delete, insert
from sqlmodel import Session, col

from rulings import EventRecord, name_key
from storage.audit import add_audit_entries
from storage.db import core_table, insert_rows
from storage.event_points import result_rows
from storage.events import (
    EventSummary,
    ImportOutcome,
    PlayerPoints,
    get_event,
    points_changes,
    points_of,
    record_to_dict,
    sort_points,
)
from storage.import_plan import WRITE_ROWS, ImportPlan, Replacing, plan_import
from storage.league_models import (
    Bounty,
    Event,
    EventRecordPart,
    PremiumHandAward,
    ReceiptAward,
    Result,
    SecondChanceWin,
)

log = logging.getLogger(__name__)

_AWARD_TABLES = (Bounty, PremiumHandAward, SecondChanceWin, ReceiptAward)


class StoreEvents(Protocol):
    """``import_events``, ``correct_events`` or ``revive_events``: how a file's events store."""

    def __call__(
        self,
        records: Sequence[EventRecord],
        *,
        session: Session,
        league_id: int,
        actor: str,
        now: dt.datetime | None = None,
        allow_new: bool | Collection[str] = False,
        allow_suspended: bool | Collection[str] = False,
    ) -> list[ImportOutcome]:
        """Store ``records`` in the league, all or nothing."""


def import_events(
    records: Sequence[EventRecord],
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> list[ImportOutcome]:
    """Store new nights and their points, all or nothing.

    Args:
        records: Checked events (``rulings.parse_event`` or ``rulings.build_event``).
        session: The caller's unit of work; flushed, never committed.
        league_id: The league they belong to.
        actor: Who imports, for the audit log.
        now: The time of the import (UTC); the current time when None. A night after today
            (anywhere on Earth) is refused.
        allow_new: Confirms new players, seasons and locations whose names resemble known
            ones: True for all, or the names confirmed.
        allow_suspended: Records results that name a suspended player (3.B) anyway: True for
            all, or the players confirmed.

    Returns:
        One outcome per record, in order: ``imported`` or ``unchanged`` (same content stored
        already).

    Raises:
        EventFormatError: a date out of bounds or in the future, one person under two
            spellings, an award to someone who did not play.
        EventConflictError: the night is stored with other content.
        SuspendedPlayerError: a suspended player is named and not confirmed.
        DuplicatePlayerError: a new name resembles a known player's.
        DuplicateReceiptError: a receipt reference already counted at that location.
        AlreadyExists: a new season or location name resembles a known one.
    """
    return _store(
        records, "nothing", None, session, league_id, actor, now, allow_new, allow_suspended
    )


def correct_events(
    records: Sequence[EventRecord],
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> list[ImportOutcome]:
    """Replace stored nights with the records (corrections), all or nothing.

    As ``import_events``, except that a record replaces the active event of its night
    (``corrected``, with each player's points gained or lost), and a record whose night is
    not stored is refused (``NotFound``), as is one stored only as a void event
    (``StorageError``: un-void it with ``revive_events``).
    """
    return _store(
        records, "stored", None, session, league_id, actor, now, allow_new, allow_suspended
    )


def revive_events(
    records: Sequence[EventRecord],
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> list[ImportOutcome]:
    """As ``correct_events``; a night stored only as a void event counts again, corrected.

    The latest void event of the night is the one revived.
    """
    return _store(records, "void", None, session, league_id, actor, now, allow_new, allow_suspended)


def revive_event(
    record: EventRecord,
    *,
    event_id: int,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> ImportOutcome:
    """Correct the void event ``event_id`` with ``record`` and make it count again.

    Raises:
        NotFound: ``event_id`` is not a void event of the record's night.
        As ``import_events`` otherwise.
    """
    (outcome,) = _store(
        [record], "void", event_id, session, league_id, actor, now, allow_new, allow_suspended
    )
    return outcome


def _store(
    records: Sequence[EventRecord],
    replacing: Replacing,
    void_id: int | None,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None,
    allow_new: bool | Collection[str],
    allow_suspended: bool | Collection[str],
) -> list[ImportOutcome]:
    plan = plan_import(
        records,
        session=session,
        league_id=league_id,
        actor=actor,
        replacing=replacing,
        void_id=void_id,
        now=now,
        allow_new=allow_new,
        allow_suspended=allow_suspended,
    )
    outcomes = _write(session, league_id, actor, plan)
    log.info(
        "import by %s: %d imported, %d corrected, %d unchanged",
        actor,
        sum(o.status == "imported" for o in outcomes),
        sum(o.status == "corrected" for o in outcomes),
        sum(o.status == "unchanged" for o in outcomes),
    )
    return outcomes


# Core, built once: the ORM's bulk INSERT costs more than the statement for one event
_INSERT_EVENTS = insert(core_table(Event)).returning(
    core_table(Event).c.id, sort_by_parameter_order=True
)


def _points_json(points: Sequence[PlayerPoints]) -> dict[str, tuple[int, int]]:
    return {p.player: (p.rp, p.bp) for p in points}  # stored as JSON lists


def _write(session: Session, league_id: int, actor: str, plan: ImportPlan) -> list[ImportOutcome]:
    """Write a plan: events, result rows and awards (one insert per table), audit entries."""
    writes, befores, directory, at = plan.writes, plan.befores, plan.directory, plan.at
    corrected_ids = list(befores)
    audit: list[tuple[str, str, Mapping[str, Any] | None, Mapping[str, Any] | None]] = []
    if corrected_ids:
        for table in (Result, *_AWARD_TABLES, EventRecordPart):  # the record is written whole
            session.execute(delete(table).where(col(table.event_id).in_(corrected_ids)))
    event_ids: dict[int, int] = {}  # index in writes -> event id
    new_rows = []
    recorded = [record_to_dict(p.record) for p in writes]  # the event's and its audit's
    for i, p in enumerate(writes):
        values = {
            "league_id": league_id,
            "season_id": p.season_id,
            "location_id": p.location_id,
            "date": p.record.date,
            "kind": p.record.kind,
            "status": "active",
            "void_reason": None,
            "content_hash": p.digest,
            "record": recorded[i],
        }
        if p.status == "corrected" and p.old_id is not None:
            row = session.get(Event, p.old_id)
            assert row is not None
            for key, value in values.items():
                setattr(row, key, value)
            session.add(row)
            event_ids[i] = p.old_id
        else:
            new_rows.append((i, values))
    session.flush()
    if new_rows:
        returned = session.scalars(_INSERT_EVENTS, [values for _, values in new_rows]).all()
        ids = [int(new_id or 0) for new_id in returned]
        for (i, _), new_id in zip(new_rows, ids, strict=True):
            event_ids[i] = new_id

    bounties: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    wins: list[dict[str, Any]] = []
    receipts: list[dict[str, Any]] = []
    produced: dict[int, list[PlayerPoints]] = {}
    names = directory.ids
    chunk: list[dict[str, Any]] = []  # result rows not written yet: at most WRITE_ROWS
    for i, p in enumerate(writes):
        eid, record = event_ids[i], p.record
        produced[i] = []
        for result in result_rows(record, plan.rules, directory, eid, p.season_id, p.location_id):
            name = directory.display[name_key(result.pop("_name"))]
            produced[i].append(points_of(name, result))
            chunk.append(result)
            if len(chunk) >= WRITE_ROWS:
                insert_rows(session, Result, chunk)  # one statement (COPY on PostgreSQL)
                chunk = []
        for name, chips in record.bounties.items():
            bounties.append({"event_id": eid, "player_id": names[name_key(name)], "chips": chips})
        for hand in record.premium_hands:
            hands.append(
                {"event_id": eid, "player_id": names[name_key(hand.player)], "hand": hand.hand}
            )
        for name in record.second_chance_winners:
            wins.append({"event_id": eid, "player_id": names[name_key(name)]})
        for receipt in record.receipts:
            receipts.append(
                {
                    "event_id": eid,
                    "player_id": names[name_key(receipt.player)],
                    "location_id": p.location_id,
                    "amount_cents": receipt.amount_cents,
                    "ref": receipt.ref,
                    "image_url": receipt.image_url,
                }
            )
    for table, rows_ in (
        (Result, chunk),
        (Bounty, bounties),
        (PremiumHandAward, hands),
        (SecondChanceWin, wins),
        (ReceiptAward, receipts),
    ):
        insert_rows(session, table, rows_)  # one statement a table (COPY on PostgreSQL)

    outcomes: list[ImportOutcome] = []
    for i, p in enumerate(writes):
        new_id = event_ids[i]
        # Known without reading it back: each written event is active, of its plan's season and
        # location, with one result row a participant (as ``event_summaries`` would find).
        summary = EventSummary(
            id=new_id,
            season=plan.season_names[p.season_id],
            location=plan.location_names[p.location_id],
            date=p.record.date,
            kind=p.record.kind,
            status="active",
            void_reason=None,
            players=len(produced[i]),
        )
        after = {"record": recorded[i], "points": _points_json(produced[i])}
        changes: dict[str, tuple[int, int]] = {}
        if p.status == "corrected" and p.old_id is not None:
            old = befores[p.old_id]
            before = {"record": dict(old.record), "points": _points_json(list(old.points))}
            changes = points_changes(old.points, produced[i])
            if p.unvoids:
                audit.append(
                    (
                        "event.unvoid",
                        f"event:{new_id}",
                        {"status": "void", "reason": old.event.void_reason},
                        {"status": "active"},
                    )
                )
            after["changes"] = {n: list(d) for n, d in changes.items()}
            audit.append(("event.correct", f"event:{new_id}", before, after))
        else:
            audit.append(("event.import", f"event:{new_id}", None, after))
        outcomes.append(ImportOutcome(p.status, summary, sort_points(produced[i]), changes))
    add_audit_entries(session=session, league_id=league_id, actor=actor, entries=audit, now=at)

    # Re-assemble in the order of ``records``, filling in the unchanged ones.
    written = iter(outcomes)
    final: list[ImportOutcome] = []
    for p in plan.events:
        if p.status != "unchanged":
            final.append(next(written))
            continue
        if p.old_id is None:  # listed twice in this file: same as its first listing
            first = next(
                o
                for o in final
                if o.event.date == p.record.date
                and name_key(o.event.location) == name_key(p.record.location)
                and o.event.kind == p.record.kind
            )
            final.append(ImportOutcome("unchanged", first.event, first.points))
            continue
        detail = get_event(session=session, league_id=league_id, event_id=p.old_id)
        final.append(ImportOutcome("unchanged", detail.event, detail.points))
    return final
