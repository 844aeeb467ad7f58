import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulings import (
    EventFormatError,
    Points,
    PointsBreakdown,
    bounty_points,
    build_event,
    event_points,
    finish_points,
    load_league_rules,
    parse_event,
    premium_hand_points,
    receipt_points,
    second_chance_points,
)
from rulings.league.points import share_points

BTOWN = load_league_rules()


def names(n: int) -> list[str]:
    return [f"P{i}" for i in range(1, n + 1)]


@pytest.mark.parametrize(
    ("position", "rp"),
    [(1, 1200), (2, 800), (3, 700), (4, 600), (5, 500), (6, 400), (7, 300), (8, 200),
     (9, 100), (10, 75), (13, 75), (14, 50), (16, 50), (17, 0), (40, 0)],
)  # fmt: skip
def test_1_c_a_1_regular_points_by_finishing_position(position, rp):
    finish = [[n] for n in names(40)]
    assert finish_points(finish, BTOWN)[f"P{position}"].rp == rp


@pytest.mark.parametrize(("position", "bp"), [(1, 250), (2, 200), (3, 150), (4, 0)])
def test_1_c_b_bonus_points_for_the_top_three(position, bp):
    finish = [[n] for n in names(5)]
    assert finish_points(finish, BTOWN)[f"P{position}"].bp == bp


def test_2_g_e_2_two_tied_for_third_share_third_and_fourth():
    finish = [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]]
    points = finish_points(finish, BTOWN)
    assert points["Carol"] == points["Dave"] == Points(rp=650, bp=75)
    assert points["Eve"] == Points(rp=500)  # Eve is 5th: the tie covered 3rd and 4th


def test_2_g_e_2_three_way_tie_for_first():
    points = finish_points([["A", "B", "C"], ["D"]], BTOWN)
    assert points["A"] == Points(rp=900, bp=200)  # (1200+800+700)/3, (250+200+150)/3
    assert points["D"] == Points(rp=600)


def test_2_g_e_2_a_share_that_is_not_whole_rounds_half_up_by_default():
    finish = [[n] for n in names(12)] + [["X", "Y"]]  # X and Y cover 13th (75) and 14th (50)
    assert finish_points(finish, BTOWN)["X"].rp == 63


@pytest.mark.parametrize(("rounding", "rp"), [("down", 62), ("up", 63), ("half_up", 63)])
def test_tie_rounding_is_a_setting(rounding, rp):
    rules = load_league_rules(overrides={"tie_rounding": rounding})
    finish = [[n] for n in names(12)] + [["X", "Y"]]
    assert finish_points(finish, rules)["Y"].rp == rp


def test_2_f_b_heads_up_chop_is_first_and_second():
    points = finish_points([["Chip leader"], ["Other"]], BTOWN)
    assert points["Chip leader"] == Points(1200, 250)
    assert points["Other"] == Points(800, 200)


def test_poker_pub_points_table():
    rules = load_league_rules("poker-pub")
    finish = [[n] for n in names(17)]
    points = finish_points(finish, rules)
    assert [points[f"P{i}"].rp for i in range(1, 18)] == [
        100, 80, 60, 55, 50, 45, 40, 35, 15, 15, 15, 15, 15, 15, 15, 15, 0,
    ]  # fmt: skip
    assert all(p.bp == 0 for p in points.values())


@pytest.mark.parametrize(
    ("hand", "points"),
    [
        ("royal_flush", Points(200, 100)),
        ("straight_flush", Points(150, 0)),
        ("quads", Points(100, 0)),
    ],
)
def test_1_c_a_2_premium_hands_and_1_c_b_royal_flush_bonus(hand, points):
    assert premium_hand_points(hand, BTOWN) == points


def test_premium_hand_not_rewarded_by_the_league_earns_nothing():
    assert premium_hand_points("quads", load_league_rules("poker-pub")) == Points()


def test_premium_hand_unknown_is_refused():
    with pytest.raises(EventFormatError):
        premium_hand_points("flush", BTOWN)


def test_1_c_a_3_bounty_chips_are_50_rp_each():
    assert bounty_points(3, BTOWN) == Points(rp=150)
    with pytest.raises(EventFormatError):
        bounty_points(-1, BTOWN)


def test_4_c_second_chance_win_is_250_bp_and_no_rp():
    assert second_chance_points(BTOWN) == Points(rp=0, bp=250)


@pytest.mark.parametrize(("cents", "bp"), [(1250, 240), (1299, 240), (1300, 260), (99, 0), (0, 0)])
def test_1_c_b_receipts_earn_20_bp_per_full_dollar(cents, bp):
    assert receipt_points(cents, BTOWN) == Points(bp=bp)


def test_receipt_cents_count_when_the_league_says_so():
    rules = load_league_rules(overrides={"receipt_full_dollars_only": False})
    assert receipt_points(1250, rules) == Points(bp=250)
    assert receipt_points(1257, rules) == Points(bp=251)


@pytest.mark.parametrize("cents", [-1, 100_001])
def test_receipt_out_of_range_is_refused(cents):
    with pytest.raises(EventFormatError):
        receipt_points(cents, BTOWN)


def test_points_add_and_sum():
    assert Points(1, 2) + Points(3, 4) == Points(4, 6)
    assert sum([Points(1, 2), Points(3, 4), Points()]) == Points(4, 6)
    assert sum([], Points()) == Points()
    assert Points(5, 7).total == 12


