"""Issue 19: the night's rules give one number, at the table and in the records."""

import random

from rulings import (
    Arrival,
    Entrant,
    Night,
    PlayerMoved,
    Room,
    Seat,
    SignedIn,
    balance_tables,
    bust_players,
    finish_night,
    load_league_rules,
    night_event,
    open_night,
    set_button,
    sign_in,
    start_play,
)

RULES = load_league_rules()


def full_room(reserve: int) -> Night:
    """One table of four seats, four seated and ``reserve`` players waiting (1.E.e)."""
    rng = random.Random(3)
    night = open_night(Room("Brewpub", "2026 Fall", seats_per_table=4, tables=1))
    for name in ["Ann", "Bob", "Cy", "Dee"] + [f"Res{i}" for i in range(reserve)]:
        night, _, _ = sign_in(night, name, Arrival(), RULES, rng)
    night, _ = start_play(night)
    return night


def stored_position(night: Night, name: str) -> int:
    event = night_event(night, season="2026 Fall", date="2026-12-01")
    position = 1
    for group in event.finish:
        if name in group:
            return position
        position += len(group)
    raise AssertionError(f"{name} is not in the finish")


def test_bust_position_is_the_stored_position_reserve_never_seated_not_counted() -> None:
    night = full_room(reserve=2)
    night, entry = bust_players(night, ["Ann"], None, random.Random(0))
    # Res0 takes Ann's seat (he counts: he outlasts her); Res1 still waits and never sits.
    assert len(entry.seated) == 1
    assert entry.players == (("ann", 5),)
    assert night.chart.positions()["ann"] == 5
    chips = {night.chart.name(k): 1000 * (i + 1) for i, k in enumerate(night.chart.seated)}
    night, _ = finish_night(night, chips)
    assert stored_position(night, "Ann") == 5


def test_bust_position_moves_down_when_a_waiting_reserve_player_sits_down() -> None:
    night = full_room(reserve=2)
    night, _ = bust_players(night, ["Ann"], None, random.Random(0))
    night, entry = bust_players(night, ["Bob"], None, random.Random(0))
    assert entry.players == (("bob", 5),)
    assert night.chart.positions() == {"ann": 6, "bob": 5}
    chips = {night.chart.name(k): 1000 * (i + 1) for i, k in enumerate(night.chart.seated)}
    night, _ = finish_night(night, chips)
    assert (stored_position(night, "Ann"), stored_position(night, "Bob")) == (6, 5)


def test_bust_positions_on_one_hand_share_and_count_only_the_seated() -> None:
    night = full_room(reserve=1)
    night, entry = bust_players(night, ["Ann", "Bob"], [500, 500], random.Random(0))
    # One seat goes to Res0: three seated after the hand, so both share 4th (2.G.e.2).
    assert dict(entry.players) == {"ann": 4, "bob": 4}


def seated_night(layout: dict[int, list[int]], buttons: dict[int, int]) -> Night:
    """Players at the given seats of each table, with the buttons known."""
    night = open_night(Room("Brewpub", "2026 Fall", seats_per_table=8))
    for table, seats in layout.items():
        for seat in seats:
            night = night.apply(SignedIn(Entrant(f"T{table}S{seat}", 18000), Seat(table, seat)))
    for table, seat in buttons.items():
        night, _ = set_button(night, table, seat)
    return night


def is_next_small_blind(before: Night, seat: Seat) -> bool:
    """The seat is first after the next hand's button (today's small blind) once he sits."""
    chart = before.chart
    taken = {s.seat for s in chart.seated.values() if s.table == seat.table}
    button = chart.buttons[seat.table]
    clockwise = [(button - 1 + i) % 8 + 1 for i in range(1, 9)]
    next_button = next(s for s in clockwise if s in taken)
    after_next = [(next_button - 1 + i) % 8 + 1 for i in range(1, 9)]
    return next(s for s in after_next if s in taken | {seat.seat}) == seat.seat


def test_2_d_a_b_balance_never_seats_the_moved_player_in_the_small_blind() -> None:
    # Table 1: button 8, small blind 1, big blind 4; seats 2 and 3 would be the next small
    # blind, no seat straight after the big blind is free: seat 6 is the only right one.
    night = seated_night({1: [8, 1, 4, 5, 7], 2: [1, 2, 3, 4, 5, 6, 7]}, {1: 8, 2: 3})
    for seed in range(30):
        _, entry = balance_tables(night, random.Random(seed))
        (move,) = entry.moves
        assert move.to_seat == Seat(1, 6)
        assert entry.drawn_tables == (1,)
        assert entry.small_blind == ()


def test_2_d_a_b_balance_in_position_over_many_rooms() -> None:
    rng = random.Random(7)
    for _ in range(60):
        layout = {t: sorted(rng.sample(range(1, 9), n)) for t, n in ((1, 4), (2, 7))}
        night = seated_night(layout, {t: rng.choice(s) for t, s in layout.items()})
        after, entry = balance_tables(night, rng)
        for move in entry.moves:
            free = [
                Seat(1, n) for n in range(1, 9) if n not in layout[1] and Seat(1, n) != move.to_seat
            ]
            if is_next_small_blind(night, move.to_seat):
                # Only when every empty seat would be the small blind's; the reply says so.
                assert all(is_next_small_blind(night, s) for s in free)
                assert move.player in entry.small_blind
            else:
                assert move.player not in entry.small_blind
            night = night.apply(PlayerMoved(move))
        assert after.chart.counts() == night.chart.counts()


def test_2_d_c_balance_takes_the_seat_due_the_big_blind_without_a_draw() -> None:
    # Button 8, blinds at 1 and 2, seat 3 empty: due the big blind next.
    night = seated_night({1: [8, 1, 2, 5, 7], 2: [1, 2, 3, 4, 5, 6, 7]}, {1: 8, 2: 3})
    _, entry = balance_tables(night, random.Random(0))
    assert [m.to_seat for m in entry.moves] == [Seat(1, 3)]
    assert entry.drawn_tables == ()


def test_average_stack_is_rounded_not_truncated() -> None:
    night = seated_night({1: [1, 2]}, {})
    night = night.apply(SignedIn(Entrant("Odd", 18002), Seat(1, 3)))
    assert night.chart.chips_in_play == 54002
    assert night.chart.average_stack == 18001  # 18,000.67


def test_2_d_a_b_a_broken_tables_players_avoid_the_small_blind_seat_too() -> None:
    # Table 2 (two players) breaks into table 1: button 8, blinds 1 and 4; seats 2 and 3 would
    # be the next small blind, seats 5 and 6 are free and are not.
    night = seated_night({1: [8, 1, 4, 7], 2: [1, 2]}, {1: 8})
    for seed in range(30):
        _, entry = balance_tables(night, random.Random(seed))
        assert entry.broken == (2,)
        first = entry.moves[0]
        assert first.to_seat in (Seat(1, 5), Seat(1, 6))
