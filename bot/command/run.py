"""The one runner: a command or a button, the same steps on every surface.

A surface collects what the user gave (Discord's typed values, a console line's
``name:value`` pairs, the command line's flags) and builds the ``Context`` (who is acting,
whether he directs the league, which league); then ``run_command`` (or ``run_action`` for a
button) does the rest the same way everywhere: who may run it, the options checked and bound
(``bot.command.options.bind``), the handler called. Whatever goes wrong raises; the surface
shows it through the one error path, ``bot.errors.describe``.

Discord answers whether a member directs the league before this (the director role is read
from the database, asynchronously); here the context's answer is enforced, so no surface can
call a director's handler for someone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.command.model import Action, Command, Context, Heavy, Who
from bot.command.options import bind
from bot.errors import NotDirectorError
from bot.reply import Reply

MANAGERS_ONLY = "Only members with Manage Server can use that command."


def check_who(who: Who, ctx: Context) -> None:
    """Refuse a caller the command (or button) is not for.

    Raises:
        NotDirectorError: a director's command and the caller does not direct the league, or
            a settings command and he may not manage the server.
    """
    if who is Who.DIRECTOR and not ctx.is_director:
        raise NotDirectorError()
    if who is Who.MANAGER and not ctx.is_manager:
        raise NotDirectorError(MANAGERS_ONLY)


def run_command(command: Command, ctx: Context, values: Mapping[str, Any]) -> Reply | Heavy:
    """Run ``command`` with the option values a surface collected (raw: checked here).

    Returns:
        The handler's reply (private when the command is), or on Discord the ``Heavy`` work it
        left for the compute queue (``Context.compute``; the runner awaits it off the thread).

    Raises:
        RulingsError: a user mistake (who may, an option, the handler's own refusal); nothing
            is written.
    """
    check_who(command.who, ctx)
    kwargs = bind(command, dict(values), surface=ctx.surface, today=ctx.today)
    reply: Reply | Heavy = command.resolve()(ctx, **kwargs)
    if isinstance(reply, Reply) and command.private and not reply.private:
        reply = replace(reply, private=True)
    return reply


def run_action(action: Action, ctx: Context, args: tuple[str, ...]) -> Reply | Heavy:
    """Run a pressed button's ``action`` with the arguments of its custom id."""
    check_who(action.who, ctx)
    return action.resolve()(ctx, *args)


def computed(result: Reply | Heavy) -> Reply:
    """The reply, for a surface that computes heavy work in place (the console, the CLI)."""
    return result if isinstance(result, Reply) else result.fn(*result.args)
