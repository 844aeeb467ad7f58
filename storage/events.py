"""Events: import (all or nothing, idempotent), correct, void, list and show.

An event is identified by its season, location, date and kind. Importing the same content
again changes nothing and says so; different content for the same identity is refused unless
it is a correction, which replaces the results (the audit log keeps both versions). Points
are computed once, by ``rulings.league.points.event_points``, and stored per component on each
result row. Every write happens in the caller's transaction (``session_scope``), so a bad
event anywhere in an import leaves the database as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import delete, func, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from rulings import EventRecord, LeagueRules, PointsBreakdown, event_points, name_key, parse_event
from storage.audit import add_audit_entries, add_audit_entry, utc_now
from storage.errors import (
    AlreadyExists,
    DuplicateReceiptError,
    EventConflictError,
    NotFound,
    StorageError,
)
from storage.league_models import (
    Bounty,
    Event,
    Location,
    Player,
    PremiumHandAward,
    ReceiptAward,
    Result,
    Season,
    SecondChanceWin,
)
from storage.leagues import get_league_rules, similar_name
from storage.players import PlayerDirectory

log = logging.getLogger(__name__)

ImportStatus = Literal["imported", "unchanged", "corrected"]
_AWARD_TABLES = (Bounty, PremiumHandAward, SecondChanceWin, ReceiptAward)


@dataclass(frozen=True)
class EventSummary:
    """One event as listed."""

    id: int
    season: str
    location: str
    date: dt.date
    kind: str
    status: str  # "active" or "void"
    void_reason: str | None
    players: int

    @property
    def label(self) -> str:
        """A short human name: ``#12 2026-11-20 Brewpub (regular)``."""
        return f"#{self.id} {self.date.isoformat()} {self.location} ({self.kind})"


@dataclass(frozen=True)
class PlayerPoints:
    """What one participant earned at one event."""

    player: str
    position: int | None
    tie_size: int
    rp: int
    bp: int
    breakdown: Mapping[str, tuple[int, int]]  # component -> (rp, bp), only non-zero ones


@dataclass(frozen=True)
class EventDetail:
    """One event with every participant's points and the record as imported."""

    event: EventSummary
    points: tuple[PlayerPoints, ...]
    record: Mapping[str, Any]


@dataclass(frozen=True)
class ImportOutcome:
    """What an import did to one event."""

    status: ImportStatus
    event: EventSummary
    points: tuple[PlayerPoints, ...]


def _cents_text(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def record_to_dict(record: EventRecord) -> dict[str, Any]:
    """Return ``record`` in the JSON import format (``parse_event`` reads it back)."""
    out: dict[str, Any] = {
        "season": record.season,
        "location": record.location,
        "date": record.date.isoformat(),
        "kind": record.kind,
        "finish": [list(group) for group in record.finish],
    }
    if record.played:
        out["played"] = list(record.played)
    if record.bounties:
        out["bounties"] = dict(record.bounties)
    if record.premium_hands:
        out["premium_hands"] = [{"player": h.player, "hand": h.hand} for h in record.premium_hands]
    if record.second_chance_winners:
        out["second_chance_winners"] = list(record.second_chance_winners)
    if record.receipts:
        receipts = []
        for r in record.receipts:
            entry: dict[str, Any] = {"player": r.player, "amount": _cents_text(r.amount_cents)}
            if r.ref is not None:
                entry["ref"] = r.ref
            if r.image_url is not None:
                entry["image_url"] = r.image_url
            receipts.append(entry)
        out["receipts"] = receipts
    return out


def content_hash(record: EventRecord) -> str:
    """Return a digest of what the event says, blind to name case and listing order.

    Two imports of the same night (names typed in another case, ``played`` in another order)
    hash the same; any change of a position, award or amount changes the hash.
    """
    k = name_key
    canonical = {
        "season": k(record.season),
        "location": k(record.location),
        "date": record.date.isoformat(),
        "kind": record.kind,
        "finish": [sorted(k(n) for n in group) for group in record.finish],
        "played": sorted(k(n) for n in record.played),
        "bounties": sorted((k(n), c) for n, c in record.bounties.items()),
        "premium": sorted((k(h.player), h.hand) for h in record.premium_hands),
        "second_chance": sorted(k(n) for n in record.second_chance_winners),
        "receipts": sorted(
            (k(r.player), r.amount_cents, r.ref or "", r.image_url or "") for r in record.receipts
        ),
    }
    blob = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _named(
    session: Session, table: type[Season] | type[Location], league_id: int
) -> dict[str, tuple[int, str]]:
    rows = session.exec(
        select(table.id, table.name_key, table.name).where(table.league_id == league_id)
    )
    return {key: (rid or 0, name) for rid, key, name in rows}


def _ensure_named(
    session: Session,
    table: type[Season] | type[Location],
    league_id: int,
    names: Sequence[str],
    *,
    confirmed: bool | set[str],
    what: str,
    actor: str,
    now: dt.datetime,
) -> dict[str, int]:
    """Return name key -> id, creating (and auditing) the seasons or locations not seen before."""
    known = _named(session, table, league_id)
    display = {key: name for key, (_, name) in known.items()}
    created: list[str] = []
    for name in names:
        key = name_key(name)
        if key in known or key in created:
            continue
        if confirmed is not True and (confirmed is False or key not in confirmed):
            hint = similar_name(key, display)
            if hint is not None:
                raise AlreadyExists(
                    f"the {what} '{name}' looks like the existing '{hint}'; use '{hint}' "
                    f"or confirm '{name}' is a new {what}"
                )
        row = table(league_id=league_id, name=" ".join(name.split()), name_key=key)
        session.add(row)
        session.flush()
        known[key] = (row.id or 0, row.name)
        display[key] = row.name
        created.append(key)
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor=actor,
            action=f"{what}.add",
            target=f"{what}:{row.name}",
            after={"name": row.name},
            now=now,
        )
    return {key: rid for key, (rid, _) in known.items()}


