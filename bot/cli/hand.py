"""`pokerfloor hand`: evaluate hands, compare them, and give exact odds.

``pokerfloor hand "As Ks vs Qh Qd" --board "2c 7d 9h" [--json] [--db URL]``; the text takes the same
grammar as Discord's ``/hand`` (players separated by ``vs`` or ``|``, ``name:`` prefixes, a
``board ...`` tail, or a lone hand of 5 to 7 cards). Premium-hand points and citations follow the
rules of the league in use (the CLI's league in ``--db``/``DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

import rulings
from bot.config import Settings
from bot.views.hand import hand_reply
from bot.views.league_commands import league_rules_for
from storage.db import has_tables, make_engine, session_scope

log = logging.getLogger(__name__)

EXIT_USAGE = 2


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the ``hand`` sub-command."""
    parser = sub.add_parser(
        "hand",
        help="evaluate or compare hands, with exact odds",
        description=(
            'Evaluate a hand ("As Ks Qs Js Ts"), or compare players ("As Ks vs Qh Qd") with '
            "exact win/tie odds on any board."
        ),
    )
    parser.add_argument("query", help='players and cards, e.g. "alice: As Ks vs bob: Qh Qd"')
    parser.add_argument("--board", help='board cards, e.g. "2c 7d 9h"')
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--db", metavar="URL", help="database of the league in use (default: DATABASE_URL)"
    )
    parser.set_defaults(handler=run)


def league_rules(url: str | None) -> rulings.LeagueRules:
    """The rules of the league in use: the CLI's league in the database, read without writing.

    Args:
        url: the database (``--db``); None for ``DATABASE_URL``.

    Returns:
        The league's rules; the default preset's when the database or the league does not
        exist yet (nothing is created).
    """
    url = url or Settings().database_url
    if not has_tables(url):
        return rulings.load_league_rules()
    engine = make_engine(url)
    try:
        with session_scope(engine) as session:
            return league_rules_for(session=session, guild_id=None)
    finally:
        engine.dispose()


def run(args: argparse.Namespace) -> int:
    """Answer one hand query; exit 2 with one line on stderr for a bad query."""
    try:
        if args.json:
            report = rulings.analyse(rulings.parse_hand_query(args.query, args.board))
            sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
        else:
            reply = hand_reply(args.query, args.board, rules=league_rules(args.db))
            sys.stdout.write(reply.to_text() + "\n")
    except rulings.RulingsError as error:
        log.debug("hand query rejected: %s", error)
        sys.stderr.write(f"pokerfloor hand: {error}\n")
        return EXIT_USAGE
    return 0
