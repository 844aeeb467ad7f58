"""Replies of ``/me`` and of linking a member to a player (``/me link``, ``/td link|unlink``).

``me_reply`` is a player's own view: rank, RP/BP, events, TOC status with what is short,
strikes and the last five results (the same numbers as his page on the league site). Names
typed by directors are shown with markdown escaped.
"""

from __future__ import annotations

import logging
from urllib.parse import quote

from bot.reply import Button, Field, Reply
from bot.reply import escape as escape_markdown
from storage.players import PlayerInfo
from storage.web import PlayerResult, PlayerView

log = logging.getLogger(__name__)

LAST_RESULTS = 5
_TOC = {"qualified": "Qualified", "conversion": "Qualified by conversion"}
_ORDINAL = {1: "st", 2: "nd", 3: "rd"}


def _place(r: PlayerResult) -> str:
    if r.position is None:
        return "played"
    suffix = "th" if 10 <= r.position % 100 <= 20 else _ORDINAL.get(r.position % 10, "th")
    tie = "T" if r.tie_size > 1 else ""
    return f"{tie}{r.position}{suffix}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def result_line(r: PlayerResult) -> str:
    """``2026-09-17 Brewpub: 2nd, 800 RP, 200 BP`` (a void event says so)."""
    kind = "" if r.kind == "regular" else f" ({r.kind.replace('_', ' ')})"
    void = " — void, not counted" if r.status == "void" else ""
    return (
        f"{r.date.isoformat()} {escape_markdown(r.location)}{kind}: {_place(r)}, "
        f"{r.rp:,} RP, {r.bp:,} BP{void}"
    )


def me_reply(view: PlayerView, *, public_url: str | None = None, own: bool = True) -> Reply:
    """A member's standing, TOC status and strikes, private (``own``: his own, from /me)."""
    name = escape_markdown(view.player.name)
    lines = []
    if view.rank is not None:
        row = view.rank.row
        lines.append(
            f"**#{view.rank.rank}** of {view.ranked}: {row.rp:,} RP, {row.bp:,} BP, "
            f"{_plural(row.events, 'event')}, {_plural(row.wins, 'win')}"
        )
    elif view.season is not None:
        lines.append("No points this season yet.")
    if view.toc is not None:
        label = _TOC.get(view.toc.status, "Not qualified yet")
        toc = f"TOC: **{label}**."
        short = view.toc.short_text()
        if short:
            toc += (
                f" Short {short} "
                f"(needs {view.toc_rp_required:,} RP and {view.toc_bp_required:,} BP)."
            )
        if view.toc.extra_chips:
            toc += f" Extra starting chips: {view.toc.extra_chips:,}."
        lines.append(toc)
    active = [s for s in view.strikes if s.is_active]
    for s in active:
        state = s.suspension
        if state.forfeits_season:
            what = "season points and TOC forfeited (3.B)"
        elif state.events_remaining:
            what = f"suspended for {_plural(state.events_remaining, 'more event')}"
        else:
            what = "suspension served"
        lines.append(
            f"Strike {s.strike.level} ({escape_markdown(s.strike.season)}): "
            f"{escape_markdown(s.strike.reason)} — {what}"
        )
    if not active:
        lines.append("No strikes on the record.")
    if public_url:
        url = f"{public_url.rstrip('/')}/player/{quote(view.player.name, safe='')}"
        page = "Your page" if own else "His page"
        lines.append(f"[{page} on the league site]({url})")
    recent = [result_line(r) for r in view.results[:LAST_RESULTS]]
    fields = (Field("Last five results", "\n".join(recent)),) if recent else ()
    season = f", {escape_markdown(view.season)}" if view.season else ""
    return Reply(title=f"{name}{season}", text="\n".join(lines), fields=fields, private=True)


def link_asked_reply(player: PlayerInfo) -> Reply:
    """What the member sees after ``/me link``: the directors were asked."""
    return Reply(
        title="Link requested",
        text=(
            f"The directors were asked to link you to **{escape_markdown(player.name)}**. "
            "Once one approves, /me shows your standing."
        ),
        private=True,
    )


def link_request_post(player: PlayerInfo, user_id: int, display_name: str) -> Reply:
    """The results-channel message with Approve and Refuse buttons for the directors."""
    args = f"{player.id}:{user_id}"
    return Reply(
        title="Link request",
        text=(
            f"<@{user_id}> ({escape_markdown(display_name)}) asks to be linked to the player "
            f"**{escape_markdown(player.name)}**. A director approves or refuses."
        ),
        buttons=(
            Button("Approve", f"pf:me_link:approve:{args}", style="success"),
            Button("Refuse", f"pf:me_link:refuse:{args}", style="danger"),
        ),
    )


def linked_reply(player: PlayerInfo, user_id: int, by: str | None = None) -> Reply:
    """A link made (by a director's button or ``/td link``)."""
    who = f" by {escape_markdown(by)}" if by else ""
    return Reply(
        title="Member linked",
        text=f"<@{user_id}> is linked to **{escape_markdown(player.name)}**{who}.",
    )


def refused_reply(player: PlayerInfo, user_id: int, by: str) -> Reply:
    """A link request a director refused (nothing was written)."""
    return Reply(
        title="Link refused",
        text=(
            f"{escape_markdown(by)} refused linking <@{user_id}> to "
            f"**{escape_markdown(player.name)}**."
        ),
    )


def unlinked_reply(player: PlayerInfo, user_id: int | None) -> Reply:
    """A link removed with ``/td unlink``."""
    member = f"<@{user_id}>" if user_id is not None else "The member"
    return Reply(
        title="Member unlinked",
        text=f"{member} is no longer linked to **{escape_markdown(player.name)}**.",
    )
