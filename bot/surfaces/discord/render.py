"""Reply -> Discord embed or message text, with every Discord size limit enforced here.

This is the one place that knows Discord's limits. Long text is cut at a paragraph, line,
sentence or word boundary with an ellipsis, never mid-word, and a reply's citation is always
kept. Nothing here does I/O.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord

from bot.reply import Field, Reply

log = logging.getLogger(__name__)

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
CONTENT_LIMIT = 2000
EMBED_TOTAL_LIMIT = 6000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELDS_LIMIT = 25
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
CHOICES_LIMIT = 25
DESCRIPTION_FLOOR = 1500  # a body is never cut below this to make room for fields
CHOICE_LIMIT = 100

ELLIPSIS = "…"
NO_MENTIONS = discord.AllowedMentions.none()

COLOUR = discord.Colour(0x2E7D32)  # card-table felt
PRIVATE_COLOUR = discord.Colour(0xB71C1C)


@dataclass(frozen=True)
class Rendered:
    """What a reply becomes on Discord: one embed, sent privately or not."""

    embed: discord.Embed
    ephemeral: bool


def cut(text: str, limit: int) -> str:
    """Shorten ``text`` to at most ``limit`` characters at a clean boundary.

    Prefers a paragraph break, then a line break, then a sentence end, then a space, in the
    last third of the allowed length; adds an ellipsis and closes an unbalanced bold or code
    marker so the markdown still renders.

    Args:
        text: the text to shorten.
        limit: the maximum length of the result (at least 1).

    Returns:
        ``text`` itself when it fits, otherwise a prefix ending in an ellipsis.
    """
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS) + 8:
        return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS[:limit]
    room = limit - len(ELLIPSIS) - 4  # keep space for closing markers
    head = text[:room]
    floor = room * 2 // 3
    for sep in ("\n\n", "\n", ". ", "; ", ", ", " "):
        at = head.rfind(sep, floor)
        if at != -1:
            head = head[: at + (1 if sep.startswith((".", ";", ",")) else 0)]
            break
    head = head.rstrip()
    if head.count("```") % 2:
        head = head.rsplit("```", 1)[0].rstrip()
    if head.count("**") % 2:
        head += "**"
    elif head.count("`") % 2:
        head += "`"
    return head + ELLIPSIS


def content(text: str) -> str:
    """Message content cut to Discord's 2,000 characters."""
    return cut(text, CONTENT_LIMIT) if text else "\u200b"


def choice_label(text: str) -> str:
    """An autocomplete choice name or value cut to 100 characters (never empty)."""
    return cut(" ".join(text.split()), CHOICE_LIMIT) or "?"


def embed(reply: Reply) -> discord.Embed:
    """Render ``reply`` as one embed within every embed limit.

    The citation closes the description and survives any cut; fields beyond 25 or beyond the
    6,000-character total are dropped with a note in the footer.

    Args:
        reply: the transport-neutral reply.

    Returns:
        The embed.
    """
    title = cut(reply.title, EMBED_TITLE_LIMIT) or None
    tail = f"\n\n— *{cut(reply.citation, 400)}*" if reply.citation else ""
    body_limit = EMBED_DESCRIPTION_LIMIT - len(tail)
    fields = [_field(f) for f in reply.fields]
    footer = cut(reply.footer, 500) if reply.footer else ""

    dropped = 0
    if len(fields) > EMBED_FIELDS_LIMIT:
        dropped = len(fields) - EMBED_FIELDS_LIMIT + 1
        fields = fields[: EMBED_FIELDS_LIMIT - 1]

    def total(description: str) -> int:
        note = _dropped_note(dropped)
        return (
            len(title or "")
            + len(description)
            + sum(len(f.name) + len(f.value) for f in fields)
            + len(footer)
            + len(note)
            + 1
        )

    # Share the 6,000 characters: the body keeps at least DESCRIPTION_FLOOR, then fields fit
    # in what is left (dropped from the end, with a note), then the body takes the rest.
    room = EMBED_TOTAL_LIMIT - total("") - len(tail) - len(_dropped_note(len(reply.fields)))
    body_limit = min(body_limit, max(DESCRIPTION_FLOOR, room))
    description = cut(reply.text, body_limit) + tail if reply.text else tail.lstrip()
    while fields and total(description) > EMBED_TOTAL_LIMIT:
        fields.pop()
        dropped += 1
    overflow = total(description) - EMBED_TOTAL_LIMIT
    if overflow > 0 and reply.text:
        description = cut(reply.text, max(body_limit - overflow - 50, 20)) + tail

    em = discord.Embed(
        title=title,
        description=description or None,
        colour=PRIVATE_COLOUR if reply.private else COLOUR,
    )
    for f in fields:
        em.add_field(name=f.name, value=f.value, inline=f.inline)
    footer_text = "\n".join(part for part in (footer, _dropped_note(dropped)) if part)
    if footer_text:
        em.set_footer(text=cut(footer_text, FOOTER_LIMIT))
    if dropped:
        log.debug("reply %r: %d fields dropped to fit Discord's limits", reply.title, dropped)
    return em


def render(reply: Reply) -> Rendered:
    """Render ``reply`` for Discord: the embed and whether it is private (ephemeral)."""
    return Rendered(embed=embed(reply), ephemeral=reply.private)


def _field(f: Field) -> Field:
    return Field(
        name=cut(f.name, FIELD_NAME_LIMIT) or "\u200b",
        value=cut(f.value, FIELD_VALUE_LIMIT) or "\u200b",
        inline=f.inline,
    )


def _dropped_note(dropped: int) -> str:
    return f"({dropped} more not shown)" if dropped else ""
