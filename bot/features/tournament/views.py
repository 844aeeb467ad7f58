"""What /tournament seats and status show, and the awards noted during the night.

``/td bounty|premium|second_chance`` without ``event`` notes an award on tonight's night.
"""

from __future__ import annotations

from typing import Literal

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.features.night.tonight import rsvp_names
from bot.features.tournament.shared import (
    HAND_NAMES,
    award_line,
    chips_text,
    head_line,
    write_entry,
)
from bot.reply import Field, Reply, escape
from rulings import (
    AwardNoted,
    Chart,
    Entry,
    Night,
    TournamentError,
)
from storage.bust_reports import list_bust_reports
from storage.tournaments import (
    TournamentRecord,
    clock_summary,
    get_open_tournament,
    late_entry_for,
)

NightAward = Literal["bounty", "premium", "second_chance"]
"""The awards a director may note during the night (``/td bounty`` ... without ``event``)."""


def awards_lines(chart: Chart) -> list[str]:
    """Tonight's awards, one line per kind (none: no line)."""
    lines = []
    if chart.bounties:
        shown = ", ".join(f"{escape(chart.name(k))} {c}" for k, c in sorted(chart.bounties.items()))
        lines.append(f"Bounty chips: {shown}")
    if chart.premium_hands:
        shown = ", ".join(
            f"{escape(chart.name(k))} ({HAND_NAMES.get(h, h)})" for k, h in chart.premium_hands
        )
        lines.append(f"Premium hands: {shown}")
    if chart.second_chance:
        shown = ", ".join(escape(chart.name(k)) for k in chart.second_chance)
        lines.append(f"Second-chance wins: {shown}")
    return lines


def note_award(
    ctx: Context,
    award: NightAward,
    player: str,
    *,
    chips: int = 0,
    hand: str = "",
    remove: bool = False,
) -> Reply:
    """``/td bounty|premium|second_chance`` without ``event``: noted on tonight's tournament.

    There is no event until ``/tournament finish``; the award is an entry of the night's log
    (undo takes it back, ``remove:yes`` too) and becomes part of the event the finish stores.
    """
    from storage.errors import NotFound

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        return rulings.note_award(
            record.night, award, player, chips=chips, hand=hand, remove=remove
        )

    try:
        _, night, entry = write_entry(ctx, decide)
    except NotFound:
        raise TournamentError(
            "event: give the event's number (/td events); no tournament is open in this "
            "channel to note it for tonight"
        ) from None
    assert isinstance(entry, AwardNoted)
    line = award_line(night.chart, entry)
    text = (
        f"Taken back: {line}."
        if entry.remove
        else f"Noted for tonight: {line}. It is stored with the night's result at the finish."
    )
    fields = (Field("Tonight's awards", "\n".join(awards_lines(night.chart)) or "(none)"),)
    return Reply(title="Award", text=text, fields=fields)


def _table_lines(chart: Chart, table: int) -> list[str]:
    seated = sorted((s.seat, k) for k, s in chart.seated.items() if s.table == table)
    button_seat = chart.buttons.get(table)
    lines = []
    for seat, key in seated:
        mark = " (button)" if seat == button_seat else ""
        player = chart.players[key]
        lines.append(f"{seat}. {escape(player.name)} {chips_text(player.stack)}{mark}")
    return lines or ["(empty)"]


def seats(ctx: Context, table: int | None = None) -> Reply:
    """/tournament seats: the seating chart."""
    with ctx.transaction() as session:
        record = get_open_tournament(session=session, channel_id=ctx.channel, guild_id=ctx.guild_id)
    chart = record.night.chart
    if table is not None and table not in chart.tables:
        in_play = ", ".join(map(str, chart.tables)) or "none"
        raise TournamentError(f"there is no table {table} in play (tables: {in_play})")
    shown = [table] if table is not None else list(chart.tables)
    lines = ["Stacks are starting stacks."]
    if len(shown) > TABLES_PER_REPLY:
        lines.append(
            f"Tables {shown[0]}-{shown[TABLES_PER_REPLY - 1]} of {len(shown)}; "
            "/tournament seats table:N shows any other."
        )
        shown = shown[:TABLES_PER_REPLY]
    if chart.reserve and table is None:
        names = ", ".join(escape(chart.name(k)) for k in chart.reserve)
        lines.append(f"Reserve list: {names}")
    fields = [Field(f"Table {t}", "\n".join(_table_lines(chart, t)), inline=True) for t in shown]
    return Reply(
        title=f"Seats: {record.night.setup.location}",
        text="\n".join(lines),
        fields=tuple(fields),
        footer=head_line(chart),
    )


TABLES_PER_REPLY = 25
"""Tables one seating chart shows (a Discord embed holds 25 fields)."""


def status(ctx: Context) -> Reply:
    """/tournament status: players left, average stack, late registration, the clock."""
    with ctx.transaction() as session:
        record = get_open_tournament(session=session, channel_id=ctx.channel, guild_id=ctx.guild_id)
        clock = clock_summary(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        late = late_entry_for(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        coming = rsvp_names(session, record.league_id, record.night.setup.location, ctx.today())
        reports = list_bust_reports(session=session, tournament_id=record.id)
    chart = record.night.chart
    if chart.status == "registering":
        registration = "open (play has not begun)"
    else:
        registration = "closed (the first break has ended)" if late.is_closed else "open (late)"
    lines = [
        f"RSVP {len(coming)} · signed in {len(chart.players)}",
        f"Players left: {chart.remaining} ({len(chart.reserve)} on the reserve list)",
        f"Average stack: {chips_text(chart.average_stack)}",
        f"Chips in play: {chips_text(chart.chips_in_play)} (from the starting stacks)",
        f"Registration: {registration}",
        f"Clock: {clock or 'none in this channel'}",
    ]
    awards = "\n".join(awards_lines(chart))
    fields: tuple[Field, ...] = (
        (Field("Tonight's awards (stored at the finish)", awards),) if awards else ()
    )
    # A report whose player is out already (a director's own bust) is left to its Reject.
    waiting = [r.name for r in reports if rulings.name_key(r.name) in chart.seated]
    if waiting:
        shown = ", ".join(escape(n) for n in waiting)
        fields += (
            Field(
                "Reported out, waiting for a director (not counted)",
                f"{shown}\nConfirm or Reject on the report in the results channel, "
                "or /tournament bust.",
            ),
        )
    return Reply(
        title=f"Tournament: {record.night.setup.location}", text="\n".join(lines), fields=fields
    )
