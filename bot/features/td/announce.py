"""A director's write, announced: the reply for him and its public copy for the results channel.

Shared by the /td, /tournament and /me handlers (its own module, so that they need not
import each other's handlers).
"""

from __future__ import annotations

from dataclasses import replace

from bot.command.model import Context
from bot.features.td.wording import announcement
from bot.reply import Effect, Reply


def announced(ctx: Context, reply: Reply, *, private: bool = False) -> Reply:
    """``reply`` for the director, with its public copy for the results channel."""
    public = announcement(reply, ctx.display_name)
    return replace(reply, private=private, effects=(*reply.effects, Effect("announce", public)))
