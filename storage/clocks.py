"""Tournament clocks in the database: start, director actions, announcements made.

Functions take a keyword-only ``session``, may flush but never commit, and return
``ClockRecord`` values built from ``rulings`` objects. Every action is checked by
``rulings.ClockState.with_event`` before it is stored, so a refused action changes nothing.

Several bot instances may share the database. Each running clock has one owner (a lease:
``renew_leases``, ``adopt_expired_clocks``, ``release_leases``); claims are inserted with
``ON CONFLICT DO NOTHING``, so two instances racing for one announcement is a normal outcome
(one gets it) and never an error.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import delete, func, or_, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from rulings import (
    ClockAction,
    ClockError,
    ClockEvent,
    ClockState,
    load_structure,
)
from storage.clock_models import Clock, ClockAnnouncementRow, ClockEventRow
from storage.errors import AlreadyExists, NotFound

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClockRecord:
    """A stored clock.

    Attributes:
        id: the clock's id.
        guild_id: the Discord server.
        channel_id: the channel it announces in.
        ping_role_id: the role level and break announcements ping, if any.
        status_message_id: the live status message, once posted.
        created_by: the director who started it.
        state: the pure clock (structure, start, actions).
        announced: keys of the announcements already claimed (made, or being made).
        unsettled: the claimed keys whose post was never done with: claimed by a process that
            died (or is still posting them); a subset of ``announced``.
        unsettled_since: when each unsettled key was claimed.
        owner_id: the instance holding the clock's lease (None: nobody yet, or released).
        version: how many director actions were stored (a change counter other instances poll).
    """

    id: int
    guild_id: int
    channel_id: int
    ping_role_id: int | None
    status_message_id: int | None
    created_by: int
    state: ClockState
    announced: frozenset[str]
    unsettled: frozenset[str] = frozenset()
    unsettled_since: Mapping[str, dt.datetime] = field(default_factory=dict, compare=False)
    owner_id: str | None = None
    version: int = 0

    @property
    def is_ended(self) -> bool:
        """True once the clock was ended."""
        return self.state.is_ended


def utc(value: dt.datetime) -> dt.datetime:
    """The same instant in UTC; a naive value (SQLite gives those back) is taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def _aware(value: dt.datetime, what: str) -> dt.datetime:
    if value.tzinfo is None:
        raise ClockError(f"The {what} time must be timezone-aware.")
    return value.astimezone(dt.UTC)


