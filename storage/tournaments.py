"""Tournament nights in the database: open one, append decided entries, undo, finish.

Functions take a keyword-only ``session``, may flush but never commit, and return
``TournamentRecord`` values holding a ``rulings.Night``. The rules decide each entry
(``rulings.sign_in``, ``rulings.bust_players``, ...) on the night read here; ``add_entry``
stores it, refreshes the chart snapshot and writes the audit entry in the same transaction, so
a refused action (the rules raise before anything is stored) changes nothing. Two instances
acting on the same night at once cannot both win: the write checks the night's ``seq`` is the
one it read and refuses otherwise (nothing written, "try again"). Every load checks the
snapshot against its log and rebuilds it from the log when it is not the log's
(``storage.night_snapshot``).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from rulings import (
    SIMILAR_NAME_SCORE,
    ClockAction,
    Entry,
    LateEntry,
    Night,
    Room,
    SignedIn,
    check_name,
    entry_from_data,
    entry_to_data,
    format_seconds,
    name_key,
    open_night,
    position_at,
    room_from_data,
    room_to_data,
    similar_name,
    snapshot_to_data,
    undo_last,
)
from storage.audit import add_audit_entry, utc_now
from storage.clocks import add_clock_event, find_running_clock, utc
from storage.errors import AlreadyExists, DuplicatePlayerError, NotFound
from storage.league_models import League
from storage.night_snapshot import (
    current_chart,
    loaded,
    save_entry,
    save_snapshot,
    snapshot_columns,
)
from storage.players import PlayerDirectory
from storage.tournament_models import Tournament, TournamentEntryRow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TournamentRecord:
    """A stored night.

    Attributes:
        id: the tournament's id.
        league_id: its league.
        channel_id: the channel it runs in (the console has a fixed one).
        night: the room, the chart and (when loaded ``with_log``) the live log.
        seq: the night's version: one more for every entry written or undone (an entry is
            numbered with the version it made).
        event_id: the stored event, once finished.
        created_by: who opened it.
        created_at: when.
        finished_at: when it finished, or None.
    """

    id: int
    league_id: int
    channel_id: int
    night: Night
    seq: int
    event_id: int | None
    created_by: str
    created_at: dt.datetime
    finished_at: dt.datetime | None

    @property
    def target(self) -> str:
        """Its name in the audit log."""
        return f"tournament {self.id}"


@dataclass(frozen=True)
class LoggedEntry:
    """One entry of a night's log as stored."""

    seq: int
    entry: Entry
    actor: str
    at: dt.datetime
    undone_at: dt.datetime | None


def _live_entries(session: Session, tournament_id: int) -> list[Entry]:
    rows = session.exec(
        select(TournamentEntryRow)
        .where(TournamentEntryRow.tournament_id == tournament_id)
        .where(col(TournamentEntryRow.undone_at).is_(None))
        .order_by(col(TournamentEntryRow.seq))
    )
    return [entry_from_data(r.data) for r in rows]


def _record(session: Session, row: Tournament, logged: int, *, with_log: bool) -> TournamentRecord:
    room = room_from_data(row.room)
    chart, seq = current_chart(session, row, logged)
    log_entries = tuple(_live_entries(session, row.id or 0)) if with_log else ()
    night = Night(room, chart, log_entries)
    return TournamentRecord(
        id=row.id or 0,
        league_id=row.league_id,
        channel_id=row.channel_id,
        night=night,
        seq=seq,
        event_id=row.event_id,
        created_by=row.created_by,
        created_at=utc(row.created_at),
        finished_at=utc(row.finished_at) if row.finished_at else None,
    )


def open_tournament(
    *,
    session: Session,
    league_id: int,
    channel_id: int,
    room: Room,
    actor: str,
    now: dt.datetime | None = None,
) -> TournamentRecord:
    """Open tonight's tournament in a channel.

    Raises:
        AlreadyExists: a tournament is open in the channel already.
    """
    at = utc_now(now)
    if find_open_tournament(session=session, channel_id=channel_id) is not None:
        raise AlreadyExists(
            "a tournament is already open in this channel; /tournament finish ends it"
        )
    night = open_night(room)
    row = Tournament(
        league_id=league_id,
        channel_id=channel_id,
        status=night.chart.status,
        room=room_to_data(room),
        chart=snapshot_to_data(night.chart, 0),
        seq=0,
        created_by=actor[:100],
        created_at=at,
    )
    session.add(row)
    session.flush()
    record = _record(session, row, 0, with_log=True)
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="tournament open",
        target=record.target,
        after=room_to_data(room),
        now=at,
    )
    return record


