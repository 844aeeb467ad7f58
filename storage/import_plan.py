"""Planning an import: what each record does, decided and checked before anything is written.

A record is new (``imported``), the same as what is stored (``unchanged``), or replaces a
stored event (``corrected``, when the caller corrects). The plan also refuses what must not
be written: dates out of bounds or in the future, a night listed twice differently, results
naming a suspended player (3.B), a receipt counted already, names resembling known ones. Only
the seasons, locations and players the import names are created here (in the caller's
transaction), so a refusal still leaves the database as it was once the caller rolls back.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from sqlalchemy import bindparam, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from rulings import (
    SIMILAR_NAME_SCORE,
    EventFormatError,
    EventRecord,
    LeagueRules,
    canonical_record,
    check_awards,
    check_date,
    check_name,
    describe_suspension,
    name_key,
    similar_name,
    suspension_for_event,
)
from rulings import Strike as RulingsStrike
from storage.audit import add_audit_entry, utc_now
from storage.errors import (
    AlreadyExists,
    DuplicateReceiptError,
    EventConflictError,
    NotFound,
    StorageError,
    SuspendedPlayerError,
)
from storage.events import EventDetail, ImportStatus, content_hash, get_event
from storage.league_models import Event, Location, ReceiptAward, Season, Strike
from storage.league_state import read_league_state, seasons_and_locations
from storage.players import PlayerDirectory
from storage.seasons import make_current_season, mark_current_if_none

log = logging.getLogger(__name__)

WRITE_ROWS = 10_000
"""Rows built and written at a time (new players, results): a night of any size is stored
in chunks this size, all in the caller's transaction."""


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
    known: dict[str, tuple[int, str]] | None = None,
) -> dict[str, tuple[int, str]]:
    """Return name key -> (id, stored name), creating (and auditing) the names not seen before.

    ``known``: the league's rows as ``_named`` read them (read here when None).
    """
    known = dict(_named(session, table, league_id) if known is None else known)
    display = {key: name for key, (_, name) in known.items()}
    created: list[str] = []
    for name in names:
        key = name_key(name)
        if key in known or key in created:
            continue
        if confirmed is not True and (confirmed is False or key not in confirmed):
            hint = similar_name(key, display, SIMILAR_NAME_SCORE)
            if hint is not None:
                raise AlreadyExists(
                    f"the {what} '{name}' looks like the existing '{hint}'; use '{hint}' "
                    f"or confirm '{name}' is a new {what}"
                )
        row = table(league_id=league_id, name=check_name(name, what), name_key=key)
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
    return known


@dataclass
class PlannedEvent:
    """What one record of an import does (decided before anything is written).

    Attributes:
        status: What it does: ``imported``, ``unchanged`` or ``corrected``.
        old_id: The stored event it matches or replaces (None: a new one, or listed twice).
        record: The record, names resolved to their players' names.
        digest: Its ``content_hash``.
        season_id: Its season.
        location_id: Its location.
        unvoids: A correction that makes a void event count again.
    """

    status: ImportStatus
    old_id: int | None
    record: EventRecord
    digest: str
    season_id: int
    location_id: int
    unvoids: bool = False


def _follow_new_season(
    session: Session,
    league_id: int,
    records: Sequence[EventRecord],
    seasons: Mapping[str, int],
    known: Collection[str],
    has_current: bool,
) -> None:
    """Make a season the import creates current when it holds the league's latest night.

    Also when the league has no current season yet (``has_current``: it had one when the
    seasons were read); importing an old season's nights never moves the league back.
    """
    fresh = [r for r in records if name_key(r.season) not in known]
    if not fresh:
        if records and not has_current:
            first = seasons[name_key(records[0].season)]
            mark_current_if_none(session=session, league_id=league_id, season_id=first)
        return
    latest = max(fresh, key=lambda r: r.date)
    season_id = seasons[name_key(latest.season)]
    last = session.execute(
        sa_select(func.max(col(Event.date))).where(col(Event.league_id) == league_id)
    ).scalar_one()
    if last is None or latest.date > last:
        make_current_season(session=session, league_id=league_id, season_id=season_id)
    else:
        mark_current_if_none(session=session, league_id=league_id, season_id=season_id)


def describe_night(record: EventRecord) -> str:
    """Name a night in an error: ``2026-11-20 Brewpub (regular)``."""
    return f"{record.date.isoformat()} {record.location} ({record.kind})"


_AHEAD_OF_UTC = dt.timedelta(hours=14)
"""The furthest any time zone runs ahead of UTC (UTC+14): its today may be UTC's tomorrow."""


