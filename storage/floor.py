"""Floor calls and the league's rulings: store a call, answer it, list and count rulings.

``add_floor_call`` numbers calls per league from 1; ``add_ruling`` answers one (audited with
its citation and who gave it; a second ruling on a call amends the first);
``list_rulings`` is ``/rulings`` and the web's ``/rulings``; ``rulings_citing`` is the one
query ``/rule`` makes under a passage; ``rulings_by_section`` is a rulebook page's.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from storage.audit import add_audit_entry, utc_now
from storage.errors import DatabaseBusyError, NotFound
from storage.floor_models import FloorCall, FloorRuling
from storage.league_models import League
from storage.light import DEFAULT_LEAGUE

log = logging.getLogger(__name__)

NUMBER_TRIES = 5
"""How often a call retries its number when another process took it at the same moment."""


@dataclass(frozen=True)
class Suggestion:
    """A rule ``/rule`` found for a call's note."""

    book: str
    section: str
    title: str


@dataclass(frozen=True)
class CallInfo:
    """A floor call as stored."""

    id: int
    number: int
    caller: str
    table: int | None
    seat: int | None
    note: str
    suggestions: tuple[Suggestion, ...]
    called_at: dt.datetime
    channel_id: int | None = None
    message_id: int | None = None
    thread_id: int | None = None


@dataclass(frozen=True)
class RulingInfo:
    """A ruling on a floor call, with the call it answers."""

    id: int
    number: int
    note: str
    caller: str
    decision: str
    book: str | None
    section: str | None
    given_by: str
    given_at: dt.datetime
    amended: bool = False


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _call(row: FloorCall) -> CallInfo:
    return CallInfo(
        id=row.id or 0,
        number=row.number,
        caller=row.caller,
        table=row.table_no,
        seat=row.seat_no,
        note=row.note,
        suggestions=tuple(Suggestion(str(b), str(s), str(t)) for b, s, t in row.suggestions),
        called_at=_aware(row.called_at),
        channel_id=row.channel_id,
        message_id=row.message_id,
        thread_id=row.thread_id,
    )


def add_floor_call(
    *,
    session: Session,
    league_id: int,
    caller: str,
    note: str,
    actor: str,
    table: int | None = None,
    seat: int | None = None,
    suggestions: Sequence[Suggestion] = (),
    discord_id: int | None = None,
    channel_id: int | None = None,
    now: dt.datetime | None = None,
) -> CallInfo:
    """Store a floor call with the league's next number (1 for its first).

    Two processes storing a call at once cannot share a number: the unique constraint refuses
    the second, which takes the next one (in a savepoint, so the transaction goes on).
    """
    at = utc_now(now)
    for _ in range(NUMBER_TRIES):
        last = session.exec(
            select(func.max(FloorCall.number)).where(FloorCall.league_id == league_id)
        ).one()
        row = FloorCall(
            league_id=league_id,
            number=(last or 0) + 1,
            caller=caller[:100],
            discord_id=discord_id,
            table_no=table,
            seat_no=seat,
            note=note[:500],
            suggestions=[[s.book, s.section, s.title] for s in suggestions],
            channel_id=channel_id,
            called_at=at,
        )
        try:
            with session.begin_nested():
                session.add(row)
                session.flush()
        except IntegrityError:
            log.info("floor call number %s was taken; taking the next", row.number)
            continue
        info = _call(row)
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor=actor,
            action="floor.call",
            target=f"floor:{info.number}",
            after={"caller": info.caller, "table": table, "seat": seat, "note": info.note},
            now=at,
        )
        return info
    raise DatabaseBusyError()  # every number taken by others at once: nothing written


def get_floor_call(*, session: Session, league_id: int, number: int) -> CallInfo:
    """The league's call with this number.

    Raises:
        NotFound: the league has no such call.
    """
    row = session.exec(
        select(FloorCall).where(FloorCall.league_id == league_id).where(FloorCall.number == number)
    ).first()
    if row is None:
        raise NotFound(f"there is no floor call #{number}")
    return _call(row)


def set_floor_call_post(
    *, session: Session, call_id: int, message_id: int | None, thread_id: int | None
) -> None:
    """Remember where a call was posted on Discord (its message, and the thread made on it)."""
    session.execute(
        update(FloorCall)
        .where(col(FloorCall.id) == call_id)
        .values(message_id=message_id, thread_id=thread_id)
    )