def _component_rows(breakdown: PointsBreakdown) -> dict[str, int]:
    total = breakdown.total
    return {
        "finish_rp": breakdown.finish.rp,
        "finish_bp": breakdown.finish.bp,
        "bounty_rp": breakdown.bounties.rp,
        "bounty_bp": breakdown.bounties.bp,
        "premium_rp": breakdown.premium.rp,
        "premium_bp": breakdown.premium.bp,
        "second_chance_rp": breakdown.second_chance.rp,
        "second_chance_bp": breakdown.second_chance.bp,
        "receipt_rp": breakdown.receipts.rp,
        "receipt_bp": breakdown.receipts.bp,
        "rp": total.rp,
        "bp": total.bp,
    }


_COMPONENTS = ("finish", "bounty", "premium", "second_chance", "receipt")


def _points_of(name: str, row: Mapping[str, Any]) -> PlayerPoints:
    breakdown = {
        c: (int(row[f"{c}_rp"]), int(row[f"{c}_bp"]))
        for c in _COMPONENTS
        if row[f"{c}_rp"] or row[f"{c}_bp"]
    }
    return PlayerPoints(
        player=name,
        position=row["position"],
        tie_size=int(row["tie_size"]),
        rp=int(row["rp"]),
        bp=int(row["bp"]),
        breakdown=breakdown,
    )


def _sort_points(points: list[PlayerPoints]) -> tuple[PlayerPoints, ...]:
    big = 1 << 30
    points.sort(key=lambda p: (p.position or big, -p.rp, -p.bp, p.player.casefold()))
    return tuple(points)


