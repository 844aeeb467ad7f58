"""The `/hand` answer, shared by Discord, the console and `pokerfloor hand`.

``hand_reply`` parses the shared query grammar (``rulings.poker.parse_hand_query``), analyses it and
builds a ``Reply`` within Discord's limits. ``hand_reply_needs_thread`` tells the bot when the
answer enumerates whole boards (pre-flop), so it should defer and run it in a worker thread.
"""

from __future__ import annotations

import logging

import rulings
import rulings.poker
from bot.reply import Field, Reply, escape

log = logging.getLogger(__name__)

TEXT_LIMIT = 2000
_STREETS = {0: "pre-flop", 3: "on the flop", 4: "on the turn", 5: "on the river"}


def hand_reply_needs_thread(text: str, board: str | None = None) -> bool:
    """Whether answering ``text`` is heavy work (pre-flop enumeration of every board).

    Args:
        text: the query as typed.
        board: board cards given separately, if any.

    Returns:
        True for a pre-flop question with two or more players; False otherwise, also when
        the text is not a valid query (the error answer is immediate).
    """
    try:
        query = rulings.poker.parse_hand_query(text, board)
    except rulings.RulingsError:
        return False
    return rulings.poker.is_heavy_query(query)


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.2f}%"


def _names(report: rulings.poker.ShowdownReport, indexes: tuple[int, ...]) -> str:
    names = [f"**{escape(report.players[i].label)}**" for i in indexes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _player_field(
    player: rulings.poker.PlayerResult,
    note: rulings.PremiumNote | None,
    *,
    complete: bool,
    lone: bool,
) -> Field:
    lines = []
    if player.value is not None and player.best_five is not None:
        lines.append(f"{player.value.name} ({rulings.poker.format_cards(player.best_five)})")
    if not complete and not lone:
        lines.append(f"wins {_percent(player.win)}, ties {_percent(player.tie)}")
    if note is not None:
        lines.append(note.reason)
    cards = rulings.poker.format_cards(player.cards)
    return Field(name=f"{escape(player.label)}: {cards}", value="\n".join(lines) or "-")


def hand_reply(text: str, board: str | None = None, *, rules: rulings.LeagueRules) -> Reply:
    """Answer a hand question: best hands, winner(s) and why, odds, premium notes.

    Args:
        text: e.g. ``"As Ks vs Qh Qd board 2c 7d 9h"`` or a lone hand ``"As Ks Qs Js Ts"``.
        board: board cards given separately (the CLI's ``--board``).
        rules: the caller's league's rules: its premium-hand points (none where it pays
            none) and its home rulebook's citations.

    Returns:
        The reply (at most 2,000 characters as text).

    Raises:
        RulingsError: the query cannot be read or cannot happen (the message says why).
    """
    query = rulings.poker.parse_hand_query(text, board)
    report = rulings.poker.analyse(query)
    board_line = f"Board: {rulings.poker.format_cards(report.board)}" if report.board else ""
    notes = rulings.premium_notes(report, rules)
    fields = tuple(
        _player_field(p, n, complete=report.complete, lone=query.is_lone)
        for p, n in zip(report.players, notes, strict=True)
    )
    citation = rulings.rule_citation(rules, "hand_rankings")
    footer = None
    if query.is_lone:
        player = report.players[0]
        assert player.value is not None
        title = player.value.name
        body = board_line
    elif report.complete:
        winners = report.winners
        if len(winners) == 1:
            title = f"{escape(report.players[winners[0]].label)} wins"
            body = f"{_names(report, winners)} wins: {report.explanation}."
        else:
            title = "Split pot"
            body = f"{_names(report, winners)}: {report.explanation}."
            body += " Odd chips go to the first of them left of the button."
            citation = rulings.rule_citation(rules, "hand_rankings", "split_pots")
        body = f"{board_line}\n{body}"
    else:
        title = f"Odds {_STREETS[len(report.board)]}"
        body = board_line
        footer = f"Exact: all {report.boards:,} ways the board can finish."
    reply = Reply(title=title, text=body.strip(), fields=fields, citation=citation, footer=footer)
    return _fit(reply)


def _fit(reply: Reply) -> Reply:
    """Keep the reply within Discord's message limit by trimming field texts."""
    excess = len(reply.to_text()) - TEXT_LIMIT
    if excess <= 0:
        return reply
    cut = excess // max(len(reply.fields), 1) + 2
    fields = tuple(
        Field(f.name, f.value[: max(len(f.value) - cut, 1)] + "…", f.inline) for f in reply.fields
    )
    return Reply(
        title=reply.title,
        text=reply.text,
        fields=fields,
        citation=reply.citation,
        footer=reply.footer,
        private=reply.private,
    )
