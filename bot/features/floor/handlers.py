"""Handlers of ``/floor``, ``/td ruling`` and ``/rulings``: parse, store, word the reply.

On Discord a call is posted to the results channel pinging the director role and a thread
is made on it (``Effect("floor_call")``), and a ruling is posted in that thread
(``Effect("floor_ruling")``); ``bot.features.floor.discord`` carries both out. The console
and the command line show the call, its suggested rules and the ruling, and post nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

import rulings
import rulings.rulebook
from bot.command.model import Context
from bot.features.floor import wording
from bot.reply import Effect, Field, Reply
from storage.floor import (
    Suggestion,
    add_floor_call,
    add_ruling,
    list_rulings,
    rulings_citing,
)
from storage.player_links import linked_player
from storage.tournaments import find_open_tournament

log = logging.getLogger(__name__)

SUGGESTED = 3
"""How many ``/rule`` matches a call suggests."""


@dataclass(frozen=True)
class CallPost:
    """``Effect("floor_call")``: post the call for the directors and make its thread."""

    call_id: int
    number: int
    note: str
    reply: Reply


@dataclass(frozen=True)
class RulingPost:
    """``Effect("floor_ruling")``: post the ruling in the call's thread (or results channel)."""

    thread_id: int | None
    reply: Reply


def _member_name(ctx: Context) -> str:
    """Who is calling, as Discord shows him (the console: its actor)."""
    parts = ctx.display_name.split(":", 2)  # an actor "discord:<id>:<name>" without extras
    return parts[2] if len(parts) == 3 and parts[0] == "discord" and parts[2] else ctx.display_name


def suggest(index: rulings.rulebook.RuleIndex, note: str) -> tuple[Suggestion, ...]:
    """The top ``/rule`` matches for a call's note (the closest sections when none answers)."""
    result = index.search(note, limit=SUGGESTED)
    matches = result.matches if result.found else result.closest
    return tuple(Suggestion(m.book, m.section, m.title) for m in matches[:SUGGESTED])


def floor(ctx: Context, note: str, table: int | None = None) -> Reply:
    """``/floor [table] note``: store a call (numbered per league) and reach the directors."""
    if not note.strip():
        raise rulings.RulingsError("note: say what happened.")
    suggestions = suggest(ctx.rules(), note)
    channel = ctx.channel
    with ctx.transaction() as session:
        league = ctx.league(session)
        caller = _member_name(ctx)
        if ctx.user_id is not None:
            own = linked_player(session=session, league_id=league.id, discord_id=ctx.user_id)
            if own is not None:
                caller = own.name
        seat = None
        record = find_open_tournament(session=session, channel_id=channel)
        if record is not None:
            seat = record.night.chart.seat_of(rulings.name_key(caller))
        if table is None and seat is not None:
            table = seat.table
        call = add_floor_call(
            session=session,
            league_id=league.id,
            caller=caller,
            note=note.strip(),
            actor=ctx.actor,
            table=table,
            seat=seat.seat if seat is not None and seat.table == table else None,
            suggestions=suggestions,
            discord_id=ctx.user_id,
            channel_id=ctx.channel_id,
            now=ctx.now(),
        )
    post = CallPost(call.id, call.number, call.note, wording.call_post(call))
    return replace(wording.call_sent(call), effects=(Effect("floor_call", post),))


def cited(index: rulings.rulebook.RuleIndex, rule: str) -> rulings.rulebook.Passage:
    """The passage ``rule`` names in the league's book (its home book).

    ``rule`` is a section (``2.G.d.6``; case and separators are loose) or, as ``/rule``'s
    autocomplete gives it, the book's name and the section (``btown-poker-league 2.G.d.6``).

    Raises:
        UnknownRuleError: the book has no such section, or the rule is another book's (one
            line; nothing is written).
    """
    home = index.home
    book = home if home is not None and home in index.books else index.book_names[0]
    title = index.books[book].title
    section = rule.strip()
    named, _, rest = section.partition(" ")
    if rest and named in index.books:
        if named != book:
            raise rulings.UnknownRuleError(
                f"Rulings cite this league's book, {title}; {named} is another league's."
            )
        section = rest.strip()
    try:
        return index.get(book, section)
    except rulings.UnknownRuleError:
        raise rulings.UnknownRuleError(
            f"{title} has no rule {section!r}; check its number with /rule."
        ) from None


def ruling(ctx: Context, call: int, decision: str, rule: str | None = None) -> Reply:
    """``/td ruling call decision [rule]``: rule on a call, citing the league's book."""
    if not decision.strip():
        raise rulings.RulingsError("decision: say what you ruled.")
    passage = cited(ctx.rules(), rule) if rule is not None and rule.strip() else None
    with ctx.transaction() as session:
        league = ctx.league(session)
        found, given = add_ruling(
            session=session,
            league_id=league.id,
            number=call,
            decision=decision.strip(),
            actor=ctx.actor,
            given_by=_member_name(ctx),
            book=passage.book if passage is not None else None,
            section=passage.section if passage is not None else None,
            now=ctx.now(),
        )
    reply = wording.ruling_reply(found, given, passage.title if passage is not None else None)
    return replace(reply, effects=(Effect("floor_ruling", RulingPost(found.thread_id, reply)),))


def list_rulings_reply(ctx: Context, query: str | None = None) -> Reply:
    """``/rulings [query]``: the league's rulings, newest first."""
    with ctx.transaction() as session:
        league = ctx.league_if_any(session)
        found = (
            []
            if league is None
            else list_rulings(
                session=session, league_id=league.id, query=query, limit=wording.LISTED + 1
            )
        )
    return wording.rulings_reply(found, query)


def precedent(ctx: Context) -> Callable[[str, str], Field | None] | None:
    """For ``/rule``: the league rulings citing a passage (one query), or None without a league.

    The command line's ``pokerfloor rule`` reads no database (it stays light); a direct
    message on Discord has no league.
    """
    if ctx.surface == "cli" or (ctx.surface == "discord" and ctx.guild_id is None):
        return None

    def field(book: str, section: str) -> Field | None:
        with ctx.transaction() as session:
            found = rulings_citing(
                session=session, guild_id=ctx.guild_id, book=book, section=section
            )
        return wording.precedent_field(found)

    return field
