"""/rule: the passage that rules on a question, cited (``.wording`` builds the reply)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import rulings
import rulings.rulebook
from bot.command.model import Context
from bot.features.rule.wording import rule_reply, section_pages
from bot.reply import Button, Reply

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
        "answers": match.answers,
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
        note = "no rule answers this; showing the closest sections (closest, not an answer)"
    return Reply(title="Matches", data=[_as_json(m) for m in matches], note=note)


def rule(
    ctx: Context,
    query: str | None = None,
    book: str | None = None,
    limit: int = 3,
    dir: str | None = None,
    json: bool = False,
    section: str | None = None,
) -> Reply:
    """``/rule [query] [book]``: search the rulebooks (the league's home book first)."""
    index = rulings.rulebook.load_rulebooks(Path(dir)) if dir else ctx.rules()
    if section is not None:
        return _whole(ctx, index, index.section(section, book), 1)
    if not json and ctx.surface == "console" and query:
        # "/rule 2.D": a section's number reads the whole section at the console.
        found = index.search(query, books=[book] if book else None, limit=1)
        if found.is_lookup and found.matches:
            whole = index.section(query, found.matches[0].book)
            if len(whole.passages) > 1:
                return _whole(ctx, index, whole, 1)
    if json:
        if book is not None and book not in index.books:
            names = ", ".join(index.book_names)
            raise rulings.UnknownRuleError(f"There is no rulebook called {book!r}; try: {names}.")
        return _json_reply(index, query or "", book, limit)
    rulings_field = None
    if ctx.surface != "cli":  # ``pokerfloor rule`` stays light: it opens no database
        from bot.features.floor.handlers import precedent

        rulings_field = precedent(ctx)
    return rule_reply(
        index,
        query or "",
        book=book,
        limit=limit,
        public_url=ctx.settings.public_url,
        precedent=rulings_field,
    )


def _whole(
    ctx: Context,
    index: rulings.rulebook.RuleIndex,
    whole: rulings.rulebook.WholeSection,
    page: int,
) -> Reply:
    """A whole section: one page with ◀ ▶ on Discord, every page in one reply elsewhere."""
    pages = section_pages(index, whole)
    if ctx.surface != "discord":
        if len(pages) == 1:
            return pages[0]
        first = pages[0]
        text = "\n".join(p.text for p in pages)
        return Reply(
            title=f"{first.title.rsplit(' (', 1)[0]}",
            text=text,
            citation=first.citation,
            footer=first.footer,
        )
    page = max(1, min(page, len(pages)))
    reply = pages[page - 1]
    if len(pages) == 1:
        return reply
    base = f"pf:rsec:{whole.book}:{whole.section}"
    buttons = tuple(
        Button(label=label, custom_id=f"{base}:{target}", disabled=disabled)
        for label, target, disabled in (
            ("◀", page - 1, page <= 1),
            ("▶", page + 1, page >= len(pages)),
        )
    )
    return Reply(
        title=reply.title,
        text=reply.text,
        citation=reply.citation,
        footer=reply.footer,
        buttons=buttons,
    )


def whole_section_page(ctx: Context, *args: str) -> Reply:
    """The "Whole section" button and its pages: ``pf:rsec:<book>:<section>:<page>``."""
    from bot.errors import BadOption

    if len(args) < 3 or not args[-1].isdigit():
        raise BadOption("That button is out of date; ask again.")
    book, page = args[0], int(args[-1])
    section = ":".join(args[1:-1])  # a section's name may hold a colon
    index = ctx.rules()
    return _whole(ctx, index, index.section(section, book), page)