def _of_guild(guild_id: int) -> Any:
    """The condition that a tournament is of the server's own league."""
    return col(Tournament.league_id).in_(select(League.id).where(League.guild_id == guild_id))


def _open_row(
    session: Session, channel_id: int, *, for_update: bool = False, guild_id: int | None = None
) -> tuple[Tournament, int] | None:
    query = (
        select(Tournament)
        .where(Tournament.channel_id == channel_id)
        .where(col(Tournament.finished_at).is_(None))
    )
    if guild_id is not None:  # only the server's own league's night (a forged id finds none)
        query = query.where(_of_guild(guild_id))
    if for_update:
        query = query.with_for_update(of=Tournament)
    found = session.execute(loaded(query)).first()
    return None if found is None else (found[0], found[1])


def find_open_tournament(
    *, session: Session, channel_id: int, with_log: bool = False, guild_id: int | None = None
) -> TournamentRecord | None:
    """The tournament open in a channel, or None (with ``guild_id``: only that server's)."""
    found = _open_row(session, channel_id, guild_id=guild_id)
    return None if found is None else _record(session, *found, with_log=with_log)


def get_open_tournament(
    *,
    session: Session,
    channel_id: int,
    with_log: bool = False,
    for_update: bool = False,
    guild_id: int | None = None,
) -> TournamentRecord:
    """The tournament open in a channel.

    Args:
        session: the unit of work.
        channel_id: the channel.
        with_log: load the live log too (undo needs it).
        for_update: lock the row until the transaction ends (PostgreSQL).
        guild_id: the Discord server asking: a night of another server's league is not found
            (an interaction naming one server and another's channel changes nothing).

    Raises:
        NotFound: no tournament (of the server's league) is open there.
    """
    found = _open_row(session, channel_id, for_update=for_update, guild_id=guild_id)
    if found is None:
        raise NotFound("no tournament is open in this channel; /tournament open starts one")
    return _record(session, *found, with_log=with_log)


def get_tournament(*, session: Session, tournament_id: int) -> TournamentRecord:
    """A tournament by its id, open or finished.

    Raises:
        NotFound: there is no such tournament.
    """
    found = session.execute(
        loaded(select(Tournament).where(Tournament.id == tournament_id))
    ).first()
    if found is None:
        raise NotFound("that tournament no longer exists")
    return _record(session, *found, with_log=False)


def list_open_tournaments(*, session: Session, league_id: int) -> list[TournamentRecord]:
    """The league's tournaments open now (one per channel), oldest first."""
    rows = session.execute(
        loaded(
            select(Tournament)
            .where(Tournament.league_id == league_id)
            .where(col(Tournament.finished_at).is_(None))
            .order_by(col(Tournament.id))
        )
    ).all()
    return [_record(session, row, logged, with_log=False) for row, logged in rows]


def signed_in_name(*, session: Session, tournament_id: int, seq: int) -> str:
    """The player a sign-in entry of a night signed in (taken back or not).

    Raises:
        NotFound: the night has no sign-in with that number.
    """
    row = session.get(TournamentEntryRow, (tournament_id, seq))
    entry = entry_from_data(row.data) if row is not None else None
    if not isinstance(entry, SignedIn):
        raise NotFound("that sign-in no longer exists")
    return entry.player.name


def latest_tournament(
    *, session: Session, league_id: int, channel_id: int | None = None
) -> TournamentRecord:
    """The open tournament of a league (or channel), else the last one that finished.

    Raises:
        NotFound: the league has had no tournament.
    """
    query = select(Tournament).where(Tournament.league_id == league_id)
    if channel_id is not None:
        query = query.where(Tournament.channel_id == channel_id)
    query = query.order_by(col(Tournament.finished_at).is_not(None), col(Tournament.id).desc())
    found = session.execute(loaded(query)).first()
    if found is None:
        raise NotFound("there has been no tournament yet; /tournament open starts one")
    return _record(session, *found, with_log=False)


