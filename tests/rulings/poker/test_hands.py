import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

import rulings
from rulings import InvalidCardsError
from rulings.poker import (
    HandCategory,
    HandValue,
    best_five,
    evaluate,
    evaluate_many,
    explain_win,
    hand_value,
    parse_cards,
)
from rulings.poker.equity import combinations_array
from rulings.poker.hands import DISTINCT_VALUES


def ev(hole: str, board: str = "") -> HandValue:
    return evaluate(parse_cards(hole), parse_cards(board))


def five(hole: str, board: str = "") -> str:
    return " ".join(str(c) for c in best_five(parse_cards(hole), parse_cards(board)))


# --- exhaustive -----------------------------------------------------------------------


def test_all_2598960_five_card_hands_category_counts_and_7462_values():
    hands = combinations_array(52, 5)
    assert len(hands) == 2_598_960
    strengths = evaluate_many(hands)
    categories = np.array([0] + [hand_value(s).category for s in range(1, DISTINCT_VALUES + 1)])
    counts = Counter(dict(zip(*np.unique(categories[strengths], return_counts=True), strict=True)))
    assert counts[HandCategory.ROYAL_FLUSH] == 4
    assert counts[HandCategory.STRAIGHT_FLUSH] + counts[HandCategory.ROYAL_FLUSH] == 40
    assert counts[HandCategory.FOUR_OF_A_KIND] == 624
    assert counts[HandCategory.FULL_HOUSE] == 3_744
    assert counts[HandCategory.FLUSH] == 5_108
    assert counts[HandCategory.STRAIGHT] == 10_200
    assert counts[HandCategory.THREE_OF_A_KIND] == 54_912
    assert counts[HandCategory.TWO_PAIR] == 123_552
    assert counts[HandCategory.PAIR] == 1_098_240
    assert counts[HandCategory.HIGH_CARD] == 1_302_540
    assert len(np.unique(strengths)) == 7_462 == DISTINCT_VALUES


def test_single_evaluate_agrees_with_batch_on_five_six_and_seven_cards():
    rng = np.random.default_rng(7)
    for size in (5, 6, 7):
        hands = np.argsort(rng.random((3000, 52)), axis=1)[:, :size]
        batch = evaluate_many(hands)
        single = [evaluate([int(c) for c in row]) for row in hands]
        assert single == batch.tolist()
        with_cards = [evaluate([rulings.poker.cards.DECK[c] for c in row]) for row in hands]
        assert with_cards == batch.tolist()


def _single_agrees_with_batch(rows: list[list[int]]) -> None:
    """``evaluate`` on Cards and on codes gives ``evaluate_many``'s strength for every row."""
    deck = rulings.poker.cards.DECK
    batch = evaluate_many(np.array(rows)).tolist()
    assert [evaluate([deck[c] for c in row]) for row in rows] == batch
    assert [evaluate(row) for row in rows] == batch


def test_every_seven_card_rank_multiset_without_a_flush_agrees_with_batch():
    # All 49,205 multisets of seven ranks (no rank more than four times), suits dealt in
    # turn (two, two, two and one of a suit: no flush): the one-lookup path of every entry.
    rows = [
        [4 * rank + i % 4 for i, rank in enumerate(ranks)]
        for ranks in itertools.combinations_with_replacement(range(13), 7)
        if max(Counter(ranks).values()) <= 4
    ]
    assert len(rows) == 49_205
    _single_agrees_with_batch(rows)


def test_every_flush_of_five_to_seven_ranks_in_every_suit_agrees_with_batch():
    # Every set of 5, 6 or 7 ranks in each suit (4 x 4,719 hands), the other cards drawn
    # from the other suits: the flush path of every flush-table entry.
    rng = np.random.default_rng(23)
    rows = []
    for suit in range(4):
        others = [c for c in range(52) if c % 4 != suit]
        for size in (5, 6, 7):
            for ranks in itertools.combinations(range(13), size):
                extra = rng.choice(others, 7 - size, replace=False).tolist()
                rows.append([4 * r + suit for r in ranks] + extra)
    assert len(rows) == 4 * (1287 + 1716 + 1716)
    _single_agrees_with_batch(rows)


