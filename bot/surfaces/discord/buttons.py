"""Buttons under a reply: every ``pf:`` button is one persistent ``ActionButton``.

Pressing one runs the ``Action`` its custom id names, through the one runner
(``SlashRunner.press``); the id carries everything, so a button works after a restart and on
any instance sharing the database.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

import discord

from bot.reply import Reply


class Presser(Protocol):
    """What a pressed button hands its interaction to (``SlashRunner``, ``bot.slash``)."""

    async def press(self, interaction: discord.Interaction, name: str, args: Sequence[str]) -> None:
        """Run the ``Action`` called ``name`` with the custom id's ``args``."""


_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def buttons_view(reply: Reply) -> discord.ui.View | None:
    """The reply's buttons as a persistent view (None without buttons)."""
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    for b in reply.buttons:
        view.add_item(ActionButton(b.custom_id, b.label, _STYLES.get(b.style), b.disabled))
    return view


class ActionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"(?:pf:[a-z_]+|clock:(?:pause|resume|plus1):[0-9]+)(?::[^ ]*)?",
):
    """Any ``pf:`` button; pressing it runs its ``Action`` (works across restarts).

    A clock status message posted before its buttons were actions (``clock:pause:12``) is the
    ``clock`` action too, so a message still showing one works after an upgrade.
    """

    def __init__(
        self,
        custom_id: str,
        label: str = "?",
        style: discord.ButtonStyle | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style or discord.ButtonStyle.secondary,
                custom_id=custom_id,
                disabled=disabled,
            )
        )
        self.custom_id = custom_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ActionButton:
        """Rebuild the button from a pressed ``custom_id``."""
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run the action (``pf:<name>:<arg>:...``)."""
        name, *args = self.custom_id.removeprefix("pf:").split(":")
        runner: Presser = interaction.client.slash
        await runner.press(interaction, name, args)


__all__ = ["ActionButton", "buttons_view"]
