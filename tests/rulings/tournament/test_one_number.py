"""Issue 19: the night's rules give one number, at the table and in the records."""

import random

from rulings import (
    Arrival,
    Night,
    Room,
    bust_players,
    finish_night,
    load_league_rules,
    night_event,
    open_night,
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