@pytest.mark.parametrize("copies", range(2, 8))
def test_evaluate_refuses_a_card_given_two_to_seven_times(copies):
    # Every card, repeated next to distinct others (in its own suit, so flushes too): the
    # sum's guard bits catch it on the fast path for Cards and for codes.
    deck = rulings.poker.cards.DECK
    for code in range(52):
        others = [c for c in range(code % 4, 52, 4) if c != code] + [(code + 1) % 52]
        row = [code] * copies + others[: 7 - copies]
        for hand in (row, [deck[c] for c in row], row[::-1]):
            with pytest.raises(InvalidCardsError, match="appears twice"):
                evaluate(hand)


# --- rule 6.A: order of cards ------------------------------------------------------------


def test_6_a_order_of_cards_ace_highest_two_lowest():
    order = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"]
    # Pairs of each rank, with the same three side cards that never pair or straighten.
    pairs = [ev(f"{r}s {r}h", _side_cards(r)) for r in order]
    assert pairs == sorted(pairs, reverse=True)
    assert len(set(pairs)) == 13
    # High card: swapping the top card down the order always makes the hand weaker.
    tops = [ev(f"{r}s 2h 3d 4c 6s") for r in order[:8]]
    assert tops == sorted(tops, reverse=True)


def _side_cards(rank: str) -> str:
    spare = [r for r in "AKQ9" if r != rank][:3]
    return " ".join(f"{r}d" for r in spare)


def test_6_a_suits_all_have_the_same_value():
    assert ev("As Ks Qs Jh 9d") == ev("Ac Kc Qc Jd 9h")
    assert hash(ev("As Ks Qs Jh 9d")) == hash(ev("Ac Kc Qc Jd 9h"))
    assert ev("Ah Kh Qh Jh 9h") == ev("As Ks Qs Js 9s")


def test_6_a_exactly_equal_five_card_hands_tie_chop():
    board = "Ts Jd Qc Kh 2c"
    a, b = ev("As 3d", board), ev("Ad 4s", board)
    assert a == b
    assert explain_win(a, b) == "identical five-card hands: split"


# --- rule 6.B: order of hands -------------------------------------------------------------


def test_6_b_order_of_hands_highest_to_lowest():
    ladder = [
        ev("As Ks Qs Js Ts"),  # royal flush
        ev("9h 8h 7h 6h 5h"),  # straight flush
        ev("6s 6h 6d 6c 2s"),  # 4 of a kind
        ev("Ks Kh Kd Ts Tc"),  # full house
        ev("Ah Jh 9h 6h 3h"),  # flush
        ev("Ts 9h 8d 7c 6s"),  # straight
        ev("7s 7h 7d Ac Ks"),  # 3 of a kind
        ev("Qs Qh 5d 5c 8s"),  # two pair
        ev("Js Jh Ad Kc 9s"),  # pair
        ev("As Qh 9d 7c 3s"),  # high card
    ]
    assert ladder == sorted(ladder, reverse=True)
    assert [v.category for v in ladder] == sorted(HandCategory, reverse=True)


def test_6_b_a_hand_is_exactly_five_of_the_seven_cards():
    value = ev("Ah Kh", "Qh Jh Th 2c 3d")
    assert value.category is HandCategory.ROYAL_FLUSH
    assert five("Ah Kh", "Qh Jh Th 2c 3d") == "Ah Kh Qh Jh Th"
    # The two unused cards do not count: different sixth and seventh cards, same value.
    assert ev("2s 3s", "Ac Kd Qh Jc 9d") == ev("4s 5h", "Ac Kd Qh Jc 9d")


