import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulings import (
    Arrival,
    BustedOut,
    Night,
    Room,
    Seat,
    TournamentError,
    balance_tables,
    bust_players,
    chart_from_data,
    chart_to_data,
    check_bust,
    chop_heads_up,
    entry_from_data,
    entry_to_data,
    finish_night,
    load_league_rules,
    move_player,
    name_key,
    night_event,
    open_night,
    replay_night,
    set_button,
    sign_in,
    standings_order,
    start_play,
    tables_needed,
    undo_last,
)
from rulings.tournament import LateEntry

RULES = load_league_rules()


def night_of(
    names: list[str],
    *,
    seats: int = 8,
    tables: int | None = None,
    seed: int = 1,
    started: bool = True,
) -> tuple[Night, random.Random]:
    rng = random.Random(seed)
    night = open_night(Room("Brewpub", "2026 Fall", seats, tables))
    for name in names:
        night, _, _ = sign_in(night, name, Arrival(), RULES, rng)
    if started:
        night, _ = start_play(night)
    return night, rng


def names(n: int) -> list[str]:
    return [f"P{i:03d}" for i in range(n)]


def test_1_e_a_sign_in_draws_a_seat_and_fills_tables_evenly():
    night, _ = night_of(names(20), tables=3, started=False)
    assert sorted(night.chart.counts().values()) == [6, 7, 7]
    seats = list(night.chart.seated.values())
    assert len(set(seats)) == 20


def test_seat_draw_uses_the_injected_generator():
    a, _ = night_of(names(12), tables=2, seed=7, started=False)
    b, _ = night_of(names(12), tables=2, seed=7, started=False)
    c, _ = night_of(names(12), tables=2, seed=8, started=False)
    assert a == b
    assert a.chart.seated != c.chart.seated


def test_2_c_b_1_stack_has_extras_capped_at_9000():
    night = open_night(Room("Brewpub"))
    arrival = Arrival(early_signin=True, on_time=True, birthday=True, new_player=True)
    night, entry, stack = sign_in(night, "Ann", arrival, RULES, random.Random(0))
    assert stack.total == 18000 + 9000 + 4000
    assert entry.player.stack == 31000


def test_1_e_e_full_room_puts_the_player_on_the_reserve_list_with_his_extras():
    night, rng = night_of(names(4), seats=2, tables=2, started=False)
    night, entry, stack = sign_in(night, "Res", Arrival(on_time=True), RULES, rng)
    assert entry.seat is None
    assert night.chart.reserve == ("res",)
    assert stack.total == 20000
    night, _ = start_play(night)
    night, bust = bust_players(night, ["P000"], None, rng)
    assert bust.players == (("p000", 5),)
    assert [m.player for m in bust.seated] == ["Res"]
    assert night.chart.players["res"].stack == 20000
    assert night.chart.seated["res"].table == bust.seated[0].to_seat.table


def test_1_e_d_late_player_at_300_600_is_chipped_down_1200_without_extras():
    night, rng = night_of(names(4))
    late = LateEntry(big_blind=600)
    night, entry, stack = sign_in(night, "Late", Arrival(birthday=True), RULES, rng, late)
    assert stack.total == 16800
    assert entry.player.late
    assert any("late players get no extra chips" in r for r in stack.not_awarded)


def test_2_c_b_4_late_player_keeps_the_chips_for_bringing_a_new_player():
    night, rng = night_of(names(4))
    late = LateEntry(big_blind=600)
    night, _, stack = sign_in(night, "Late", Arrival(new_players_brought=1), RULES, rng, late)
    assert stack.total == 18000 + 8000 - 1200


def test_1_e_d_late_player_claiming_early_sign_in_gets_no_bonus_chips():
    night, rng = night_of(names(4))
    _, _, stack = sign_in(night, "Late", Arrival(early_signin=True), RULES, rng, LateEntry(600))
    assert stack.total == 16800
    assert stack.not_awarded == ("signed in early: late players get no extra chips (1.E.d)",)


