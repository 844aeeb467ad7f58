"""`pokerfloor rule`: search the rulebooks from a terminal.

``pokerfloor rule "oversized chip" [--book NAME] [--limit N] [--json] [--dir PATH]`` prints the
same answer as Discord's ``/rule``; ``--json`` prints the matches as a list of
``{"book", "section", "title", "text", "score"}``, best first (the closest sections when nothing
matches, with a note on stderr; when the book named has no rule on it, that book's closest
sections followed by the other leagues' answers, and stderr names the silent book). ``--dir``
adds a folder of rulebooks (else ``RULEBOOK_DIR``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

import rulings
from bot.config import Settings
from bot.views.rule import rule_reply

log = logging.getLogger(__name__)

EXIT_USAGE = 2
JSON_TEXT_CHARS = 1500


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the ``rule`` sub-command."""
    parser = sub.add_parser(
        "rule",
        help="search the rulebooks (words, a question, or a rule number)",
        description=(
            'Find the rule that answers a question: "oversized chip", "points for 7th", '
            '"2.G.d.6". With no words, list the books and their sections.'
        ),
    )
    parser.add_argument("query", nargs="*", help="what to look up, e.g. 'oversized chip'")
    parser.add_argument("--book", help="search only this book (file name without extension)")
    parser.add_argument("--limit", type=int, default=3, help="how many matches (1-25, default 3)")
    parser.add_argument("--json", action="store_true", help="print the matches as JSON")
    parser.add_argument(
        "--dir", type=Path, help="a folder of extra .txt/.md rulebooks (default: RULEBOOK_DIR)"
    )
    parser.set_defaults(handler=run)


def _load(folder: Path | None) -> rulings.RuleIndex:
    # The one place this command reads the environment: --dir wins, then RULEBOOK_DIR.
    if folder is None:
        folder = Settings().rulebook_dir
    return rulings.load_rulebooks(folder)


def _as_json(match: rulings.Match) -> dict[str, Any]:
    text = match.text
    if len(text) > JSON_TEXT_CHARS:
        text = text[: JSON_TEXT_CHARS - 1].rstrip() + "…"
    return {
        "book": match.book,
        "section": match.section,
        "title": match.title,
        "text": text,
        "score": match.score,
    }


def run(args: argparse.Namespace) -> int:
    """Answer one rule query; exit 2 with one line on stderr for a bad request."""
    query = " ".join(args.query)
    try:
        if not 1 <= args.limit <= rulings.MAX_LIMIT:
            raise rulings.RulingsError(f"--limit must be between 1 and {rulings.MAX_LIMIT}.")
        index = _load(args.dir)
        if args.json:
            books = [args.book] if args.book else None
            result = index.search(query, books=books, limit=args.limit)
            matches = result.matches if result.found else result.closest
            if result.silent_book is not None:
                # The named book is silent: its closest passages, then the other leagues' answers.
                matches = (*matches, *result.other_leagues)
                sys.stderr.write(
                    f"pokerfloor rule: {result.silent_book} has no rule on that; showing its"
                    " closest sections, then what other leagues say\n"
                )
            elif result.query and not result.found:
                sys.stderr.write("pokerfloor rule: no rule matches; showing the closest sections\n")
            sys.stdout.write(json.dumps([_as_json(m) for m in matches], indent=2) + "\n")
        else:
            reply = rule_reply(index, query, book=args.book, limit=args.limit)
            sys.stdout.write(reply.to_text() + "\n")
    except rulings.RulingsError as error:
        log.debug("rule query rejected: %s", error)
        sys.stderr.write(f"pokerfloor rule: {error}\n")
        return EXIT_USAGE
    return 0
