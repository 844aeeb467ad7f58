"""Clock replies: the live status of one clock and a brief list of the running clocks.

Used by the clock service (the status message) and ``/clock status`` on every surface
(``bot.answers.clock``). Builders take ``storage`` records and the moment to show (time is a
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
    record: ClockRecord, now: dt.datetime, *, tournament: str | None = None, live: bool = True
) -> Reply:
    """The live status of a clock: level, time left, next level, next break.

    Args:
        record: the clock.
        now: the moment shown.
        tournament: the channel's running tournament in one line (players left, average
            stack), shown while one is open there.
        live: the message is edited as the clock runs (Discord's): its footer says so.

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
    else:
        left = f"{format_seconds(pos.remaining)} (ends <t:{int(pos.ends_at.timestamp())}:T>)"
    fields = [Field("Now", now_text), Field("Time left", left, inline=True)]
    if pos.next_level is not None and not pos.is_ended:
        fields.append(
            Field("Next level", f"{pos.next_level.number}: {pos.next_level.blinds}", inline=True)
        )
    if pos.next_break is not None and pos.seconds_to_break is not None and not pos.is_ended:
        fields.append(
            Field(
                "Next break",
                f"Break {pos.next_break.number} in {format_seconds(pos.seconds_to_break)}",
                inline=True,
            )
        )
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
    return Reply(
        title=f"Tournament clock: {structure.title}",
        fields=tuple(fields),
        citation=structure.source or None,
        footer=f"As of <t:{int(now.timestamp())}:T>"
        + ("; updated every 30 seconds." if live else "."),
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
