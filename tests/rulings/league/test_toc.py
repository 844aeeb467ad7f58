from typing import Any

import pytest

from rulings import (
    LeagueConfigError,
    LeagueRules,
    StandingRow,
    TocStatus,
    load_league_rules,
    toc_table,
)
from rulings.league.toc import bp_extra_chips, conversion_min_rp, round_up

BTOWN = load_league_rules()  # 1,500 RP and 1,500 BP
THOUSANDS = load_league_rules(overrides={"toc_rp_required": 1000, "toc_bp_required": 1000})


def status_of(
    rows: list[StandingRow], rules: LeagueRules = BTOWN, **kwargs: Any
) -> dict[str, TocStatus]:
    return {s.player: s for s in toc_table(rows, rules, **kwargs)}


def test_4_b_qualifies_with_both_minimums():
    rows = [StandingRow("A", 1500, 1500, 10), StandingRow("B", 1500, 1499, 10)]
    table = status_of([*rows, StandingRow("Leader", 5000, 5000, 18)])
    assert table["A"].status == "qualified"
    assert table["A"].extra_chips == 0  # not MORE than the minimum BP (4.C)
    assert table["B"] == TocStatus(
        "B", "not_qualified", 0, 0, 1, "needs 1 more BP to reach 1,500 RP and 1,500 BP"
    )


def test_4_c_example_2725_bp_get_2800_extra_chips():
    rows = [StandingRow("Player", 1200, 2725, 10), StandingRow("Leader", 5000, 3000, 10)]
    table = status_of(rows, THOUSANDS)
    assert table["Player"].status == "qualified"
    assert table["Player"].extra_chips == 2800
    assert bp_extra_chips(2725, THOUSANDS) == 2800


def test_4_c_example_champion_with_32000_bp_gets_32000_not_27000():
    rows = [StandingRow("Leader", 9000, 32000, 18), StandingRow("Other", 8000, 2000, 18)]
    table = status_of(rows)
    assert table["Leader"].titles == ("rp_champion", "bp_champion")
    assert table["Leader"].extra_chips == 32000


def test_4_c_champion_stack_when_larger_than_bp_chips():
    rows = [StandingRow("RP champ", 9000, 3000, 18), StandingRow("BP champ", 2000, 7000, 18)]
    table = status_of(rows)
    assert table["RP champ"].extra_chips == 27000
    assert table["RP champ"].titles == ("rp_champion",)
    assert table["BP champ"].extra_chips == 27000


def test_4_c_location_champion_gets_18000_and_multiple_titles_one_stack():
    rows = [StandingRow("Champ", 9000, 3000, 18), StandingRow("Local", 2000, 1600, 10)]
    table = status_of(rows, location_champions=["local", "Champ"])
    assert table["Local"].extra_chips == 18000
    assert table["Champ"].titles == ("rp_champion", "bp_champion", "location_champion")
    assert table["Champ"].extra_chips == 27000  # one stack, the largest, never added


def test_4_d_example_curly_converts_and_starts_with_no_extras():
    table = status_of([StandingRow("Curly", 600, 3000, 10)], THOUSANDS)
    assert table["Curly"].status == "conversion"
    assert table["Curly"].extra_chips == 0
    assert (table["Curly"].rp_short, table["Curly"].bp_short) == (0, 0)
    assert "converts 800 BP to cover 400 RP" in table["Curly"].reason


def test_4_d_example_moe_is_50_rp_shy_of_half_and_cannot_convert():
    table = status_of([StandingRow("Moe", 700, 4500, 10)])
    moe = table["Moe"]
    assert moe.status == "not_qualified"
    assert (moe.rp_short, moe.bp_short) == (800, 0)
    assert "700 RP is 50 short of the 750 RP needed to convert BP" in moe.reason


def test_4_d_example_larry_is_300_bp_shy_of_the_2000_needed():
    larry = status_of([StandingRow("Larry", 1250, 1700, 10)])["Larry"]
    assert larry.status == "not_qualified"
    assert (larry.rp_short, larry.bp_short) == (250, 300)
    assert "300 short of the 2,000 BP needed to convert 250 RP" in larry.reason


