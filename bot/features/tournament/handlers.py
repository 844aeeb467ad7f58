"""What the /tournament sign-in and play commands answer (definitions: ``.commands``).

Open, register, checkin, start, bust, balance, button, move and undo are here.

The finish is in ``.finish``, the seating chart, status and tonight's awards in ``.views``; what
they share (the locked write, names and chips as typed) in ``.shared``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.features.clock.handlers import ClockDoor
from bot.features.clock.handlers import start as clock_start
from bot.features.night.tonight import rsvp_names
from bot.features.tournament.shared import (
    award_line,
    chip_counts,
    chips_text,
    command_text,
    head_line,
    imbalance_line,
    in_night_thread,
    move_line,
    ordinal,
    rng,
    split_names,
    write_entry,
)
from bot.reply import Button, Reply, escape, plural
from rulings import (
    Arrival,
    AwardNoted,
    BustedOut,
    ButtonSet,
    Chart,
    ClockAction,
    Entry,
    Night,
    PlayerMoved,
    Room,
    RulingsError,
    SignedIn,
    TablesBalanced,
    TournamentError,
)
from storage.attendance import count_events_played
from storage.events import list_events
from storage.guild_settings import get_guild_settings
from storage.leagues import (
    get_league_rules,
    get_location,
)
from storage.seasons import get_season
from storage.tournaments import (
    TournamentRecord,
    clock_summary,
    get_open_tournament,
    late_entry_for,
    open_tournament,
    pause_for_redraw,
    signin_name,
    undo_entry,
)

log = logging.getLogger(__name__)


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
        f"({command_text(ctx, 'td correct')}) or void it ({command_text(ctx, 'td void')}) first."
        for e in stored
    ]
    return Reply(title=f"Tournament open: {where}", text="\n".join(lines))


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
            record.night, name, replace(arrival, events_played=played), rules, rng(ctx), late
        )
        found["stack"] = stack
        return night, entry

    stored, night, entry = write_entry(ctx, decide)
    assert isinstance(entry, SignedIn)
    stack = found["stack"]
    parts = [chips_text(stack.base), *(f"{label} {chips_text(c)}" for label, c in stack.extras)]
    if stack.late_reduction:
        parts.append(f"late -{chips_text(stack.late_reduction)} (1.E.d)")
    where = (
        str(entry.seat)
        if entry.seat is not None
        else f"reserve list #{len(night.chart.reserve)} (the room is full, 1.E.e)"
    )
    who = escape(entry.player.name)
    lines = [f"**{who}**: {where}, {chips_text(stack.total)} chips ({' + '.join(parts)})"]
    lines += [f"Not given: {r}" for r in stack.not_awarded]
    return Reply(
        title="Signed in",
        text="\n".join(lines),
        footer=head_line(night.chart),
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

    record, night, _ = write_entry(ctx, decide)
    with ctx.transaction() as session:
        clock = clock_summary(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        rules = get_league_rules(session=session, league_id=record.league_id)
    structure = rules.blind_structure
    lines = [head_line(night.chart), f"Chips in play: {chips_text(night.chart.chips_in_play)}"]
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
            f"No clock runs here: {command_text(ctx, 'clock start')} {structure} starts the "
            f"league's structure."
        )
    else:
        lines.append(f"Clock: {clock}")
    return Reply(
        title="Play begins", text="\n".join(lines), footer=imbalance_line(night), buttons=buttons
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
    names = split_names(players)
    counts = chip_counts(chips)
    before: dict[str, int] = {}

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        if first is not None:
            first(session, record)
        chart = record.night.chart
        before.update(chart.positions())
        if not any(chart.players[k].late for k in chart.reserve):
            return rulings.bust_players(record.night, names, counts, rng(ctx))
        # A late reserve player seated now is chipped down at the level being played (1.E.d).
        late = late_entry_for(
            session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
        )
        rules = get_league_rules(session=session, league_id=record.league_id)
        return rulings.bust_players(record.night, names, counts, rng(ctx), late, rules)

    record, night, entry = write_entry(ctx, decide)
    assert isinstance(entry, BustedOut)
    chart = night.chart
    lines = [f"**{escape(chart.name(k))}**: {ordinal(p)}" for k, p in entry.players]
    shared = {p for _, p in entry.players if sum(1 for _, q in entry.players if q == p) > 1}
    if shared:
        lines.append("Equal chips at the start of the hand share the position (2.G.e.2).")
    lines += [f"Seated from the reserve list: {move_line(m)}" for m in entry.seated]
    moved = [(k, p) for k, p in chart.positions().items() if k in before and before[k] != p]
    if moved:  # a reserve player who sits down finishes above everyone out before him
        shown = ", ".join(f"{escape(chart.name(k))} {ordinal(p)}" for k, p in sorted(moved))
        lines.append(f"Already out, now one place lower (a reserve player sat down): {shown}")
    lines += [
        f"{escape(chart.name(k))} starts with {chips_text(stack)} "
        f"({chips_text(off)} removed at this level, 1.E.d)"
        for k, stack, off in entry.restacked
    ]
    reply = Reply(
        title="Bust", text="\n".join(lines), footer=imbalance_line(night) or head_line(chart)
    )
    return in_night_thread(ctx, record, reply, quiet=True)


def balance(ctx: Context) -> Reply:
    """/tournament balance: decide and apply the moves, posted in the channel."""
    before: dict[str, int] = {}
    buttons: dict[int, int] = {}
    paused: list[int] = []
    door = ctx.clock if isinstance(ctx.clock, ClockDoor) else None

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        before["tables"] = len(record.night.chart.tables)
        buttons.update(record.night.chart.buttons)
        night, entry = rulings.balance_tables(record.night, rng(ctx))
        if entry.redraw and door is None:  # no live clock service here: pause it in storage
            clock_id = pause_for_redraw(
                session=session, channel_id=ctx.channel, now=ctx.now(), guild_id=ctx.guild_id
            )
            if clock_id is not None:
                paused.append(clock_id)
        return night, entry

    _, night, entry = write_entry(ctx, decide)
    assert isinstance(entry, TablesBalanced)
    if entry.redraw and door is not None:
        paused.extend(_pause_live(ctx, door))
    lines = [move_line(m) for m in entry.moves] or ["The tables are balanced; nobody moves."]
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
    return Reply(title="Balance", text="\n".join(lines), footer=head_line(night.chart))


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

    write_entry(ctx, decide)
    return Reply(
        title="Button",
        text=f"Table {table}: the button is at seat {seat}. Balancing moves players there in "
        "position (2.D.a-c).",
    )


def move(ctx: Context, player: str, table: int, seat: int | None = None) -> Reply:
    """/tournament move: the director's own move."""

    def decide(session: Session, record: TournamentRecord) -> tuple[Night, Entry]:
        return rulings.move_player(record.night, player, table, seat, rng(ctx))

    _, night, entry = write_entry(ctx, decide)
    assert isinstance(entry, PlayerMoved)
    return Reply(title="Move", text=move_line(entry.move), footer=imbalance_line(night))


def _undone_text(chart: Chart, entry: Entry) -> str:
    if isinstance(entry, SignedIn):
        return f"the sign-in of {escape(entry.player.name)}"
    if isinstance(entry, BustedOut):
        return "the bust of " + ", ".join(escape(chart.name(k)) for k, _ in entry.players)
    if isinstance(entry, TablesBalanced):
        return f"the balance ({plural(len(entry.moves), 'move')} taken back)"
    if isinstance(entry, PlayerMoved):
        return f"the move {move_line(entry.move)}"
    if isinstance(entry, ButtonSet):
        return f"the button at {entry.seat}"
    if isinstance(entry, AwardNoted):
        return "the award: " + award_line(chart, entry).replace("**", "")
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
    return Reply(title="Undo", text=text, footer=head_line(after.night.chart))
