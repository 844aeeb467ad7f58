"""What each /tournament command answers (definitions: ``.commands``).

Every write reads the channel's open night (locked), lets ``rulings`` decide the entry, and
stores it with its audit entry in the same transaction: a refused action raises before anything
is written. Random draws come from ``ctx.extras["rng"]`` when a test or benchmark gives one.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.features.clock.handlers import ClockDoor
from bot.features.clock.handlers import start as clock_start
from bot.features.night.tonight import record_night_no_shows, rsvp_names
from bot.features.td.announce import announced
from bot.reply import Button, Effect, Field, Reply, escape, plural
from rulings import (
    Arrival,
    AwardNoted,
    BustedOut,
    ButtonSet,
    Chart,
    ClockAction,
    Entry,
    Night,
    NightFinished,
    PlayerMoved,
    Room,
    RulingsError,
    SeatMove,
    SignedIn,
    TablesBalanced,
    TournamentError,
)
from storage.bust_reports import list_bust_reports
from storage.errors import EventConflictError
from storage.event_import import import_events
from storage.events import ImportOutcome, list_events
from storage.guild_settings import get_guild_settings
from storage.leagues import (
    get_league,
    get_league_rules,
    get_location,
)
from storage.players import count_events_played
from storage.seasons import get_season
from storage.tournaments import (
    TournamentRecord,
    add_entry,
    clock_summary,
    get_open_tournament,
    late_entry_for,
    latest_tournament,
    open_tournament,
    pause_for_redraw,
    signin_name,
    undo_entry,
)

log = logging.getLogger(__name__)

_SYSTEM_RANDOM = random.SystemRandom()


def _rng(ctx: Context) -> random.Random:
    rng = ctx.extras.get("rng")
    return rng if isinstance(rng, random.Random) else _SYSTEM_RANDOM


def _n(chips: int) -> str:
    return f"{chips:,}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _names(text: str) -> list[str]:
    names = [" ".join(n.split()) for n in re.split(r"[,;\n]", text)]
    return [n for n in names if n]


def _chip_counts(text: str | None) -> list[int] | None:
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


def _final_chips(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in re.split(r"[,;\n]", text):
        words = part.split()
        if not words:
            continue
        if len(words) < 2 or not words[-1].isdigit():
            raise TournamentError(
                f"chips: '{part.strip()}' should be a name and a chip count, like 'Ann 120000'"
            )
        name = " ".join(words[:-1])
        if rulings.name_key(name) in {rulings.name_key(n) for n in out}:
            raise TournamentError(f"chips: {name} is named twice")
        out[name] = int(words[-1])
    if not out:
        raise TournamentError("chips: give each player's count, like 'Ann 120000, Bob 80000'")
    return out


def _move_line(move: SeatMove) -> str:
    source = str(move.from_seat) if move.from_seat is not None else "the reserve list"
    return f"{escape(move.player)}: {source} -> {move.to_seat}"


def _head(chart: Chart) -> str:
    tables = len([t for t, n in chart.counts().items() if n])
    return (
        f"{plural(chart.remaining, 'player')} left at {plural(tables, 'table')}; "
        f"average stack {_n(chart.average_stack)}"
    )


def _imbalance(night: Night) -> str | None:
    counts = night.chart.counts()
    if not counts:
        return None
    needed = rulings.tables_needed(len(night.chart.seated), night.setup.seats_per_table)
    spread = max(counts.values()) - min(counts.values())
    if spread > 1 or len(counts) > needed:
        return "The tables need balancing: /tournament balance"
    return None


# -- the night, read and written under a lock -------------------------------------------------


Decide = Callable[[Session, TournamentRecord], tuple[Night, Entry]]
"""Decides an entry on the night as read (raises to refuse: nothing is written)."""


def _write(
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


# -- handlers ---------------------------------------------------------------------------------


def open(
    ctx: Context,
    location: str,
    season: str | None = None,
    tables: int | None = None,
    seats: int = 8,
) -> Reply:
    """/tournament open: tonight's tournament in this channel."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        place = get_location(session=session, league_id=league.id, name=location)
        found = get_season(session=session, league_id=league.id, name=season)
        where, when = place.name, found.name
        room = Room(where, when, seats, tables)
        stored = [
            e
            for e in list_events(
                session=session,
                league_id=league.id,
                season_id=found.id,
                location_id=place.id,
                include_void=False,
            )
            if e.date == ctx.today() and e.kind == "regular"
        ]
        open_tournament(
            session=session,
            league_id=league.id,
            channel_id=ctx.channel,
            room=room,
            actor=ctx.actor,
            now=ctx.now(),
        )
    size = plural(tables, "table") if tables else "as many tables as the sign-ins need"
    lines = [
        f"Season {when}; {seats} seats a table, {size}. Sign players in with /tournament register."
    ]
    lines += [
        f"**Warning**: a result is already stored for {escape(where)} on {e.date.isoformat()} "
        f"(event #{e.id}); tonight's finish would be refused. Correct that event "
        f"({_command(ctx, 'td correct')}) or void it ({_command(ctx, 'td void')}) first."
        for e in stored
    ]
    return Reply(title=f"Tournament open: {where}", text="\n".join(lines))


