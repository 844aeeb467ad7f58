"""What the /tournament handlers share: the locked write, names and chips as typed, lines.

Every write reads the channel's open night (locked), lets ``rulings`` decide the entry, and
stores it with its audit entry in the same transaction: a refused action raises before anything
is written. Random draws come from ``ctx.extras["rng"]`` when a test or benchmark gives one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import replace

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.reply import Effect, Reply, escape, plural
from rulings import (
    AwardNoted,
    Chart,
    Entry,
    Night,
    SeatMove,
    TablesBalanced,
    TournamentError,
)
from storage.guild_settings import get_guild_settings
from storage.tournaments import (
    TournamentRecord,
    add_entry,
    get_open_tournament,
)

_SYSTEM_RANDOM = random.SystemRandom()


def rng(ctx: Context) -> random.Random:
    """The draws' random source: the test's or benchmark's, else the system's."""
    given = ctx.extras.get("rng")
    return given if isinstance(given, random.Random) else _SYSTEM_RANDOM


def chips_text(chips: int) -> str:
    """A chip count as shown: ``120,000``."""
    return f"{chips:,}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``11th``, ``23rd``: a finishing position."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def split_names(text: str) -> list[str]:
    """The names in ``Ann, Bob; Cy``, spaces tidied, empty parts dropped."""
    names = [" ".join(n.split()) for n in re.split(r"[,;\n]", text)]
    return [n for n in names if n]


def chip_counts(text: str | None) -> list[int] | None:
    """Chip counts typed as ``120000 80000`` (none typed: ``None``)."""
    if text is None or not text.strip():
        return None
    out: list[int] = []
    for part in re.split(r"[,;\s]+", text.strip()):
        if not part:
            continue
        if not part.isdigit():
            raise TournamentError(f"chips: {part!r} is not a whole number of chips")
        out.append(int(part))
    return out


def move_line(move: SeatMove) -> str:
    """One seat move: ``Ann: 3.4 -> 1.2``."""
    source = str(move.from_seat) if move.from_seat is not None else "the reserve list"
    return f"{escape(move.player)}: {source} -> {move.to_seat}"


def head_line(chart: Chart) -> str:
    """Players left, tables in play and the average stack: the footer of most replies."""
    tables = len([t for t, n in chart.counts().items() if n])
    return (
        f"{plural(chart.remaining, 'player')} left at {plural(tables, 'table')}; "
        f"average stack {chips_text(chart.average_stack)}"
    )


def imbalance_line(night: Night) -> str | None:
    """A reminder to balance when the tables need it, else ``None``."""
    counts = night.chart.counts()
    if not counts:
        return None
    needed = rulings.tables_needed(len(night.chart.seated), night.setup.seats_per_table)
    spread = max(counts.values()) - min(counts.values())
    if spread > 1 or len(counts) > needed:
        return "The tables need balancing: /tournament balance"
    return None


Decide = Callable[[Session, TournamentRecord], tuple[Night, Entry]]
"""Decides an entry on the night as read (raises to refuse: nothing is written)."""


def write_entry(
    ctx: Context,
    decide: Decide,
    *,
    with_log: bool = False,
) -> tuple[TournamentRecord, Night, Entry]:
    """Read the channel's night (locked), decide an entry, store it: one transaction."""
    with ctx.transaction() as session:
        record = get_open_tournament(
            session=session,
            channel_id=ctx.channel,
            with_log=with_log,
            for_update=True,
            guild_id=ctx.guild_id,  # another server's night in this channel: NotFound
        )
        night, entry = decide(session, record)
        if isinstance(entry, TablesBalanced) and not entry.moves and not entry.broken:
            return record, night, entry  # nothing changed: nothing to store, nothing to undo
        stored = add_entry(
            session=session,
            record=record,
            night=night,
            entry=entry,
            actor=ctx.actor,
            now=ctx.now(),
        )
    return stored, night, entry


def command_text(ctx: Context, words: str) -> str:
    """A command as this surface spells it: ``/td correct``, or ``pokerfloor td correct``."""
    return f"pokerfloor {words}" if ctx.surface == "cli" else f"/{words}"


def in_night_thread(
    ctx: Context, record: TournamentRecord, reply: Reply, *, quiet: bool = False
) -> Reply:
    """With ``/td settings night_thread on``, ``reply`` is also posted in the night's thread.

    A ``quiet`` reply (a bust) is then shown in the channel only to the director who ran it, so
    the main channel stays quiet; elsewhere than on Discord nothing changes.
    """
    if ctx.surface != "discord" or ctx.guild_id is None:
        return reply
    settings = ctx.db.run_sync(get_guild_settings, guild_id=ctx.guild_id)
    if not settings.night_thread:
        return reply
    setup = record.night.setup
    name = f"{setup.location} {record.created_at.date().isoformat()}"
    public = replace(reply, private=False, effects=(), buttons=())
    post = Effect("night_thread", (record.id, name, public))
    return replace(reply, private=reply.private or quiet, effects=(*reply.effects, post))


HAND_NAMES = {"quads": "quads", "straight_flush": "straight flush", "royal_flush": "royal flush"}


def award_line(chart: Chart, entry: AwardNoted) -> str:
    """One noted (or taken back) award: ``**Ann**, bounty: 2 chips``."""
    who = escape(chart.name(entry.player))
    if entry.award == "bounty":
        what = "bounty chips" if entry.remove else f"bounty: {plural(entry.chips, 'chip')}"
    elif entry.award == "premium":
        what = HAND_NAMES.get(entry.hand, entry.hand)
    else:
        what = "second-chance win"
    return f"{who}'s {what}" if entry.remove else f"**{who}**, {what}"
