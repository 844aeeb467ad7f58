import itertools

import numpy as np
import pytest
import treys

from rulings import InvalidCardsError, InvalidShowdownError
from rulings.poker import evaluate, evaluate_many, exact_equity, parse_cards
from rulings.poker.cards import DECK, Card
from rulings.poker.equity import (
    _equity_batch,
    _equity_grouped,
    _equity_loop,
    board_table,
    combinations_array,
    is_heavy,
)

PAIRS = 200_000


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def _random_deals(count: int, seed: int) -> np.ndarray:
    """Rows of 9 distinct codes: 5 board cards, then two hole cards each for A and B."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :9]


def _verdict(a: int, b: int) -> int:
    return (a > b) - (a < b)


def test_differential_against_treys_200000_pairs_sharing_a_board():
    deals = _random_deals(PAIRS, seed=20261129)
    board, hole_a, hole_b = deals[:, :5], deals[:, 5:7], deals[:, 7:9]
    ours_a = evaluate_many(np.hstack([hole_a, board]))
    ours_b = evaluate_many(np.hstack([hole_b, board]))
    ours = np.sign(ours_a.astype(np.int64) - ours_b)  # 1: A wins
    # The single-hand path on every pair too.
    rows = deals.tolist()
    single = [_verdict(evaluate(r[5:7] + r[:5]), evaluate(r[7:9] + r[:5])) for r in rows]
    assert single == ours.tolist()
    treys_card = [treys.Card.new(str(c)) for c in DECK]
    oracle = treys.Evaluator()
    disagreements = 0
    for row, verdict in zip(rows, single, strict=True):
        shared = [treys_card[c] for c in row[:5]]
        a = oracle.evaluate(shared, [treys_card[row[5]], treys_card[row[6]]])
        b = oracle.evaluate(shared, [treys_card[row[7]], treys_card[row[8]]])
        expected = _verdict(b, a)  # treys: lower is better
        disagreements += expected != verdict
    assert disagreements == 0


def test_single_evaluate_matches_batch_on_200000_seven_card_hands():
    deals = _random_deals(PAIRS, seed=5)[:, :7]
    batch = evaluate_many(deals).tolist()
    assert [int(evaluate(row)) for row in deals.tolist()] == batch
    # The same hands as Card objects (the Card-sum route), the board given apart.
    cards = [[DECK[c] for c in row] for row in deals.tolist()]
    assert [int(evaluate(row[:2], row[2:])) for row in cards] == batch


def test_as_ks_vs_qh_qd_preflop_exact_counts():
    result = exact_equity([cards("As Ks"), cards("Qh Qd")])
    assert result.boards == 1_712_304
    assert result.wins[0] == 787_966
    assert result.ties[0] == 6_732
    assert result.wins[1] == 917_606  # AsKs's losses
    assert result.boards - result.wins[0] - result.ties[0] == 917_606


def test_preflop_shares_sum_to_the_boards_for_nine_players():
    holes = [
        cards(h)
        for h in ("As Ks", "Qh Qd", "Jc Tc", "9s 9d", "8h 7h", "Ad 2d", "Kc Qc", "5s 4s", "3h 3c")
    ]
    result = exact_equity(holes)
    assert result.boards == 278_256  # C(34, 5)
    assert sum(result.shares) == pytest.approx(result.boards)
    assert all(0 <= w <= 1 for w in result.win)


@pytest.mark.parametrize(
    ("holes", "board"),
    [
        (["As Ks", "Qh Qd"], "2c 7d 9h"),
        (["Ah Kh", "Qs Qc", "7d 6d"], "Th 9d 8h"),
        (["Ac 2c", "Ad 3d"], "4h 5s Kc Jd"),
        (["9s 9h", "8c 8d", "7s 7h", "6d 6c"], "2s 3h 4d"),
        (["As Ah", "Kd Kc"], "Qh Qd Qs Jh"),
    ],
)
def test_batch_enumeration_matches_board_by_board_loop(holes, board):
    hole_cards = [cards(h) for h in holes]
    batch, loop = _equity_batch(hole_cards, cards(board)), _equity_loop(hole_cards, cards(board))
    assert (batch.boards, batch.wins, batch.ties) == (loop.boards, loop.wins, loop.ties)
    assert batch.shares == pytest.approx(loop.shares)


@pytest.mark.parametrize(
    "holes",
    [
        ["As Ks", "Qh Qd"],
        ["Ac 2c", "Ad 3d"],
        ["2c 2d", "2h 2s"],
        ["Ah Kh", "Qs Qc", "7d 6d"],
        ["As Ks", "Ah Kh", "Ad Kd", "Ac Kc"],
        ["As Ks", "Qs Js", "Ts 9s", "8s 7s", "6s 5s", "4s 3s", "2s Ah", "Kh Qh", "Jh Th", "9h 8h"],
    ],
)
def test_preflop_groups_count_what_enumerating_every_board_counts(holes):
    hole_cards = [cards(h) for h in holes]
    grouped, batch = _equity_grouped(hole_cards), _equity_batch(hole_cards, ())
    assert (grouped.boards, grouped.wins, grouped.ties) == (batch.boards, batch.wins, batch.ties)
    assert grouped.shares == pytest.approx(batch.shares)


def test_flop_turn_and_river_counts():
    holes = [cards("As Ks"), cards("Qh Qd")]
    assert exact_equity(holes, cards("2c 7d 9h")).boards == 990
    assert exact_equity(holes, cards("2c 7d 9h Ah")).boards == 44
    river = exact_equity(holes, cards("2c 7d 9h Ah 3s"))
    assert (river.boards, river.wins, river.ties) == (1, (1, 0), (0, 0))


def test_a_complete_split_counts_as_a_tie_for_both():
    result = exact_equity([cards("Ah Kd"), cards("Ac Kh")], cards("2c 3c 4d 5h 6s"))
    assert result.ties == (1, 1)
    assert result.equity == (0.5, 0.5)


@pytest.mark.parametrize(
    ("holes", "board", "error", "message"),
    [
        (["As Ks"], "", InvalidShowdownError, "2 to 10 players"),
        (["As Ks"] * 11, "", InvalidShowdownError, "2 to 10 players"),
        (["As Ks Qs", "2c 3c"], "", InvalidShowdownError, "exactly two hole cards"),
        (["As Ks", "2c 3c"], "4d 5d", InvalidShowdownError, "0, 3, 4 or 5 cards"),
        (["As Ks", "As 3c"], "", InvalidCardsError, "As appears twice"),
        (["As Ks", "2c 3c"], "Ks 7d 8d", InvalidCardsError, "Ks appears twice"),
    ],
)
def test_equity_rejects_impossible_deals(holes, board, error, message):
    with pytest.raises(error, match=message):
        exact_equity([parse_cards(h) for h in holes], parse_cards(board))


def test_board_table_covers_every_board_once():
    table = board_table()
    assert len(table.card_mask) == 2_598_960
    assert (np.bitwise_count(table.card_mask) == 5).all()
    assert table.nbytes < 50_000_000


def test_combinations_array_matches_itertools():
    assert combinations_array(9, 4).tolist() == [
        list(c) for c in itertools.combinations(range(9), 4)
    ]


def test_preflop_is_heavy_flop_is_not():
    assert is_heavy(2, 0)
    assert not is_heavy(10, 3)
