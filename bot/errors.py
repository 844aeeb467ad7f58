"""The one error path: ``describe(exc) -> (message, is_bug)``, used by every surface.

Slash commands, buttons and selects, the console and the command line all turn an exception
into what the user sees with ``describe``: a user mistake gets its own message, anything else
is a bug and gets ``APOLOGY`` (the caller logs it with its context, never shows a traceback).

User mistakes are one exception tree rooted at ``rulings.RulingsError`` (documented in
``rulings.errors``; storage's ``NotFound``/``AlreadyExists`` are part of it). The bot adds:

* ``BotError(RulingsError)``: the bot's own refusals.
    * ``BadOption``: an option value that cannot be used (empty, out of range, unknown name).
        * ``UnknownCommandError``: a console line or command path that names no command.
    * ``NotDirectorError``: a command or button for directors, used by someone else.

None of them derives from a Discord class: the Discord adapter
(``bot.surfaces.discord``) is the one place that knows discord.py's own
errors (failed checks, cooldowns), which ``describe`` also reads without importing discord.
"""

from __future__ import annotations

import json
import logging
import sys

from rulings.errors import RulingsError

log = logging.getLogger(__name__)

APOLOGY = "Something went wrong on our side; it has been logged. Please try again later."
REFUSAL = "Only the league's directors can use that command."


class BotError(RulingsError):
    """A request the bot refuses (an option, a permission); the message is for the user."""


class BadOption(BotError):
    """An option value the bot cannot use; the message names the option and what it takes."""


class UnknownCommandError(BadOption):
    """A line or command path that names no command (the message lists the known ones)."""


class NotDirectorError(BotError):
    """A member who is neither a league director nor allowed to manage the server."""

    def __init__(self, message: str = REFUSAL) -> None:
        super().__init__(message)


def _discord_message(exc: BaseException) -> str | None:
    """The message for discord.py's own user errors (checks, cooldowns); None for others."""
    if "discord" not in sys.modules:
        return None
    from discord import app_commands

    if isinstance(exc, app_commands.CommandInvokeError):
        return None
    if isinstance(exc, app_commands.MissingPermissions | app_commands.MissingRole):
        return REFUSAL
    if isinstance(exc, app_commands.NoPrivateMessage):
        return "That command works only inside a league's server."
    if isinstance(exc, app_commands.CommandOnCooldown):
        return f"Slow down a little: try again in {exc.retry_after:.0f} s."
    if isinstance(exc, app_commands.CheckFailure):
        return str(exc).strip() or "You can't use that command here."
    return None


def unwrap(exc: BaseException) -> BaseException:
    """The error a command really raised, under discord.py's wrappers."""
    if "discord" in sys.modules:
        from discord import app_commands

        if isinstance(exc, app_commands.CommandInvokeError):
            return unwrap(exc.original)
        if isinstance(exc, app_commands.TransformerError) and exc.__cause__ is not None:
            return unwrap(exc.__cause__)
    return exc


def _database_message(exc: BaseException) -> str | None:
    """A database URL that cannot be used (``--db``): a user mistake, not a bug."""
    if "sqlalchemy" not in sys.modules:
        return None
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, sa_exc.ArgumentError | sa_exc.NoSuchModuleError | sa_exc.OperationalError):
        first = str(exc.args[0] if exc.args else exc).splitlines()[0]
        return f"cannot use the database: {first}"
    return None


def describe(exc: BaseException) -> tuple[str, bool]:
    """What the user is told about ``exc``, and whether it is a bug.

    Args:
        exc: any exception a command, button or job raised (discord.py's wrappers included).

    Returns:
        ``(message, is_bug)``: a user mistake's own message (one short paragraph) and False,
        or ``APOLOGY`` and True for anything else (log it with its context).

    >>> describe(BadOption("brought: at most 20."))
    ('brought: at most 20.', False)
    >>> describe(KeyError("internal"))[1]
    True
    """
    cause = unwrap(exc)
    if isinstance(cause, RulingsError):
        return (str(cause).strip() or "That didn't work; check the command and try again."), False
    text = _discord_message(cause)
    if text is not None:
        return text, False
    if isinstance(cause, FileNotFoundError | IsADirectoryError | PermissionError):
        return f"{cause.filename or 'file'}: {cause.strerror or cause}", False
    if isinstance(cause, json.JSONDecodeError):
        return f"not valid JSON (line {cause.lineno}, column {cause.colno}): {cause.msg}", False
    if isinstance(cause, UnicodeDecodeError):
        return "the file is not UTF-8 text", False
    text = _database_message(cause)
    if text is not None:
        return text, False
    return APOLOGY, True


def one_line(text: str) -> str:
    """``text`` on one line (terminals print a user mistake as one line)."""
    return " ".join(text.split()) or "That didn't work."
