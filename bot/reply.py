"""A transport-neutral reply: what a command answers, before it becomes a Discord embed or text.

Command logic (``bot.views.*``) returns a ``Reply``; the Discord adapter renders it as an embed
(``bot.render``) and the console and CLI print ``Reply.to_text()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """

    title: str
    text: str = ""
    fields: tuple[Field, ...] = field(default_factory=tuple)
    citation: str | None = None
    footer: str | None = None
    private: bool = False
    buttons: tuple[Button, ...] = field(default_factory=tuple)
    files: tuple[File, ...] = field(default_factory=tuple)

    def to_text(self) -> str:
        """Render for a terminal: title, body, fields, citation and footer, one block each."""
        parts = [self.title]
        if self.text:
            parts.append(self.text)
        parts.extend(f"{f.name}\n{f.value}" for f in self.fields)
        if self.citation:
            parts.append(f"-- {self.citation}")
        if self.footer:
            parts.append(self.footer)
        return "\n\n".join(parts)


def error_reply(message: str) -> Reply:
    """A private reply for a user mistake."""
    return Reply(title="Sorry", text=message, private=True)
