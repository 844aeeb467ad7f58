"""Events as stored: their values, reading them (list, show), voiding one, the JSON format.

An event is identified by its season, location, date and kind. Storing events is the job of
``storage.import_plan`` (what an import does, decided before anything is written) and
``storage.event_import`` (writing it: a new night, a correction, an un-void); a re-score under
other rules is ``storage.rescore``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import bindparam, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from rulings import (
    EventFormatError,
    EventRecord,
    LeagueRules,
    check_id,
    name_key,
    parse_event,
)
from storage.audit import add_audit_entry
from storage.errors import AlreadyExists, NotFound, StorageError
from storage.event_points import COMPONENTS, POINT_COLUMNS
from storage.league_models import (
    Event,
    EventRecordPart,
    Location,
    Player,
    Result,
    Season,
    merge_part,
)

log = logging.getLogger(__name__)

ImportStatus = Literal["imported", "unchanged", "corrected"]


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


@dataclass(frozen=True, slots=True)
class PlayerPoints:
    """What one participant earned at one event (slots: a large night holds one a player)."""

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
    # A correction's effect: player -> (RP, BP) gained, negative when lost (changed ones only).
    changes: Mapping[str, tuple[int, int]] = field(default_factory=dict)


def _cents_text(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def record_to_dict(record: EventRecord) -> dict[str, Any]:
    """Return ``record`` in the JSON import format (``parse_event`` reads it back).

    The finish groups and ``played`` are the record's own tuples (JSON lists once serialised):
    a night of many players is not copied.
    """
    out: dict[str, Any] = {
        "season": record.season,
        "location": record.location,
        "date": record.date.isoformat(),
        "kind": record.kind,
        "finish": record.finish,
    }
    if record.played:
        out["played"] = record.played
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


def content_hash_text(record: EventRecord) -> str:
    """What ``content_hash`` digests, as text (``storage.csv_import`` digests a night in parts)."""
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
    return json.dumps(canonical, sort_keys=True, separators=(",", ":"))


def content_hash(record: EventRecord) -> str:
    """Return a digest of what the event says, blind to name case and listing order.

    Two imports of the same night (names typed in another case, ``played`` in another order)
    hash the same; any change of a position, award or amount changes the hash.
    """
    return hashlib.sha256(content_hash_text(record).encode()).hexdigest()


_NO_POINTS: Mapping[str, tuple[int, int]] = {}
"""The breakdown of everyone who earned nothing (most of a large night), shared: typed as a
read-only ``Mapping`` (a ``MappingProxyType`` would not pickle for a process pool)."""


def points_of(name: str, row: Mapping[str, Any]) -> PlayerPoints:
    """Return one player's points from a result row (``POINT_COLUMNS``, position, tie size)."""
    breakdown = {
        c: (int(row[f"{c}_rp"]), int(row[f"{c}_bp"]))
        for c in COMPONENTS
        if row[f"{c}_rp"] or row[f"{c}_bp"]
    }
    return PlayerPoints(
        player=name,
        position=row["position"],
        tie_size=int(row["tie_size"]),
        rp=int(row["rp"]),
        bp=int(row["bp"]),
        breakdown=breakdown or _NO_POINTS,
    )


def sort_points(points: list[PlayerPoints]) -> tuple[PlayerPoints, ...]:
    """Return players' points by finish position, then points, then name."""
    big = 1 << 30
    points.sort(key=lambda p: (p.position or big, -p.rp, -p.bp, p.player.casefold()))
    return tuple(points)


def points_changes(
    before: Sequence[PlayerPoints], after: Sequence[PlayerPoints]
) -> dict[str, tuple[int, int]]:
    """Return player -> (RP, BP) gained (negative: lost) between two scorings of an event."""
    old = {p.player: (p.rp, p.bp) for p in before}
    new = {p.player: (p.rp, p.bp) for p in after}
    out: dict[str, tuple[int, int]] = {}
    for name in [*old, *(n for n in new if n not in old)]:
        rp0, bp0 = old.get(name, (0, 0))
        rp1, bp1 = new.get(name, (0, 0))
        if (rp0, bp0) != (rp1, bp1):
            out[name] = (rp1 - rp0, bp1 - bp0)
    return out


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


def event_summaries(session: Session, league_id: int, ids: set[int]) -> dict[int, EventSummary]:
    """Return event id -> its summary, for ``ids`` (storage-internal)."""
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


_RECORD_PARTS = (
    sa_select(col(EventRecordPart.event_id), col(EventRecordPart.body))
    .where(col(EventRecordPart.event_id).in_(bindparam("ids", expanding=True)))
    .order_by(col(EventRecordPart.event_id), col(EventRecordPart.seq))
)


def merge_record_parts(session: Session, records: Mapping[int, dict[str, Any]]) -> None:
    """Complete events' records as read from ``Event.record`` (event id -> record), in place.

    A night streamed from a CSV keeps its finish groups in parts (``EventRecordPart``): each
    record becomes what one whole text would have held. Records without parts are untouched.
    """
    if not records:
        return
    for eid, body in session.execute(_RECORD_PARTS, {"ids": list(records)}):
        merge_part(records[eid], body)


def get_event(*, session: Session, league_id: int, event_id: int) -> EventDetail:
    """Return one event with every participant's points.

    Raises:
        EventFormatError: not an event number (beyond 64 bits).
        NotFound: no such event in this league.
    """
    check_id(event_id)
    found = session.execute(_summary_query(league_id).where(Event.id == event_id)).first()
    if found is None:
        raise NotFound(f"there is no event #{event_id}")
    summary = _summary(found)
    record = dict(session.exec(select(Event.record).where(Event.id == event_id)).one())
    merge_record_parts(session, {event_id: record})
    cols = [getattr(Result, c) for c in POINT_COLUMNS]
    query = (
        sa_select(col(Player.display_name), col(Result.position), col(Result.tie_size), *cols)
        .join(Player, col(Player.id) == Result.player_id)
        .where(col(Result.event_id) == event_id)
    )
    keys = ("position", "tie_size", *POINT_COLUMNS)
    points = [
        points_of(row[0], dict(zip(keys, row[1:], strict=True))) for row in session.execute(query)
    ]
    return EventDetail(event=summary, points=sort_points(points), record=record)


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
    check_id(event_id)
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


def with_season(item: Any, season: str | None) -> Any:
    """Return an event of the JSON import format with ``season`` filled in where it has none.

    A result without a season goes to the league's current season (as ``season add`` says);
    with no current season the record is left as it is and ``parse_event`` names the gap.
    """
    if season is None or not isinstance(item, dict):
        return item
    given = item.get("season")
    if given is None or (isinstance(given, str) and not given.strip()):
        return {**item, "season": season}
    return item


def parse_events(data: Any, *, rules: LeagueRules, season: str | None = None) -> list[EventRecord]:
    """Read the JSON import format: one event object, or a list of them.

    Args:
        data: The decoded JSON.
        rules: The league's rules (the largest receipt).
        season: The league's current season, for events that name none.

    Raises:
        EventFormatError: naming the event (by its number in a list) and the row.
    """
    items = data if isinstance(data, list) else [data]
    if not items:
        raise EventFormatError("the file holds no events")
    out = []
    for i, item in enumerate(items, start=1):
        try:
            out.append(
                parse_event(with_season(item, season), max_receipt_cents=rules.receipt_max_cents)
            )
        except EventFormatError as exc:
            if len(items) == 1:
                raise
            raise EventFormatError(f"event {i}: {exc}") from None
    return out
