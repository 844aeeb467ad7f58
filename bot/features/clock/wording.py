"""Clock replies: the live status of one clock and a brief list of the running clocks.

Used by the clock service (the status message) and ``/clock status`` on every surface
(``.handlers``). Builders take ``storage`` records and the moment to show (time is a
parameter here too) and return ``Reply`` objects within Discord's limits.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence

from bot.reply import Field, Reply
from rulings import Break, format_seconds, position_at
from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

MAX_FIELDS = 25  # Discord's limit per embed


def status_reply(
    record: ClockRecord,
    now: dt.datetime,
    *,
    tournament: str | None = None,
    card: bool = False,
    live_url: str | None = None,
    live: bool = True,
) -> Reply:
    """The live status of a clock: level, time left, next level, next break.

    Args:
        record: the clock.
        now: the moment shown.
        tournament: the channel's running tournament in one line (players left, average
            stack), shown while one is open there.
        card: the clock's status message, kept up by edits: a running clock's level end and
            next break are Discord's relative timestamps (``<t:...:R>``), which every client
            counts down by itself, so its fields change only when the level, a pause or the
            players left change (and only then is it edited).
        live_url: the channel's live page (``WEB_BASE_URL/live/<channel>``), linked when given.
        live: the reply is a Discord message kept up to date: its footer says so (a
            terminal shows it once).

    Returns:
        A public reply.
    """
    pos = position_at(record.state, now)
    structure = record.state.structure
    if isinstance(pos.step, Break):
        now_text = f"**Break {pos.step.number}**"
        if pos.step.chip_up:
            now_text += f"\nChip-up: {pos.step.chip_up}"
    else:
        now_text = f"**Level {pos.step.number}**: blinds **{pos.step.blinds}**"
    if pos.is_ended:
        left = "The clock has ended."
    elif pos.is_paused:
        left = f"{format_seconds(pos.remaining)} (paused)"
    elif pos.ends_at is None:
        left = "The last level: no limit"
    elif card:
        ends = round(pos.ends_at.timestamp())  # the same second on every edit of one level
        left = f"Ends <t:{ends}:R> (<t:{ends}:T>)"
    else:
        left = f"{format_seconds(pos.remaining)} (ends <t:{int(pos.ends_at.timestamp())}:T>)"
    fields = [Field("Now", now_text), Field("Time left", left, inline=True)]
    if pos.next_level is not None and not pos.is_ended:
        fields.append(
            Field("Next level", f"{pos.next_level.number}: {pos.next_level.blinds}", inline=True)
        )
    if pos.next_break is not None and pos.seconds_to_break is not None and not pos.is_ended:
        to_break = format_seconds(pos.seconds_to_break)
        text = f"Break {pos.next_break.number} in {to_break}"
        if card and pos.ends_at is not None:
            starts = round((now + dt.timedelta(seconds=pos.seconds_to_break)).timestamp())
            text = f"Break {pos.next_break.number} <t:{starts}:R>"
        elif card:  # paused: the same words until it runs again
            text = f"Break {pos.next_break.number} after {to_break} of play"
        fields.append(Field("Next break", text, inline=True))
    if pos.is_late_registration_open is not None and not pos.is_ended:
        late = structure.late_registration_step
        assert late is not None
        step = structure.steps[late]
        until = f"break {step.number}" if isinstance(step, Break) else f"level {step.number}"
        text = f"Open until the end of {until}" if pos.is_late_registration_open else "Closed"
        seated_in = pos.level or pos.next_level
        if pos.is_late_registration_open and seated_in and structure.late_penalty_big_blinds:
            short = structure.late_penalty(seated_in)
            text += f"; a late player starts {short:,} short (1.E.d)"
        fields.append(Field("Late registration", text, inline=True))
    if tournament is not None and not pos.is_ended:
        fields.append(Field("Tournament", tournament))
    if live_url is not None and not pos.is_ended:
        fields.append(Field("Live page", live_url))
    footer = f"As of <t:{int(now.timestamp())}:T>" + (
        "; updated every 30 seconds." if live else "."
    )
    if card:
        footer = "Counts down by itself; updated when the level, a pause or the players change."
    return Reply(
        title=f"Tournament clock: {structure.title}",
        fields=tuple(fields),
        citation=structure.source or None,
        footer=footer,
    )


def _brief(record: ClockRecord, now: dt.datetime) -> Field:
    """One running clock on one line: where it is, and the next break."""
    pos = position_at(record.state, now)
    text = pos.summary
    if pos.next_break is not None and pos.seconds_to_break is not None and not pos.is_paused:
        text += f"; break {pos.next_break.number} in {format_seconds(pos.seconds_to_break)}"
    name = f"Clock {record.id}: {record.state.structure.title}, channel {record.channel_id}"
    return Field(name, text)


def running_clocks_reply(records: Sequence[ClockRecord], now: dt.datetime) -> Reply:
    """The running clocks, one line each (for a front end without channels).

    Args:
        records: the running clocks, oldest first.
        now: the moment shown.

    Returns:
        A public reply: one field per clock (at most 25, the rest counted in the footer), or
        a line saying that no clock is running.
    """
    if not records:
        return Reply(title="Tournament clocks", text="No clock is running.")
    shown = records[:MAX_FIELDS]
    hidden = len(records) - len(shown)
    return Reply(
        title="Tournament clocks",
        text=f"{len(records)} running.",
        fields=tuple(_brief(r, now) for r in shown),
        footer=f"And {hidden} more." if hidden else None,
    )