def check_played(day: dt.date, *, now: dt.datetime) -> dt.date:
    """Refuse a night that has not happened yet: its finish order cannot be known in advance.

    Today is today anywhere on Earth (storage does not know the league's time zone), so a
    league at UTC+13 records tonight's result while UTC is still on the day before.

    Raises:
        EventFormatError: a date after today, or before ``rulings.FIRST_DATE``.
    """
    today = (now + _AHEAD_OF_UTC).date()
    check_date(day, today=today)
    if day > today:
        raise EventFormatError(
            f"date: {day.isoformat()} has not happened yet; a result is recorded once the "
            "night is played"
        )
    return day


def _checked_records(
    records: Sequence[EventRecord], directory: PlayerDirectory, now: dt.datetime
) -> list[EventRecord]:
    """Bounds, players' names (aliases resolved) and awards to players of the event."""
    out = []
    for record in records:
        try:
            check_played(record.date, now=now)
            known = directory.known_names(record.participants())
            out.append(check_awards(canonical_record(record, known)))
        except EventFormatError as exc:
            if len(records) == 1:
                raise
            raise EventFormatError(f"event {describe_night(record)}: {exc}") from None
    return out


def check_suspensions(
    session: Session,
    league_id: int,
    rules: LeagueRules,
    find: Callable[[str], int | None],
    writes: Sequence[PlannedEvent],
    befores: Mapping[int, EventDetail],
    allow: bool | Collection[str],
) -> None:
    """Refuse results naming a suspended player (3.B) unless confirmed.

    A correction checks only the players it adds: the others were recorded (and confirmed)
    already. ``find``: a name's player id (None: a new player).
    """
    if allow is True:
        return
    confirmed = set() if allow is False else {name_key(n) for n in allow}
    wanted: dict[int, list[tuple[PlannedEvent, str]]] = {}
    for p in writes:
        earlier = (
            {name_key(x.player) for x in befores[p.old_id].points}
            if p.old_id is not None and p.old_id in befores
            else set()
        )
        for name in p.record.participants():
            key = name_key(name)
            pid = find(name)
            if pid is None or key in earlier or key in confirmed:
                continue
            wanted.setdefault(pid, []).append((p, name))
    if not wanted:
        return
    strikes = session.exec(
        select(Strike, Season.name)
        .join(Season, col(Season.id) == Strike.season_id)
        .where(Strike.league_id == league_id)
        .where(col(Strike.player_id).in_(list(wanted)))
    ).all()
    problems: list[str] = []
    suspended: list[str] = []
    for strike, season in strikes:
        day = strike.date or strike.at.date()
        for p, name in wanted[strike.player_id]:
            if p.record.date <= day:
                continue
            since = session.execute(
                sa_select(func.count())
                .select_from(Event)
                .where(col(Event.league_id) == league_id)
                .where(col(Event.status) == "active")
                .where(col(Event.kind) == "regular")
                .where(col(Event.date) > day)
                .where(col(Event.date) < p.record.date)
                .where(col(Event.id) != (p.old_id or 0))
            ).scalar_one()
            # Nights of this same import that come before count too (not stored yet, or void).
            since += sum(
                1
                for other in writes
                if (other.status == "imported" or other.unvoids)
                and other is not p
                and other.record.kind == "regular"
                and day < other.record.date < p.record.date
            )
            state = suspension_for_event(
                RulingsStrike(name, season, strike.level, strike.reason),
                strike_date=day,
                event_date=p.record.date,
                event_season=p.record.season,
                events_since=int(since),
                rules=rules,
            )
            if state is not None:
                problems.append(f"{describe_suspension(state, day)} on {describe_night(p.record)}")
                suspended.append(name)
    if problems:
        raise SuspendedPlayerError(
            "; ".join(problems) + "; confirm to record the result anyway", players=suspended
        )


def _check_receipt_refs(
    session: Session, writes: Sequence[PlannedEvent], replaced: Sequence[int]
) -> None:
    """Refuse a receipt reference counted already at its location (compared ignoring case)."""
    wanted: dict[tuple[int, str], str] = {}
    for p in writes:
        record = p.record
        for receipt in record.receipts:
            if receipt.ref is None:
                continue
            where = f"{receipt.player}, {record.date.isoformat()} at {record.location}"
            slot = (p.location_id, receipt.ref.lower())
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
        .where(func.lower(col(ReceiptAward.ref)).in_({ref for _, ref in wanted}))
    )
    if replaced:
        query = query.where(col(ReceiptAward.event_id).not_in(replaced))
    for lid, ref, day in session.exec(query):
        if ref is not None and (lid, ref.lower()) in wanted:
            raise DuplicateReceiptError(
                f"receipt {ref} ({wanted[(lid, ref.lower())]}) was already counted at that "
                f"location on {day.isoformat()}"
            )


