"""The `/rule` answer, shared by Discord, the console and `pokerfloor rule`.

``rule_reply`` searches the rulebook index and builds a ``Reply``: the passage that rules on
the question with its citation, the sections it refers to ("see also"), more matches from the
league's own book, and what the other leagues' books say. An empty query gets a short guide
with every book and its top-level sections; a query nothing answers gets the closest sections.
What the player typed is echoed back with control characters removed and markdown escaped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import rulings
import rulings.rulebook
from bot.reply import Button, Field, Reply, escape
from bot.surfaces.web.links import rule_url

log = logging.getLogger(__name__)

FIELD_LIMIT = 1024
PAGE_CHARS = 3500  # a whole section's page: under Discord's 4,096 for a message's body
CUSTOM_ID_CHARS = 100  # Discord's limit on a button's custom_id
SNIPPET_CHARS = 160
TABLE_ROWS_CHARS = 900
MAX_LIMIT = rulings.rulebook.MAX_LIMIT  # the search engine's own bound


def escape_markdown(text: str) -> str:
    r"""Neutralise text for echoing (``bot.reply.escape``).

    >>> escape_markdown("**bold** @everyone <@123>")
    '\\*\\*bold\\*\\* @\u200beveryone \\<@\u200b123\\>'
    """
    return escape(text)


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    return _clip(" ".join(text.split()), limit)


def _head(match: rulings.rulebook.Match) -> str:
    return f"{match.section} [{match.part}]" if match.part else match.section


def _book_title(index: rulings.rulebook.RuleIndex, name: str) -> str:
    book = index.books.get(name)
    return book.title if book is not None else name


def _table_rows(index: rulings.rulebook.RuleIndex, match: rulings.rulebook.Match) -> list[str]:
    """The rows of the table a passage introduces (so "the following chips" shows them)."""
    if match.table:
        return []
    last_line = match.text.strip().splitlines()[-1] if match.text.strip() else ""
    if not last_line:
        return []
    return [
        p.text
        for p in index.books[match.book].passages
        if p.table and p.table.endswith(last_line) and match.section.startswith(p.section)
    ]


def _body(index: rulings.rulebook.RuleIndex, match: rulings.rulebook.Match) -> str:
    if match.table:
        # The row under its table's title and the sentence introducing the table.
        name, _, intro = match.table.partition(": ")
        head = f"From the table in {match.section} ({name})"
        head += f": “{_snippet(intro, 300)}”" if intro else ":"
        return f"{head}\n\n**{match.text}**"
    rows = _table_rows(index, match)
    if not rows:
        return match.text
    return match.text + "\n" + _clip("\n".join(f"• {row}" for row in rows), TABLE_ROWS_CHARS)


def _see_also(index: rulings.rulebook.RuleIndex, match: rulings.rulebook.Match) -> Field | None:
    lines = []
    for section in match.see_also:
        try:
            passage = index.get(match.book, section)
        except rulings.RulingsError:
            continue
        lines.append(f"**{section}** {passage.title}: {_snippet(passage.text, 120)}")
    if not lines:
        return None
    return Field("See also", _clip("\n".join(lines), FIELD_LIMIT))


def _others(
    index: rulings.rulebook.RuleIndex, matches: tuple[rulings.rulebook.Match, ...]
) -> Field | None:
    if not matches:
        return None
    lines = [
        f"**{_book_title(index, m.book)} {_head(m)}**: {_snippet(m.text)}" for m in matches[:3]
    ]
    return Field("Other leagues say", _clip("\n".join(lines), FIELD_LIMIT))


def _more(
    index: rulings.rulebook.RuleIndex, matches: tuple[rulings.rulebook.Match, ...]
) -> Field | None:
    if not matches:
        return None
    lines = [f"**{_head(m)}** {m.title}: {_snippet(m.text, 110)}" for m in matches]
    return Field("Also close", _clip("\n".join(lines), FIELD_LIMIT))


def _read_online(match: rulings.rulebook.Match, public_url: str | None) -> str:
    """A link to the passage on the league's pages, when they have a public address."""
    if not public_url:
        return ""
    url = rule_url(public_url, match.book, match.section)
    return f"\n\n[Read {match.section} in the rulebook]({url})"


def guide_reply(index: rulings.rulebook.RuleIndex) -> Reply:
    """The answer to an empty `/rule`: how to ask, and every book with its top-level sections.

    Args:
        index: the loaded rulebooks.

    Returns:
        The guide.
    """
    fields = []
    for name in index.book_names:
        book = index.books[name]
        label = f"{book.title} ({name})" + (" - this league's book" if name == index.home else "")
        sections = [
            cite if cite == heading else f"{cite} {heading}" for cite, heading in book.sections
        ]
        fields.append(Field(_clip(label, 256), _clip("\n".join(sections) or "-", FIELD_LIMIT)))
    text = (
        "Ask in your own words or give a rule number, for example "
        "`oversized chip`, `who deals at the second chance table?`, `points for 7th`, "
        "`2.G.d.6`. Add a book to search only that one."
    )
    return Reply(title="Rulebook search", text=text, fields=tuple(fields), private=True)