def test_6_b_royal_flush_is_an_ace_high_straight_flush():
    value = ev("Ts Js Qs Ks As")
    assert value.category is HandCategory.ROYAL_FLUSH
    assert value.name == "Royal flush"
    assert int(value) == DISTINCT_VALUES


def test_6_b_straight_flush_highest_card_in_the_suit_wins():
    board = "9h 8h 7h 6h 2c"
    higher, lower = ev("Th Ac", board), ev("5h Ad", board)
    assert higher.name == "Ten-high straight flush"
    assert higher > lower
    assert explain_win(higher, lower) == "the higher straight flush: Ten-high beats Nine-high"


def test_6_b_a_to_5_straight_flush_is_the_lowest():
    wheel = ev("Ad 2d 3d 4d 5d")
    assert wheel.category is HandCategory.STRAIGHT_FLUSH
    assert wheel.name == "Five-high straight flush"
    assert wheel < ev("2d 3d 4d 5d 6d")
    assert wheel > ev("As Ah Ad Ac Ks")  # still beats any quads
    assert five("Ad 2d", "3d 4d 5d Kc Qs") == "5d 4d 3d 2d Ad"


def test_6_b_four_of_a_kind_highest_quads_wins():
    a, b = ev("As Ah Ad Ac 2s"), ev("Ks Kh Kd Kc Qs")
    assert a > b
    assert a.name == "Four of a kind, Aces, 2 kicker"
    assert explain_win(a, b) == "four Aces beat four Kings"


def test_6_b_quads_on_board_highest_fifth_card_wins():
    board = "9s 9h 9d 9c 2c"
    a, b = ev("Ks 3d", board), ev("Qh Jh", board)
    assert a > b
    assert explain_win(a, b) == "same four Nines; the kicker decides: K beats Q"
    # Both holding lower cards than the board's fifth card: the board plays.
    assert ev("3s 4d", "9s 9h 9d 9c Ac") == ev("5s 6d", "9s 9h 9d 9c Ac")


def test_6_b_full_house_highest_three_of_a_kind_wins():
    a, b = ev("Ks Kh Kd 2s 2c"), ev("Ts Th Td As Ac")
    assert a > b
    assert a.name == "Full house, Kings full of Twos"
    assert explain_win(a, b) == "Kings full beat Tens full"


def test_6_b_full_house_same_three_of_a_kind_highest_pair_wins():
    board = "Ks Kh Kd 7c 2c"
    a, b = ev("Qs Qd", board), ev("Js Jd", board)
    assert a > b
    assert explain_win(a, b) == "same three Kings; the pair decides: Queens beat Jacks"


def test_6_b_flush_highest_card_in_the_suit_wins():
    board = "2h 5h 8h Th 3c"
    a, b = ev("Ah 4c", board), ev("Kh Kc", board)
    assert a > b
    assert a.name == "Ace-high flush, A-10-8-5-2"
    assert explain_win(a, b) == "the higher flush: Ace beats King"
    # Same top card: the next cards decide, in order.
    c, d = ev("Ah Kd Jh 9h 6h 4h 2h"), ev("As Js 9s 5s 4s")
    assert c > d
    assert explain_win(c, d) == "same flush A-J-9; the fourth card decides: 6 beats 5"


def test_6_b_straight_highest_card_wins():
    a, b = ev("Ts 9h 8d 7c 6s"), ev("9d 8c 7h 6d 5s")
    assert a > b
    assert a.name == "Ten-high straight"
    assert explain_win(a, b) == "the higher straight: Ten-high beats Nine-high"


def test_6_b_a_to_5_straight_is_the_lowest_and_there_is_no_wrap_around():
    wheel = ev("As 2h 3d 4c 5s")
    assert wheel.name == "Five-high straight"
    assert wheel < ev("2h 3d 4c 5s 6h")
    assert wheel > ev("Ks Kh Kd Qs Jh")  # still a straight, above any trips
    assert ev("Qs Kh As 2d 3c").category is HandCategory.HIGH_CARD  # no wrap-around
    assert five("Ah 2c", "3d 4s 5h Kc Kd") == "5h 4s 3d 2c Ah"


