"""The night as values: the room, who sits where, the night's log, and how one entry applies.

A ``Night`` is the room (``Room``), the seating chart (``Chart``) and the log of what happened
(``Entry`` values, oldest first). Every entry records its *outcome* (the seats drawn, the
positions given), never a request, so replaying a log always gives the same chart: random draws
happen once, when the entry is decided (``rulings.tournament.night``), and never again. That is
what makes undo exact: the night without its last entry is the replay of the shorter log.

Seats run 1..``seats_per_table`` clockwise: seat i+1 sits to the left of seat i, the button
passes from seat i to the next occupied seat after it.

>>> night = open_night(Room(location="Brewpub", seats_per_table=8))
>>> night = night.apply(SignedIn(Entrant("Ann", 18000), Seat(1, 4)))
>>> night.chart.seat_of("ann")
Seat(table=1, seat=4)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rulings.errors import TournamentError
from rulings.league import name_key

log = logging.getLogger(__name__)

Status = Literal["registering", "running", "finished"]
FinishHow = Literal["last_player", "chip_count", "chop"]

MAX_SEATS_PER_TABLE = 10
"""The most seats a table may have."""


@dataclass(frozen=True, order=True)
class Seat:
    """A place at a table."""

    table: int
    seat: int

    def __str__(self) -> str:
        return f"table {self.table} seat {self.seat}"


@dataclass(frozen=True)
class Entrant:
    """Someone signed in tonight.

    Attributes:
        name: the name as signed in (the league's spelling).
        stack: the starting stack (2.C, 1.E.d).
        late: signed in after play began (1.E.d).
        chips_off: the late chip-down in ``stack`` (twice the big blind he sits down in).
    """

    name: str
    stack: int
    late: bool = False
    chips_off: int = 0

    @property
    def key(self) -> str:
        """The comparison key of the name."""
        return name_key(self.name)


@dataclass(frozen=True)
class Room:
    """Tonight's room.

    Attributes:
        location: the host location.
        season: the season (None: the league's current one at the finish).
        seats_per_table: seats at each table (at most ``MAX_SEATS_PER_TABLE``).
        tables: tables in the room (None: as many as the sign-ins need).
    """

    location: str
    season: str | None = None
    seats_per_table: int = 8
    tables: int | None = None

    def __post_init__(self) -> None:
        if not 2 <= self.seats_per_table <= MAX_SEATS_PER_TABLE:
            raise TournamentError(
                f"a table has 2 to {MAX_SEATS_PER_TABLE} seats, not {self.seats_per_table}"
            )
        if self.tables is not None and not 1 <= self.tables <= 100:
            raise TournamentError(f"a room has 1 to 100 tables, not {self.tables}")
        if not self.location.strip():
            raise TournamentError("the location is missing")


# -- the night's log: each entry is an outcome -------------------------------------------------


@dataclass(frozen=True)
class SeatMove:
    """One player's move from one seat to another (``from_seat`` None: from the reserve list)."""

    player: str
    from_seat: Seat | None
    to_seat: Seat


@dataclass(frozen=True)
class SignedIn:
    """A sign-in: seated at ``seat``, or on the reserve list when ``seat`` is None (1.E.e)."""

    player: Entrant
    seat: Seat | None


@dataclass(frozen=True)
class PlayStarted:
    """Play began: sign-ins from now on are late (1.E.d)."""


@dataclass(frozen=True)
class BustedOut:
    """Eliminations on one hand, each with its finishing position (2.G.e.2).

    Attributes:
        players: (player key, position); players sharing a position tied.
        seated: reserve players seated in the seats the busts opened (1.E.e).
        restacked: (key, stack, chips off) of late reserve players chipped down again at the
            level they sit down in (1.E.d), replacing what their sign-in estimated.
    """

    players: tuple[tuple[str, int], ...]
    seated: tuple[SeatMove, ...] = ()
    restacked: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class TablesBalanced:
    """A balance: the moves made, the tables broken and those told to redraw (2.D).

    Attributes:
        moves: in the order made.
        broken: tables broken (their players drawn into the open seats).
        redraw: tables that received three or more players and redraw for the button (2.D.d).
        random_tables: tables a player was picked from at random (no button given).
        drawn_tables: tables a player moved into a drawn seat (no button given there, or no
            seat due the big blind free; never the small blind's while another is free).
        small_blind: players who had to take the next small blind's seat (no other was
            free): they sit out until the button reaches them (2.D.b).
    """

    moves: tuple[SeatMove, ...]
    broken: tuple[int, ...] = ()
    redraw: tuple[int, ...] = ()
    random_tables: tuple[int, ...] = ()
    drawn_tables: tuple[int, ...] = ()
    small_blind: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayerMoved:
    """A director's own move (``move.from_seat`` None seats a reserve player)."""

    move: SeatMove


@dataclass(frozen=True)
class ButtonSet:
    """The director says where the dealer button is at a table."""

    seat: Seat


@dataclass(frozen=True)
class NightFinished:
    """The night is over: the finish order, 1st place first (a group shares its positions).

    Attributes:
        finish: groups of player keys, 1st place first, for everyone who played.
        how: ``last_player``, ``chip_count`` (2.F.a) or ``chop`` (2.F.b).
    """

    finish: tuple[tuple[str, ...], ...]
    how: FinishHow = "last_player"


Award = Literal["bounty", "premium", "second_chance"]


@dataclass(frozen=True)
class AwardNoted:
    """An award of tonight (no event exists yet), stored with the night's result at the finish.

    Attributes:
        award: ``bounty`` (bounty chips turned in, replacing the number noted), ``premium``
            (a premium hand won at showdown) or ``second_chance`` (a second-chance game won).
        player: the player's key.
        chips: the bounty chips (``bounty``; 0 with ``remove``).
        hand: ``royal_flush``, ``straight_flush`` or ``quads`` (``premium``).
        remove: takes the award back instead (one premium hand or second-chance win).
    """

    award: Award
    player: str
    chips: int = 0
    hand: str = ""
    remove: bool = False


Entry = (
    SignedIn
    | PlayStarted
    | BustedOut
    | TablesBalanced
    | PlayerMoved
    | ButtonSet
    | AwardNoted
    | NightFinished
)

UNDOABLE = (SignedIn, BustedOut, TablesBalanced, PlayerMoved, ButtonSet, AwardNoted)
"""What ``undo`` takes back: a sign-in, a bust, a balance, a move, a button or an award."""


# -- the seating chart --------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    """Who sits where, who waits, who is out.

    Attributes:
        status: ``registering``, ``running`` or ``finished``.
        players: key -> everyone signed in tonight.
        seated: key -> seat, for players still playing at a table.
        reserve: keys waiting for a seat, first come first seated (1.E.e).
        busted: groups of keys in the order of elimination (a group went out on one hand
            with equal chips and shares a position; a hand's worse finishers come first).
        tables: the tables in play, ascending.
        buttons: table -> the dealer button's seat, where the director gave it.
        finish: the finish order, once finished.
        bounties: key -> bounty chips noted tonight (1.C.a.3).
        premium_hands: (key, hand) of each premium hand noted tonight (1.C.a.2).
        second_chance: a key per second-chance game won tonight.
    """

    status: Status = "registering"
    players: Mapping[str, Entrant] = field(default_factory=lambda: MappingProxyType({}))
    seated: Mapping[str, Seat] = field(default_factory=lambda: MappingProxyType({}))
    reserve: tuple[str, ...] = ()
    busted: tuple[tuple[str, ...], ...] = ()
    tables: tuple[int, ...] = ()
    buttons: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    finish: tuple[tuple[str, ...], ...] = ()
    bounties: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    premium_hands: tuple[tuple[str, str], ...] = ()
    second_chance: tuple[str, ...] = ()

    def seat_of(self, key: str) -> Seat | None:
        """The seat of a player (by key), None when not seated."""
        return self.seated.get(key)

    def name(self, key: str) -> str:
        """A player's name as signed in."""
        return self.players[key].name

    def occupants(self) -> dict[Seat, str]:
        """Seat -> player key, for every seated player."""
        return {seat: key for key, seat in self.seated.items()}

    def counts(self) -> dict[int, int]:
        """Table -> players seated there, for every table in play."""
        out = dict.fromkeys(self.tables, 0)
        for seat in self.seated.values():
            out[seat.table] += 1
        return out

    @property
    def remaining(self) -> int:
        """Players still in: seated or waiting on the reserve list."""
        return len(self.seated) + len(self.reserve)

    @property
    def chips_in_play(self) -> int:
        """The starting stacks of everyone who took a seat (busted players' chips stay in play)."""
        busted = sum(self.players[k].stack for group in self.busted for k in group)
        return busted + sum(self.players[k].stack for k in self.seated)

    def positions(self) -> dict[str, int]:
        """Key -> finishing position of each busted player, counted from the seated players.

        One rule, at a bust and in the stored finish alike: a player counts once he has taken
        a seat, so a reserve player still waiting does not (if he never sits down he is not in
        the finish at all). A late sign-in or a reserve player seated after a bust moves the
        earlier busts down one place, as it should.
        """
        out: dict[str, int] = {}
        position = len(self.seated) + 1
        for group in reversed(self.busted):
            for key in group:
                out[key] = position
            position += len(group)
        return out

    @property
    def average_stack(self) -> int:
        """Chips in play over the players at the tables, rounded (0 with nobody seated)."""
        if not self.seated:
            return 0
        return (2 * self.chips_in_play + len(self.seated)) // (2 * len(self.seated))


@dataclass(frozen=True)
class Night:
    """Tonight: the room, the chart, and the log that produced the chart.

    ``apply`` adds an entry (already decided) and returns the next night; the chart is always
    the replay of ``log`` from ``Room`` (``replay``), which the property tests check.
    """

    setup: Room
    chart: Chart
    log: tuple[Entry, ...] = ()

    def apply(self, entry: Entry) -> Night:
        """Return the night after ``entry``.

        Raises:
            TournamentError: the entry does not fit the chart (a seat taken, a player unknown).
        """
        return Night(self.setup, step(self.setup, self.chart, entry), (*self.log, entry))


def open_night(setup: Room) -> Night:
    """A night with nobody signed in: the room's tables are in play, empty."""
    tables = tuple(range(1, setup.tables + 1)) if setup.tables else ()
    return Night(setup, Chart(tables=tables))


def replay_night(setup: Room, entries: Iterable[Entry]) -> Night:
    """Rebuild a night from its log."""
    night = open_night(setup)
    for entry in entries:
        night = night.apply(entry)
    return night


def _seat_ok(setup: Room, chart: Chart, seat: Seat, taken: Mapping[Seat, str]) -> None:
    if not 1 <= seat.seat <= setup.seats_per_table:
        raise TournamentError(
            f"table {seat.table} has seats 1-{setup.seats_per_table}, not seat {seat.seat}"
        )
    if seat in taken:
        raise TournamentError(f"{seat} is taken by {chart.name(taken[seat])}")


def _with_tables(chart: Chart, table: int) -> tuple[int, ...]:
    return chart.tables if table in chart.tables else tuple(sorted((*chart.tables, table)))


def _move(
    setup: Room,
    chart: Chart,
    seated: dict[str, Seat],
    reserve: list[str],
    move: SeatMove,
    tables: tuple[int, ...],
) -> tuple[int, ...]:
    key = name_key(move.player)
    taken = {seat: k for k, seat in seated.items()}
    if move.from_seat is None:
        if key not in reserve:
            raise TournamentError(f"{move.player} is not on the reserve list")
        reserve.remove(key)
    elif seated.get(key) != move.from_seat:
        raise TournamentError(f"{move.player} is not at {move.from_seat}")
    _seat_ok(setup, chart, move.to_seat, taken)
    seated[key] = move.to_seat
    table = move.to_seat.table
    return tables if table in tables else tuple(sorted((*tables, table)))


def _groups(positions: Iterable[tuple[str, int]]) -> tuple[tuple[str, ...], ...]:
    """One hand's busts as groups, worst position first."""
    by: dict[int, list[str]] = {}
    for key, position in positions:
        by.setdefault(position, []).append(key)
    return tuple(tuple(by[p]) for p in sorted(by, reverse=True))


def step(setup: Room, chart: Chart, entry: Entry) -> Chart:
    """Apply one decided entry to the chart.

    Raises:
        TournamentError: the entry contradicts the chart.
    """
    if chart.status == "finished":
        raise TournamentError("tonight's tournament is finished")
    if isinstance(entry, SignedIn):
        key = entry.player.key
        if key in chart.players:
            raise TournamentError(f"{entry.player.name} is already signed in")
        players = MappingProxyType({**chart.players, key: entry.player})
        if entry.seat is None:
            return replace(chart, players=players, reserve=(*chart.reserve, key))
        _seat_ok(setup, chart, entry.seat, chart.occupants())
        now_seated = MappingProxyType({**chart.seated, key: entry.seat})
        tables = _with_tables(chart, entry.seat.table)
        return replace(chart, players=players, seated=now_seated, tables=tables)
    if isinstance(entry, PlayStarted):
        if chart.status != "registering":
            raise TournamentError("play has already begun")
        return replace(chart, status="running")
    if isinstance(entry, BustedOut):
        seated: dict[str, Seat] = dict(chart.seated)
        for key, _ in entry.players:
            if key not in seated:
                raise TournamentError(f"{key} is not at a table")
            del seated[key]
        reserve = list(chart.reserve)
        tables = chart.tables
        for move in entry.seated:
            tables = _move(setup, chart, seated, reserve, move, tables)
        stacks = dict(chart.players)
        for key, stack, chips_off in entry.restacked:
            stacks[key] = replace(stacks[key], stack=stack, chips_off=chips_off)
        return replace(
            chart,
            players=MappingProxyType(stacks) if entry.restacked else chart.players,
            seated=MappingProxyType(seated),
            reserve=tuple(reserve),
            busted=(*chart.busted, *_groups(entry.players)),
            tables=tables,
        )
    if isinstance(entry, TablesBalanced | PlayerMoved):
        moves = entry.moves if isinstance(entry, TablesBalanced) else (entry.move,)
        seated = dict(chart.seated)
        reserve = list(chart.reserve)
        tables = chart.tables
        for move in moves:
            tables = _move(setup, chart, seated, reserve, move, tables)
        gone = set(entry.broken) if isinstance(entry, TablesBalanced) else set()
        emptied = [t for t in gone if any(s.table == t for s in seated.values())]
        if emptied:
            raise TournamentError(f"table {emptied[0]} still has players")
        buttons = {
            t: s
            for t, s in chart.buttons.items()
            if t not in gone and not (isinstance(entry, TablesBalanced) and t in entry.redraw)
        }
        return replace(
            chart,
            seated=MappingProxyType(seated),
            reserve=tuple(reserve),
            tables=tuple(t for t in tables if t not in gone),
            buttons=MappingProxyType(buttons),
        )
    if isinstance(entry, ButtonSet):
        if entry.seat.table not in chart.tables:
            raise TournamentError(f"there is no table {entry.seat.table} in play")
        if not 1 <= entry.seat.seat <= setup.seats_per_table:
            raise TournamentError(
                f"table {entry.seat.table} has seats 1-{setup.seats_per_table}, "
                f"not seat {entry.seat.seat}"
            )
        return replace(
            chart,
            buttons=MappingProxyType({**chart.buttons, entry.seat.table: entry.seat.seat}),
        )
    if isinstance(entry, AwardNoted):
        return _award(chart, entry)
    if isinstance(entry, NightFinished):
        return replace(chart, status="finished", finish=entry.finish)
    raise TournamentError(f"unknown entry {entry!r}")  # pragma: no cover


def _award(chart: Chart, entry: AwardNoted) -> Chart:
    key = entry.player
    if key not in chart.players:
        raise TournamentError(f"{key} did not sign in tonight")
    name = chart.name(key)
    if key in chart.reserve:
        raise TournamentError(f"{name} is on the reserve list: he has not played yet")
    if entry.award == "bounty":
        bounties = dict(chart.bounties)
        if entry.remove:
            if key not in bounties:
                raise TournamentError(f"no bounty chips are noted for {name} tonight")
            del bounties[key]
        else:
            bounties[key] = entry.chips
        return replace(chart, bounties=MappingProxyType(bounties))
    if entry.award == "premium":
        hands = list(chart.premium_hands)
        if entry.remove:
            if (key, entry.hand) not in hands:
                words = entry.hand.replace("_", " ")
                raise TournamentError(f"no {words} is noted for {name} tonight")
            hands.remove((key, entry.hand))
        else:
            hands.append((key, entry.hand))
        return replace(chart, premium_hands=tuple(hands))
    winners = list(chart.second_chance)
    if entry.remove:
        if key not in winners:
            raise TournamentError(f"no second-chance win is noted for {name} tonight")
        winners.remove(key)
    else:
        winners.append(key)
    return replace(chart, second_chance=tuple(winners))