def test_4_d_example_shemp_qualifies_by_conversion_with_no_extra_chips():
    shemp = status_of([StandingRow("Shemp", 1250, 4500, 10), StandingRow("X", 5000, 5000, 9)])
    assert shemp["Shemp"].status == "conversion"
    assert shemp["Shemp"].extra_chips == 0


def test_4_d_champion_who_converts_gets_no_extra_chips():
    rows = [StandingRow("BP champ", 1000, 9000, 18), StandingRow("RP champ", 4000, 2000, 18)]
    table = status_of(rows)
    assert table["BP champ"].status == "conversion"
    assert table["BP champ"].titles == ("bp_champion",)
    assert table["BP champ"].extra_chips == 0


def test_champion_must_still_qualify_by_default():
    rows = [StandingRow("Local", 200, 300, 4), StandingRow("Leader", 5000, 5000, 18)]
    assert status_of(rows, location_champions=["Local"])["Local"].status == "not_qualified"
    rules = load_league_rules(overrides={"toc_champion_needs_qualification": False})
    local = status_of(rows, rules, location_champions=["Local"])["Local"]
    assert (local.status, local.extra_chips) == ("qualified", 18000)


def test_1_b_b_owner_is_never_qualified_and_never_champion():
    rows = [StandingRow("Zach", 9000, 9000, 18), StandingRow("Moe", 5000, 3000, 18)]
    table = status_of(rows, owner="zach")
    assert table["Zach"].status == "not_qualified"
    assert table["Zach"].extra_chips == 0
    assert "owner" in table["Zach"].reason
    assert table["Moe"].titles == ("rp_champion", "bp_champion")
    assert table["Moe"].extra_chips == 27000


def test_3_b_a_strike_three_forfeits_the_toc():
    rows = [StandingRow("Shemp", 9000, 9000, 18), StandingRow("Moe", 5000, 3000, 18)]
    table = status_of(rows, suspended=["Shemp"])
    assert table["Shemp"].status == "forfeited"
    assert table["Moe"].titles == ("rp_champion", "bp_champion")


def test_4_g_staff_get_the_league_average_extra_stack_or_their_own():
    rows = [
        StandingRow("A", 9000, 3000, 18),  # RP champion: 27,000
        StandingRow("B", 2000, 9000, 18),  # BP champion: 27,000
        StandingRow("C", 1600, 2050, 18),  # 2,100
        StandingRow("D", 1000, 3000, 18),  # conversion: 0
        StandingRow("TD", 1600, 1600, 18),  # staff, own 1,600
        StandingRow("Sponsor", 0, 0, 0),  # staff with no points
        StandingRow("Rich TD", 2000, 30000, 18),  # staff, own 30,000 ... and BP champion
    ]
    table = status_of(rows, staff=["TD", "sponsor", "Rich TD"])
    assert table["Rich TD"].titles == ("bp_champion",)
    assert table["B"].titles == ()
    # average of A 27,000, B 9,000, C 2,100, D 0 = 38,100 / 4 = 9,525 -> 9,600
    assert table["B"].extra_chips == 9000
    assert table["TD"].extra_chips == 9600
    assert table["Sponsor"].status == "qualified"
    assert table["Sponsor"].extra_chips == 9600
    assert table["Rich TD"].extra_chips == 30000


def test_4_g_staff_qualify_by_points_when_the_league_says_so():
    rules = load_league_rules(overrides={"toc_staff_auto_qualify": False})
    table = status_of([StandingRow("Sponsor", 0, 0, 0)], rules, staff=["Sponsor"])
    assert table["Sponsor"].status == "not_qualified"


def test_table_is_in_rp_standings_order():
    rows = [StandingRow("A", 100, 0, 1), StandingRow("B", 3000, 3000, 1)]
    assert [s.player for s in toc_table(rows, BTOWN)] == ["B", "A"]


def test_league_without_a_toc_refuses():
    with pytest.raises(LeagueConfigError, match="has no Tournament of Champions"):
        toc_table([], load_league_rules("poker-pub"))


def test_round_up_and_conversion_floor():
    assert round_up(2725, 100) == 2800
    assert round_up(2800, 100) == 2800
    assert round_up(0, 100) == 0
    assert conversion_min_rp(BTOWN) == 750
    assert conversion_min_rp(load_league_rules(overrides={"toc_rp_required": 1001})) == 501