def import_events(
    records: Sequence[EventRecord],
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    correct: bool = False,
) -> list[ImportOutcome]:
    """Store events and their points, all or nothing.

    Args:
        records: Checked events (``rulings.parse_event`` or ``rulings.build_event``).
        session: The caller's unit of work; flushed, never committed.
        league_id: The league they belong to.
        actor: Who imports, for the audit log.
        now: The time of the import (UTC); the current time when None.
        allow_new: Confirms new players, seasons and locations whose names resemble known
            ones: True for all, or the names confirmed.
        correct: Replace an existing event whose content differs (a correction) instead of
            refusing it.

    Returns:
        One outcome per record, in order: ``imported``, ``unchanged`` (same content stored
        already) or ``corrected``.

    Raises:
        EventConflictError: the event exists with other content and ``correct`` is off.
        DuplicatePlayerError: a new name resembles a known player's.
        DuplicateReceiptError: a receipt reference already counted at that location.
        AlreadyExists: a new season or location name resembles a known one.
    """
    at = utc_now(now)
    rules = get_league_rules(session=session, league_id=league_id)
    confirmed: bool | set[str] = (
        allow_new if isinstance(allow_new, bool) else {name_key(n) for n in allow_new}
    )
    seasons = _ensure_named(
        session,
        Season,
        league_id,
        [r.season for r in records],
        confirmed=confirmed,
        what="season",
        actor=actor,
        now=at,
    )
    locations = _ensure_named(
        session,
        Location,
        league_id,
        [r.location for r in records],
        confirmed=confirmed,
        what="location",
        actor=actor,
        now=at,
    )
    existing: dict[tuple[int, int, dt.date, str], tuple[int, str]] = {
        (sid, lid, day, kind): (eid or 0, digest)
        for eid, sid, lid, day, kind, digest in session.execute(
            sa_select(
                col(Event.id),
                col(Event.season_id),
                col(Event.location_id),
                col(Event.date),
                col(Event.kind),
                col(Event.content_hash),
            ).where(col(Event.league_id) == league_id)
        )
    }

    # Decide what each record does before writing anything.
    plan: list[tuple[ImportStatus, int | None, EventRecord, str, tuple[int, int]]] = []
    batch: dict[tuple[int, int, dt.date, str], str] = {}
    for record in records:
        sid, lid = seasons[name_key(record.season)], locations[name_key(record.location)]
        identity = (sid, lid, record.date, record.kind)
        digest = content_hash(record)
        where = f"{record.date.isoformat()} {record.location} ({record.kind})"
        if identity in batch:
            if batch[identity] != digest:
                raise EventConflictError(f"the file lists the event {where} twice, differently")
            plan.append(("unchanged", None, record, digest, (sid, lid)))
            continue
        batch[identity] = digest
        if identity in existing:
            eid, stored = existing[identity]
            if stored == digest:
                plan.append(("unchanged", eid, record, digest, (sid, lid)))
            elif correct:
                plan.append(("corrected", eid, record, digest, (sid, lid)))
            else:
                raise EventConflictError(
                    f"the event {where} (#{eid}) is stored with other results; "
                    "use 'event correct' to replace it"
                )
        else:
            plan.append(("imported", None, record, digest, (sid, lid)))

    writes = [p for p in plan if p[0] != "unchanged"]
    directory = PlayerDirectory(session, league_id)
    directory.resolve(
        [n for p in writes for n in p[2].participants()],
        allow_new=allow_new,
        actor=actor,
        now=at,
    )
    corrected_ids = [p[1] for p in writes if p[0] == "corrected" and p[1] is not None]
    _check_receipt_refs(session, writes, corrected_ids)

    audit: list[tuple[str, str, Mapping[str, Any] | None, Mapping[str, Any] | None]] = []
    if corrected_ids:
        befores = {
            eid: get_event(session=session, league_id=league_id, event_id=eid)
            for eid in corrected_ids
        }
        for table in (Result, *_AWARD_TABLES):
            session.execute(delete(table).where(col(table.event_id).in_(corrected_ids)))
    event_ids: dict[int, int] = {}  # index in writes -> event id
    new_rows = []
    for i, (status, old_id, record, digest, (sid, lid)) in enumerate(writes):
        values = {
            "league_id": league_id,
            "season_id": sid,
            "location_id": lid,
            "date": record.date,
            "kind": record.kind,
            "status": "active",
            "void_reason": None,
            "content_hash": digest,
            "record": record_to_dict(record),
        }
        if status == "corrected" and old_id is not None:
            row = session.get(Event, old_id)
            assert row is not None
            for key, value in values.items():
                setattr(row, key, value)
            session.add(row)
            event_ids[i] = old_id
        else:
            new_rows.append((i, values))
    session.flush()
    if new_rows:
        returned = session.scalars(
            insert(Event).returning(col(Event.id), sort_by_parameter_order=True),
            [values for _, values in new_rows],
        ).all()
        ids = [int(new_id or 0) for new_id in returned]
        for (i, _), new_id in zip(new_rows, ids, strict=True):
            event_ids[i] = new_id

    results: list[dict[str, Any]] = []
    bounties: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    wins: list[dict[str, Any]] = []
    receipts: list[dict[str, Any]] = []
    produced: dict[int, list[PlayerPoints]] = {}
    for i, (_, _, record, _, (sid, lid)) in enumerate(writes):
        eid = event_ids[i]
        rows = _result_rows(record, rules, directory, eid, sid, lid)
        results.extend(rows)
        names = directory.ids
        produced[i] = [_points_of(directory.display[name_key(r["_name"])], r) for r in rows]
        for r in rows:
            del r["_name"]
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
                    "location_id": lid,
                    "amount_cents": receipt.amount_cents,
                    "ref": receipt.ref,
                    "image_url": receipt.image_url,
                }
            )
    for table, rows_ in (
        (Result, results),
        (Bounty, bounties),
        (PremiumHandAward, hands),
        (SecondChanceWin, wins),
        (ReceiptAward, receipts),
    ):
        if rows_:
            session.execute(insert(table), rows_)

    outcomes: list[ImportOutcome] = []
    summaries = _summaries(session, league_id, set(event_ids.values()))
    for i, (status, old_id, record, _, _) in enumerate(writes):
        new_id = event_ids[i]
        summary = summaries[new_id]
        after = {"record": record_to_dict(record), "points": _points_json(produced[i])}
        if status == "corrected" and old_id is not None:
            old = befores[old_id]
            before = {"record": dict(old.record), "points": _points_json(list(old.points))}
            audit.append(("event.correct", f"event:{new_id}", before, after))
        else:
            audit.append(("event.import", f"event:{new_id}", None, after))
        outcomes.append(ImportOutcome(status, summary, _sort_points(produced[i])))
    add_audit_entries(session=session, league_id=league_id, actor=actor, entries=audit, now=at)

    # Re-assemble in the order of ``records``, filling in the unchanged ones.
    written = iter(outcomes)
    final: list[ImportOutcome] = []
    for status, old_id, record, _digest, _ids in plan:
        if status != "unchanged":
            final.append(next(written))
            continue
        if old_id is None:  # listed twice in this file: same as its first listing
            first = next(
                o
                for o in final
                if o.event.date == record.date
                and name_key(o.event.location) == name_key(record.location)
                and o.event.kind == record.kind
            )
            final.append(ImportOutcome("unchanged", first.event, first.points))
            continue
        detail = get_event(session=session, league_id=league_id, event_id=old_id)
        final.append(ImportOutcome("unchanged", detail.event, detail.points))
    log.info(
        "import by %s: %d imported, %d corrected, %d unchanged",
        actor,
        sum(o.status == "imported" for o in final),
        sum(o.status == "corrected" for o in final),
        sum(o.status == "unchanged" for o in final),
    )
    return final


