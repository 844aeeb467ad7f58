"""Cards, hand values, exact equity, showdowns and pots: Hold'em, knowing nothing of leagues."""

from rulings.poker.cards import Card, Rank, Suit, format_cards, parse_cards
from rulings.poker.equity import Equity, exact_equity
from rulings.poker.hands import (
    HandCategory,
    HandValue,
    best_five,
    evaluate,
    evaluate_many,
    explain_win,
    hand_value,
)
from rulings.poker.showdown import (
    HandQuery,
    PlayerHand,
    PlayerResult,
    Pot,
    ShowdownReport,
    analyse,
    award,
    build_pots,
    is_heavy_query,
    parse_hand_query,
)

__all__ = [
    "Card",
    "Equity",
    "HandCategory",
    "HandQuery",
    "HandValue",
    "PlayerHand",
    "PlayerResult",
    "Pot",
    "Rank",
    "ShowdownReport",
    "Suit",
    "analyse",
    "award",
    "best_five",
    "build_pots",
    "evaluate",
    "evaluate_many",
    "exact_equity",
    "explain_win",
    "format_cards",
    "hand_value",
    "is_heavy_query",
    "parse_cards",
    "parse_hand_query",
]