def add_entry(
    *,
    session: Session,
    record: TournamentRecord,
    night: Night,
    entry: Entry,
    actor: str,
    now: dt.datetime | None = None,
    event_id: int | None = None,
    audit_first: list[dict[str, Any]] | None = None,
) -> TournamentRecord:
    """Store one decided entry and the night it led to, with its audit entry.

    Args:
        session: the unit of work.
        record: the night as read (its ``seq`` must still be the stored one).
        night: the night after ``entry`` (``record.night`` with ``entry`` applied).
        entry: what was decided.
        actor: who did it.
        now: when (UTC).
        event_id: the stored event, when ``entry`` finishes the night.
        audit_first: audit rows of the same write held so far (``storage.audit.holding_audit``:
            the finish's event), stored before the entry's own in the same statement; the
            list is emptied.

    Returns:
        The stored night.

    Raises:
        TournamentError: someone else wrote to the night since it was read.
    """
    at = utc_now(now)
    data = entry_to_data(entry)
    seq = record.seq + 1
    extra: dict[str, Any] = {}
    if night.chart.status == "finished":
        extra = {"finished_at": at, "event_id": event_id}
    logged = {
        "tournament_id": record.id,
        "seq": seq,
        "kind": data["kind"],
        "data": data,
        "actor": actor[:100],
        "at": at,
    }
    audited = {
        "league_id": record.league_id,
        "actor": actor,
        "at": at,
        "action": f"tournament {data['kind']}",
        "target": record.target,
        "before": None,
        "after": data,
    }
    audit = [*(audit_first or ()), audited]
    if audit_first:
        audit_first.clear()
    save_entry(session, record.id, record.seq, snapshot_columns(night, seq, extra), logged, audit)
    if extra:
        return replace(record, night=night, seq=seq, event_id=event_id, finished_at=at)
    return replace(record, night=night, seq=seq)


def undo_entry(
    *, session: Session, record: TournamentRecord, actor: str, now: dt.datetime | None = None
) -> tuple[TournamentRecord, Entry]:
    """Take back the last live entry: marked undone (kept), the chart replayed without it.

    Args:
        session: the unit of work.
        record: the night, loaded ``with_log``.
        actor: who undoes.
        now: when (UTC).

    Returns:
        The night after the undo and the entry taken back.

    Raises:
        TournamentError: nothing the rules let undo (see ``rulings.undo_last``).
    """
    at = utc_now(now)
    night, undone = undo_last(record.night)
    last = session.exec(
        select(TournamentEntryRow)
        .where(TournamentEntryRow.tournament_id == record.id)
        .where(col(TournamentEntryRow.undone_at).is_(None))
        .order_by(col(TournamentEntryRow.seq).desc())
    ).first()
    assert last is not None  # undo_last found an entry in the same log
    save_snapshot(session, record.id, record.seq, snapshot_columns(night, record.seq + 1))
    last.undone_at = at
    session.add(last)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=record.league_id,
        actor=actor,
        action="tournament undo",
        target=record.target,
        before=last.data,
        after={"undone": last.seq},
        now=at,
    )
    return replace(record, night=night, seq=record.seq + 1), undone


def list_entries(*, session: Session, tournament_id: int) -> list[LoggedEntry]:
    """The whole log of a night, undone entries included, oldest first."""
    rows = session.exec(
        select(TournamentEntryRow)
        .where(TournamentEntryRow.tournament_id == tournament_id)
        .order_by(col(TournamentEntryRow.seq))
    )
    return [
        LoggedEntry(
            r.seq,
            entry_from_data(r.data),
            r.actor,
            utc(r.at),
            utc(r.undone_at) if r.undone_at else None,
        )
        for r in rows
    ]


# -- what a sign-in and a late sign-in need to know ------------------------------------------


def signin_name(*, session: Session, league_id: int, name: str, confirmed: bool = False) -> str:
    """The league's spelling of a player signing in (an alias gives its player's name).

    Args:
        session: the unit of work.
        league_id: the league.
        name: as typed.
        confirmed: the director says he is a new player (a name close to a known one is
            then taken as it is).

    Returns:
        The known player's display name, or the new name with spaces collapsed.

    Raises:
        DuplicatePlayerError: a new name resembles a known player's (nothing written).
        StorageError: an empty or over-long name.
    """
    display = check_name(name, "player name")
    directory = PlayerDirectory(session, league_id)
    key = name_key(display)
    if key in directory.display:
        return directory.display[key]
    if not confirmed:
        hint = similar_name(key, directory.display, SIMILAR_NAME_SCORE)
        if hint is not None:
            raise DuplicatePlayerError(display, hint)
    return display


def late_entry_for(
    *,
    session: Session,
    channel_id: int,
    now: dt.datetime,
    big_blind: int | None = None,
    guild_id: int | None = None,
) -> LateEntry:
    """What the channel's running clock says about a late sign-in (1.E.d).

    The big blind is the one of the level being played (during a break, of the level that
    follows it); the director's ``big_blind`` wins when given (no clock, or a correction).
    Late registration is closed once the clock is past its structure's late-registration
    step (the end of the first break at BTown). With ``guild_id`` only that server's clock.
    """
    clock = find_running_clock(session=session, channel_id=channel_id, guild_id=guild_id)
    if clock is None:
        return LateEntry(big_blind=big_blind)
    position = position_at(clock.state, now)
    level = position.level or position.next_level
    clock_blind = level.big_blind if level is not None else None
    closed = position.is_late_registration_open is False
    return LateEntry(big_blind=big_blind or clock_blind, is_closed=closed)