def _points_json(points: Sequence[PlayerPoints]) -> dict[str, list[int]]:
    return {p.player: [p.rp, p.bp] for p in points}


def _result_rows(
    record: EventRecord,
    rules: LeagueRules,
    directory: PlayerDirectory,
    event_id: int,
    season_id: int,
    location_id: int,
) -> list[dict[str, Any]]:
    points = {name_key(n): b for n, b in event_points(record, rules, owner=rules.owner).items()}
    positions: dict[str, tuple[int, int]] = {}
    position = 1
    for group in record.finish:
        for name in group:
            positions[name_key(name)] = (position, len(group))
        position += len(group)
    rows = []
    for name in record.participants():
        key = name_key(name)
        place, tie = positions.get(key, (None, 1))
        row: dict[str, Any] = {
            "_name": name,
            "event_id": event_id,
            "player_id": directory.ids[key],
            "season_id": season_id,
            "location_id": location_id,
            "position": place,
            "tie_size": tie,
            "is_counted": record.kind != "toc",
            "is_regular": record.kind == "regular",
        }
        breakdown = points.get(key)
        if breakdown is None:
            row.update(dict.fromkeys(_ZERO_COMPONENTS, 0))
        else:
            row.update(_component_rows(breakdown))
        rows.append(row)
    return rows


_ZERO_COMPONENTS = (*(f"{c}_{u}" for c in _COMPONENTS for u in ("rp", "bp")), "rp", "bp")


def _check_receipt_refs(
    session: Session,
    writes: Sequence[tuple[ImportStatus, int | None, EventRecord, str, tuple[int, int]]],
    replaced: Sequence[int],
) -> None:
    wanted: dict[tuple[int, str], str] = {}
    for _, _, record, _, (_, lid) in writes:
        for receipt in record.receipts:
            if receipt.ref is None:
                continue
            where = f"{receipt.player}, {record.date.isoformat()} at {record.location}"
            slot = (lid, receipt.ref)
            if slot in wanted:
                raise DuplicateReceiptError(
                    f"receipt {receipt.ref} at {record.location} is listed twice "
                    f"({wanted[slot]} and {where})"
                )
            wanted[slot] = where
    if not wanted:
        return
    query = (
        select(ReceiptAward.location_id, col(ReceiptAward.ref), col(Event.date))
        .join(Event, col(Event.id) == ReceiptAward.event_id)
        .where(col(ReceiptAward.location_id).in_({lid for lid, _ in wanted}))
        .where(col(ReceiptAward.ref).in_({ref for _, ref in wanted}))
    )
    if replaced:
        query = query.where(col(ReceiptAward.event_id).not_in(replaced))
    for lid, ref, day in session.exec(query):
        if ref is not None and (lid, ref) in wanted:
            raise DuplicateReceiptError(
                f"receipt {ref} ({wanted[(lid, ref)]}) was already counted at that location "
                f"on {day.isoformat()}"
            )


