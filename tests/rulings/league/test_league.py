import pytest

from rulings import LeagueConfigError, LeagueRules, league_presets, load_league_rules
from rulings.league.rules import rules_from_mapping


def test_presets_ship_btown_and_poker_pub():
    assert league_presets() == ("btown", "poker-pub")


def test_1_c_a_1_btown_regular_points_table():
    rules = load_league_rules()
    assert rules.name == "btown"
    assert rules.regular_points == (
        1200, 800, 700, 600, 500, 400, 300, 200, 100, 75, 75, 75, 75, 50, 50, 50,
    )  # fmt: skip


def test_1_c_b_btown_bonus_points_and_awards():
    rules = load_league_rules("btown")
    assert rules.bonus_points == (250, 200, 150)
    assert dict(rules.premium_hand_rp) == {"royal_flush": 200, "straight_flush": 150, "quads": 100}
    assert rules.royal_flush_bp == 100
    assert rules.bounty_chip_rp == 50
    assert rules.second_chance_bp == 250
    assert rules.receipt_bp_per_dollar == 20
    assert rules.receipt_full_dollars_only is True


def test_4_btown_toc_and_stack_numbers():
    rules = load_league_rules()
    assert (rules.toc_rp_required, rules.toc_bp_required) == (1500, 1500)
    assert rules.toc_rp_champion_chips == rules.toc_bp_champion_chips == 27000
    assert rules.toc_location_champion_chips == 18000
    assert rules.starting_stack == 18000
    assert rules.combined_extra_cap == 9000
    assert rules.strike_suspension_events == (3, 9)
    assert rules.strike_forfeit_level == 3


def test_poker_pub_points_awarding():
    rules = load_league_rules("poker-pub")
    assert rules.regular_points[:8] == (100, 80, 60, 55, 50, 45, 40, 35)
    assert rules.regular_points[8:] == (15,) * 8
    assert rules.bonus_points == ()
    assert rules.starting_stack == 4000
    assert rules.toc_enabled is False


def test_preset_name_is_case_insensitive():
    assert load_league_rules(" BTown ").name == "btown"


def test_overrides_change_only_the_named_values():
    base = load_league_rules()
    rules = load_league_rules("btown", {"toc_rp_required": 1000, "owner": "Zach"})
    assert rules.toc_rp_required == 1000
    assert rules.owner == "Zach"
    assert rules.toc_bp_required == base.toc_bp_required


def test_override_of_a_table_accepts_a_list():
    rules = load_league_rules("btown", {"bonus_points": [300, 200, 100, 50]})
    assert rules.bonus_points == (300, 200, 100, 50)


def test_override_of_premium_hands():
    rules = load_league_rules("btown", {"premium_hand_rp": {"quads": 75}})
    assert dict(rules.premium_hand_rp) == {"quads": 75}


def test_unknown_preset_is_refused():
    with pytest.raises(LeagueConfigError, match="unknown league preset 'vegas'"):
        load_league_rules("vegas")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"toc_points": 5}, "unknown league setting 'toc_points'"),
        ({"bounty_chip_rp": -50}, "bounty_chip_rp must be a whole number >= 0"),
        ({"bounty_chip_rp": "50"}, "bounty_chip_rp"),
        ({"bounty_chip_rp": True}, "bounty_chip_rp"),
        ({"receipt_full_dollars_only": 1}, "receipt_full_dollars_only must be true or false"),
        ({"regular_points": [100, -5]}, "regular_points must be a list"),
        ({"regular_points": "100"}, "regular_points must be a list"),
        ({"tie_rounding": "banker"}, "tie_rounding must be one of"),
        ({"premium_hand_rp": {"full_house": 10}}, "unknown hand 'full_house'"),
        ({"premium_hand_rp": {"quads": -1}}, "premium_hand_rp.quads"),
        ({"toc_conversion_min_rp_percent": 150}, "<= 100"),
        ({"toc_extra_chips_round_to": 0}, "round_to must be >= 1"),
        ({"strike_suspension_events": [3]}, "one entry per strike level"),
        ({"owner": "  "}, "owner must be a name"),
        ({"name": ""}, "name must be a non-empty text"),
    ],
)
def test_bad_override_is_refused_with_the_field_named(overrides, message):
    with pytest.raises(LeagueConfigError, match=message):
        load_league_rules("btown", overrides)


def test_rules_round_trip_through_to_dict():
    rules = load_league_rules("btown", {"owner": "Zach"})
    again = rules_from_mapping(rules.to_dict())
    assert again == rules


def test_rules_from_mapping_requires_the_point_tables():
    with pytest.raises(LeagueConfigError, match="regular_points is missing"):
        rules_from_mapping({"name": "x", "bonus_points": []})


def test_rules_are_immutable():
    rules = load_league_rules()
    with pytest.raises(AttributeError):
        rules.bounty_chip_rp = 10  # type: ignore[misc]
    with pytest.raises(TypeError):
        rules.premium_hand_rp["quads"] = 1  # type: ignore[index]


def test_league_rules_can_be_built_directly():
    rules = LeagueRules(name="tiny", regular_points=(10, 5), bonus_points=())
    assert rules.premium_hand_rp == {}
    assert rules.owner is None


@pytest.mark.parametrize("preset", league_presets())
def test_each_preset_names_its_own_blind_structure(preset: str):
    from rulings import preset_names

    structure = load_league_rules(preset).blind_structure
    assert structure == preset  # btown -> btown, poker-pub -> poker-pub
    assert structure in preset_names()


def test_blind_structure_override_is_checked_against_the_structures():
    assert load_league_rules("btown", {"blind_structure": " Bar-League "}).blind_structure == (
        "bar-league"
    )
    with pytest.raises(LeagueConfigError, match="blind_structure must be one of bar-league, btown"):
        load_league_rules("btown", {"blind_structure": "turbo"})
    with pytest.raises(LeagueConfigError, match="blind_structure must be one of"):
        load_league_rules("btown", {"blind_structure": 7})