ISSUE_EXAMPLE = {
    "season": "2026 Fall", "location": "Brewpub", "date": "2026-11-20", "kind": "regular",
    "finish": [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]], "bounties": {"Alice": 2},
    "premium_hands": [{"player": "Bob", "hand": "quads"}], "second_chance_winners": ["Frank"],
    "receipts": [{"player": "Alice", "amount": "12.50", "ref": "R-1001"}], "played": ["Gus"],
}  # fmt: skip


def test_event_points_for_the_documented_example():
    points = event_points(parse_event(ISSUE_EXAMPLE), BTOWN)
    assert list(points) == ["Alice", "Bob", "Carol", "Dave", "Eve", "Gus", "Frank"]
    assert points["Alice"] == PointsBreakdown(
        finish=Points(1200, 250), bounties=Points(100, 0), receipts=Points(0, 240)
    )
    assert points["Alice"].total == Points(1300, 490)
    assert points["Bob"].total == Points(900, 200)
    assert points["Carol"].total == points["Dave"].total == Points(650, 75)
    assert points["Eve"].total == Points(500, 0)
    assert points["Frank"] == PointsBreakdown(second_chance=Points(0, 250))
    assert points["Gus"].total == Points()


def test_event_points_add_up_repeated_awards():
    data = dict(ISSUE_EXAMPLE)
    data["second_chance_winners"] = ["Frank", "Frank"]
    data["premium_hands"] = [{"player": "Bob", "hand": "quads"}, {"player": "Bob", "hand": "royal"}]
    points = event_points(parse_event(data), BTOWN)
    assert points["Frank"].second_chance == Points(0, 500)
    assert points["Bob"].premium == Points(300, 100)


def test_1_b_b_owner_earns_nothing_and_nobody_moves_up():
    points = event_points(parse_event(ISSUE_EXAMPLE), BTOWN, owner="alice")
    assert points["Alice"].total == Points()
    assert points["Bob"].finish == Points(800, 200)  # still 2nd place points


def test_owner_from_the_rules():
    rules = load_league_rules(overrides={"owner": "Bob"})
    points = event_points(parse_event(ISSUE_EXAMPLE), rules)
    assert points["Bob"] == PointsBreakdown()
    assert points["Carol"].finish == Points(650, 75)


def test_owner_in_a_tie_keeps_the_tie_shares():
    points = event_points(parse_event(ISSUE_EXAMPLE), BTOWN, owner="Carol")
    assert points["Carol"].total == Points()
    assert points["Dave"].finish == Points(650, 75)


def test_owner_positions_vacant_off_moves_players_up():
    rules = load_league_rules(overrides={"owner_positions_vacant": False})
    points = event_points(parse_event(ISSUE_EXAMPLE), rules, owner="Alice")
    assert points["Alice"].total == Points()
    assert points["Bob"].finish == Points(1200, 250)
    assert points["Carol"].finish == Points(750, 175)  # now 2nd and 3rd shared


def test_toc_event_pays_no_league_points():
    data = dict(ISSUE_EXAMPLE, kind="toc")
    points = event_points(parse_event(data), BTOWN)
    assert all(p.total == Points() for p in points.values())
    assert "Frank" in points


def test_second_chance_event_pays_its_winner_250_bp():
    record = build_event(
        season="S", location="L", date="2026-11-20", kind="second_chance",
        finish=[["Winner"], ["Runner"]], receipts=(),
    )  # fmt: skip
    points = event_points(record, BTOWN)
    assert points["Winner"].total == Points(0, 250)
    assert points["Runner"].total == Points()


def test_event_points_refuses_a_receipt_above_the_league_limit():
    rules = load_league_rules(overrides={"receipt_max_cents": 1000})
    with pytest.raises(EventFormatError, match="above"):
        event_points(parse_event(ISSUE_EXAMPLE), rules)


group_sizes = st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=12)


@given(group_sizes, st.sampled_from(["half_up", "down", "up"]))
def test_2_g_e_2_tie_sharing_conserves_the_covered_points_up_to_rounding(sizes, rounding):
    rules = dataclasses.replace(BTOWN, tie_rounding=rounding)
    finish, n = [], 0
    for size in sizes:
        finish.append([f"P{n + i}" for i in range(size)])
        n += size
    points = finish_points(finish, rules)
    assert len(points) == n
    position = 0
    for group in finish:
        covered = range(position, position + len(group))
        rp_total = sum(rules.regular_points[p] if p < 16 else 0 for p in covered)
        bp_total = sum(rules.bonus_points[p] if p < 3 else 0 for p in covered)
        shares = [points[name] for name in group]
        assert len(set(shares)) == 1  # equal shares
        for total, given_out in ((rp_total, shares[0].rp * len(group)),
                                 (bp_total, shares[0].bp * len(group))):  # fmt: skip
            if rounding == "down":
                assert total - len(group) < given_out <= total
            elif rounding == "up":
                assert total <= given_out < total + len(group)
            else:
                assert abs(given_out - total) * 2 <= len(group)
        position += len(group)


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=20))
def test_share_points_is_within_one_point_of_the_exact_share(total, players):
    share = share_points(total, players, BTOWN)
    assert abs(share * players - total) * 2 <= players


def test_even_shares_and_single_places_need_no_rounding():
    from rulings import load_league_rules
    from rulings.league.points import share_points

    for rounding in ("down", "up", "half_up"):
        rules = load_league_rules(overrides={"tie_rounding": rounding})
        assert share_points(1000, 1, rules) == 1000
        assert share_points(1000, 4, rules) == 250
    assert share_points(125, 2, load_league_rules(overrides={"tie_rounding": "down"})) == 62
    assert share_points(125, 2, load_league_rules(overrides={"tie_rounding": "up"})) == 63