def test_1_e_d_late_registration_closes_after_the_first_break():
    night, rng = night_of(names(4))
    with pytest.raises(TournamentError, match="end of the first break"):
        sign_in(night, "Late", Arrival(), RULES, rng, LateEntry(600, is_closed=True))
    with pytest.raises(TournamentError, match="big blind"):
        sign_in(night, "Late", Arrival(), RULES, rng, None)


def test_a_player_cannot_sign_in_twice():
    night, rng = night_of(["Ann", "Bob"], started=False)
    with pytest.raises(TournamentError, match="already signed in"):
        sign_in(night, " ann ", Arrival(), RULES, rng)


def test_2_g_e_2_more_chips_at_the_start_of_the_hand_finishes_higher():
    night, rng = night_of(["Ann", "Bob", "Dan", "Eve", "Gus"])
    night, entry = bust_players(night, ["Dan", "Eve"], [5000, 9000], rng)
    assert entry.players == (("eve", 4), ("dan", 5))


def test_2_g_e_2_equal_chips_share_the_position():
    night, rng = night_of(["Ann", "Bob", "Dan", "Eve", "Gus"])
    night, entry = bust_players(night, ["Dan", "Eve", "Gus"], [5000, 5000, 9000], rng)
    assert entry.players == (("gus", 3), ("dan", 4), ("eve", 4))


@pytest.mark.parametrize(
    ("who", "chips", "message"),
    [
        (["Zed"], None, "did not sign in"),
        (["Ann", "ann"], [1, 2], "named twice"),
        (["Ann", "Bob"], None, "give the chips"),
        (["Ann", "Bob"], [100], "chip count"),
    ],
)
def test_bad_busts_are_refused(who, chips, message):
    night, rng = night_of(["Ann", "Bob", "Dan"])
    with pytest.raises(TournamentError, match=message):
        bust_players(night, who, chips, rng)


def test_busting_an_already_busted_player_is_refused():
    night, rng = night_of(["Ann", "Bob", "Dan"])
    night, _ = bust_players(night, ["Dan"], None, rng)
    with pytest.raises(TournamentError, match="busted in position 3"):
        bust_players(night, ["dan"], None, rng)


def test_a_bust_before_the_start_is_refused():
    night, rng = night_of(["Ann", "Bob"], started=False)
    with pytest.raises(TournamentError, match="start"):
        bust_players(night, ["Ann"], None, rng)


def test_a_seated_player_may_report_his_own_bust_and_nothing_changes():
    night, _ = night_of(["Ann", "Bob", "Dan"])
    assert check_bust(night, " dan ") == "dan"
    assert night.chart.remaining == 3  # a check, not a bust


@pytest.mark.parametrize(
    ("setup", "who", "message"),
    [
        ("registering", "Ann", "play has not begun"),
        ("busted", "Dan", "busted in position 3"),
        ("unknown", "Zed", "did not sign in"),
        ("reserve", "P002", "on the reserve list"),
        ("last", "Ann", "somebody must be left"),
    ],
)
def test_a_self_report_is_refused_as_the_bust_would_be(setup, who, message):
    if setup == "reserve":
        night, rng = night_of(names(3), seats=2, tables=1)
    else:
        night, rng = night_of(["Ann", "Bob", "Dan"], started=setup != "registering")
    if setup == "busted":
        night, _ = bust_players(night, ["Dan"], None, rng)
    if setup == "last":
        night, _ = bust_players(night, ["Dan", "Bob"], [1, 2], rng)
    with pytest.raises(TournamentError, match=message):
        check_bust(night, who)


