"""A transport-neutral reply: what a command answers, before it becomes a Discord embed or text.

A command's handler (``bot.features.<f>.handlers``, worded by ``bot.features.<f>.wording``)
returns a ``Reply``; the Discord adapter renders it as an embed (``bot.surfaces.discord.render``),
the console and the command line print ``Reply.to_plain()``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Field:
    """One titled block of a reply (an embed field on Discord)."""

    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True)
class Button:
    """A button under a reply; pressing it runs the ``Action`` its ``custom_id`` names.

    Attributes:
        label: what the button says.
        custom_id: ``pf:<action>:<arg>:...`` (at most 100 characters, Discord's limit).
        style: ``primary``, ``secondary``, ``success`` or ``danger``.
        disabled: shown greyed out.
    """

    label: str
    custom_id: str
    style: str = "secondary"
    disabled: bool = False


@dataclass(frozen=True)
class File:
    """A file attached to a reply (a chart as PNG); the console and CLI say where it went."""

    filename: str
    data: bytes


@dataclass(frozen=True)
class Effect:
    """Something the surface does after sending a reply (the handler only describes it).

    Kinds the Discord adapter carries out (the console and CLI do what applies to them):

    * ``announce``: post the reply (``value``: the public ``Reply``) to the league's results
      channel, without pings;
    * ``rule_home``: the league's home rulebook changed (``value``: the book, or None): build
      its index now so that no ``/rule`` waits;
    * ``night_thread``: post a public reply in the night's thread (``value``: the tournament's
      id, the thread's name and the public ``Reply``), making the thread on its first post;
    * ``night_event``: make or remove a league night's scheduled event;
    * ``floor_call``: post a floor call (``value``: ``bot.features.floor.handlers.CallPost``)
      to the results channel pinging the director role only, and make a thread on it;
    * ``floor_ruling``: post a ruling (``RulingPost``) in its call's thread, or the results
      channel when the call has none.

    A surface ignores (and logs) a kind it does not know; add the kind here and in
    ``bot.surfaces.discord.slash.SlashRunner`` when a command needs a new one.
    """

    kind: str
    value: Any = None


@dataclass(frozen=True)
class Reply:
    """What a command answers.

    Attributes:
        title: a short headline.
        text: the body, plain text with light markdown (bold, code).
        fields: titled blocks shown after the body.
        citation: where the answer comes from (rulebook and section), kept when text is cut.
        footer: a last line (hints, "other leagues say", page numbers).
        private: shown only to the person who asked (ephemeral on Discord).
        buttons: buttons under the reply (Discord only; the console lists nothing for them).
        files: attachments (Discord attaches them; the console and CLI save or name them).
        effects: what the surface does after sending it (``Effect``).
        data: the answer for machines (``--json`` on the command line prints it).
        note: one line the command line prints on stderr beside ``--json`` output.
    """

    title: str
    text: str = ""
    fields: tuple[Field, ...] = field(default_factory=tuple)
    citation: str | None = None
    footer: str | None = None
    private: bool = False
    buttons: tuple[Button, ...] = field(default_factory=tuple)
    files: tuple[File, ...] = field(default_factory=tuple)
    effects: tuple[Effect, ...] = field(default_factory=tuple)
    data: Any = None
    note: str | None = None

    def to_plain(self) -> str:
        """Render for a terminal without markdown: no bold markers, fences or escapes."""
        return plain(self.to_text())

    def to_text(self) -> str:
        """Render for a terminal: title, body, fields, citation and footer, one block each."""
        parts = [self.title] if self.title else []
        if self.text:
            parts.append(self.text)
        parts.extend(f"{f.name}\n{f.value}" for f in self.fields)
        if self.citation:
            parts.append(f"-- {self.citation}")
        if self.footer:
            parts.append(self.footer)
        return "\n\n".join(parts)


# What formats on Discord: emphasis, code, spoilers, quotes, headings, masked links, mentions.
_MARKDOWN = re.compile(r"([\\*_~`|>#\[\]<])")
_ESCAPED = re.compile(r"(\\[\\*_~`|>#\[\]<])")


def escape(text: str) -> str:
    r"""A name or text a user typed, made safe to show on Discord.

    Markdown is escaped and mentions and links defused; ``plain`` undoes it for a terminal.

    >>> escape("**bold** ||x|| `y` @everyone <@123>")
    '\\*\\*bold\\*\\* \\|\\|x\\|\\| \\`y\\` @\u200beveryone \\<@\u200b123\\>'
    >>> plain(escape("**Bold** Bob"))
    '**Bold** Bob'
    """
    return _MARKDOWN.sub(r"\\\1", text).replace("@", "@\u200b")


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 player``, ``2 players``: a count with its noun.

    >>> plural(1, "player"), plural(3, "card"), plural(2, "match", "matches")
    ('1 player', '3 cards', '2 matches')
    """
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def code_safe(text: str) -> str:
    """A name shown inside a code block, where only a backtick matters.

    A backtick could close the block, so it becomes a look-alike; markdown does not render in
    a code block, so nothing else needs escaping.

    >>> code_safe("Bob `x`")
    'Bob ˋxˋ'
    """
    return text.replace("`", "ˋ")


def plain(text: str) -> str:
    r"""Markdown as a terminal should show it, as typed.

    Bold, spoiler and fence markers are dropped and escapes undone (a name typed as
    ``**Bold** Bob`` reads as typed).

    >>> plain("**Alice** wins\n```\n1 Bob\n```\n\\*\\*Bold\\*\\* @\u200beveryone")
    'Alice wins\n1 Bob\n**Bold** @everyone'
    >>> plain("<@123> is linked; " + escape("<@456>"))
    'member 123 is linked; <@456>'
    """
    lines = [line for line in text.splitlines() if line.strip() != "```"]
    text = "\n".join(lines)
    # Escaped markers are kept as typed; the others are formatting and go.
    parts = _ESCAPED.split(text)
    out = []
    for part in parts:
        if len(part) == 2 and part[0] == "\\":
            out.append(part[1])
        else:
            # A mention the bot wrote (a typed one is escaped) reads as words (no ping here).
            out.append(_MENTION.sub(_mention_words, part.replace("**", "").replace("||", "")))
    return _TIMESTAMP.sub(_local_time, "".join(out).replace("@\u200b", "@"))


_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::[tTdDfFR])?>")
_MENTION = re.compile(r"<(@!?|@&|#)(\d{1,20})>")
_MENTIONED = {"@": "member", "@!": "member", "@&": "role", "#": "channel"}


def _mention_words(match: re.Match[str]) -> str:
    """A Discord mention as a terminal shows it: ``<@123>`` is ``member 123``."""
    return f"{_MENTIONED[match.group(1)]} {match.group(2)}"


def _local_time(match: re.Match[str]) -> str:
    """Discord's ``<t:…>`` timestamp as the terminal's local time of day."""
    moment = dt.datetime.fromtimestamp(int(match.group(1)), dt.UTC).astimezone()
    return moment.strftime("%H:%M:%S")


def error_reply(message: str) -> Reply:
    """A private reply for a user mistake."""
    return Reply(title="Sorry", text=message, private=True)