def _summary_query(league_id: int) -> Any:
    players = (
        sa_select(func.count())
        .select_from(Result)
        .where(col(Result.event_id) == col(Event.id))
        .correlate(Event)
        .scalar_subquery()
    )
    return (
        sa_select(
            col(Event.id),
            col(Season.name),
            col(Location.name),
            col(Event.date),
            col(Event.kind),
            col(Event.status),
            col(Event.void_reason),
            players,
        )
        .join(Season, col(Season.id) == Event.season_id)
        .join(Location, col(Location.id) == Event.location_id)
        .where(col(Event.league_id) == league_id)
    )


def _summary(row: Sequence[Any]) -> EventSummary:
    eid, season, location, day, kind, status, reason, n = row
    return EventSummary(
        id=eid,
        season=season,
        location=location,
        date=day,
        kind=kind,
        status=status,
        void_reason=reason,
        players=int(n),
    )


def _summaries(session: Session, league_id: int, ids: set[int]) -> dict[int, EventSummary]:
    if not ids:
        return {}
    query = _summary_query(league_id).where(col(Event.id).in_(ids))
    return {row[0]: _summary(row) for row in session.execute(query)}


def list_events(
    *,
    session: Session,
    league_id: int,
    season_id: int | None = None,
    location_id: int | None = None,
    include_void: bool = True,
) -> list[EventSummary]:
    """Return events by date (then location), optionally of one season or location."""
    query = _summary_query(league_id)
    if season_id is not None:
        query = query.where(Event.season_id == season_id)
    if location_id is not None:
        query = query.where(Event.location_id == location_id)
    if not include_void:
        query = query.where(Event.status == "active")
    query = query.order_by(col(Event.date), col(Location.name), col(Event.id))
    return [_summary(row) for row in session.execute(query)]


def get_event(*, session: Session, league_id: int, event_id: int) -> EventDetail:
    """Return one event with every participant's points.

    Raises:
        NotFound: no such event in this league.
    """
    found = session.execute(_summary_query(league_id).where(Event.id == event_id)).first()
    if found is None:
        raise NotFound(f"there is no event #{event_id}")
    summary = _summary(found)
    record = session.exec(select(Event.record).where(Event.id == event_id)).one()
    cols = [getattr(Result, c) for c in _ZERO_COMPONENTS]
    query = (
        sa_select(col(Player.display_name), col(Result.position), col(Result.tie_size), *cols)
        .join(Player, col(Player.id) == Result.player_id)
        .where(col(Result.event_id) == event_id)
    )
    keys = ("position", "tie_size", *_ZERO_COMPONENTS)
    points = [
        _points_of(row[0], dict(zip(keys, row[1:], strict=True))) for row in session.execute(query)
    ]
    return EventDetail(event=summary, points=_sort_points(points), record=dict(record))


def void_event(
    *,
    session: Session,
    league_id: int,
    event_id: int,
    reason: str,
    actor: str,
    now: dt.datetime | None = None,
) -> EventSummary:
    """Void an event: it stays on record but no longer counts in standings.

    Raises:
        StorageError: no reason given.
        NotFound: no such event.
        AlreadyExists: the event is void already.
    """
    text = " ".join(reason.split())
    if not text:
        raise StorageError("voiding an event needs a reason")
    row = session.get(Event, event_id)
    if row is None or row.league_id != league_id:
        raise NotFound(f"there is no event #{event_id}")
    if row.status == "void":
        raise AlreadyExists(f"event #{event_id} is void already ({row.void_reason})")
    row.status = "void"
    row.void_reason = text[:500]
    session.add(row)
    session.flush()
    session.execute(update(Result).where(col(Result.event_id) == event_id).values(is_counted=False))
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="event.void",
        target=f"event:{event_id}",
        before={"status": "active"},
        after={"status": "void", "reason": text},
        now=now,
    )
    return get_event(session=session, league_id=league_id, event_id=event_id).event


def parse_events(data: Any, *, rules: LeagueRules) -> list[EventRecord]:
    """Read the JSON import format: one event object, or a list of them.

    Raises:
        EventFormatError: naming the event (by its number in a list) and the row.
    """
    from rulings import EventFormatError

    items = data if isinstance(data, list) else [data]
    if not items:
        raise EventFormatError("the file holds no events")
    out = []
    for i, item in enumerate(items, start=1):
        try:
            out.append(parse_event(item, max_receipt_cents=rules.receipt_max_cents))
        except EventFormatError as exc:
            if len(items) == 1:
                raise
            raise EventFormatError(f"event {i}: {exc}") from None
    return out
