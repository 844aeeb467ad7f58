"""The night's end: /tournament chop and finish, and the CLI's ``tournament show``.

The finish stores the night as one event (with its awards and no-shows) in one transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import rulings
from bot.command.model import Context
from bot.features.night.tonight import record_night_no_shows
from bot.features.td.announce import announced
from bot.features.tournament.shared import (
    chips_text,
    command_text,
    in_night_thread,
    ordinal,
)
from bot.reply import Effect, Field, Reply, escape
from rulings import (
    Night,
    NightFinished,
    TournamentError,
)
from storage.audit import holding_audit
from storage.errors import EventConflictError
from storage.event_import import import_events
from storage.events import ImportOutcome
from storage.leagues import (
    get_league,
)
from storage.seasons import get_season
from storage.tournaments import (
    TournamentRecord,
    add_entry,
    get_open_tournament,
    latest_tournament,
)


def _final_chips(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    keys: set[str] = set()
    for part in re.split(r"[,;\n]", text):
        words = part.split()
        if not words:
            continue
        if len(words) < 2 or not words[-1].isdigit():
            raise TournamentError(
                f"chips: '{part.strip()}' should be a name and a chip count, like 'Ann 120000'"
            )
        name = " ".join(words[:-1])
        key = rulings.name_key(name)
        if key in keys:
            raise TournamentError(f"chips: {name} is named twice")
        keys.add(key)
        out[name] = int(words[-1])
    if not out:
        raise TournamentError("chips: give each player's count, like 'Ann 120000, Bob 80000'")
    return out


def _store_finish(
    ctx: Context, decide: Callable[[Night], tuple[Night, NightFinished]]
) -> tuple[TournamentRecord, ImportOutcome, NightFinished, Reply | None]:
    with ctx.transaction() as session:
        record = get_open_tournament(
            session=session, channel_id=ctx.channel, for_update=True, guild_id=ctx.guild_id
        )
        night, entry = decide(record.night)
        season = record.night.setup.season
        if season is None:  # a room stored without one: the league's current season
            season = get_season(session=session, league_id=record.league_id).name
        event = rulings.night_event(night, season=season, date=ctx.today())
        names = [n for group in event.finish for n in group]
        # the import's audit rows go in the entry's statement (one round trip less)
        with holding_audit(session) as held:
            try:
                outcome = import_events(
                    [event],
                    session=session,
                    league_id=record.league_id,
                    actor=ctx.actor,
                    now=ctx.now(),
                    allow_new=[*names, event.location, event.season],
                )[0]
            except EventConflictError:  # storage names the command line's command
                raise TournamentError(
                    f"a result is already stored for {event.location} on "
                    f"{event.date.isoformat()}; correct that event "
                    f"({command_text(ctx, 'td correct')}) or void it "
                    f"({command_text(ctx, 'td void')}), then finish again"
                ) from None
            stored = add_entry(
                session=session,
                record=record,
                night=night,
                entry=entry,
                actor=ctx.actor,
                now=ctx.now(),
                event_id=outcome.event.id,
                audit_first=held,
            )
        no_shows = record_night_no_shows(
            session,
            record.league_id,
            event.location,
            ctx.today(),
            [e.name for e in night.chart.players.values()],
            season,
        )
    return stored, outcome, entry, no_shows


def _with_no_shows(reply: Reply, no_shows: Reply | None) -> Reply:
    """A finish's reply, and the night's no-shows for the directors' channel when any."""
    if no_shows is None:
        return reply
    return replace(
        reply,
        footer=f"{no_shows.title}: {no_shows.text}",
        effects=(*reply.effects, Effect("announce", no_shows)),
    )


def _finish_reply(title: str, outcome: ImportOutcome, how: str) -> Reply:
    lines = []
    for p in outcome.points:
        place = ordinal(p.position) if p.position is not None else "played"
        lines.append(f"{place} {escape(p.player)}: {chips_text(p.rp)} RP, {chips_text(p.bp)} BP")
    return Reply(
        title=title,
        text=f"{how} Stored as event {outcome.event.label}.",
        fields=(Field("Points", "\n".join(lines) or "(none)"),),
    )


def chop(ctx: Context, leader: str) -> Reply:
    """/tournament chop: heads-up chop offered by the chip leader (2.F.b)."""
    record, outcome, _, no_shows = _store_finish(
        ctx, lambda night: rulings.chop_heads_up(night, leader)
    )
    reply = _finish_reply(
        "Chop", outcome, "Heads-up chop: the chip leader takes 1st, the other 2nd (2.F.b)."
    )
    return _with_no_shows(in_night_thread(ctx, record, announced(ctx, reply)), no_shows)


def finish(ctx: Context, chips: str | None = None) -> Reply:
    """/tournament finish: the night becomes one stored event."""
    counts = _final_chips(chips) if chips is not None and chips.strip() else None
    record, outcome, _, no_shows = _store_finish(
        ctx, lambda night: rulings.finish_night(night, counts)
    )
    how = "Most chips at the time limit first (2.F.a)." if counts else "One player left."
    reply = announced(ctx, _finish_reply("Tournament finished", outcome, how))
    return _with_no_shows(in_night_thread(ctx, record, reply), no_shows)


def show_data(record: TournamentRecord) -> dict[str, Any]:
    """The night as ``pokerfloor tournament show --json`` prints it."""
    chart = record.night.chart
    tables = [
        {
            "table": t,
            "seats": [
                {"seat": s.seat, "player": chart.name(k), "stack": chart.players[k].stack}
                for s, k in sorted((s, k) for k, s in chart.seated.items() if s.table == t)
            ],
        }
        for t in chart.tables
    ]
    positions = chart.positions()
    busted = [
        {"player": chart.name(k), "position": positions[k]}
        for k in sorted(positions, key=lambda k: (positions[k], chart.name(k)))
    ]
    return {
        "status": chart.status,
        "location": record.night.setup.location,
        "season": record.night.setup.season,
        "tables": tables,
        "reserve": [chart.name(k) for k in chart.reserve],
        "busted": busted,
        "remaining": chart.remaining,
        "average_stack": chart.average_stack,
    }


def show(ctx: Context, json: bool = False) -> Reply:
    """The CLI's ``tournament show [--guild ID] [--json]``: the open (or last) tournament."""
    with ctx.transaction() as session:
        league = get_league(session=session, guild_id=ctx.guild_id)
        record = latest_tournament(session=session, league_id=league.id)
    data = show_data(record)
    if json:
        return Reply(title="Tournament", text=_dumps(data), data=data)
    lines = [f"Status: {data['status']}", f"Season: {data['season']}"]
    lines += [
        f"Table {t['table']}: "
        + ", ".join(f"{s['seat']}. {s['player']} {chips_text(s['stack'])}" for s in t["seats"])
        for t in data["tables"]
    ]
    if data["reserve"]:
        lines.append("Reserve: " + ", ".join(data["reserve"]))
    if data["busted"]:
        lines.append(
            "Busted: " + ", ".join(f"{b['position']}. {b['player']}" for b in data["busted"])
        )
    lines.append(
        f"Remaining {data['remaining']}, average stack {chips_text(data['average_stack'])}"
    )
    return Reply(title=f"Tournament: {data['location']}", text="\n".join(lines))


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)
