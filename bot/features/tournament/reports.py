"""A player reports his own bust; a director confirms or rejects it (``/out``, "I'm out").

The league turns it on (``/td settings self_report:on``). A seated player linked to his Discord
account (``/me link``) types ``/out``, or presses "I'm out" on the reply that seated him; the
report is stored (``storage.bust_reports``), counts for nothing, and is posted to the results
channel with Confirm and Reject for the directors (``/tournament status`` lists the reports
waiting). Confirm is ``/tournament bust`` for him, in the tournament's channel: the same rules,
``/tournament undo`` takes it back, and the report is taken in the same transaction, audited
with the reporter and the director. Reject takes the report, audited. The buttons are actions
routed by their custom ids, so they work after a restart and on any instance; a second press
finds the report answered.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.errors import BadOption
from bot.features.td.approval import answer_of, director_name, require_setting
from bot.features.tournament import wording
from bot.features.tournament.handlers import confirm_bust
from bot.reply import Effect, Reply
from rulings import TournamentError
from storage.bust_reports import add_bust_report, answer_bust_report, get_bust_report
from storage.player_links import linked_player
from storage.tournaments import (
    TournamentRecord,
    get_tournament,
    list_open_tournaments,
    signed_in_name,
)

log = logging.getLogger(__name__)

OFF = "Players do not report their own busts here: tell a director."
OUT_OF_DATE = "That button is out of date."


def _member(ctx: Context) -> int:
    if ctx.user_id is None:
        raise BadOption("/out is about a Discord member; use it on the league's server.")
    return ctx.user_id


def _own_player(session: Session, ctx: Context, league_id: int, user_id: int) -> str:
    own = linked_player(session=session, league_id=league_id, discord_id=user_id)
    if own is None:
        raise BadOption(
            "Only a player reports his own bust: link yourself to your player first "
            "(/me link player:NAME)."
        )
    return own.name


def _signed_in(session: Session, ctx: Context, league_id: int, name: str) -> TournamentRecord:
    """The open tournament he signed in to (this channel's first, when he is in several)."""
    key = rulings.name_key(name)
    found = [
        r
        for r in list_open_tournaments(session=session, league_id=league_id)
        if key in r.night.chart.players
    ]
    if not found:
        raise BadOption(f"{name} is not signed in to a tournament that is open now.")
    here = [r for r in found if r.channel_id == ctx.channel_id]
    return (here or found)[0]


def _report(
    session: Session, ctx: Context, record: TournamentRecord, name: str, user_id: int
) -> Reply:
    """Store his report (he may bust now) and describe its post for the directors."""
    try:
        key = rulings.check_bust(record.night, name)
    except TournamentError as exc:
        raise TournamentError(f"You cannot report a bust now: {exc}") from None
    chart = record.night.chart
    report = add_bust_report(
        session=session,
        tournament_id=record.id,
        name=chart.name(key),
        discord_id=user_id,
        actor=ctx.actor,
        now=ctx.now(),
    )
    post = wording.report_post(report, record.night.setup.location, chart.seat_of(key))
    return replace(wording.reported(report.name), effects=(Effect("announce", post),))


def out(ctx: Context) -> Reply:
    """``/out``: report your own bust in the tournament you sit in; a director confirms it."""
    user_id = _member(ctx)
    with ctx.transaction() as session:
        require_setting(session, ctx, lambda s: s.self_report, OFF)
        league = ctx.existing_league(session)
        name = _own_player(session, ctx, league.id, user_id)
        record = _signed_in(session, ctx, league.id, name)
        return _report(session, ctx, record, name, user_id)


def out_button(ctx: Context, *args: str) -> Reply:
    """The "I'm out" button on a sign-in: ``pf:out:<tournament>:<sign-in entry>``."""
    if len(args) != 2 or not all(a.isdigit() for a in args):
        raise BadOption(OUT_OF_DATE)
    tournament_id, seq = int(args[0]), int(args[1])
    user_id = _member(ctx)
    with ctx.transaction() as session:
        require_setting(session, ctx, lambda s: s.self_report, OFF)
        league = ctx.existing_league(session)
        record = get_tournament(session=session, tournament_id=tournament_id)
        if record.league_id != league.id:
            raise BadOption(OUT_OF_DATE)
        seated = signed_in_name(session=session, tournament_id=tournament_id, seq=seq)
        name = _own_player(session, ctx, league.id, user_id)
        if rulings.name_key(name) != rulings.name_key(seated):
            raise BadOption(f"That is {seated}'s seat: only {seated} reports his own bust.")
        if record.finished_at is not None:
            raise TournamentError("You cannot report a bust now: that tournament has finished.")
        return _report(session, ctx, record, seated, user_id)


def report_decision(ctx: Context, *args: str) -> Reply:
    """A director's Confirm or Reject: ``pf:bust_report:<confirm|reject>:<report>``."""
    decision, report_id = answer_of(args, ("confirm", "reject"))
    with ctx.transaction() as session:
        report = get_bust_report(session=session, report_id=report_id)
        record = get_tournament(session=session, tournament_id=report.tournament_id)
        if record.league_id != ctx.existing_league(session).id:
            raise BadOption(OUT_OF_DATE)
    director = director_name(ctx)
    if decision == "reject":
        with ctx.transaction() as session:
            answer_bust_report(
                session=session,
                report_id=report_id,
                decision="reject",
                actor=ctx.actor,
                now=ctx.now(),
            )
        return wording.report_answered(report, director, None)
    if record.finished_at is not None:
        raise TournamentError(
            f"Nothing to confirm: {report.name}'s tournament has finished. "
            "Reject clears the report."
        )
    try:
        rulings.check_bust(record.night, report.name)
    except TournamentError as exc:
        raise TournamentError(f"Nothing to confirm: {exc}. Reject clears the report.") from None

    def take(session: Session, night: TournamentRecord) -> None:
        answer_bust_report(
            session=session,
            report_id=report_id,
            decision="confirm",
            actor=ctx.actor,
            tournament_id=night.id,
            now=ctx.now(),
        )

    # An ordinary bust in the tournament's channel, with the report taken in its transaction.
    busted = confirm_bust(replace(ctx, channel_id=record.channel_id), report.name, take)
    return wording.report_answered(report, director, busted)