def add_clock(
    *,
    session: Session,
    guild_id: int,
    channel_id: int,
    structure: str,
    started_at: dt.datetime,
    created_by: int,
    level_seconds: float | None = None,
    break_seconds: float | None = None,
    ping_role_id: int | None = None,
    warning_seconds: Sequence[float] = (60.0,),
    owner_id: str | None = None,
    lease_until: dt.datetime | None = None,
) -> ClockRecord:
    """Start a clock in a channel.

    Args:
        session: the unit of work.
        guild_id: the Discord server.
        channel_id: the channel; it may have only one running clock.
        structure: a preset name (``rulings.preset_names()``).
        started_at: when level 1 starts (timezone-aware).
        created_by: the director's Discord id.
        level_seconds: level length; the structure's default when None.
        break_seconds: break length; the structure's default when None.
        ping_role_id: the role to ping on level and break announcements.
        warning_seconds: warnings before the end of each level or break.
        owner_id: the instance that will run it (holds its lease until ``lease_until``).
        lease_until: when that lease runs out unless renewed.

    Returns:
        The new clock.

    Raises:
        AlreadyExists: a clock is already running in this channel.
        BlindStructureError: unknown structure.
        ClockError: a length out of range or a naive time.
    """
    preset = load_structure(structure)
    state = ClockState(
        structure=preset,
        started_at=_aware(started_at, "start"),
        level_seconds=preset.level_minutes * 60 if level_seconds is None else level_seconds,
        break_seconds=preset.break_minutes * 60 if break_seconds is None else break_seconds,
        warning_seconds=tuple(float(w) for w in warning_seconds),
    )
    if find_running_clock(session=session, channel_id=channel_id) is not None:
        raise AlreadyExists("A clock is already running in this channel; end it first.")
    row = Clock(
        guild_id=guild_id,
        channel_id=channel_id,
        structure=preset.name,
        level_seconds=state.level_seconds,
        break_seconds=state.break_seconds,
        warning_seconds=",".join(f"{w:g}" for w in state.warning_seconds),
        ping_role_id=ping_role_id,
        created_by=created_by,
        started_at=state.started_at,
        owner_id=owner_id,
        lease_expires_at=None if lease_until is None else _aware(lease_until, "lease"),
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    log.info("clock %s started in channel %s (%s)", row.id, channel_id, preset.name)
    return _record(row, [], [])


def get_clock(*, session: Session, clock_id: int) -> ClockRecord:
    """One clock by id.

    Raises:
        NotFound: no such clock.
    """
    row = session.get(Clock, clock_id)
    if row is None:
        raise NotFound(f"There is no clock {clock_id}.")
    return _load([row], session)[0]


def get_clocks(*, session: Session, clock_ids: Sequence[int]) -> list[ClockRecord]:
    """Several clocks by id in three queries (unknown ids are skipped), in id order."""
    if not clock_ids:
        return []
    rows = session.exec(select(Clock).where(col(Clock.id).in_(clock_ids)).order_by(col(Clock.id)))
    return _load(list(rows), session)


def find_running_clock(
    *, session: Session, channel_id: int, guild_id: int | None = None
) -> ClockRecord | None:
    """The running clock of a channel, or None (with ``guild_id``: only that server's)."""
    query = select(Clock).where(col(Clock.channel_id) == channel_id, col(Clock.ended_at).is_(None))
    if guild_id is not None:
        query = query.where(col(Clock.guild_id) == guild_id)
    row = session.execute(query).scalar_one_or_none()
    return None if row is None else _load([row], session)[0]


def get_running_clock(*, session: Session, channel_id: int) -> ClockRecord:
    """The running clock of a channel.

    Raises:
        NotFound: no clock is running there.
    """
    record = find_running_clock(session=session, channel_id=channel_id)
    if record is None:
        raise NotFound("No clock is running in this channel. Start one with /clock start.")
    return record


def get_clock_for_channel(
    *, session: Session, channel_id: int, guild_id: int | None = None
) -> ClockRecord:
    """The clock a command in ``channel_id`` means.

    The channel's running clock; failing that, with ``guild_id``, the server's only running
    clock (a director may run a clock that announces in another channel).

    Raises:
        NotFound: no such clock, or several run on the server and none in this channel.
    """
    record = find_running_clock(session=session, channel_id=channel_id)
    if record is not None:
        return record
    if guild_id is not None:
        rows = list(
            session.exec(
                select(Clock).where(col(Clock.guild_id) == guild_id, col(Clock.ended_at).is_(None))
            )
        )
        if len(rows) == 1:
            return _load(rows, session)[0]
        if rows:
            raise NotFound("Several clocks are running on this server; use the clock's channel.")
    raise NotFound("No clock is running in this channel. Start one with /clock start.")


def list_running_clocks(*, session: Session, guild_id: int | None = None) -> list[ClockRecord]:
    """Every clock not ended (on one server, with ``guild_id``), oldest first.

    Three queries whatever their number.
    """
    query = select(Clock).where(col(Clock.ended_at).is_(None))
    if guild_id is not None:
        query = query.where(col(Clock.guild_id) == guild_id)
    rows = session.execute(query.order_by(col(Clock.id))).scalars()
    return _load(list(rows), session)


def add_clock_event(
    *,
    session: Session,
    clock_id: int,
    action: ClockAction,
    at: dt.datetime,
    value: float = 0.0,
    user_id: int | None = None,
    guild_id: int | None = None,
) -> ClockRecord:
    """Store one director action after checking it against the clock's rules.

    Args:
        session: the unit of work.
        clock_id: the clock.
        action: what the director did.
        at: when (timezone-aware; not before the previous action).
        value: minutes, level number or ante chips, as ``rulings.ClockEvent`` says.
        user_id: the director's Discord id, for the record.
        guild_id: when given, the server the action comes from: a clock of another server is
            refused as not found.

    Returns:
        The clock with the action applied.

    Raises:
        NotFound: no such clock (on that server).
        ClockError: the action does not apply now (nothing is stored).
        BlindStructureError: an ante above the small blind (nothing is stored).
    """
    # The row lock orders actions taken at once through several instances (PostgreSQL); SQLite
    # has one writer anyway.
    row = session.get(Clock, clock_id, with_for_update=True)
    record = get_clock(session=session, clock_id=clock_id)  # NotFound without a row
    assert row is not None
    if guild_id is not None and row.guild_id != guild_id:
        raise NotFound("That clock is not running on this server.")
    event = ClockEvent(ClockAction(action), _aware(at, "action"), float(value))
    state = record.state.with_event(event)  # raises before anything is written
    seq = len(record.state.events)
    session.add(
        ClockEventRow(
            clock_id=clock_id,
            seq=seq,
            action=event.action.value,
            at=event.at,
            value=event.value,
            user_id=user_id,
        )
    )
    if event.action is ClockAction.END:
        row.ended_at = event.at
    row.version = (row.version or 0) + 1  # the owner polls this to see the action
    session.add(row)
    session.flush()
    return replace(record, state=state, version=row.version)


def record_announcements(
    *, session: Session, clock_id: int, keys: Iterable[str], at: dt.datetime
) -> list[str]:
    """Claim announcements (record them as made); call it before posting them.

    A claim stays unsettled until ``settle_announcements`` says the post was done with.

    Args:
        session: the unit of work.
        clock_id: the clock.
        keys: announcement keys, in posting order.
        at: when they are recorded.

    Returns:
        The keys that were not recorded before, in the given order; only those may be posted.
    """
    return record_many_announcements(session=session, keys={clock_id: keys}, at=at)[clock_id]


def record_many_announcements(
    *, session: Session, keys: Mapping[int, Iterable[str]], at: dt.datetime
) -> dict[int, list[str]]:
    """``record_announcements`` for several clocks in two statements (due at the same moment).

    Args:
        session: the unit of work.
        keys: announcement keys per clock id, in posting order.
        at: when they are recorded.

    Returns:
        Per clock, the keys not recorded before, in the given order.
    """
    wanted = {clock_id: list(dict.fromkeys(ks)) for clock_id, ks in keys.items()}
    all_keys = {k for ks in wanted.values() for k in ks}
    if not all_keys:
        return {clock_id: [] for clock_id in wanted}
    query = select(col(ClockAnnouncementRow.clock_id), col(ClockAnnouncementRow.key)).where(
        col(ClockAnnouncementRow.clock_id).in_(list(wanted)),
        col(ClockAnnouncementRow.key).in_(all_keys),
    )
    existing = {(cid, key) for cid, key in session.execute(query)}
    made_at = _aware(at, "announcement")
    rows = [
        {"clock_id": cid, "key": k, "made_at": made_at}
        for cid, ks in wanted.items()
        for k in ks
        if (cid, k) not in existing
    ]
    inserted: set[tuple[int, str]] = set()
    for start in range(0, len(rows), 500):  # bounded statements, whatever the batch
        inserted.update(_insert_new(session, rows[start : start + 500]))
    return {cid: [k for k in ks if (cid, k) in inserted] for cid, ks in wanted.items()}


def _insert_new(session: Session, rows: list[dict[str, Any]]) -> set[tuple[int, str]]:
    """Insert claim rows, skipping those another instance inserted first; the ones inserted."""
    table: Any = ClockAnnouncementRow.__table__  # type: ignore[attr-defined]
    insert_fn: Any = (
        postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    )
    statement = (
        insert_fn(table)
        .values(rows)
        .on_conflict_do_nothing(index_elements=["clock_id", "key"])
        .returning(table.c.clock_id, table.c.key)
    )
    return {(int(cid), str(key)) for cid, key in session.execute(statement)}


def settle_announcements(
    *, session: Session, keys: Mapping[int, Iterable[str]], at: dt.datetime
) -> int:
    """Mark claimed announcements as done with: posted, given up, or covered by a catch-up.

    Args:
        session: the unit of work.
        keys: claimed announcement keys per clock id.
        at: when (timezone-aware).

    Returns:
        How many claims were settled now (already settled or unknown keys are skipped).
    """
    pairs = [(cid, k) for cid, ks in keys.items() for k in dict.fromkeys(ks)]
    if not pairs:
        return 0
    settled_at = _aware(at, "settle")
    count = 0
    for start in range(0, len(pairs), 500):  # bounded statements, whatever the batch
        match = tuple_(col(ClockAnnouncementRow.clock_id), col(ClockAnnouncementRow.key))
        result = session.execute(
            update(ClockAnnouncementRow)
            .where(match.in_(pairs[start : start + 500]))
            .where(col(ClockAnnouncementRow.settled_at).is_(None))
            .values(settled_at=settled_at)
            .execution_options(synchronize_session=False)
        )
        count += int(getattr(result, "rowcount", 0) or 0)
    return count


def withdraw_announcements(*, session: Session, keys: Mapping[int, Iterable[str]]) -> int:
    """Take back claims never posted (made ahead by an instance that stops): unsettled only.

    Returns:
        How many claims were withdrawn.
    """
    pairs = [(cid, k) for cid, ks in keys.items() for k in dict.fromkeys(ks)]
    count = 0
    for start in range(0, len(pairs), 500):  # bounded statements, whatever the batch
        match = tuple_(col(ClockAnnouncementRow.clock_id), col(ClockAnnouncementRow.key))
        result = session.execute(
            delete(ClockAnnouncementRow)
            .where(match.in_(pairs[start : start + 500]))
            .where(col(ClockAnnouncementRow.settled_at).is_(None))
            .execution_options(synchronize_session=False)
        )
        count += int(getattr(result, "rowcount", 0) or 0)
    return count


def renew_leases(
    *, session: Session, owner_id: str, until: dt.datetime, clock_ids: Sequence[int] | None = None
) -> set[int]:
    """Extend ``owner_id``'s leases (on ``clock_ids`` only, when given) to ``until``.

    On PostgreSQL the rows stay locked until the transaction ends, so an instance adopting
    them waits and then sees the renewed lease: a claim made in the same transaction is fenced.

    Returns:
        The ids of the clocks ``owner_id`` still owns (of those asked about).
    """
    query = update(Clock).where(col(Clock.owner_id) == owner_id)
    if clock_ids is not None:
        if not clock_ids:
            return set()
        query = query.where(col(Clock.id).in_(list(clock_ids)))
    result = session.execute(
        query.values(lease_expires_at=_aware(until, "lease"))
        .returning(col(Clock.id))
        .execution_options(synchronize_session=False)
    )
    return {int(i) for (i,) in result}


def adopt_expired_clocks(
    *,
    session: Session,
    owner_id: str,
    now: dt.datetime,
    until: dt.datetime,
    dead_owners: Sequence[str] = (),
) -> set[int]:
    """Take over every running clock with no owner or whose owner's lease ran out.

    One ``UPDATE``: two instances adopting at once never both get a clock (the second sees
    the first one's fresh lease).

    Args:
        session: the unit of work.
        owner_id: the adopting instance.
        now: the time leases are compared with.
        until: the adopted clocks' new lease.
        dead_owners: owners known to be dead although their lease runs (a process of this
            machine that is gone): their clocks are adopted at once.

    Returns:
        The ids of the clocks adopted now.
    """
    now = _aware(now, "lease")
    orphaned = [col(Clock.owner_id).is_(None), col(Clock.lease_expires_at) < now]
    if dead_owners:
        orphaned.append(col(Clock.owner_id).in_(list(dead_owners)))
    result = session.execute(
        update(Clock)
        .where(col(Clock.ended_at).is_(None), or_(*orphaned))
        .values(owner_id=owner_id, lease_expires_at=_aware(until, "lease"))
        .returning(col(Clock.id))
        .execution_options(synchronize_session=False)
    )
    adopted = {int(i) for (i,) in result}
    if adopted:
        log.info("instance %s adopted clocks %s", owner_id, sorted(adopted))
    return adopted


def release_leases(*, session: Session, owner_id: str) -> int:
    """Give up ``owner_id``'s clocks (a clean shutdown): another instance adopts them at once.

    Returns:
        How many running clocks were released.
    """
    result = session.execute(
        update(Clock)
        .where(col(Clock.owner_id) == owner_id, col(Clock.ended_at).is_(None))
        .values(owner_id=None, lease_expires_at=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def list_owners(*, session: Session) -> set[str]:
    """The owners of the running clocks (to spot a dead process's among them)."""
    rows = session.execute(
        select(col(Clock.owner_id))
        .where(col(Clock.ended_at).is_(None), col(Clock.owner_id).is_not(None))
        .distinct()
    )
    return {str(owner) for (owner,) in rows}


def list_owned_versions(*, session: Session, owner_id: str) -> dict[int, int]:
    """Per clock ``owner_id`` owns (running or ended), its change counter (one cheap query)."""
    rows = session.execute(
        select(col(Clock.id), col(Clock.version)).where(col(Clock.owner_id) == owner_id)
    )
    return {int(i): int(v) for i, v in rows}


def set_status_message(*, session: Session, clock_id: int, message_id: int | None) -> None:
    """Remember (or forget, with None) the clock's live status message.

    Raises:
        NotFound: no such clock.
    """
    row = session.get(Clock, clock_id)
    if row is None:
        raise NotFound(f"There is no clock {clock_id}.")
    row.status_message_id = message_id
    session.add(row)
    session.flush()


def count_announcements(*, session: Session, clock_id: int) -> int:
    """How many announcements a clock has recorded (for tests and health checks)."""
    query = select(func.count()).where(col(ClockAnnouncementRow.clock_id) == clock_id)
    return int(session.execute(query).scalar_one())


def _load(rows: list[Clock], session: Session) -> list[ClockRecord]:
    ids = [r.id for r in rows]
    if not ids:
        return []
    events: dict[int, list[ClockEventRow]] = {i: [] for i in ids if i is not None}
    for ev in session.execute(
        select(ClockEventRow)
        .where(col(ClockEventRow.clock_id).in_(ids))
        .order_by(col(ClockEventRow.clock_id), col(ClockEventRow.seq))
    ).scalars():
        events[ev.clock_id].append(ev)
    made: dict[int, list[str]] = {i: [] for i in ids if i is not None}
    unsettled: dict[int, dict[str, dt.datetime]] = {i: {} for i in ids if i is not None}
    for clock_id, key, made_at, settled_at in session.execute(
        select(
            col(ClockAnnouncementRow.clock_id),
            col(ClockAnnouncementRow.key),
            col(ClockAnnouncementRow.made_at),
            col(ClockAnnouncementRow.settled_at),
        ).where(col(ClockAnnouncementRow.clock_id).in_(ids))
    ):
        made[clock_id].append(key)
        if settled_at is None:
            unsettled[clock_id][key] = utc(made_at)
    return [_record(r, events[r.id], made[r.id], unsettled[r.id]) for r in rows if r.id is not None]


def _record(
    row: Clock,
    events: list[ClockEventRow],
    made: list[str],
    unsettled: Mapping[str, dt.datetime] | None = None,
) -> ClockRecord:
    assert row.id is not None
    state = ClockState(
        structure=load_structure(row.structure),
        started_at=utc(row.started_at),
        level_seconds=row.level_seconds,
        break_seconds=row.break_seconds,
        events=tuple(ClockEvent(ClockAction(e.action), utc(e.at), e.value) for e in events),
        warning_seconds=tuple(float(w) for w in row.warning_seconds.split(",") if w),
    )
    return ClockRecord(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        ping_role_id=row.ping_role_id,
        status_message_id=row.status_message_id,
        created_by=row.created_by,
        state=state,
        announced=frozenset(made),
        unsettled=frozenset(unsettled or ()),
        unsettled_since=dict(unsettled or {}),
        owner_id=row.owner_id,
        version=row.version or 0,
    )