def test_6_b_three_of_a_kind_highest_wins():
    a, b = ev("Ks Kh Kd 2s 3c"), ev("7s 7h 7d As Qc")
    assert a > b
    assert explain_win(a, b) == "three Kings beat three Sevens"


def test_6_b_same_three_of_a_kind_highest_other_card_wins():
    board = "7s 7h 7d 2c 4h"
    a, b = ev("Ac 3d", board), ev("Qc Jd", board)
    assert a > b
    assert a.name == "Three of a kind, Sevens, A-4 kickers"
    assert explain_win(a, b) == "same three Sevens; the kicker decides: A beats Q"


def test_6_b_same_three_of_a_kind_and_high_card_next_card_wins():
    a, b = ev("7s 7h 7d Ac 9h"), ev("7c 7h 7d As 8h")
    assert a > b
    assert (
        explain_win(a, b) == "same three Sevens and A kicker; the second kicker decides: 9 beats 8"
    )


def test_6_b_trips_and_high_card_on_board_next_highest_card_wins():
    board = "7s 7h 7d Ac 2h"
    a, b = ev("Kd 3c", board), ev("Qd Jc", board)
    assert a > b
    assert (
        explain_win(a, b) == "same three Sevens and A kicker; the second kicker decides: K beats Q"
    )


def test_6_b_two_pair_highest_pair_wins():
    a, b = ev("As Ah 2d 2c 3s"), ev("Ks Kh Qd Qc As")
    assert a > b
    assert explain_win(a, b) == "the higher top pair: Aces beat Kings"


def test_6_b_two_pair_same_highest_pair_highest_second_pair_wins():
    board = "Qs Qh 8d 3c 2s"
    a, b = ev("9s 9h", board), ev("8c 4h", board)
    assert a > b
    assert explain_win(a, b) == (
        "same top pair, Queens; the second pair decides: Nines beat Eights"
    )


def test_6_b_same_two_pair_highest_other_card_wins():
    board = "Qs Qd 5h 5c 2d"
    a, b = ev("8d 3c", board), ev("4d 3h", board)
    assert a > b
    assert a.name == "Two pair, Queens and Fives, 8 kicker"
    assert explain_win(a, b) == "same two pair, Queens and Fives; the kicker decides: 8 beats 4"


def test_6_b_pair_highest_pair_wins():
    a, b = ev("Js Jh Ad Kc 9s"), ev("9s 9h Ad Kc Qs")
    assert a > b
    assert a.name == "Pair of Jacks, A-K-9 kickers"
    assert explain_win(a, b) == "a pair of Jacks beats a pair of Nines"


def test_6_b_same_pair_highest_other_card_wins():
    board = "Js Jh 7d 5c 2s"
    a, b = ev("Ad 3c", board), ev("Kd Qc", board)
    assert a > b
    assert explain_win(a, b) == "same pair, Jacks; the kicker decides: A beats K"


def test_6_b_same_pair_and_high_card_next_highest_card_wins():
    board = "Js Jh Ad 5c 2s"
    a, b = ev("Kd 3c", board), ev("Qd 3h", board)
    assert a > b
    assert (
        explain_win(a, b) == "same pair, Jacks and A kicker; the second kicker decides: K beats Q"
    )


def test_6_b_same_pair_and_two_high_cards_next_highest_card_wins():
    a, b = ev("Js Jh Ad Kc 9s"), ev("Jd Jc As Kh 4s")
    assert a > b
    assert explain_win(a, b) == (
        "same pair, Jacks and A-K kickers; the third kicker decides: 9 beats 4"
    )


def test_6_b_high_card_highest_card_wins():
    a, b = ev("As Qh 9d 7c 3s"), ev("Ks Qd Jh 9c 8s")
    assert a > b
    assert explain_win(a, b) == "the higher high card: Ace beats King"