def test_2_d_a_balance_keeps_tables_within_one_and_breaks_a_table_when_it_can():
    night, rng = night_of(names(24), tables=3)
    night, _ = bust_players(night, names(24)[:3], [1, 2, 3], rng)
    before = night.chart.counts()
    night, entry = balance_tables(night, rng)
    counts = night.chart.counts()
    assert max(counts.values()) - min(counts.values()) <= 1
    assert len(entry.moves) == sum(max(0, n - 7) for n in before.values())  # no extra moves
    for _ in range(6):
        night, _ = bust_players(night, [next(iter(night.chart.seated))], None, rng)
        night, _ = balance_tables(night, rng)
    # 15 players fit at two tables of 8: one table broke, drawn into the open seats.
    assert len(night.chart.tables) == tables_needed(15, 8) == 2
    assert sum(night.chart.counts().values()) == 15


def test_2_d_d_a_table_receiving_three_players_redraws_for_the_button():
    night, rng = night_of(names(16), tables=2)
    for table in (1, 2):
        night, _ = set_button(night, table, 1)
    one = [k for k, s in night.chart.seated.items() if s.table == 1][:3]
    two = [k for k, s in night.chart.seated.items() if s.table == 2][:5]
    night, _ = bust_players(night, one + two, [1, 2, 3, 4, 5, 6, 7, 8], rng)
    night, entry = balance_tables(night, rng)
    assert entry.broken == (2,)
    assert entry.redraw == (1,)
    assert 1 not in night.chart.buttons


def test_2_d_a_c_with_the_button_the_player_due_the_big_blind_moves_in_position():
    night, rng = night_of(names(16), tables=2)
    chart = night.chart
    one = {s.seat: k for k, s in chart.seated.items() if s.table == 1}
    two = {s.seat: k for k, s in chart.seated.items() if s.table == 2}
    # Table 2 loses seats 7 and 8; table 1 has the button at seat 3 (SB 4, BB 5, next 6).
    night, _ = bust_players(night, [two[7], two[8]], [1, 2], rng)
    night, _ = set_button(night, 1, 3)
    night, _ = set_button(night, 2, 1)  # SB 2, BB 3; the seat due the big blind next is 4
    # The bust left table 2 seats 7 and 8 empty; seat 4 is taken, so he lands at random there.
    night, entry = balance_tables(night, rng)
    assert len(entry.moves) == 1
    move = entry.moves[0]
    assert name_key(move.player) == one[6]
    assert move.to_seat.table == 2
    assert entry.random_tables == ()


def test_2_d_c_moved_player_lands_in_the_seat_due_the_big_blind_next():
    night, rng = night_of(names(16), tables=2)
    two = {s.seat: k for k, s in night.chart.seated.items() if s.table == 2}
    night, _ = bust_players(night, [two[4], two[8]], [1, 2], rng)
    night, _ = set_button(night, 1, 8)
    night, _ = set_button(night, 2, 1)  # SB 2, BB 3: seat 4 is empty and due the big blind next
    night, entry = balance_tables(night, rng)
    assert [m.to_seat for m in entry.moves] == [Seat(2, 4)]
    # Table 1 button at 8: SB 1, BB 2, seat 3 is due the big blind next; never the SB.
    assert entry.moves[0].from_seat == Seat(1, 3)


def test_2_d_a_without_a_button_a_random_player_moves_and_the_entry_says_so():
    night, rng = night_of(names(16), tables=2)
    two = [k for k, s in night.chart.seated.items() if s.table == 2]
    night, _ = bust_players(night, two[:2], [1, 2], rng)
    night, entry = balance_tables(night, rng)
    assert entry.random_tables == (1,)


def test_director_move_to_a_taken_or_missing_seat_is_refused():
    night, rng = night_of(names(10), tables=2)
    taken = next(iter(night.chart.seated.values()))
    mover = next(k for k, s in night.chart.seated.items() if s != taken)
    with pytest.raises(TournamentError, match="is taken by"):
        move_player(night, mover, taken.table, taken.seat, rng)
    with pytest.raises(TournamentError, match="no table 9"):
        move_player(night, mover, 9, 1, rng)
    with pytest.raises(TournamentError, match="seats 1-8"):
        move_player(night, mover, 1, 11, rng)


