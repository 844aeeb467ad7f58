import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulings import InvalidCardsError, InvalidShowdownError
from rulings.poker import (
    Pot,
    analyse,
    award,
    build_pots,
    evaluate,
    format_cards,
    is_heavy_query,
    parse_cards,
    parse_hand_query,
)

# --- query grammar ------------------------------------------------------------------------


def test_query_players_separated_by_vs_with_board_tail():
    query = parse_hand_query("As Ks vs Qh Qd board 2c 7d 9h")
    assert [format_cards(p.cards) for p in query.players] == ["As Ks", "Qh Qd"]
    assert format_cards(query.board) == "2c 7d 9h"
    assert [query.label(i) for i in range(2)] == ["Player 1", "Player 2"]


@pytest.mark.parametrize(
    "text",
    [
        "As Ks | Qh Qd | 7c 7s",
        "AsKs VS QhQd vs 7c7s",
        "as ks vs. qh qd | 7C 7S",
        "alice: As Ks vs bob: Qh Qd | carol : 7c 7s",
    ],
)
def test_query_separators_and_names(text):
    query = parse_hand_query(text)
    assert [format_cards(p.cards) for p in query.players] == ["As Ks", "Qh Qd", "7c 7s"]
    assert query.board == ()


def test_query_names_become_labels():
    query = parse_hand_query("alice: As Ks vs Qh Qd Board: 2c 7d 9h")
    assert query.players[0].name == "alice"
    assert query.label(0) == "alice"
    assert query.label(1) == "Player 2"
    assert len(query.board) == 3


def test_query_name_may_contain_the_word_board():
    query = parse_hand_query("boardwalk: As Ks vs Qh Qd board 2c 7d 9h")
    assert query.label(0) == "boardwalk"
    assert len(query.board) == 3


def test_query_board_given_separately():
    query = parse_hand_query("As Ks vs Qh Qd", "2c 7d 9h")
    assert format_cards(query.board) == "2c 7d 9h"


@pytest.mark.parametrize(
    "text", ["As Ks Qs Js Ts", "As Ks Qs Js Ts 9s", "As Ks Qs Js Ts 2c 3d", "As Ks board Qs Js Ts"]
)
def test_query_lone_hand_of_five_to_seven_cards(text):
    query = parse_hand_query(text)
    assert query.is_lone
    report = analyse(query)
    assert report.players[0].value is not None
    assert report.players[0].value.name == "Royal flush"


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", InvalidShowdownError, "Type some cards"),
        ("As Ks", InvalidShowdownError, "A lone hand needs 5 to 7 cards"),
        ("As Ks vs Qh", InvalidShowdownError, "Player 2 has 1 card "),
        ("As Ks vs Qh Qd Jd", InvalidShowdownError, "two hole cards"),
        ("As Ks vs Qh Qd board 2c", InvalidShowdownError, "0, 3, 4 or 5 cards"),
        ("As Ks vs Qh Qd board 2c 3c 4c 5c 6c 7c", InvalidCardsError, "at most 5"),
        ("As Ks vs As Qd", InvalidCardsError, "As appears twice"),
        ("As Ks vs Qh Qd board Ks 7d 9h", InvalidCardsError, "Ks appears twice"),
        ("As Ks vs Qh Xd", InvalidCardsError, '"Xd" is not a card'),
        ("As Ks vs", InvalidShowdownError, "no cards"),
        (": As Ks vs Qh Qd", InvalidShowdownError, "A name goes before"),
        ("As Ks vs Qh Qd board 2c 7d 9h board 3s", InvalidShowdownError, "board once"),
        (" vs ".join(["2c 3c"] * 11), InvalidCardsError, "appears twice"),
    ],
)
def test_query_rejects_bad_input_with_one_clear_message(text, error, message):
    with pytest.raises(error, match=message):
        parse_hand_query(text)