@pytest.mark.parametrize(
    ("winner", "loser", "ordinal", "beats"),
    [
        ("As Kh 9d 7c 3s", "Ad Qh Jd 9c 8s", "second", "K beats Q"),
        ("As Kh 9d 7c 3s", "Ad Kc 8d 7h 6s", "third", "9 beats 8"),
        ("As Kh 9d 7c 3s", "Ad Kc 9h 6h 5s", "fourth", "7 beats 6"),
        ("As Kh 9d 7c 3s", "Ad Kc 9h 7h 2s", "fifth", "3 beats 2"),
    ],
)
def test_6_b_same_high_cards_next_highest_card_wins(winner, loser, ordinal, beats):
    a, b = ev(winner), ev(loser)
    assert a > b
    assert explain_win(a, b).endswith(f"the {ordinal} card decides: {beats}")


# --- API --------------------------------------------------------------------------------------


def test_names_from_the_issue():
    assert ev("Ks Kh Kd Ts Tc").name == "Full house, Kings full of Tens"
    assert ev("5s 4h 3d 2c As").name == "Five-high straight"
    assert ev("Js Jh Ad Kc 9s").name == "Pair of Jacks, A-K-9 kickers"
    assert ev("As Qh 9d 7c 3s").name == "High card, A-Q-9-7-3"


def test_explain_is_symmetric_in_argument_order():
    a, b = ev("Ks Kh Kd 2s 3c"), ev("7s 7h 7d As Qc")
    assert explain_win(a, b) == explain_win(b, a)
    assert explain_win(ev("As Ks Qs Js 9s"), ev("As Ks Qs Jd Th")) == "a flush beats a straight"


def test_hand_value_is_an_int_with_category_ranks_and_name():
    value = ev("Ks Kh Kd Ts Tc")
    assert isinstance(value, int)
    assert [r.char for r in value.ranks] == ["K", "K", "K", "T", "T"]
    assert value.category.label == "Full house"
    assert hand_value(int(value)) is value
    with pytest.raises(AttributeError):
        value.name = "x"  # type: ignore[misc]
    with pytest.raises(ValueError, match="not a hand strength"):
        hand_value(0)


def test_evaluate_accepts_cards_codes_and_split_board():
    cards = parse_cards("Ah Kh Qh Jh Th 2c 3d")
    codes = [c.code for c in cards]
    assert evaluate(cards) == evaluate(codes) == evaluate(cards[:2], cards[2:])
    assert evaluate(cards[:5]) == evaluate(cards[:6]) == evaluate(cards)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([0, 1, 2, 3], "5 to 7 cards"),
        (list(range(8)), "5 to 7 cards"),
        ([0, 0, 1, 2, 3, 4, 5], "2s appears twice"),
        ([51, 51, 50, 49, 48, 47], "Ac appears twice"),
        ([0, 1, 2, 3, 52], "not a card"),
        ([0, 1, 2, 3, 4, 5, -1], "not a card"),
        ([0, 1, 2, 3, 4, 5, 60], "not a card"),
        ([0, 1, 2, 3, 4, 5, 500], "not a card"),
        ([8, 12, 16, 20, 24, 28, -1], "not a card"),
        ([0, 1, 2, 3, "As"], "not a card"),
    ],
)
def test_evaluate_rejects_bad_hands(cards, message):
    with pytest.raises(InvalidCardsError, match=message):
        evaluate(cards)


