"""/hand: best hands, winners and odds (``bot.features.hand.wording`` builds the reply)."""

from __future__ import annotations

import functools
import logging

import rulings
import rulings.poker
from bot.command.model import Context, Heavy
from bot.features.hand.wording import hand_reply, hand_reply_needs_thread
from bot.reply import Reply

log = logging.getLogger(__name__)


def hand(ctx: Context, cards: str, board: str | None = None, json: bool = False) -> Reply | Heavy:
    """``/hand cards [board]``: evaluate, compare, exact odds on an incomplete board."""
    if json:
        report = rulings.poker.analyse(rulings.poker.parse_hand_query(cards, board))
        return Reply(title="Hand", data=report.to_json())
    # The caller's league decides premium points and citations (the default preset's rules
    # before it has a league, and in a direct message).
    rules = ctx.league_rules()
    if hand_reply_needs_thread(cards, board):
        # Pre-flop equity enumerates up to 1.7 M boards: on Discord a worker process computes
        # it once this thread is free (``Heavy``); elsewhere it is computed here.
        reply: Reply | Heavy = ctx.compute(functools.partial(hand_reply, rules=rules), cards, board)
        return reply
    return hand_reply(cards, board, rules=rules)