def clock_summary(
    *, session: Session, channel_id: int, now: dt.datetime, guild_id: int | None = None
) -> str | None:
    """The channel's running clock (with ``guild_id``: the server's) in one line, or None."""
    clock = find_running_clock(session=session, channel_id=channel_id, guild_id=guild_id)
    if clock is None:
        return None
    position = position_at(clock.state, now)
    text = position.summary
    if position.next_break is not None and position.seconds_to_break is not None:
        text += f"; next break in {format_seconds(position.seconds_to_break)}"
    return text


def pause_for_redraw(
    *, session: Session, channel_id: int, now: dt.datetime, guild_id: int | None = None
) -> int | None:
    """Pause the channel's running clock for a button redraw (2.D.d), in the caller's unit.

    Returns:
        The clock's id when it was paused here; None without a running clock (of the server
        ``guild_id``, when given) or when it is paused already.
    """
    clock = find_running_clock(session=session, channel_id=channel_id, guild_id=guild_id)
    if clock is None or position_at(clock.state, now).is_paused:
        return None
    add_clock_event(session=session, clock_id=clock.id, action=ClockAction.PAUSE, at=now)
    return clock.id


def check_channel_guild(*, session: Session, channel_id: int, guild_id: int) -> None:
    """Refuse a server acting in a channel where another server's league runs a night.

    Raises:
        NotFound: the channel's open tournament belongs to another server's league.
    """
    if (
        _open_row(session, channel_id) is not None
        and _open_row(session, channel_id, guild_id=guild_id) is None
    ):
        raise NotFound("that channel is not one of this server's")


def tournament_status_line(*, session: Session, channel_id: int) -> str | None:
    """One line for the clock's live status message while a tournament runs in the channel.

    Returns:
        ``"Tournament: 37 players left, average stack 24,324"``, or None when no tournament
        is open there.
    """
    record = find_open_tournament(session=session, channel_id=channel_id)
    if record is None:
        return None
    chart = record.night.chart
    left = f"{chart.remaining} player{'' if chart.remaining == 1 else 's'} left"
    return f"Tournament: {left}, average stack {chart.average_stack:,}"


def tournament_status_lines(
    *, session: Session, channel_ids: Sequence[int]
) -> dict[int, str | None]:
    """``tournament_status_line`` of several channels: one read finds the channels with a night.

    200 clocks starting or refreshing together mostly run with no tournament open beside them.
    """
    ids = list(channel_ids)
    open_in = set(
        session.execute(
            select(Tournament.channel_id).where(
                col(Tournament.channel_id).in_(ids), col(Tournament.finished_at).is_(None)
            )
        ).scalars()
    )
    return {
        c: tournament_status_line(session=session, channel_id=c) if c in open_in else None
        for c in ids
    }


def night_thread(*, session: Session, tournament_id: int, guild_id: int) -> int | None:
    """The Discord thread of a night (``/td settings night_thread on``), or None before its first.

    Raises:
        NotFound: the server has no such tournament (a night is only ever its own server's).
    """
    row = _guild_tournament(session, tournament_id, guild_id)
    return row.thread_id


def claim_night_thread(
    *, session: Session, tournament_id: int, guild_id: int, thread_id: int
) -> int:
    """Keep ``thread_id`` as the night's thread unless another instance kept one first.

    Returns:
        The night's thread: ``thread_id``, or the one stored before it (the caller then deletes
        its own, so a night has one thread however many instances raced to make it).
    """
    _guild_tournament(session, tournament_id, guild_id)
    session.execute(
        update(Tournament)
        .where(col(Tournament.id) == tournament_id, col(Tournament.thread_id).is_(None))
        .values(thread_id=thread_id)
    )
    kept = session.exec(select(Tournament.thread_id).where(Tournament.id == tournament_id)).one()
    assert kept is not None
    return kept


def _guild_tournament(session: Session, tournament_id: int, guild_id: int) -> Tournament:
    row = session.exec(
        select(Tournament).where(Tournament.id == tournament_id, _of_guild(guild_id))
    ).first()
    if row is None:
        raise NotFound(f"tournament {tournament_id} is not this server's")
    return row
