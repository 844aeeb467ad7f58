"""Players' own reports that they are out, waiting for a director (``/out``, "I'm out").

A report is one row beside the night (``bust_report``), one per player and tournament: it
counts for nothing (seats, players left, finish order and points come from the night's log
alone) until a director answers it. Confirming it is an ordinary bust, stored by the tournament
handlers in the same transaction as ``answer_bust_report`` takes the report; rejecting it only
takes the report. The report, the confirm and the reject are audited, the answers with the
reporter and the director both named.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Literal

from sqlmodel import Session, col, select

from rulings import TournamentError, check_name, name_key
from storage.audit import add_audit_entry, utc_now
from storage.clocks import utc
from storage.errors import NotFound
from storage.pending import add_once, peek, take_once
from storage.tournament_models import BustReport, Tournament

log = logging.getLogger(__name__)

ANSWERED = "that report was answered already"
"""What a second Confirm or Reject of the same report says."""


@dataclass(frozen=True)
class BustReportInfo:
    """A pending report.

    Attributes:
        id: the report's number (its buttons carry it).
        tournament_id: the night it is about.
        name: the player, as signed in.
        discord_id: the member who reported (the player's linked member).
        reported_by: the member as the audit log names him (``discord:<id>:<name>``).
        reported_at: when (UTC).
    """

    id: int
    tournament_id: int
    name: str
    discord_id: int
    reported_by: str
    reported_at: dt.datetime


def _info(row: BustReport) -> BustReportInfo:
    return BustReportInfo(
        id=row.id or 0,
        tournament_id=row.tournament_id,
        name=row.name,
        discord_id=int(row.discord_id),
        reported_by=row.reported_by,
        reported_at=utc(row.reported_at),
    )


def _league_of(session: Session, tournament_id: int) -> int:
    row = session.get(Tournament, tournament_id)
    if row is None:
        raise NotFound("that tournament no longer exists")
    return row.league_id


def add_bust_report(
    *,
    session: Session,
    tournament_id: int,
    name: str,
    discord_id: int,
    actor: str,
    now: dt.datetime | None = None,
) -> BustReportInfo:
    """Store a player's report that he is out (the caller checked he may bust now).

    Args:
        session: the unit of work.
        tournament_id: the night.
        name: the player as signed in.
        discord_id: the member reporting (linked to the player).
        actor: the member, for the audit log.
        now: when (UTC).

    Raises:
        AlreadyExists: he has a report waiting already (one pending report; nothing written).
    """
    at = utc_now(now)
    cleaned = check_name(name, "name")
    row = BustReport(
        tournament_id=tournament_id,
        name=cleaned,
        name_key=name_key(cleaned),
        discord_id=discord_id,
        reported_by=actor[:100],
        reported_at=at,
    )
    refusal = f"{cleaned}'s bust is reported already; a director will confirm it"
    info = _info(add_once(session=session, row=row, refusal=refusal))
    add_audit_entry(
        session=session,
        league_id=_league_of(session, tournament_id),
        actor=actor,
        action="tournament bust report",
        target=f"tournament {tournament_id}",
        after={"report": info.id, "player": info.name},
        now=at,
    )
    return info


def get_bust_report(*, session: Session, report_id: int) -> BustReportInfo:
    """A report still waiting.

    Raises:
        NotFound: it was confirmed or rejected already.
    """
    return _info(peek(session=session, model=BustReport, row_id=report_id, gone=ANSWERED))


def list_bust_reports(*, session: Session, tournament_id: int) -> list[BustReportInfo]:
    """A night's reports still waiting, oldest first."""
    rows = session.exec(
        select(BustReport)
        .where(BustReport.tournament_id == tournament_id)
        .order_by(col(BustReport.reported_at), col(BustReport.id))
    )
    return [_info(row) for row in rows]


def answer_bust_report(
    *,
    session: Session,
    report_id: int,
    decision: Literal["confirm", "reject"],
    actor: str,
    tournament_id: int | None = None,
    now: dt.datetime | None = None,
) -> BustReportInfo:
    """Take a report as a director answers it, exactly once, audited with both names.

    A confirm stores the bust itself (``/tournament bust``'s path) in the same transaction.

    Args:
        session: the unit of work.
        report_id: the report.
        decision: ``confirm`` or ``reject``.
        actor: the director, for the audit log (the reporter is in the entry too).
        tournament_id: the night the confirming bust is written to: it must be the report's.
        now: when (UTC).

    Returns:
        The report as it was.

    Raises:
        NotFound: it was answered already (another press, director or instance).
        TournamentError: ``tournament_id`` is another night than the report's.
    """
    at = utc_now(now)
    row = take_once(session=session, model=BustReport, row_id=report_id, gone=ANSWERED)
    info = _info(row)
    if tournament_id is not None and tournament_id != info.tournament_id:
        raise TournamentError("that report is about a tournament that has finished")
    add_audit_entry(
        session=session,
        league_id=_league_of(session, info.tournament_id),
        actor=actor,
        action=f"tournament bust report {decision}",
        target=f"tournament {info.tournament_id}",
        before={
            "report": info.id,
            "player": info.name,
            "reported_by": info.reported_by,
            "reported_at": info.reported_at.isoformat(),
        },
        after={"decision": decision, "by": actor},
        now=at,
    )
    return info