def test_evaluate_reads_cards_codes_and_mixes_alike():
    # Every card takes each of the seven places, as a Card and as a code, next to the others
    # in both forms: the Card sum, the code-key sum and the checked path must agree.
    rng = np.random.default_rng(11)
    deck = rulings.poker.cards.DECK
    for row in np.argsort(rng.random((400, 52)), axis=1)[:, :7].tolist():
        expected = int(evaluate_many(np.array([row]))[0])
        cards = [deck[c] for c in row]
        assert evaluate(cards) == evaluate(row) == evaluate(tuple(row)) == expected
        assert evaluate([int(c) for c in cards]) == expected  # ints equal to Cards are Cards
        numpy_ints: list[Any] = [np.int64(c) for c in row]
        assert evaluate(numpy_ints) == expected
        for place in range(7):
            assert evaluate([*cards[:place], row[place], *cards[place + 1 :]]) == expected
            assert evaluate([*row[:place], cards[place], *row[place + 1 :]]) == expected


@pytest.mark.parametrize("size", [5, 6, 7])
@pytest.mark.parametrize("flag", [True, False])
def test_evaluate_rejects_true_and_false(size, flag):
    # True and False are ints equal to 1 and 0 (the codes of 2h and 2s), but not cards.
    rest = [c.code for c in parse_cards("Ah Kh Qh Jh 9c 8d")][: size - 1]
    for place in range(size):
        cards = [*rest[:place], flag, *rest[place:]]
        with pytest.raises(InvalidCardsError, match=f"{flag} is not a card"):
            evaluate(cards)
        as_cards = [rulings.poker.cards.DECK[c] for c in rest]
        with pytest.raises(InvalidCardsError, match=f"{flag} is not a card"):
            evaluate([*as_cards[:place], flag, *as_cards[place:]])


def test_evaluate_with_codes_0_and_1_is_not_mistaken_for_true_and_false():
    assert evaluate([0, 1, 4, 5, 8, 49, 46]).name == "Two pair, Threes and Twos, A kicker"
    assert evaluate([1, 0, 4, 5, 8, 12, 16]).name == "Six-high straight flush"
    with pytest.raises(InvalidCardsError, match="2s appears twice"):
        evaluate([0, 0, 4, 5, 8, 48, 49])


@pytest.mark.parametrize(
    "bad",
    [1.0, None, "2s", 2**200, -(2**200), 104, -53, 2**92, -(2**92), 2**215, 2**157, 2**156],
)
def test_evaluate_names_a_bad_seventh_value_next_to_cards_or_codes(bad):
    cards = parse_cards("Ah Kh Qh Jh 9c 8d")
    for six in (list(cards), [c.code for c in cards]):
        for place in (0, 6):
            with pytest.raises(InvalidCardsError, match="is not a card"):
                evaluate([*six[:place], bad, *six[place:]])


def test_evaluate_rejects_repeated_flush_card_on_the_fast_path():
    with pytest.raises(InvalidCardsError, match="appears twice"):
        evaluate(parse_cards("Ah Kh Qh Jh", max_cards=None) + parse_cards("Ah 2c 3d"))


def test_evaluate_many_rejects_bad_arrays():
    with pytest.raises(InvalidCardsError):
        evaluate_many(np.array([[0, 1, 2, 3]]))
    with pytest.raises(InvalidCardsError):
        evaluate_many(np.array([[0, 0, 1, 2, 3]]))
    with pytest.raises(InvalidCardsError):
        evaluate_many(np.array([[0, 1, 2, 3, 60]]))


def test_best_five_prefers_hole_cards_and_flush_suit():
    assert five("Ah 2c", "Ad Kc Kd 7s 8s") == "Ah Ad Kc Kd 8s"
    assert five("Ah 2h", "Kh 9h 5h 5c 5d") == "Ah Kh 9h 5h 2h"


def test_the_shipped_tables_are_what_the_builder_makes():
    """``rulings/data/tables/hand-tables.npz`` (loaded at import) is a fresh build, exactly."""

    from rulings.poker import hands

    fresh = hands.build_tables()
    with hands.TABLES.open("rb") as handle, np.load(handle) as shipped:
        assert sorted(shipped.files) == sorted(fresh)
        for name, array in fresh.items():
            assert shipped[name].dtype == array.dtype, name
            assert np.array_equal(shipped[name], array), name
