import dataclasses

import pytest

from rulings import PremiumNote, load_league_rules, premium_note, premium_notes
from rulings.poker import analyse, parse_hand_query

BTOWN = load_league_rules("btown")


def facts(hole: str, board: str, *, won: bool = True):
    """One player's showdown facts for a lone hand, as ``analyse`` reports them."""
    report = analyse(parse_hand_query(f"{hole} board {board}"))
    return dataclasses.replace(report.players[0], won=won)


def note(hole: str, board: str, *, won: bool = True, rules=BTOWN) -> PremiumNote:
    result = premium_note(facts(hole, board, won=won), river=len(board.split()) == 5, rules=rules)
    assert result is not None
    return result


def test_1_c_a_2_royal_flush_200_rp_and_1_c_b_100_bp():
    result = note("Ah Kh", "Qh Jh Th 2c 3d")
    assert (result.hand, result.rp, result.bp, result.earned) == ("royal_flush", 200, 100, True)
    assert "showdown" in result.reason


def test_1_c_a_2_straight_flush_150_rp_no_bonus_points():
    result = note("9c 8c", "7c 6c 5c Kd Ks")
    assert (result.hand, result.rp, result.bp, result.earned) == ("straight_flush", 150, 0, True)


def test_1_c_a_2_any_quads_100_rp():
    result = note("2s 2h", "2d 2c Ks 7h 9d")
    assert (result.hand, result.rp, result.bp, result.earned) == ("quads", 100, 0, True)


def test_1_c_a_2_quads_with_one_hole_card_count():
    assert note("2s Ah", "2d 2c 2h 7h 9d").earned


def test_1_c_a_2_hand_must_be_played_out_to_a_showdown_after_the_river():
    result = note("Ah Kh", "Qh Jh Th")
    assert result.earned is False
    assert "after the river" in result.reason
    assert (result.rp, result.bp) == (200, 100)  # what it would earn


def test_1_c_a_2_premium_hand_must_win():
    result = note("2s 2h", "2d 2c Ks 7h 9d", won=False)
    assert not result.earned
    assert result.rp == 0


def test_premium_hand_entirely_on_the_board_earns_nothing():
    result = note("3c 4d", "Ts Js Qs Ks As")
    assert result.hand == "royal_flush"
    assert not result.earned
    assert result.rp == result.bp == 0
    assert "all on the board" in result.reason


def test_quads_on_board_with_own_kicker_playing_earns_nothing():
    assert facts("Ah 3d", "9s 9h 9d 9c 2c").hole_in_hand == ()
    assert not note("Ah 3d", "9s 9h 9d 9c 2c").earned


def test_board_straight_flush_improved_by_a_hole_card_earns():
    # Board 9-high straight flush; the Ten of hearts makes a Ten-high one with his card.
    assert note("Th 2c", "9h 8h 7h 6h 5h").earned
    # The Four of hearts does not play (the board's 9-high is better): nothing.
    assert not note("4h 2c", "9h 8h 7h 6h 5h").earned


def test_not_a_premium_hand():
    assert premium_note(facts("As Ad", "Ac Kd Kc 2s 3h"), river=True, rules=BTOWN) is None


def test_league_rules_decide_the_amounts():
    rules = load_league_rules("poker-pub")
    result = premium_note(facts("Ah Kh", "Qh Jh Th 2c 3d"), river=True, rules=rules)
    expected = rules.premium_hand_rp.get("royal_flush", 0)
    if expected:
        assert result is not None
        assert result.rp == expected
    else:
        assert result is None  # a league that pays nothing says nothing about points


@pytest.mark.parametrize(
    ("text", "earned"),
    [
        ("Ah Kh vs 2c 2d board Qh Jh Th 2s 2h", [True, False]),
        ("3c 4d vs 5h 6h board Ts Js Qs Ks As", [False, False]),
    ],
)
def test_showdown_report_carries_premium_notes(text, earned):
    report = analyse(parse_hand_query(text))
    notes = premium_notes(report, BTOWN)
    assert [n is not None and n.earned for n in notes] == earned
