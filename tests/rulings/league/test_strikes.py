import pytest

from rulings import (
    Strike,
    StrikeError,
    Suspension,
    active_strikes,
    forfeits_season,
    is_strike_active,
    load_league_rules,
    next_strike_level,
    suspension,
    suspension_events,
)

RULES = load_league_rules()
SEASONS = ["2025 Fall", "2026 Spring", "2026 Fall", "2027 Spring"]


@pytest.mark.parametrize(("level", "events"), [(1, 3), (2, 9), (3, None)])
def test_3_b_d_suspension_length_by_strike_level(level, events):
    assert suspension_events(level, RULES) == events


@pytest.mark.parametrize("level", [0, 4, "1", 1.0])
def test_unknown_strike_level_is_refused(level):
    with pytest.raises(StrikeError, match="strike level must be 1 to 3"):
        suspension_events(level, RULES)


def test_3_b_d_suspension_counts_down_by_events_held():
    strike = Strike("Moe", "2026 Fall", 1, "threw cards")
    assert suspension(strike, 0, RULES) == Suspension("Moe", 1, 3, 3, False)
    assert suspension(strike, 2, RULES).events_remaining == 1
    assert suspension(strike, 2, RULES).is_active
    assert not suspension(strike, 3, RULES).is_active
    assert suspension(strike, 7, RULES).events_remaining == 0


def test_3_b_a_strike_three_is_the_rest_of_the_season_and_forfeits():
    state = suspension(Strike("Moe", "2026 Fall", 3), 50, RULES)
    assert state.events_remaining is None
    assert state.is_active
    assert state.forfeits_season


def test_suspension_refuses_a_negative_count():
    with pytest.raises(StrikeError, match="negative"):
        suspension(Strike("Moe", "2026 Fall", 1), -1, RULES)


def test_3_b_e_strikes_last_the_season_and_the_next_full_season():
    strike = Strike("Moe", "2026 Spring", 1)
    assert [is_strike_active(strike, s, SEASONS, RULES) for s in SEASONS] == [
        False, True, True, False,
    ]  # fmt: skip


def test_strike_expiry_is_a_setting():
    rules = load_league_rules(overrides={"strike_expiry_full_seasons": 2})
    assert is_strike_active(Strike("Moe", "2025 Fall", 1), "2026 Fall", SEASONS, rules)


def test_unknown_season_is_refused():
    with pytest.raises(StrikeError, match="unknown season '1999'"):
        is_strike_active(Strike("Moe", "1999", 1), "2026 Fall", SEASONS, RULES)


def test_active_strikes_are_the_players_unexpired_ones():
    strikes = [
        Strike("Moe", "2025 Fall", 1),
        Strike("moe", "2026 Spring", 2),
        Strike("Larry", "2026 Fall", 1),
    ]
    assert active_strikes(strikes, " MOE ", "2026 Fall", SEASONS, RULES) == [strikes[1]]
    assert active_strikes(strikes, "Moe", "2027 Spring", SEASONS, RULES) == []


def test_3_b_next_strike_climbs_one_level():
    assert next_strike_level([], RULES) == 1
    assert next_strike_level([Strike("M", "S", 1)], RULES) == 2
    assert next_strike_level([Strike("M", "S", 2), Strike("M", "S", 1)], RULES) == 3
    assert next_strike_level([Strike("M", "S", 3)], RULES) == 3


def test_3_b_b_committee_may_skip_to_strike_two_or_three():
    assert next_strike_level([], RULES, skip_to=3) == 3
    assert next_strike_level([Strike("M", "S", 2)], RULES, skip_to=1) == 3
    with pytest.raises(StrikeError):
        next_strike_level([], RULES, skip_to=4)


def test_3_b_a_forfeit_applies_to_the_season_of_strike_three_only():
    strikes = [Strike("Moe", "2026 Fall", 3), Strike("Larry", "2026 Fall", 2)]
    assert forfeits_season(strikes, "moe", "2026 fall", RULES)
    assert not forfeits_season(strikes, "Moe", "2027 Spring", RULES)
    assert not forfeits_season(strikes, "Larry", "2026 Fall", RULES)
