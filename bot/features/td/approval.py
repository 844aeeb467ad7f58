"""A player asks, a director answers with two buttons: what ``/checkin`` and ``/out`` share.

The league turns the request on (``/td settings self_checkin``, ``self_report``); the request
is stored (``storage.pending``) and posted to the results channel with its buttons, whose
custom ids carry the answer and the request's number (``pf:<action>:<answer>:<id>``, routed by
an ``Action`` for directors, so they work after a restart and on any instance); the answer
edits the post.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.command.model import Context
from bot.errors import BadOption
from bot.reply import Button

if TYPE_CHECKING:  # the wording modules import the buttons; storage only when refusing
    from sqlmodel import Session

    from storage.guild_settings import GuildSettings


def require_setting(
    session: Session, ctx: Context, allows: Callable[[GuildSettings], bool], refusal: str
) -> None:
    """Refuse (``refusal``, nothing written) unless the caller's league turned this on.

    Raises:
        BadOption: outside a server, or the league has it off.
    """
    from storage.guild_settings import get_guild_settings

    if ctx.guild_id is None or not allows(
        get_guild_settings(session=session, guild_id=ctx.guild_id)
    ):
        raise BadOption(refusal)


def answer_buttons(
    action: str, request_id: int, yes: tuple[str, str], no: tuple[str, str]
) -> tuple[Button, Button]:
    """A request's two buttons: ``(label, answer)`` for yes (green) and no (red)."""
    return (
        Button(yes[0], f"pf:{action}:{yes[1]}:{request_id}", style="success"),
        Button(no[0], f"pf:{action}:{no[1]}:{request_id}", style="danger"),
    )


def answer_of(args: tuple[str, ...], answers: tuple[str, str]) -> tuple[str, int]:
    """The answer and the request's number a pressed button carries.

    Raises:
        BadOption: not a button ``answer_buttons`` made (an old or hand-made custom id).
    """
    if len(args) != 2 or args[0] not in answers or not args[1].isdigit():
        raise BadOption("That button is out of date; ask again.")
    return args[0], int(args[1])


def director_name(ctx: Context) -> str:
    """Who answered, as the post names him (his display name on Discord)."""
    return ctx.display_name
