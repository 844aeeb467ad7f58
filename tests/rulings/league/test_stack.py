import datetime

import pytest

from rulings import (
    Arrival,
    StackError,
    StartingStack,
    in_birthday_window,
    late_reduction,
    load_league_rules,
    starting_stack,
)

BTOWN = load_league_rules()


def test_2_c_a_starting_stack_is_18000():
    assert starting_stack(Arrival(), BTOWN) == StartingStack(18000, (), 0, 18000)


def test_2_c_b_1_early_on_time_and_birthday_add_up_to_the_9000_cap():
    stack = starting_stack(Arrival(early_signin=True, on_time=True, birthday=True), BTOWN)
    assert stack.extras == (
        ("signed in early", 2000), ("seated on time", 2000), ("birthday event", 5000),
    )  # fmt: skip
    assert stack.total == 27000


def test_2_c_b_1_cap_trims_the_combined_extras():
    rules = load_league_rules(overrides={"combined_extra_cap": 6000})
    stack = starting_stack(Arrival(early_signin=True, on_time=True, birthday=True), rules)
    assert stack.extras == (
        ("signed in early", 2000),
        ("seated on time", 2000),
        ("birthday event", 2000),
    )
    assert stack.total == 24000
    assert stack.not_awarded == ("birthday event: 3,000 over the 6,000 cap (2.C.b.1)",)


def test_2_c_b_2_and_3_new_player_and_referral_chips_are_on_top_of_the_cap():
    arrival = Arrival(early_signin=True, on_time=True, birthday=True, new_player=True,
                      new_players_brought=1)  # fmt: skip
    assert starting_stack(arrival, BTOWN).total == 18000 + 9000 + 4000 + 8000


def test_2_c_b_3_referral_counts_once_per_night_by_default():
    stack = starting_stack(Arrival(new_players_brought=2), BTOWN)
    assert stack.total == 26000
    assert "only 1 count per night" in stack.not_awarded[0]
    rules = load_league_rules(overrides={"referral_max_players": 3})
    assert starting_stack(Arrival(new_players_brought=2), rules).total == 34000


def test_1_e_d_example_late_player_at_300_600_starts_with_1200_removed():
    stack = starting_stack(Arrival(late_big_blind=600), BTOWN)
    assert stack.late_reduction == 1200
    assert stack.total == 16800
    assert late_reduction(600, BTOWN) == 1200


def test_1_e_d_and_2_c_b_4_late_player_gets_only_referral_chips():
    arrival = Arrival(birthday=True, new_player=True, new_players_brought=1, late_big_blind=400)
    stack = starting_stack(arrival, BTOWN)
    assert stack.extras == (("brought 1 new player", 8000),)
    assert stack.total == 18000 + 8000 - 800
    assert len(stack.not_awarded) == 2


def test_1_e_e_reserve_player_signed_in_before_the_start_keeps_extras():
    # a reserve player is not late: no late_big_blind, so no reduction and full extras
    assert starting_stack(Arrival(early_signin=True, on_time=True), BTOWN).total == 22000


def test_1_e_d_late_player_marked_early_or_on_time_gets_no_bonus_chips_like_a_birthday():
    stack = starting_stack(
        Arrival(early_signin=True, on_time=True, birthday=True, late_big_blind=200), BTOWN
    )
    assert stack.total == 18000 - 400
    assert stack.not_awarded == (
        "signed in early: late players get no extra chips (1.E.d)",
        "seated on time: late players get no extra chips (1.E.d)",
        "birthday event: late players get no extra chips (1.E.d)",
    )


def test_1_e_d_late_registration_closes_after_the_first_break():
    assert late_reduction(2000, BTOWN) == 4000
    with pytest.raises(StackError, match="late registration is closed"):
        starting_stack(Arrival(late_big_blind=4000), BTOWN)


@pytest.mark.parametrize("big_blind", [0, -200, 1.5])
def test_bad_big_blind_is_refused(big_blind):
    with pytest.raises(StackError, match="big blind must be a whole number above 0"):
        late_reduction(big_blind, BTOWN)


def test_negative_new_players_brought_is_refused():
    with pytest.raises(StackError, match="cannot be negative"):
        starting_stack(Arrival(new_players_brought=-1), BTOWN)


def test_penalty_eating_the_stack_is_refused():
    rules = load_league_rules(overrides={"late_max_big_blind": 0})
    with pytest.raises(StackError, match="would leave nothing"):
        starting_stack(Arrival(late_big_blind=9000), rules)


def test_poker_pub_stack_is_4000_with_no_late_penalty():
    rules = load_league_rules("poker-pub")
    assert starting_stack(Arrival(on_time=True), rules).total == 4000
    assert starting_stack(Arrival(late_big_blind=100), rules).total == 4000


@pytest.mark.parametrize(
    ("event_date", "birthday", "inside"),
    [
        (datetime.date(2026, 11, 20), datetime.date(1990, 11, 6), True),
        (datetime.date(2026, 11, 20), datetime.date(1990, 12, 4), True),
        (datetime.date(2026, 11, 20), datetime.date(1990, 12, 5), False),
        (datetime.date(2026, 12, 25), datetime.date(1990, 1, 3), True),
        (datetime.date(2027, 1, 3), datetime.date(1990, 12, 25), True),
        (datetime.date(2026, 3, 1), datetime.date(1992, 2, 29), True),
        (datetime.date(2026, 6, 1), datetime.date(1992, 2, 29), False),
    ],
)
def test_2_c_b_1_c_birthday_event_within_two_weeks(event_date, birthday, inside):
    assert in_birthday_window(event_date, birthday, BTOWN) is inside


def test_a_poker_pub_stack_is_4000_whatever_the_arrival_and_cites_nothing_of_btown():
    pub = load_league_rules("poker-pub")
    arrival = Arrival(birthday=True, new_player=True, new_players_brought=2)
    stack = starting_stack(arrival, pub)
    assert (stack.total, stack.extras, stack.not_awarded) == (4000, (), ())


def test_refusals_cite_the_home_books_sections_or_none():
    arrival = Arrival(early_signin=True, on_time=True, birthday=True)
    cited = starting_stack(arrival, load_league_rules("btown", {"combined_extra_cap": 6000}))
    assert cited.not_awarded == ("birthday event: 3,000 over the 6,000 cap (2.C.b.1)",)
    bare = load_league_rules("btown", {"combined_extra_cap": 6000, "citations": {}})
    assert starting_stack(arrival, bare).not_awarded == (
        "birthday event: 3,000 over the 6,000 cap",
    )