@dataclass(frozen=True)
class ImportPlan:
    """What an import does, decided before anything but names is written.

    Attributes:
        events: One planned event per record, in the records' order.
        rules: The league's rules (to score the written events).
        directory: Every player name of the league, the import's new players included.
        befores: Each corrected event as it was stored, by id.
        at: The time of the import (UTC).
        season_names: The league's seasons' stored names by id (new ones included).
        location_names: The league's locations' stored names by id (new ones included).
    """

    events: tuple[PlannedEvent, ...]
    rules: LeagueRules
    directory: PlayerDirectory
    befores: Mapping[int, EventDetail]
    at: dt.datetime
    season_names: Mapping[int, str]
    location_names: Mapping[int, str]

    @property
    def writes(self) -> list[PlannedEvent]:
        """The planned events that write something (not ``unchanged``)."""
        return [p for p in self.events if p.status != "unchanged"]


def _stored_nights(
    session: Session, league_id: int, records: Sequence[EventRecord]
) -> tuple[dict[_Night, tuple[int, str]], dict[_Night, list[int]]]:
    """Return the active events (night -> id, content hash) and the void ones (night -> ids)."""
    active: dict[_Night, tuple[int, str]] = {}
    voided: dict[_Night, list[int]] = {}
    days = sorted({r.date for r in records})
    few = len(days) <= 500  # a filter on the nights of a batch; one scan beats a huge IN
    given: dict[str, Any] = {"league": league_id, "days": days} if few else {"league": league_id}
    for eid, sid, lid, day, kind, digest, status in session.execute(
        _NIGHTS_ON_DAYS if few else _NIGHTS, given
    ):
        if status == "active":
            active[(sid, lid, day, kind)] = (eid or 0, digest)
        else:
            voided.setdefault((sid, lid, day, kind), []).append(eid or 0)
    return active, voided


# Built once, the league and the days bound as parameters (a finish reads its one night).
_NIGHTS = (
    sa_select(
        col(Event.id),
        col(Event.season_id),
        col(Event.location_id),
        col(Event.date),
        col(Event.kind),
        col(Event.content_hash),
        col(Event.status),
    )
    .where(col(Event.league_id) == bindparam("league"))
    .order_by(col(Event.id))
)
_NIGHTS_ON_DAYS = _NIGHTS.where(col(Event.date).in_(bindparam("days", expanding=True)))


def place_records(
    session: Session,
    league_id: int,
    records: Sequence[EventRecord],
    *,
    confirmed: bool | set[str],
    actor: str,
    at: dt.datetime,
    stored: tuple[dict[str, tuple[int, str]], bool, dict[str, tuple[int, str]]] | None = None,
) -> tuple[dict[str, tuple[int, str]], dict[str, tuple[int, str]]]:
    """Find (or create, audited) the records' seasons and locations; follow a new season.

    ``stored``: the league's seasons, whether one is current, and its locations, when the
    caller has read them already (``read_league_state``); else they are read here.

    Returns:
        (season name key -> (id, name), location name key -> (id, name)), the league's all.

    Raises:
        AlreadyExists: a new season or location name resembles a known one.
    """
    # one read of the seasons (names, and whether one is current) and the locations
    stored_seasons, has_current, stored_locations = (
        stored if stored is not None else seasons_and_locations(session, league_id)
    )
    known_seasons = set(stored_seasons)
    seasons = _ensure_named(
        session,
        Season,
        league_id,
        [r.season for r in records],
        confirmed=confirmed,
        what="season",
        actor=actor,
        now=at,
        known=stored_seasons,
    )
    season_ids = {key: sid for key, (sid, _) in seasons.items()}
    _follow_new_season(session, league_id, records, season_ids, known_seasons, has_current)
    locations = _ensure_named(
        session,
        Location,
        league_id,
        [r.location for r in records],
        confirmed=confirmed,
        what="location",
        actor=actor,
        now=at,
        known=stored_locations,
    )
    return seasons, locations


_Night = tuple[int, int, dt.date, str]
Replacing = Literal["nothing", "stored", "void"]
"""What an import may replace: nothing (new nights only), stored events, or void ones too."""