def rule_reply(
    index: rulings.rulebook.RuleIndex | None,
    query: str,
    *,
    book: str | None = None,
    limit: int = 3,
    public_url: str | None = None,
    precedent: Callable[[str, str], Field | None] | None = None,
) -> Reply:
    """Answer a rule question: the passage that rules on it, cited, with related rules.

    Args:
        index: the loaded rulebooks (None while they are still loading).
        query: what the player typed (cut to 200 characters).
        book: search only this book (its name, e.g. ``poker-pub``).
        limit: how many passages to consider from the book that answers (1 to 25).
        public_url: the league pages' address (``PUBLIC_URL``); the answer then links to the
            passage on its rulebook page.
        precedent: ``(book, section) -> Field``: the league's rulings citing the passage
            found (``bot.features.floor.handlers.precedent``), shown right under it.

    Returns:
        The reply: the best passage, "see also", more matches and "Other leagues say"; the
        guide for an empty query; the closest sections when nothing matches.

    Raises:
        RulingsError: the rulebooks are not loaded, the book is unknown or the limit is bad.
    """
    if index is None:
        raise rulings.RulingsError("The rulebooks are still loading; try again in a moment.")
    if not 1 <= limit <= MAX_LIMIT:
        raise rulings.RulingsError(f"The limit must be between 1 and {MAX_LIMIT}.")
    if book is not None:
        book = book.strip()
        if book not in index.books:
            names = ", ".join(index.book_names)
            raise rulings.UnknownRuleError(f"There is no rulebook called {book!r}; try: {names}.")
    result = index.search(query, books=[book] if book else None, limit=limit)
    if not result.query:
        return guide_reply(index)
    echo = escape_markdown(result.query)
    if not result.found and result.silent_book is not None:
        # "does rwb allow straddles": that book has no rule on it; show what others say.
        name = _book_title(index, result.silent_book)
        lines = [f"**{name} {_head(m)}** {m.title}" for m in result.closest]
        fields = [Field(f"Closest in {name}", _clip("\n".join(lines) or "-", FIELD_LIMIT))]
        others = _others(index, result.other_leagues)
        return Reply(
            title=_clip(f"{name} has no rule on that", 256),
            text=f"Nothing in {name} answers “{echo}”.",
            fields=(*([others] if others is not None else []), *fields),
            footer="Other leagues' rules are shown for comparison; they may differ from yours.",
            private=True,
        )
    if not result.found:
        lines = [f"**{_book_title(index, m.book)} {_head(m)}** {m.title}" for m in result.closest]
        return Reply(
            title="No rule answers this",
            text=f"No rule in this league's books answers “{echo}”.",
            fields=(Field("Closest, not an answer", _clip("\n".join(lines) or "-", FIELD_LIMIT)),),
            footer="Try other words, a rule number like 2.G.d.6, or /rule alone for the books.",
            private=True,
        )
    best = result.matches[0]
    log.debug("/rule %r -> %s (%.3f)", result.query, best.key, best.score)
    title = f"{_book_title(index, best.book)} {_head(best)}"
    if best.title and best.title != best.part:
        title += f": {best.title}"
    same_book = tuple(
        m for m in result.matches[1:] if m.book == best.book and m.score >= best.score / 2
    )
    fields = [
        f
        for f in (
            precedent(best.book, best.section) if precedent is not None else None,
            _see_also(index, best),
            _more(index, same_book),
            _others(index, result.other_leagues),
        )
        if f is not None
    ]
    edition = _edition(index, best.book)
    footer = f"You asked: “{echo}” · {edition}" if edition else f"You asked: “{echo}”"
    return Reply(
        title=_clip(title, 256),
        text=_body(index, best) + _read_online(best, public_url),
        fields=tuple(fields),
        citation=best.key,
        footer=_clip(footer, 300),
        buttons=_whole_section_button(index, best),
    )


def _edition(index: rulings.rulebook.RuleIndex, name: str) -> str:
    """``Book title: as of 2026-11-29, from ...``: which text of the book is cited."""
    book = index.books.get(name)
    if book is None or book.edition is None:
        return ""
    described = book.edition.describe()
    return f"{book.title}: {described}" if described else ""


def _whole_section_button(
    index: rulings.rulebook.RuleIndex, match: rulings.rulebook.Match
) -> tuple[Button, ...]:
    """A "Whole section" button for the section around ``match`` (none when it is all there)."""
    try:
        whole = index.enclosing(match.book, match.section)
    except rulings.RulingsError:
        return ()
    custom_id = f"pf:rsec:{whole.book}:{whole.section}:1"
    if len(whole.passages) < 2 or len(custom_id) > CUSTOM_ID_CHARS:
        return ()
    return (Button(label="Whole section", custom_id=custom_id),)


def section_pages(
    index: rulings.rulebook.RuleIndex, whole: rulings.rulebook.WholeSection
) -> list[Reply]:
    """A whole section: its heading and every rule, in pages under Discord's limits.

    Args:
        index: the loaded rulebooks.
        whole: the section (``RuleIndex.section``).

    Returns:
        One reply per page (at least one); each names its page when there are several.
    """
    lines = []
    for p in whole.passages:
        head = f"{p.section} [{p.part}]" if p.part else p.section
        lines.append(_clip(f"**{head}** {' '.join(p.text.split())}", PAGE_CHARS))
    pages: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if pages[-1] and size + len(line) + 1 > PAGE_CHARS:
            pages.append([])
            size = 0
        pages[-1].append(line)
        size += len(line) + 1
    name = _book_title(index, whole.book)
    title = _clip(f"{name} {whole.section}: {whole.title}", 240)
    edition = _edition(index, whole.book)
    replies = []
    for number, page in enumerate(pages, start=1):
        paged = f"{title} ({number}/{len(pages)})" if len(pages) > 1 else title
        rules = f"{len(whole.passages)} rules" if len(whole.passages) != 1 else "1 rule"
        footer = f"{edition} · {rules}" if edition else rules
        replies.append(
            Reply(
                title=paged,
                text="\n".join(page),
                citation=f"{whole.book} {whole.section}",
                footer=_clip(footer, 300),
            )
        )
    return replies