def test_query_rejects_eleven_players():
    deck = parse_cards(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d 5d 6d 7d 8d 9d Td", max_cards=None
    )
    text = " vs ".join(format_cards(deck[i : i + 2]) for i in range(0, 22, 2))
    with pytest.raises(InvalidShowdownError, match="At most 10 players"):
        parse_hand_query(text)


def test_query_rejects_board_twice():
    with pytest.raises(InvalidShowdownError, match="not both"):
        parse_hand_query("As Ks vs Qh Qd board 2c 7d 9h", "3s 4s 5s")


# --- analyse and the JSON shape ----------------------------------------------------------------


def test_json_shape_on_the_flop():
    report = analyse(parse_hand_query("As Ks vs Qh Qd", "2c 7d 9h"))
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) == {"players", "board", "complete", "winners"}
    assert data["board"] == ["2c", "7d", "9h"]
    assert data["complete"] is False
    assert data["winners"] == []
    first = data["players"][0]
    assert set(first) == {"label", "cards", "category", "best_five", "name", "win", "tie"}
    assert first["cards"] == ["As", "Ks"]
    assert first["category"] == "High card"
    assert first["best_five"] == ["As", "Ks", "9h", "7d", "2c"]
    assert first["win"] == pytest.approx(237 / 990)
    assert data["players"][1]["name"] == "Pair of Queens, 9-7-2 kickers"


def test_json_preflop_has_no_category_yet():
    data = analyse(parse_hand_query("As Ks vs Qh Qd")).to_json()
    assert set(data["players"][0]) == {"label", "cards", "win", "tie"}
    assert data["players"][0]["win"] == pytest.approx(787_966 / 1_712_304)
    assert data["players"][0]["tie"] == pytest.approx(6_732 / 1_712_304)


def test_complete_board_winner_and_why():
    report = analyse(parse_hand_query("Ks 3d vs Qh Jh board 9s 9h 9d 9c 2c"))
    assert report.complete
    assert report.winners == (0,)
    assert report.explanation == "same four Nines; the kicker decides: K beats Q"
    assert [p.win for p in report.players] == [1.0, 0.0]


def test_2_g_d_4_cards_read_themselves_best_five_of_hole_and_board():
    report = analyse(parse_hand_query("Ah 2c vs Kd Qd board 3d 4s 5h Kc 9d"))
    assert report.players[0].value is not None
    assert report.players[0].value.name == "Five-high straight"
    assert report.winners == (0,)


def test_6_a_board_plays_split():
    report = analyse(parse_hand_query("Ah Kd vs Ac Kh board 2c 3c 4d 5h 6s"))
    assert report.winners == (0, 1)
    assert report.explanation == "the board plays: split"
    assert [p.tie for p in report.players] == [1.0, 1.0]


def test_identical_hands_split_and_beat_the_third():
    report = analyse(parse_hand_query("Ah Kd vs Ac Kh vs 7s 7c board 2c 3c 4d 5h Js"))
    assert report.winners == (0, 1)
    assert report.explanation == "identical five-card hands: split; a straight beats a pair"


def test_heavy_queries_are_preflop_ones():
    assert is_heavy_query(parse_hand_query("As Ks vs Qh Qd"))
    assert not is_heavy_query(parse_hand_query("As Ks vs Qh Qd board 2c 7d 9h"))
    assert not is_heavy_query(parse_hand_query("As Ks Qs Js Ts"))


# --- pots (2.G.e.1) and odd chips (2.G.d.5) ------------------------------------------------------


def test_2_g_e_1_all_in_player_wins_only_what_he_matched_from_each_player():
    # A is all-in for 100; B and C each put in 300. A has the best hand.
    pots = build_pots([100, 300, 300], [False, False, False])
    assert pots == (Pot(300, (0, 1, 2)), Pot(400, (1, 2)))
    won = award(pots, [900, 500, 400], button=2)
    assert won == (300, 400, 0)