def test_director_move_is_recorded():
    night, rng = night_of(names(10), tables=2)
    free = next(
        Seat(t, n) for t in (1, 2) for n in range(1, 9) if Seat(t, n) not in night.chart.occupants()
    )
    night, _ = move_player(night, "P003", free.table, free.seat, rng)
    assert night.chart.seated["p003"] == free


def test_2_f_b_chop_gives_the_leader_first_and_the_other_second():
    night, rng = night_of(["Ann", "Bob", "Cy"])
    night, _ = bust_players(night, ["Cy"], None, rng)
    night, _ = chop_heads_up(night, "Bob")
    assert standings_order(night) == (("Bob",), ("Ann",), ("Cy",))


def test_2_f_b_chop_is_heads_up_only():
    night, _ = night_of(["Ann", "Bob", "Cy"])
    with pytest.raises(TournamentError, match="heads-up"):
        chop_heads_up(night, "Bob")


def test_2_f_a_at_the_time_limit_most_chips_wins():
    night, rng = night_of(["Ann", "Bob", "Cy", "Dee"])
    night, _ = bust_players(night, ["Dee"], None, rng)
    with pytest.raises(TournamentError, match="Cy"):
        finish_night(night, {"Ann": 120000, "Bob": 80000})
    night, _ = finish_night(night, {"Ann": 120000, "Bob": 80000, "Cy": 80000})
    assert standings_order(night) == (("Ann",), ("Bob", "Cy"), ("Dee",))


def test_finish_with_one_player_left_and_the_event_record():
    night, rng = night_of(["Ann", "Bob", "Cy"])
    with pytest.raises(TournamentError, match="2 players are left"):
        finish_night(bust_players(night, ["Cy"], None, rng)[0])
    night, _ = bust_players(night, ["Cy", "Bob"], [10, 20], rng)
    night, _ = finish_night(night)
    record = night_event(night, season="2026 Fall", date="2026-11-20")
    assert record.finish == (("Ann",), ("Bob",), ("Cy",))
    assert record.location == "Brewpub"


def test_undo_takes_back_the_last_action_and_is_repeatable():
    night, rng = night_of(["Ann", "Bob", "Cy", "Dee"])
    before = night
    night, _ = bust_players(night, ["Dee"], None, rng)
    night, _ = balance_tables(night, rng)
    night, _ = undo_last(night)
    night, undone = undo_last(night)
    assert isinstance(undone, BustedOut)
    assert undone.players == (("dee", 4),)
    assert night == before
    with pytest.raises(TournamentError, match="start"):
        undo_last(night)


def test_codec_round_trips_the_log_and_the_chart():
    night, rng = night_of(names(20), tables=3)
    night, _ = bust_players(night, ["P001", "P002"], [3, 3], rng)
    night, _ = balance_tables(night, rng)
    night, _ = set_button(night, night.chart.tables[0], 2)
    for entry in night.log:
        assert entry_from_data(entry_to_data(entry)) == entry
    assert chart_from_data(chart_to_data(night.chart)) == night.chart


# -- properties -----------------------------------------------------------------------------

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["sign_in", "bust", "bust2", "balance", "undo"]), st.integers(0, 999)
    ),
    max_size=60,
)