def _command(ctx: Context, words: str) -> str:
    """A command as this surface spells it: ``/td correct``, or ``pokerfloor td correct``."""
    return f"pokerfloor {words}" if ctx.surface == "cli" else f"/{words}"


def register(
    ctx: Context,
    player: str,
    early: bool = False,
    on_time: bool = False,
    birthday: bool = False,
    new_player: bool = False,
    brought: int = 0,
    big_blind: int | None = None,
    confirm: bool = False,
) -> Reply:
    """/tournament register: sign a player in.

    ``new_player`` asks for the new-player chips (2.C.b.2), which a player with stored nights
    does not get; ``confirm`` takes a new name that resembles a known player's as it is.
    """
    arrival = Arrival(
        early_signin=early,
        on_time=on_time,
        birthday=birthday,
        new_player=new_player,
        new_players_brought=brought,
    )
    found: dict[str, rulings.StartingStack] = {}

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        name = signin_name(
            session=session, league_id=record.league_id, name=player, confirmed=confirm
        )
        played = count_events_played(session=session, league_id=record.league_id, name=name)
        rules = get_league_rules(session=session, league_id=record.league_id)
        if big_blind is not None:
            rulings.check_late_big_blind(big_blind, rules)
        late = None
        if record.night.chart.status == "running":
            late = late_entry_for(
                session=session,
                channel_id=ctx.channel,
                now=ctx.now(),
                big_blind=big_blind,
                guild_id=ctx.guild_id,
            )
        night, entry, stack = rulings.sign_in(
            record.night, name, replace(arrival, events_played=played), rules, _rng(ctx), late
        )
        found["stack"] = stack
        return night, entry

    stored, night, entry = _write(ctx, decide)
    assert isinstance(entry, SignedIn)
    stack = found["stack"]
    parts = [_n(stack.base), *(f"{label} {_n(c)}" for label, c in stack.extras)]
    if stack.late_reduction:
        parts.append(f"late -{_n(stack.late_reduction)} (1.E.d)")
    where = (
        str(entry.seat)
        if entry.seat is not None
        else f"reserve list #{len(night.chart.reserve)} (the room is full, 1.E.e)"
    )
    who = escape(entry.player.name)
    lines = [f"**{who}**: {where}, {_n(stack.total)} chips ({' + '.join(parts)})"]
    lines += [f"Not given: {r}" for r in stack.not_awarded]
    return Reply(
        title="Signed in",
        text="\n".join(lines),
        footer=_head(night.chart),
        buttons=_out_button(ctx, stored),
    )


OUT = "out"
"""The action of the "I'm out" button on a player's sign-in: his own bust, for a director to
confirm (``bot.features.tournament.reports``)."""


def _out_button(ctx: Context, stored: TournamentRecord) -> tuple[Button, ...]:
    """The sign-in's "I'm out" button, where the league lets players report their bust.

    It names the sign-in (the night and its entry number), which names the player.
    """
    if ctx.guild_id is None:
        return ()
    with ctx.transaction() as session:
        if not get_guild_settings(session=session, guild_id=ctx.guild_id).self_report:
            return ()
    return (Button("I'm out", f"pf:{OUT}:{stored.id}:{stored.seq}", style="secondary"),)