def add_ruling(
    *,
    session: Session,
    league_id: int,
    number: int,
    decision: str,
    actor: str,
    given_by: str,
    book: str | None = None,
    section: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[CallInfo, RulingInfo]:
    """Rule on call ``number``; a call ruled on already gets an amended ruling.

    The earlier ruling is kept, marked superseded (it no longer shows or counts); the audit
    entry has the earlier ruling as its before.

    Raises:
        NotFound: the league has no such call.
    """
    at = utc_now(now)
    call = get_floor_call(session=session, league_id=league_id, number=number)
    earlier = session.exec(
        select(FloorRuling)
        .where(FloorRuling.call_id == call.id)
        .where(col(FloorRuling.superseded).is_(False))
        .with_for_update()
    ).all()
    before = None
    if earlier:
        last = earlier[-1]
        before = {"decision": last.decision, "book": last.book, "section": last.section}
        session.execute(
            update(FloorRuling)
            .where(col(FloorRuling.id).in_([r.id for r in earlier]))
            .values(superseded=True)
        )
    row = FloorRuling(
        league_id=league_id,
        call_id=call.id,
        decision=decision[:1000],
        book=book,
        section=section,
        given_by=given_by[:100],
        given_at=at,
    )
    session.add(row)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="floor.ruling",
        target=f"floor:{number}",
        before=before,
        after={"decision": row.decision, "book": book, "section": section, "by": row.given_by},
        now=at,
    )
    return call, _ruling(row, call.number, call.note, call.caller, amended=bool(earlier))


def _ruling(row: FloorRuling, number: int, note: str, caller: str, *, amended: bool) -> RulingInfo:
    return RulingInfo(
        id=row.id or 0,
        number=number,
        note=note,
        caller=caller,
        decision=row.decision,
        book=row.book,
        section=row.section,
        given_by=row.given_by,
        given_at=_aware(row.given_at),
        amended=amended,
    )


def _standing() -> Select[Any]:
    """Each call's standing ruling with its call (and whether it amends one), newest first."""
    earlier = aliased(FloorRuling)
    amended = (
        sa_select(func.count(col(earlier.id)))
        .where(col(earlier.call_id) == col(FloorCall.id))
        .where(col(earlier.superseded).is_(True))
        .scalar_subquery()
    )
    return (
        sa_select(
            FloorRuling, col(FloorCall.number), col(FloorCall.note), col(FloorCall.caller), amended
        )
        .join(FloorCall, col(FloorCall.id) == col(FloorRuling.call_id))
        .where(col(FloorRuling.superseded).is_(False))
        .order_by(col(FloorRuling.id).desc())
    )


def _rulings(rows: Sequence[Any]) -> list[RulingInfo]:
    return [_ruling(r, n, note, c, amended=bool(a)) for r, n, note, c, a in rows]


def list_rulings(
    *, session: Session, league_id: int, query: str | None = None, limit: int = 25
) -> list[RulingInfo]:
    """The league's standing rulings, newest first.

    ``query`` keeps those whose call's note, decision or cited section holds it (any case).
    """
    statement = _standing().where(col(FloorRuling.league_id) == league_id)
    if query and query.strip():
        pattern = f"%{_like(query.strip().lower())}%"
        statement = statement.where(
            or_(
                func.lower(col(FloorCall.note)).like(pattern, escape="\\"),
                func.lower(col(FloorRuling.decision)).like(pattern, escape="\\"),
                func.lower(col(FloorRuling.section)).like(pattern, escape="\\"),
            )
        )
    return _rulings(session.execute(statement.limit(limit)).all())


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def rulings_citing(
    *, session: Session, guild_id: int | None, book: str, section: str
) -> list[RulingInfo]:
    """The standing rulings citing one rule, newest first: one query (``/rule``'s footnote).

    ``guild_id`` None is the console's own league. A server without a league has none.
    """
    league = (
        col(League.guild_id) == guild_id
        if guild_id is not None
        else col(League.name) == DEFAULT_LEAGUE
    )
    statement = (
        _standing()
        .join(League, col(League.id) == col(FloorRuling.league_id))
        .where(league)
        .where(col(FloorRuling.book) == book)
        .where(col(FloorRuling.section) == section)
    )
    return _rulings(session.execute(statement).all())


def rulings_by_section(
    *, session: Session, league_id: int, book: str
) -> dict[str, list[RulingInfo]]:
    """A book's standing rulings by the section they cite, newest first (a rulebook page)."""
    rows = session.execute(
        _standing()
        .where(col(FloorRuling.league_id) == league_id)
        .where(col(FloorRuling.book) == book)
    ).all()
    out: dict[str, list[RulingInfo]] = {}
    for ruling in _rulings(rows):
        if ruling.section is not None:
            out.setdefault(ruling.section, []).append(ruling)
    return out