def _check_chart(night: Night) -> None:
    chart = night.chart
    seats = list(chart.seated.values())
    assert len(seats) == len(set(seats))  # one player per seat
    assert set(chart.seated).isdisjoint(chart.reserve)
    assert set(chart.seated).isdisjoint(k for group in chart.busted for k in group)
    for seat in seats:
        assert seat.table in chart.tables
        assert 1 <= seat.seat <= night.setup.seats_per_table


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 40),
    seats=st.integers(2, 10),
    tables=st.one_of(st.none(), st.integers(1, 6)),
    actions=ACTIONS,
)
def test_property_any_night_keeps_one_seat_each_balanced_tables_exact_undo(
    seed, players, seats, tables, actions
):
    rng = random.Random(seed)
    night = open_night(Room("Brewpub", None, seats, tables))
    counter = 0
    for _ in range(players):
        night, _, _ = sign_in(night, f"S{counter}", Arrival(), RULES, rng)
        counter += 1
    if len(night.chart.seated) < 2:
        return
    night, _ = start_play(night)
    for action, pick in actions:
        before = night
        seated = sorted(night.chart.seated)
        try:
            if action == "sign_in":
                night, _, _ = sign_in(night, f"S{counter}", Arrival(), RULES, rng, LateEntry(400))
                counter += 1
            elif action == "bust":
                night, _ = bust_players(night, [seated[pick % len(seated)]], None, rng)
            elif action == "bust2" and len(seated) >= 2:
                two = [seated[pick % len(seated)], seated[(pick + 1) % len(seated)]]
                night, _ = bust_players(night, two, [pick % 3, (pick // 3) % 3], rng)
            elif action == "balance":
                night, _ = balance_tables(night, rng)
                counts = night.chart.counts()
                assert len(night.chart.tables) == tables_needed(len(night.chart.seated), seats)
                assert max(counts.values()) - min(counts.values()) <= 1
            elif action == "button" and night.chart.tables:
                table = night.chart.tables[pick % len(night.chart.tables)]
                night, _ = set_button(night, table, pick % seats + 1)
            elif action == "move" and night.chart.tables:
                table = night.chart.tables[pick % len(night.chart.tables)]
                night, _ = move_player(night, seated[pick % len(seated)], table, None, rng)
            elif action == "undo":
                night, _ = undo_last(night)
                assert night == replay_night(night.setup, night.log)
                continue
        except TournamentError:
            assert night is before
            continue
        _check_chart(night)
        if night is not before:
            assert undo_last(night)[0] == before  # undo restores the previous state exactly
    # Finishing positions run 1..N once each (ties sharing).
    left = sorted(night.chart.seated)
    night, _ = finish_night(
        night, {k: i % 2 for i, k in enumerate(left)} if len(left) > 1 else None
    )
    covered = []
    position = 1
    for group in night.chart.finish:
        covered.extend([position] * len(group))
        position += len(group)
    everyone = [k for g in night.chart.finish for k in g]
    assert (
        len(everyone) == len(set(everyone)) == len(night.chart.players) - len(night.chart.reserve)
    )
    # Each busted player's position is the first his group covers.
    positions = {k: covered[everyone.index(k)] for k in everyone}
    for key, position_given in night.chart.positions().items():
        assert positions[key] == position_given
    assert covered == sorted(covered)


def test_1_e_d_a_late_reserve_is_chipped_down_at_the_level_he_sits_down_in():
    night, rng = night_of(names(4), seats=2, tables=2)
    night, entry, stack = sign_in(night, "Late", Arrival(), RULES, rng, LateEntry(600))
    assert entry.seat is None
    assert stack.total == 16800
    night, bust = bust_players(night, ["P000"], None, rng, LateEntry(1000), RULES)
    assert bust.restacked == (("late", 16000, 2000),)
    assert night.chart.players["late"].stack == 16000
    assert undo_last(night)[0].chart.players["late"].stack == 16800
    assert entry_from_data(entry_to_data(bust)) == bust
    assert chart_from_data(chart_to_data(night.chart)) == night.chart


def test_director_move_to_a_full_table_is_refused():
    night, rng = night_of(names(6), seats=3, tables=2)
    mover = next(k for k, s in night.chart.seated.items() if s.table == 2)
    with pytest.raises(TournamentError, match="table 1 is full"):
        move_player(night, mover, 1, None, rng)
