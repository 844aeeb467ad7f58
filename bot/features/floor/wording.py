"""The words of floor calls and rulings: pure functions of ``storage.floor`` values.

What a player or a director typed (a note, a decision, a name) is escaped everywhere it shows
(``bot.reply.escape``): a note cannot ping, link or format.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.reply import Field, Reply, escape, plural
from storage.floor import CallInfo, RulingInfo, Suggestion

log = logging.getLogger(__name__)

FIELD_CHARS = 1024
LISTED = 10
"""How many rulings ``/rulings`` shows."""
SNIPPET_CHARS = 160


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def where(call: CallInfo) -> str:
    """``table 2, seat 5``; ``table 2``; or nothing when the caller's seat is unknown.

    >>> import datetime as dt
    >>> at = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    >>> where(CallInfo(1, 1, "Bea", 2, 5, "x", (), at))
    'table 2, seat 5'
    >>> where(CallInfo(1, 1, "Bea", None, None, "x", (), at))
    ''
    """
    if call.table is None:
        return ""
    return (
        f"table {call.table}, seat {call.seat}" if call.seat is not None else f"table {call.table}"
    )


def cite(book: str | None, section: str | None) -> str:
    """A ruling's citation: ``2.G.d.6 (btown-poker-league)``, or ``no rule cited``.

    >>> cite("btown-poker-league", "2.G.d.6"), cite(None, None)
    ('2.G.d.6 (btown-poker-league)', 'no rule cited')
    """
    return f"{section} ({book})" if section else "no rule cited"


def _suggestions(suggestions: Sequence[Suggestion]) -> Field | None:
    if not suggestions:
        return None
    lines = [
        f"**{escape(s.section)}**"
        + (f" {escape(s.title)}" if s.title and s.title not in s.section else "")
        + f" ({escape(s.book)})"
        for s in suggestions
    ]
    return Field("Rules that may apply", "\n".join(lines)[:FIELD_CHARS])


def _call_text(call: CallInfo) -> str:
    seat = where(call)
    who = f"**{escape(call.caller)}**" + (f" at {seat}" if seat else "")
    return f"{who} calls the floor:\n> {escape(_clip(call.note, 500))}"


def call_post(call: CallInfo) -> Reply:
    """The call as posted for the directors (the results channel; the role ping is added)."""
    field = _suggestions(call.suggestions)
    return Reply(
        title=f"Floor call #{call.number}",
        text=_call_text(call),
        fields=(field,) if field is not None else (),
        footer=f"A director answers with /td ruling call:{call.number} decision:… rule:…",
    )


def call_sent(call: CallInfo) -> Reply:
    """The caller's confirmation: the call's number, what was sent, the rules found."""
    field = _suggestions(call.suggestions)
    return Reply(
        title=f"Floor call #{call.number} sent to the directors",
        text=_call_text(call),
        fields=(field,) if field is not None else (),
        footer=f"Mention call #{call.number} when a director comes over.",
        private=True,
    )


def no_channel(number: int) -> str:
    """Said privately when the league has no results channel to post a call in."""
    return (
        f"Floor call #{number} is stored, but this league has no results channel, so no "
        "director was pinged: find one in person (a director sets /td settings results_channel)."
    )


def ruling_reply(call: CallInfo, ruling: RulingInfo, rule_title: str | None = None) -> Reply:
    """A ruling as answered, replied in the call's thread and kept as the league's precedent."""
    head = "Amended ruling" if ruling.amended else "Ruling"
    rule = cite(ruling.book, ruling.section)
    if ruling.section and rule_title:
        rule = f"{ruling.section} {rule_title} ({ruling.book})"
    fields = [
        Field("Call", _call_text(call)[:FIELD_CHARS]),
        Field("Rule", escape(rule)),
    ]
    return Reply(
        title=f"{head} on floor call #{call.number}",
        text=f"**{escape(ruling.decision)}**",
        fields=tuple(fields),
        citation=f"{ruling.book} {ruling.section}" if ruling.section else None,
        footer=f"Ruled by {escape(ruling.given_by)} · listed by /rulings",
    )


def _line(ruling: RulingInfo) -> str:
    amended = " (amended)" if ruling.amended else ""
    return (
        f"**#{ruling.number}**{amended} {escape(_clip(ruling.decision, SNIPPET_CHARS))}"
        f" · {escape(cite(ruling.book, ruling.section))} · by {escape(ruling.given_by)},"
        f" {ruling.given_at.date().isoformat()}\n"
        f"  call: {escape(_clip(ruling.note, SNIPPET_CHARS))}"
    )


def rulings_reply(found: Sequence[RulingInfo], query: str | None = None) -> Reply:
    """``/rulings``: the league's rulings, newest first (those matching ``query``).

    ``found`` may hold one more than ``LISTED``: then the footer says older ones exist.
    """
    asked = f" matching “{escape(query.strip())}”" if query and query.strip() else ""
    if not found:
        text = (
            f"No ruling{asked} yet."
            if asked
            else "No rulings yet: a director answers a floor call with /td ruling."
        )
        return Reply(title="League rulings", text=text)
    shown = found[:LISTED]
    return Reply(
        title=f"League rulings{asked}",
        text="\n".join(_line(r) for r in shown),
        footer="Older rulings are not shown: search them with /rulings and a few words"
        if len(found) > len(shown)
        else None,
    )


def precedent_field(found: Sequence[RulingInfo]) -> Field | None:
    """Under a rule ``/rule`` cites: how many league rulings cite it, and the latest one."""
    if not found:
        return None
    latest = found[0]
    text = (
        f"Latest: **#{latest.number}** {escape(_clip(latest.decision, SNIPPET_CHARS))}"
        f" (by {escape(latest.given_by)}, {latest.given_at.date().isoformat()})"
        f"\nCall: {escape(_clip(latest.note, SNIPPET_CHARS))}"
    )
    return Field(f"League rulings: {plural(len(found), 'ruling')} cite this", text)
