"""/rule: the passage that rules on a question, cited (``.wording`` builds the reply)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import rulings
import rulings.rulebook
from bot.command.model import Context
from bot.features.rule.wording import rule_reply
from bot.reply import Reply

log = logging.getLogger(__name__)

JSON_TEXT_CHARS = 1500


def _as_json(match: rulings.rulebook.Match) -> dict[str, Any]:
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


def _json_reply(
    index: rulings.rulebook.RuleIndex, query: str, book: str | None, limit: int
) -> Reply:
    """The matches as data (``rule --json``): best first, or the closest sections."""
    result = index.search(query, books=[book] if book else None, limit=limit)
    matches = result.matches if result.found else result.closest
    note = None
    if result.silent_book is not None:
        # The named book is silent: its closest passages, then the other leagues' answers.
        matches = (*matches, *result.other_leagues)
        note = (
            f"{result.silent_book} has no rule on that; showing its closest sections, then what"
            " other leagues say"
        )
    elif result.query and not result.found:
        note = "no rule matches; showing the closest sections"
    return Reply(title="Matches", data=[_as_json(m) for m in matches], note=note)


def rule(
    ctx: Context,
    query: str | None = None,
    book: str | None = None,
    limit: int = 3,
    dir: str | None = None,
    json: bool = False,
) -> Reply:
    """``/rule [query] [book]``: search the rulebooks (the league's home book first)."""
    index = rulings.rulebook.load_rulebooks(Path(dir)) if dir else ctx.rules()
    if json:
        if book is not None and book not in index.books:
            names = ", ".join(index.book_names)
            raise rulings.UnknownRuleError(f"There is no rulebook called {book!r}; try: {names}.")
        return _json_reply(index, query or "", book, limit)
    return rule_reply(
        index, query or "", book=book, limit=limit, public_url=ctx.settings.public_url
    )