def test_2_g_e_1_short_blind_extra_goes_to_the_side_pot():
    # A posts a 50 big blind all-in (blind is 200); B and C play for 200 each.
    pots = build_pots([50, 200, 200], [False, False, False])
    assert pots == (Pot(150, (0, 1, 2)), Pot(300, (1, 2)))


def test_2_g_e_1_folded_chips_stay_in_the_pots_they_reached():
    pots = build_pots([100, 250, 400, 400], [False, True, False, False])
    assert pots == (Pot(400, (0, 2, 3)), Pot(750, (2, 3)))
    assert award(pots, [7, None, 5, 3], button=0) == (400, 0, 750, 0)


def test_2_g_e_1_unmatched_bet_is_returned_to_its_bettor():
    pots = build_pots([100, 500], [False, False])
    assert pots == (Pot(200, (0, 1)), Pot(400, (1,)))
    assert award(pots, [9, 1], button=0) == (200, 400)


def test_2_g_d_5_odd_chip_left_of_button():
    # Seats 0..3 clockwise, button on seat 1: seat 2 is first to the left of the button.
    pot = [Pot(101, (0, 1, 2, 3))]
    assert award(pot, [5, 1, 5, 1], button=1) == (50, 0, 51, 0)
    assert award(pot, [5, 1, 5, 1], button=2) == (51, 0, 50, 0)


def test_2_g_d_5_two_extra_chips_to_the_first_two_tied_players_left_of_the_button():
    pot = [Pot(302, (0, 1, 2, 3))]
    # Three-way tie, button on seat 2: order to its left is 3, 0, 1.
    assert award(pot, [4, 4, 1, 4], button=2) == (101, 100, 0, 101)


def test_pots_reject_bad_input():
    with pytest.raises(InvalidShowdownError, match="Everybody folded"):
        build_pots([10, 10], [True, True])
    with pytest.raises(InvalidShowdownError, match="not a chip count"):
        build_pots([10, -1], [False, False])
    with pytest.raises(InvalidShowdownError, match="one fold flag per seat"):
        build_pots([10, 10], [False])
    with pytest.raises(InvalidShowdownError, match="folded player cannot"):
        build_pots([10, 50], [False, True])
    with pytest.raises(InvalidShowdownError, match="button"):
        award([Pot(10, (0, 1))], [1, 2], button=5)
    with pytest.raises(InvalidShowdownError, match="needs a hand"):
        award([Pot(10, (0, 1))], [1, None], button=0)


def test_award_accepts_hand_values():
    board = parse_cards("2c 3c 4d 5h 6s")
    values = [evaluate(parse_cards("Ah Kd"), board), evaluate(parse_cards("Ac Kh"), board)]
    assert award(build_pots([51, 51], [False, False]), values, button=1) == (51, 51)
    assert award([Pot(101, (0, 1))], values, button=1) == (51, 50)


@st.composite
def hands_at_showdown(draw):
    seats = draw(st.integers(2, 9))
    contributions = draw(st.lists(st.integers(0, 2_000), min_size=seats, max_size=seats))
    folded = draw(st.lists(st.booleans(), min_size=seats, max_size=seats))
    if all(folded):
        folded[draw(st.integers(0, seats - 1))] = False
    top_live = max(c for c, out in zip(contributions, folded, strict=True) if not out)
    contributions = [
        min(c, top_live) if out else c for c, out in zip(contributions, folded, strict=True)
    ]
    strengths = [None if out else draw(st.integers(1, 4)) for out in folded]
    button = draw(st.integers(0, seats - 1))
    return contributions, folded, strengths, button


@settings(max_examples=300, deadline=None)
@given(hands_at_showdown())
def test_property_chips_are_conserved_and_nobody_wins_more_than_he_matched(case):
    contributions, folded, strengths, button = case
    pots = build_pots(contributions, folded)
    won = award(pots, strengths, button=button)
    assert sum(won) == sum(contributions)
    for seat, chips in enumerate(won):
        matched = sum(min(c, contributions[seat]) for c in contributions)
        assert chips <= matched
        if folded[seat]:
            assert chips == 0