def checkin(
    ctx: Context,
    player: str,
    early: bool = False,
    on_time: bool = False,
    birthday: bool = False,
    brought: int = 0,
    big_blind: int | None = None,
) -> Reply:
    """/tournament checkin: one tap to sign in a player who RSVP'd to tonight's night."""
    with ctx.transaction() as session:
        record = get_open_tournament(session=session, channel_id=ctx.channel, guild_id=ctx.guild_id)
        coming = rsvp_names(session, record.league_id, record.night.setup.location, ctx.today())
    match = [n for n in coming if rulings.name_key(n) == rulings.name_key(player)]
    if not match:
        listed = ", ".join(coming) if coming else "nobody"
        raise TournamentError(
            f"{player} did not RSVP to tonight's night (RSVP'd: {listed}); use /tournament register"
        )
    return register(
        ctx,
        match[0],
        early=early,
        on_time=on_time,
        birthday=birthday,
        brought=brought,
        big_blind=big_blind,
    )


def start(ctx: Context) -> Reply:
    """/tournament start: play begins."""

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        return rulings.start_play(record.night)

    record, night, _ = _write(ctx, decide)
    with ctx.transaction() as session:
        clock = clock_summary(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        rules = get_league_rules(session=session, league_id=record.league_id)
    structure = rules.blind_structure
    lines = [_head(night.chart), f"Chips in play: {_n(night.chart.chips_in_play)}"]
    buttons: tuple[Button, ...] = ()
    if clock is None and ctx.surface == "discord":
        lines.append(
            f"No clock runs in this channel: the button starts the league's {structure} "
            f"structure (or /clock start {structure})."
        )
        label = f"Start the clock ({structure})"
        buttons = (Button(label, f"pf:{START_CLOCK}:{structure}", style="primary"),)
    elif clock is None:
        lines.append(
            f"No clock runs here: {_command(ctx, 'clock start')} {structure} starts the "
            f"league's structure."
        )
    else:
        lines.append(f"Clock: {clock}")
    return Reply(
        title="Play begins", text="\n".join(lines), footer=_imbalance(night), buttons=buttons
    )


START_CLOCK = "tclock"
"""The action of the start reply's button: start the channel's clock."""


def start_clock(ctx: Context, structure: str | None = None) -> Reply:
    """The start reply's button: ``/clock start structure`` in this channel."""
    return clock_start(ctx, structure=structure)


def bust(ctx: Context, players: str, chips: str | None = None) -> Reply:
    """/tournament bust: one elimination, or several on the same hand."""
    return _bust(ctx, players, chips)


def confirm_bust(
    ctx: Context, player: str, first: Callable[[Session, TournamentRecord], None]
) -> Reply:
    """A player's own reported bust, confirmed by a director: ``/tournament bust player``.

    The same path, rules and undo as the director's own bust; ``first`` (taking the report,
    audited) runs in the same transaction, on the night as read, before the bust is decided.
    """
    return _bust(ctx, player, None, first)


def _bust(
    ctx: Context,
    players: str,
    chips: str | None,
    first: Callable[[Session, TournamentRecord], None] | None = None,
) -> Reply:
    names = _names(players)
    counts = _chip_counts(chips)
    before: dict[str, int] = {}

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        if first is not None:
            first(session, record)
        chart = record.night.chart
        before.update(chart.positions())
        if not any(chart.players[k].late for k in chart.reserve):
            return rulings.bust_players(record.night, names, counts, _rng(ctx))
        # A late reserve player seated now is chipped down at the level being played (1.E.d).
        late = late_entry_for(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        rules = get_league_rules(session=session, league_id=record.league_id)
        return rulings.bust_players(record.night, names, counts, _rng(ctx), late, rules)

    record, night, entry = _write(ctx, decide)
    assert isinstance(entry, BustedOut)
    chart = night.chart
    lines = [f"**{escape(chart.name(k))}**: {_ordinal(p)}" for k, p in entry.players]
    shared = {p for _, p in entry.players if sum(1 for _, q in entry.players if q == p) > 1}
    if shared:
        lines.append("Equal chips at the start of the hand share the position (2.G.e.2).")
    lines += [f"Seated from the reserve list: {_move_line(m)}" for m in entry.seated]
    moved = [(k, p) for k, p in chart.positions().items() if k in before and before[k] != p]
    if moved:  # a reserve player who sits down finishes above everyone out before him
        shown = ", ".join(f"{escape(chart.name(k))} {_ordinal(p)}" for k, p in sorted(moved))
        lines.append(f"Already out, now one place lower (a reserve player sat down): {shown}")
    lines += [
        f"{escape(chart.name(k))} starts with {_n(stack)} ({_n(off)} removed at this level, 1.E.d)"
        for k, stack, off in entry.restacked
    ]
    reply = Reply(title="Bust", text="\n".join(lines), footer=_imbalance(night) or _head(chart))
    return _in_night_thread(ctx, record, reply, quiet=True)


def _in_night_thread(
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


def balance(ctx: Context) -> Reply:
    """/tournament balance: decide and apply the moves, posted in the channel."""
    before: dict[str, int] = {}
    buttons: dict[int, int] = {}
    paused: list[int] = []
    door = ctx.clock if isinstance(ctx.clock, ClockDoor) else None

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        before["tables"] = len(record.night.chart.tables)
        buttons.update(record.night.chart.buttons)
        night, entry = rulings.balance_tables(record.night, _rng(ctx))
        if entry.redraw and door is None:  # no live clock service here: pause it in storage
            clock_id = pause_for_redraw(
                session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
            )
            if clock_id is not None:
                paused.append(clock_id)
        return night, entry

    _, night, entry = _write(ctx, decide)
    assert isinstance(entry, TablesBalanced)
    if entry.redraw and door is not None:
        paused.extend(_pause_live(ctx, door))
    lines = [_move_line(m) for m in entry.moves] or ["The tables are balanced; nobody moves."]
    lines += [f"Table {t} breaks." for t in entry.broken]
    clock_note = (
        "the clock is paused until /clock resume" if paused else "pause the clock during the redraw"
    )
    lines += [
        f"Table {t} received three or more players: redraw for the button (2.D.d); {clock_note}."
        for t in entry.redraw
    ]
    lines += [
        f"Table {t}: no button given, the player was picked at random (/tournament button)."
        for t in entry.random_tables
    ]
    lines += [
        f"Table {t}: the seat was drawn ("
        + ("no button given" if t not in buttons else "no seat due the big blind was free")
        + ", never the small blind's while another is free)."
        for t in entry.drawn_tables
    ]
    lines += [
        f"{escape(name)} takes the next small blind's seat (no other was free) and sits out "
        "until the button reaches him (2.D.b)."
        for name in entry.small_blind
    ]
    if len(night.chart.tables) == 1 and before["tables"] > 1:
        lines.append(f"**Final table**: table {night.chart.tables[0]}.")
    return Reply(title="Balance", text="\n".join(lines), footer=_head(night.chart))


def _pause_live(ctx: Context, door: ClockDoor) -> list[int]:
    """Pause the channel's clock through the live service (it reschedules and updates)."""
    try:
        record = door.call(
            door.service.act(
                ctx.channel, ClockAction.PAUSE, user_id=ctx.user_id, guild_id=ctx.guild_id
            )
        )
    except RulingsError as exc:  # no clock here, or paused already: the reply says so
        log.debug("no clock paused for the redraw: %s", exc)
        return []
    return [record.id]


def button(ctx: Context, table: int, seat: int) -> Reply:
    """/tournament button: where the dealer button is at a table."""

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        return rulings.set_button(record.night, table, seat)

    _write(ctx, decide)
    return Reply(
        title="Button",
        text=f"Table {table}: the button is at seat {seat}. Balancing moves players there in "
        "position (2.D.a-c).",
    )


def move(ctx: Context, player: str, table: int, seat: int | None = None) -> Reply:
    """/tournament move: the director's own move."""

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        return rulings.move_player(record.night, player, table, seat, _rng(ctx))

    _, night, entry = _write(ctx, decide)
    assert isinstance(entry, PlayerMoved)
    return Reply(title="Move", text=_move_line(entry.move), footer=_imbalance(night))


def _undone_text(chart: Chart, entry: Entry) -> str:
    if isinstance(entry, SignedIn):
        return f"the sign-in of {escape(entry.player.name)}"
    if isinstance(entry, BustedOut):
        return "the bust of " + ", ".join(escape(chart.name(k)) for k, _ in entry.players)
    if isinstance(entry, TablesBalanced):
        return f"the balance ({plural(len(entry.moves), 'move')} taken back)"
    if isinstance(entry, PlayerMoved):
        return f"the move {_move_line(entry.move)}"
    if isinstance(entry, ButtonSet):
        return f"the button at {entry.seat}"
    if isinstance(entry, AwardNoted):
        return "the award: " + _award_line(chart, entry).replace("**", "")
    return "the last action"  # pragma: no cover (undo takes back nothing else)


def undo(ctx: Context) -> Reply:
    """/tournament undo: take back the last sign-in, bust, move, balance or award."""
    with ctx.transaction() as session:
        record = get_open_tournament(
            session=session,
            channel_id=ctx.channel,
            with_log=True,
            for_update=True,
            guild_id=ctx.guild_id,
        )
        after, entry = undo_entry(session=session, record=record, actor=ctx.actor, now=ctx.now())
    text = f"Took back {_undone_text(record.night.chart, entry)}."
    return Reply(title="Undo", text=text, footer=_head(after.night.chart))


NightAward = Literal["bounty", "premium", "second_chance"]
"""The awards a director may note during the night (``/td bounty`` ... without ``event``)."""

_HANDS = {"quads": "quads", "straight_flush": "straight flush", "royal_flush": "royal flush"}


def _award_line(chart: Chart, entry: AwardNoted) -> str:
    who = escape(chart.name(entry.player))
    if entry.award == "bounty":
        what = "bounty chips" if entry.remove else f"bounty: {plural(entry.chips, 'chip')}"
    elif entry.award == "premium":
        what = _HANDS.get(entry.hand, entry.hand)
    else:
        what = "second-chance win"
    return f"{who}'s {what}" if entry.remove else f"**{who}**, {what}"


def awards_lines(chart: Chart) -> list[str]:
    """Tonight's awards, one line per kind (none: no line)."""
    lines = []
    if chart.bounties:
        shown = ", ".join(f"{escape(chart.name(k))} {c}" for k, c in sorted(chart.bounties.items()))
        lines.append(f"Bounty chips: {shown}")
    if chart.premium_hands:
        shown = ", ".join(
            f"{escape(chart.name(k))} ({_HANDS.get(h, h)})" for k, h in chart.premium_hands
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
        _, night, entry = _write(ctx, decide)
    except NotFound:
        raise TournamentError(
            "event: give the event's number (/td events); no tournament is open in this "
            "channel to note it for tonight"
        ) from None
    assert isinstance(entry, AwardNoted)
    line = _award_line(night.chart, entry)
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
        lines.append(f"{seat}. {escape(player.name)} {_n(player.stack)}{mark}")
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
        footer=_head(chart),
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
        f"Average stack: {_n(chart.average_stack)}",
        f"Chips in play: {_n(chart.chips_in_play)} (from the starting stacks)",
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
                f"a result is already stored for {event.location} on {event.date.isoformat()}; "
                f"correct that event ({_command(ctx, 'td correct')}) or void it "
                f"({_command(ctx, 'td void')}), then finish again"
            ) from None
        stored = add_entry(
            session=session,
            record=record,
            night=night,
            entry=entry,
            actor=ctx.actor,
            now=ctx.now(),
            event_id=outcome.event.id,
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
        place = _ordinal(p.position) if p.position is not None else "played"
        lines.append(f"{place} {escape(p.player)}: {_n(p.rp)} RP, {_n(p.bp)} BP")
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
    return _with_no_shows(_in_night_thread(ctx, record, announced(ctx, reply)), no_shows)


def finish(ctx: Context, chips: str | None = None) -> Reply:
    """/tournament finish: the night becomes one stored event."""
    counts = _final_chips(chips) if chips is not None and chips.strip() else None
    record, outcome, _, no_shows = _store_finish(
        ctx, lambda night: rulings.finish_night(night, counts)
    )
    how = "Most chips at the time limit first (2.F.a)." if counts else "One player left."
    reply = announced(ctx, _finish_reply("Tournament finished", outcome, how))
    return _with_no_shows(_in_night_thread(ctx, record, reply), no_shows)


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
        + ", ".join(f"{s['seat']}. {s['player']} {_n(s['stack'])}" for s in t["seats"])
        for t in data["tables"]
    ]
    if data["reserve"]:
        lines.append("Reserve: " + ", ".join(data["reserve"]))
    if data["busted"]:
        lines.append(
            "Busted: " + ", ".join(f"{b['position']}. {b['player']}" for b in data["busted"])
        )
    lines.append(f"Remaining {data['remaining']}, average stack {_n(data['average_stack'])}")
    return Reply(title=f"Tournament: {data['location']}", text="\n".join(lines))


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)
