"""The director's actions on a night: each decides an entry, applies it and returns both.

Every random choice (the seat drawn at sign-in, the player picked to move when no button is
known, the seats a broken table's players draw) comes from the ``random.Random`` passed in, so
a test or a benchmark seeds it and a replay never draws again. Each function refuses a request
that does not fit with a ``TournamentError`` (or the ``StackError`` of the stack rules) and
returns nothing new: the night given is unchanged, being a value.

>>> import random
>>> from rulings.tournament.chart import Room, open_night
>>> from rulings.league import load_league_rules
>>> rng, rules = random.Random(1), load_league_rules()
>>> night = open_night(Room(location="Brewpub", seats_per_table=8, tables=2))
>>> for name in ("Ann", "Bob", "Cy"):
...     night, _, _ = sign_in(night, name, Arrival(on_time=True), rules, rng)
>>> sorted(night.chart.counts().values())
[1, 2]
>>> night, _ = start_play(night)
>>> night, entry = bust_players(night, ["Cy"], None)
>>> entry.players
(('cy', 3),)
"""

from __future__ import annotations

import itertools
import logging
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rulings.errors import TournamentError
from rulings.league import (
    Arrival,
    EventRecord,
    LeagueRules,
    PremiumHand,
    StartingStack,
    build_event,
    name_key,
    parse_premium_hand,
    starting_stack,
)
from rulings.tournament.chart import (
    UNDOABLE,
    Award,
    AwardNoted,
    BustedOut,
    ButtonSet,
    Chart,
    Entrant,
    Entry,
    FinishHow,
    Night,
    NightFinished,
    PlayerMoved,
    PlayStarted,
    Room,
    Seat,
    SeatMove,
    SignedIn,
    TablesBalanced,
    replay_night,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LateEntry:
    """What a sign-in after the start needs to know about the clock (1.E.d).

    Attributes:
        big_blind: the big blind of the level being played.
        is_closed: the first break has ended: late registration is closed.
    """

    big_blind: int | None
    is_closed: bool = False


def _free_seats(setup: Room, chart: Chart, table: int, taken: Mapping[Seat, str]) -> list[Seat]:
    return [
        Seat(table, n) for n in range(1, setup.seats_per_table + 1) if Seat(table, n) not in taken
    ]


def _draw_seat(night: Night, rng: random.Random) -> Seat | None:
    """A random empty seat at one of the emptiest tables; a new table when all are full."""
    setup, chart = night.setup, night.chart
    taken = chart.occupants()
    counts = chart.counts()
    open_tables = [t for t, n in counts.items() if n < setup.seats_per_table]
    if open_tables:
        fewest = min(counts[t] for t in open_tables)
        table = rng.choice([t for t in open_tables if counts[t] == fewest])
        return rng.choice(_free_seats(setup, chart, table, taken))
    if setup.tables is not None and len(chart.tables) >= setup.tables:
        return None
    limit = setup.tables or max(chart.tables, default=0) + 1
    table = next(t for t in range(1, limit + 1) if t not in chart.tables)
    return rng.choice(_free_seats(setup, chart, table, taken))


def sign_in(
    night: Night,
    name: str,
    arrival: Arrival,
    rules: LeagueRules,
    rng: random.Random,
    late: LateEntry | None = None,
) -> tuple[Night, SignedIn, StartingStack]:
    """Sign a player in: a random empty seat (tables filled evenly) or the reserve list.

    Before the start the stack has every extra earned (2.C.b, capped); a reserve player keeps
    them (1.E.e). After the start the sign-in is late (1.E.d): chipped down by twice the big
    blind of the level being played, no extras except for bringing a new player (2.C.b.4),
    and closed after the end of the first break.

    Args:
        night: tonight.
        name: the player's name as the league spells it.
        arrival: what he did (early, on time, birthday, new player, brought) and the nights
            stored for him; its ``late_big_blind`` is ignored: ``late`` says it.
        rules: the league's stack numbers.
        rng: draws the seat.
        late: the clock's level after the start (required once play has begun).

    Returns:
        The night, the entry and the stack with its parts.

    Raises:
        TournamentError: finished, already signed in, late registration closed, or no big blind.
        StackError: the stack rules refuse the arrival.
    """
    chart = night.chart
    clean = " ".join(name.split())
    if not clean:
        raise TournamentError("the player's name is missing")
    if chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")
    key = name_key(clean)
    if key in chart.players:
        raise TournamentError(f"{chart.name(key)} is already signed in ({_where(chart, key)})")
    big_blind: int | None = None
    if chart.status == "running":
        if late is None or late.big_blind is None:
            raise TournamentError(
                "play has begun: a late sign-in needs the big blind of the level being played "
                "(start the clock, or give big_blind)"
            )
        if late.is_closed:
            raise TournamentError("late registration closed at the end of the first break (1.E.d)")
        big_blind = late.big_blind
    stack = starting_stack(replace(arrival, late_big_blind=big_blind), rules)
    seat = _draw_seat(night, rng)
    player = Entrant(clean, stack.total, big_blind is not None, stack.late_reduction)
    entry = SignedIn(player, seat)
    return night.apply(entry), entry, stack


def _where(chart: Chart, key: str) -> str:
    seat = chart.seated.get(key)
    if seat is not None:
        return str(seat)
    if key in chart.reserve:
        return "on the reserve list"
    position = chart.positions().get(key)
    return f"busted in position {position}" if position else "finished"


def start_play(night: Night) -> tuple[Night, PlayStarted]:
    """Begin play: from now on a sign-in is late (1.E.d).

    Raises:
        TournamentError: play has begun already, or nobody is seated.
    """
    if night.chart.status != "registering":
        raise TournamentError(
            "play has already begun"
            if night.chart.status == "running"
            else "tonight's tournament is finished"
        )
    if len(night.chart.seated) < 2:
        raise TournamentError("play needs at least two seated players")
    entry = PlayStarted()
    return night.apply(entry), entry


def _running(chart: Chart) -> None:
    if chart.status == "registering":
        raise TournamentError("play has not begun; /tournament start first")
    if chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")


def find_player(chart: Chart, name: str) -> str:
    """The key of a player signed in tonight.

    Raises:
        TournamentError: nobody of that name signed in.
    """
    key = name_key(name)
    if key not in chart.players:
        raise TournamentError(f"{' '.join(name.split())} did not sign in tonight")
    return key


def _playing(chart: Chart, name: str) -> str:
    key = find_player(chart, name)
    if key not in chart.seated:
        raise TournamentError(f"{chart.name(key)} is not at a table ({_where(chart, key)})")
    return key


def _shared_positions(
    keys: Sequence[str], chips: Sequence[int] | None, best: int
) -> tuple[tuple[str, int], ...]:
    """Positions from ``best`` down: more chips finishes higher, equal chips share (2.G.e.2)."""
    if chips is None:
        return tuple((k, best) for k in keys) if len(keys) == 1 else ()
    order = sorted(zip(keys, chips, strict=True), key=lambda kc: -kc[1])
    out: list[tuple[str, int]] = []
    position = best
    for _, tied in itertools.groupby(order, key=lambda kc: kc[1]):
        same = [k for k, _ in tied]
        out.extend((k, position) for k in same)
        position += len(same)
    return tuple(out)


def _count(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


def _check_chips(names: Sequence[str], chips: Sequence[int] | None, what: str) -> None:
    if chips is None:
        if len(names) > 1:
            raise TournamentError(
                f"{len(names)} players: give the chips each had at the start of the hand ({what})"
            )
        return
    if len(chips) != len(names):
        raise TournamentError(
            f"{_count(len(names), 'player')} but {_count(len(chips), 'chip count')}; "
            "give one count per player"
        )
    if any(c < 0 for c in chips):
        raise TournamentError("chip counts cannot be negative")


def _distinct(chart: Chart, names: Sequence[str]) -> list[str]:
    keys: dict[str, None] = {}  # in the order named (a set would lose it)
    for name in names:
        key = _playing(chart, name)
        if key in keys:
            raise TournamentError(f"{chart.name(key)} is named twice")
        keys[key] = None
    return list(keys)


NOBODY_LEFT = "somebody must be left; /tournament finish names the winner"


def check_bust(night: Night, name: str) -> str:
    """Whether one player may be busted now: a player's own report is checked by this.

    The checks ``bust_players`` makes for one player: play is running, he sits at a table,
    and somebody would be left. A self-reported bust that passes stays pending (it counts for
    nothing) until a director confirms it with an ordinary bust.

    Args:
        night: tonight.
        name: who says he is out.

    Returns:
        His key.

    Raises:
        TournamentError: play is not running, he did not sign in, is not at a table (busted,
            or on the reserve list), or is the last player in.

    >>> import random
    >>> from rulings import Arrival, load_league_rules, open_night, sign_in, start_play
    >>> night = open_night(Room("Brewpub", "2026 Fall", 8, None))
    >>> for name in ("Ann", "Bob"):
    ...     night, _, _ = sign_in(night, name, Arrival(), load_league_rules(), random.Random(1))
    >>> check_bust(start_play(night)[0], "ann")
    'ann'
    """
    chart = night.chart
    _running(chart)
    key = _playing(chart, name)
    if chart.remaining <= 1:
        raise TournamentError(NOBODY_LEFT)
    return key


def bust_players(
    night: Night,
    names: Sequence[str],
    chips: Sequence[int] | None,
    rng: random.Random | None = None,
    late: LateEntry | None = None,
    rules: LeagueRules | None = None,
) -> tuple[Night, BustedOut]:
    """Eliminate one player, or several on the same hand (2.G.e.2).

    Players busting on one hand finish in order of their chips at the start of the hand (more
    finishes higher); equal chips share the position. A reserve player waiting is seated in
    the emptiest table's open seat (1.E.e).

    Args:
        night: tonight.
        names: who busted.
        chips: each one's chips at the start of the hand (required for two or more).
        rng: draws the reserve player's seat (None: the first open seat).
        late: the level being played, for a late reserve player seated now: he is chipped
            down by twice its big blind (1.E.d) instead of the level of his sign-in.
        rules: the league's late penalty (with ``late``).

    Returns:
        The night and the entry (with each position).

    Raises:
        TournamentError: not running, unknown or not seated, named twice, chips not matching,
            or nobody would be left.
    """
    chart = night.chart
    _running(chart)
    if not names:
        raise TournamentError("name who busted")
    keys = _distinct(chart, names)
    _check_chips(names, chips, "2.G.e.2")
    if len(keys) >= chart.remaining:
        raise TournamentError(NOBODY_LEFT)
    # Seat the reserve players first (their seats do not depend on the positions), then
    # count: the bust's positions are below everyone seated after it (Chart.positions).
    after = night.apply(BustedOut(_shared_positions(keys, chips, 1)))
    seated: list[SeatMove] = []
    restacked: list[tuple[str, int, int]] = []
    draw = rng or random.Random(0)
    for key in after.chart.reserve:
        seat = _draw_seat(after, draw)
        if seat is None:
            break
        move = SeatMove(after.chart.name(key), None, seat)
        seated.append(move)
        after = after.apply(PlayerMoved(move))
        player = after.chart.players[key]
        if player.late and late is not None and late.big_blind and rules is not None:
            chips_off = rules.late_penalty_big_blinds * late.big_blind
            stack = player.stack + player.chips_off - chips_off
            if chips_off != player.chips_off and stack > 0:
                restacked.append((key, stack, chips_off))
    positions = _shared_positions(keys, chips, len(after.chart.seated) + 1)
    entry = BustedOut(positions, tuple(seated), tuple(restacked))
    return night.apply(entry), entry


def set_button(night: Night, table: int, seat: int) -> tuple[Night, ButtonSet]:
    """Record where the dealer button is at a table (used to move players in position, 2.D.a).

    Raises:
        TournamentError: no such table in play, or no such seat.
    """
    if night.chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")
    entry = ButtonSet(Seat(table, seat))
    return night.apply(entry), entry


def move_player(
    night: Night, name: str, table: int, seat: int | None, rng: random.Random
) -> tuple[Night, PlayerMoved]:
    """The director's own move (a reserve player may be seated this way too).

    Args:
        night: tonight.
        name: who moves.
        table: to which table (in play).
        seat: to which seat (None: a random empty one).
        rng: draws the seat when none is given.

    Raises:
        TournamentError: unknown player, not playing, a missing table or seat, a full table,
            a taken seat.
    """
    setup, chart = night.setup, night.chart
    if chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")
    key = find_player(chart, name)
    if key not in chart.seated and key not in chart.reserve:
        raise TournamentError(f"{chart.name(key)} is not playing ({_where(chart, key)})")
    if table not in chart.tables:
        in_play = ", ".join(map(str, chart.tables)) or "none"
        raise TournamentError(f"there is no table {table} in play (tables: {in_play})")
    taken = chart.occupants()
    if seat is None:
        free = _free_seats(setup, chart, table, taken)
        if not free:
            raise TournamentError(f"table {table} is full")
        to = rng.choice(free)
    else:
        to = Seat(table, seat)
        if chart.seated.get(key) == to:
            raise TournamentError(f"{chart.name(key)} is already at {to}")
    entry = PlayerMoved(SeatMove(chart.name(key), chart.seated.get(key), to))
    return night.apply(entry), entry


# -- balancing (2.D) ----------------------------------------------------------------------------


def tables_needed(players: int, seats_per_table: int) -> int:
    """The fewest tables that seat ``players`` (at least one).

    >>> tables_needed(17, 8)
    3
    """
    return max(1, math.ceil(players / seats_per_table))


def _clockwise(seats: int, after: int) -> list[int]:
    return [(after - 1 + i) % seats + 1 for i in range(1, seats + 1)]


def _mover(
    setup: Room, chart: Chart, table: int, taken: Mapping[Seat, str], rng: random.Random
) -> tuple[str, bool]:
    """Who leaves ``table``: the player due the big blind next, never the small blind (2.D.a).

    Returns:
        (key, picked at random because no button was given).
    """
    button = chart.buttons.get(table)
    here = sorted(s for s in taken if s.table == table)
    if button is None:
        return taken[rng.choice(here)], True
    order = [Seat(table, n) for n in _clockwise(setup.seats_per_table, button)]
    occupied = [s for s in order if s in taken]
    # occupied[0] is the small blind, [1] the big blind, [2] is due the big blind next.
    pick = occupied[2] if len(occupied) > 2 else occupied[-1]
    return taken[pick], False


def _is_next_small_blind(setup: Room, chart: Chart, seat: Seat, taken: Mapping[Seat, str]) -> bool:
    """Whether an empty seat is the next hand's small blind (between today's two blinds)."""
    button = chart.buttons.get(seat.table)
    if button is None:
        return False
    order = [Seat(seat.table, n) for n in _clockwise(setup.seats_per_table, button)]
    occupied = [i for i, s in enumerate(order) if s in taken]
    return len(occupied) >= 2 and seat in order[occupied[0] + 1 : occupied[1]]


def _landing(
    setup: Room, chart: Chart, table: int, taken: Mapping[Seat, str], rng: random.Random
) -> tuple[Seat, bool]:
    """Where a moved player sits, and whether the seat was drawn rather than given by position.

    The button given is the one of the hand being played; the moved player is dealt in from
    the next hand, when the button has passed to today's small blind. With the button known
    (2.D.a-c) he takes the empty seat straight after the big blind, due the big blind next;
    when there is none, a seat drawn among those that do not make him the next small blind
    (an empty seat between today's small and big blind would, 2.D.a-b). A small-blind seat
    only when no other is empty. Without the button, any empty seat is drawn.
    """
    free = _free_seats(setup, chart, table, taken)
    button = chart.buttons.get(table)
    if button is None:
        return rng.choice(free), True
    order = [Seat(table, n) for n in _clockwise(setup.seats_per_table, button)]
    occupied = [i for i, s in enumerate(order) if s in taken]
    if len(occupied) < 2:
        return rng.choice(free), True
    for s in order[occupied[1] + 1 :]:
        if s in taken:
            break
        return s, False
    others = [s for s in free if not _is_next_small_blind(setup, chart, s, taken)]
    return rng.choice(others or free), True


def balance_tables(night: Night, rng: random.Random) -> tuple[Night, TablesBalanced]:
    """Balance the tables (2.D): break tables, then even the rest to within one player.

    Tables break while the others can seat their players; a broken table's players
    are drawn at random into the open seats of the emptiest tables.
    Otherwise one player moves at a time, from a fullest table to an emptiest one: with the
    button known, the player due the big blind next, into the seat due the big blind next
    (never the small blind, 2.D.a-c); without it, a random player (``random_tables`` says
    which). A seat not given by position is drawn (``drawn_tables`` says where), never the
    next small blind's while another is free (``small_blind`` names who had to take it). A
    table receiving three or more players redraws for the button (2.D.d).

    Args:
        night: tonight (registering or running).
        rng: every draw.

    Returns:
        The night and the entry (no moves when the tables are balanced already).

    Raises:
        TournamentError: the tournament is finished.
    """
    setup, chart = night.setup, night.chart
    if chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")
    seated = dict(chart.seated)
    tables = list(chart.tables)
    moves: list[SeatMove] = []
    broken: list[int] = []
    randomly: list[int] = []
    drawn: list[int] = []
    sits_out: list[str] = []

    def counts() -> dict[int, int]:
        out = dict.fromkeys(tables, 0)
        for s in seated.values():
            if s.table in out:  # a table being broken is no longer counted
                out[s.table] += 1
        return out

    def do(key: str, to: Seat) -> None:
        moves.append(SeatMove(chart.name(key), seated[key], to))
        seated[key] = to

    needed = tables_needed(len(seated), setup.seats_per_table)
    while len(tables) > needed:
        now = counts()
        gone = min(tables, key=lambda t: (now[t], -t))
        tables.remove(gone)
        broken.append(gone)
        leaving = sorted(k for k, s in seated.items() if s.table == gone)
        rng.shuffle(leaving)
        for key in leaving:
            now = counts()
            fewest = min(now.values())
            table = rng.choice([t for t in tables if now[t] == fewest])
            taken = {s: k for k, s in seated.items()}
            free = _free_seats(setup, chart, table, taken)
            # A drawn seat, but not the next small blind's while another is free (2.D.a-b).
            others = [s for s in free if not _is_next_small_blind(setup, chart, s, taken)]
            seat = rng.choice(others or free)
            do(key, seat)
            if _is_next_small_blind(setup, chart, seat, taken):
                sits_out.append(chart.name(key))
    view = Chart(
        status=chart.status,
        players=chart.players,
        tables=tuple(tables),
        buttons=chart.buttons,
    )
    while tables:
        now = counts()
        high, low = max(now.values()), min(now.values())
        if high - low <= 1:
            break
        source = rng.choice([t for t in tables if now[t] == high])
        target = rng.choice([t for t in tables if now[t] == low])
        taken = {s: k for k, s in seated.items()}
        key, at_random = _mover(setup, view, source, taken, rng)
        if at_random and source not in randomly:
            randomly.append(source)
        seat, was_drawn = _landing(setup, view, target, taken, rng)
        if was_drawn and target not in drawn:
            drawn.append(target)
        do(key, seat)
        if _is_next_small_blind(setup, view, seat, taken):
            sits_out.append(chart.name(key))
    arrivals = Counter(m.to_seat.table for m in moves)
    redraw = tuple(sorted(t for t, n in arrivals.items() if n >= 3))
    entry = TablesBalanced(
        tuple(moves), tuple(broken), redraw, tuple(randomly), tuple(drawn), tuple(sits_out)
    )
    return night.apply(entry), entry


# -- the end of the night ---------------------------------------------------------------------


def finish_order(chart: Chart) -> tuple[tuple[str, ...], ...]:
    """The busted players as groups of names, best position first (a group shares it)."""
    return tuple(tuple(chart.name(k) for k in group) for group in reversed(chart.busted))


def _finished(
    night: Night, top: Sequence[Sequence[str]], how: FinishHow
) -> tuple[Night, NightFinished]:
    """The night ends: ``top`` (groups of keys) above the busted players, last out first."""
    groups = tuple(tuple(g) for g in top) + tuple(reversed(night.chart.busted))
    entry = NightFinished(groups, how)
    return night.apply(entry), entry


def chop_heads_up(night: Night, leader: str) -> tuple[Night, NightFinished]:
    """A heads-up chop offered by the chip leader: he takes 1st, the other 2nd (2.F.b).

    Raises:
        TournamentError: not heads-up, or the leader is not one of the two.
    """
    chart = night.chart
    _running(chart)
    if len(chart.seated) != 2:
        raise TournamentError(
            f"a chop is heads-up only (2.F.b); {_count(len(chart.seated), 'player')} left"
        )
    key = _playing(chart, leader)
    other = next(k for k in chart.seated if k != key)
    return _finished(night, [[key], [other]], "chop")


def finish_night(
    night: Night, chips: Mapping[str, int] | None = None
) -> tuple[Night, NightFinished]:
    """End the night: the last player wins, or at the time limit most chips first (2.F.a).

    Players still on the reserve list never sat down: they are not in the finish.

    Args:
        night: tonight.
        chips: name -> chips counted, for every player left (not needed with one left).

    Raises:
        TournamentError: not running; chips missing, unknown or for a player not left.
    """
    chart = night.chart
    _running(chart)
    left = sorted(chart.seated, key=lambda k: chart.seated[k])
    if not chips:
        if len(left) != 1:
            raise TournamentError(
                f"{len(left)} players are left: give every one's chip count (2.F.a)"
            )
        return _finished(night, [left], "last_player")
    keys = _distinct(chart, list(chips))
    named = set(keys)
    missing = [chart.name(k) for k in left if k not in named]
    if missing:
        raise TournamentError(f"give the chip count of {', '.join(missing)} too (2.F.a)")
    _check_chips(list(chips), list(chips.values()), "2.F.a")
    positions = _shared_positions(keys, list(chips.values()), 1)
    groups: dict[int, list[str]] = {}
    for key, position in positions:
        groups.setdefault(position, []).append(key)
    return _finished(night, [groups[p] for p in sorted(groups)], "chip_count")


def standings_order(night: Night) -> tuple[tuple[str, ...], ...]:
    """The finish order as names, 1st place first (only once finished).

    Raises:
        TournamentError: the night is not finished.
    """
    chart = night.chart
    if chart.status != "finished":
        raise TournamentError("the night is not finished")
    return tuple(tuple(chart.name(k) for k in group) for group in chart.finish)


def night_event(night: Night, *, season: str, date: object, kind: str = "regular") -> EventRecord:
    """The finished night as one event record, for the league's engine to store and score.

    The awards noted during the night (``note_award``) are the event's bounties, premium
    hands and second-chance wins.

    Raises:
        TournamentError: the night is not finished.
        EventFormatError: the record breaks the event format.
    """
    chart = night.chart
    return build_event(
        season=season,
        location=night.setup.location,
        date=date,
        kind=kind,
        finish=standings_order(night),
        bounties={chart.name(k): chips for k, chips in chart.bounties.items()},
        premium_hands=[PremiumHand(chart.name(k), hand) for k, hand in chart.premium_hands],
        second_chance_winners=[chart.name(k) for k in chart.second_chance],
    )


def note_award(
    night: Night,
    award: Award,
    player: str,
    *,
    chips: int = 0,
    hand: str = "",
    remove: bool = False,
) -> tuple[Night, AwardNoted]:
    """Note an award of tonight, stored with the night's result at the finish; or take one back.

    Args:
        night: tonight.
        award: ``bounty``, ``premium`` or ``second_chance``.
        player: a player who took a seat tonight.
        chips: the bounty chips turned in (replace the number noted; 0 takes them back).
        hand: the premium hand (``quads``, ``straight_flush``, ``royal_flush``).
        remove: take the award back (one premium hand or second-chance win).

    Returns:
        The night with the award noted, and its entry.

    Raises:
        TournamentError: the night is finished, the player did not play tonight, or there is
            nothing of that kind to take back.
        EventFormatError: not a premium hand.

    >>> from rulings.tournament.chart import open_night
    >>> night = open_night(Room(location="Brewpub", seats_per_table=8))
    >>> night = night.apply(SignedIn(Entrant("Ann", 18000), Seat(1, 4)))
    >>> night, _ = note_award(night, "bounty", "ann", chips=2)
    >>> dict(night.chart.bounties)
    {'ann': 2}
    """
    if night.chart.status == "finished":
        raise TournamentError("tonight's tournament is finished; record awards on the event")
    key = find_player(night.chart, player)
    if award == "premium":
        hand = parse_premium_hand(hand)
    if award == "bounty":
        if chips < 0:
            raise TournamentError("bounty chips can't be negative")
        remove = remove or chips == 0
    entry = AwardNoted(
        award, key, chips=0 if remove else chips, hand=hand if award == "premium" else "",
        remove=remove,
    )  # fmt: skip
    return night.apply(entry), entry


def undo_last(night: Night) -> tuple[Night, Entry]:
    """Take back the last sign-in, bust, move, balance or button; repeatable.

    Returns:
        The night as it was before that entry (its replay without it) and the entry undone.

    Raises:
        TournamentError: nothing to undo, the last entry is the start, or the night is finished.
    """
    if night.chart.status == "finished":
        raise TournamentError("tonight's tournament is finished; correct the event instead")
    if not night.log:
        raise TournamentError("there is nothing to undo")
    last = night.log[-1]
    if not isinstance(last, UNDOABLE):
        raise TournamentError(
            "the last action was the start; undo takes back sign-ins, busts, moves, balances "
            "and awards"
        )
    return replay_night(night.setup, night.log[:-1]), last