def plan_import(
    records: Sequence[EventRecord],
    *,
    session: Session,
    league_id: int,
    actor: str,
    replacing: Replacing,
    void_id: int | None = None,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> ImportPlan:
    """Decide what each record does and check it; create the names it introduces.

    Args:
        records: Checked events (``rulings.parse_event`` or ``rulings.build_event``).
        session: The caller's unit of work; flushed, never committed.
        league_id: The league.
        actor: Who imports, for the audit log.
        replacing: ``nothing``: a night stored with other content is refused; ``stored``: a
            record replaces its stored night (and must have one); ``void``: as ``stored``, and
            a night stored only as a void event revives it.
        void_id: With ``void``: the void event to revive (default: the night's latest).
        now: The time of the import (UTC).
        allow_new: Confirms new players, seasons and locations whose names resemble known
            ones: True for all, or the names confirmed.
        allow_suspended: Records results naming a suspended player (3.B) anyway: True for
            all, or the players confirmed.

    Returns:
        The plan; ``storage.event_import`` writes it.

    Raises:
        See ``storage.event_import.import_events``.
    """
    at = utc_now(now)
    confirmed: bool | set[str] = (
        allow_new if isinstance(allow_new, bool) else {name_key(n) for n in allow_new}
    )
    # one read of the rules, the names of the players, the seasons and the locations; of the
    # players, only those the records name when no new one is compared with the league's
    # others (every name confirmed, as a finish confirms its night's): a read of the night's
    # size, not the league's
    named = {name_key(n) for r in records for n in r.participants()}
    compared = not (confirmed is True or (isinstance(confirmed, set) and named <= confirmed))
    rules, directory, stored_seasons, has_current, stored_locations = read_league_state(
        session, league_id, None if compared else named
    )
    records = _checked_records(records, directory, at)
    seasons, locations = place_records(
        session,
        league_id,
        records,
        confirmed=confirmed,
        actor=actor,
        at=at,
        stored=(stored_seasons, has_current, stored_locations),
    )
    active, voided = _stored_nights(session, league_id, records)
    plan: list[PlannedEvent] = []
    batch: dict[_Night, str] = {}
    for record in records:
        sid, lid = seasons[name_key(record.season)][0], locations[name_key(record.location)][0]
        night = (sid, lid, record.date, record.kind)
        digest = content_hash(record)
        where = describe_night(record)
        if night in batch:
            if batch[night] != digest:
                raise EventConflictError(f"the file lists the event {where} twice, differently")
            plan.append(PlannedEvent("unchanged", None, record, digest, sid, lid))
            continue
        batch[night] = digest
        if night in active:
            eid, stored = active[night]
            if stored == digest:
                plan.append(PlannedEvent("unchanged", eid, record, digest, sid, lid))
            elif replacing != "nothing":
                plan.append(PlannedEvent("corrected", eid, record, digest, sid, lid))
            else:
                raise EventConflictError(
                    f"the event {where} (#{eid}) is stored with other results; "
                    "use 'event correct' to replace it"
                )
        elif replacing != "nothing" and night in voided:
            ids = voided[night]
            if replacing != "void":
                raise StorageError(
                    f"the event {where} (#{ids[-1]}) is void; un-void it explicitly "
                    "(--unvoid, or unvoid:yes) to correct it and make it count again"
                )
            target = ids[-1] if void_id is None else void_id
            if target not in ids:
                raise NotFound(f"event #{target} is not a void event of {where}")
            plan.append(PlannedEvent("corrected", target, record, digest, sid, lid, unvoids=True))
        elif replacing != "nothing":
            raise NotFound(
                f"there is no stored event {where} to correct; check its date, location and "
                "kind (or use 'event import' for a new night)"
            )
        else:
            plan.append(PlannedEvent("imported", None, record, digest, sid, lid))

    writes = [p for p in plan if p.status != "unchanged"]
    corrected = [p.old_id for p in writes if p.status == "corrected" and p.old_id is not None]
    befores = {
        eid: get_event(session=session, league_id=league_id, event_id=eid) for eid in corrected
    }
    check_suspensions(session, league_id, rules, directory.find, writes, befores, allow_suspended)
    names = (n for p in writes for n in p.record.participants())
    while chunk := list(islice(names, WRITE_ROWS)):  # new players and their audit, in chunks
        directory.resolve(chunk, allow_new=allow_new, actor=actor, now=at)
    _check_receipt_refs(session, writes, corrected)
    return ImportPlan(
        tuple(plan),
        rules,
        directory,
        befores,
        at,
        dict(seasons.values()),
        dict(locations.values()),
    )
