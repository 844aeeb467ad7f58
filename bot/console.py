"""The console: the bot's commands typed in a terminal, answered with the same replies.

A line such as ``/rule oversized chip`` or ``/hand As Ks vs Qh Qd`` is routed to the command's
handler, which returns a ``Reply``; the console prints ``Reply.to_text()``. Nothing here knows
about Discord, so the console works on a fresh machine with no token: embedded SQLite and the
bundled rulebooks.

Adding a console command (one line): append a ``ConsoleCommand`` to ``COMMANDS``::

    ConsoleCommand("topic", "bot.views.topic:topic_console", "<args> [opt:VALUE]", "Does X"),

The target ``"module:function"`` is imported on first use; the function takes
``(ctx: ConsoleContext, args: str)`` and returns a ``Reply``. ``args`` is the rest of the line;
``parse_options(args, ("season", "player"))`` splits Discord-style ``name:value`` options.
Raise ``RulingsError`` (or a subclass) for a user mistake; the console prints its message on
one line. Keep the handler's logic in ``bot.views`` so the Discord cog calls the same code.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from sqlalchemy.engine import Engine

import rulings
from bot.config import Settings
from bot.database import Database
from bot.reply import Reply
from bot.transformers import BadOption, tidy_text
from rulings import RulingsError

log = logging.getLogger(__name__)

Handler = Callable[["ConsoleContext", str], Reply]

EXIT_OK = 0
EXIT_BUG = 1
EXIT_MISTAKE = 2

APOLOGY = "Something went wrong on our side; it has been logged."
PROMPT = "pokerfloor> "


@dataclass(frozen=True)
class ConsoleCommand:
    """One console command.

    Attributes:
        name: typed after the slash, e.g. ``rule``.
        target: ``"module:function"`` of its handler, imported on first use.
        usage: the arguments, shown in help (``<words or rule number>``).
        summary: one line saying what it does.
    """

    name: str
    target: str
    usage: str
    summary: str

    def handler(self) -> Handler:
        """Import and return the handler function."""
        module_name, _, attr = self.target.partition(":")
        fn: Handler = getattr(importlib.import_module(module_name), attr)
        return fn


COMMANDS: tuple[ConsoleCommand, ...] = (
    ConsoleCommand(
        "rule",
        "bot.console:rule_command",
        "<words or rule number> [book:NAME]",
        "Look up a rule, with its citation",
    ),
    ConsoleCommand(
        "hand",
        "bot.console:hand_command",
        "<cards> [vs <cards> ...] [board:<cards>]",
        "Evaluate a hand, or who wins and how often",
    ),
    ConsoleCommand(
        "standings",
        "bot.views.league_commands:standings_console",
        "[season] [location:NAME] [player:NAME]",
        "Show the season's standings",
    ),
    ConsoleCommand(
        "toc",
        "bot.views.league_commands:toc_console",
        "[player] [season:NAME]",
        "Who is qualified for the Tournament of Champions",
    ),
    ConsoleCommand(
        "stack",
        "bot.views.league_commands:stack_console",
        "[player] [early:yes] [on_time:yes] [birthday:yes] [new_player:yes]"
        " [brought:N] [late_bb:N]",
        "Work out a starting stack",
    ),
    ConsoleCommand(
        "td",
        "bot.views.td:td_console",
        "<result|correct|void|bounty|premium|second_chance|receipt|strike|season|location|events>",
        "Director tools with name:value options (the console is the local director)",
    ),
    ConsoleCommand("clock", "bot.views.clock:clock_console", "status", "Show the running clocks"),
    ConsoleCommand("help", "bot.console:help_command", "", "List the commands"),
)


@dataclass
class ConsoleContext:
    """What a console handler may use: settings, the database and the rulebook index.

    Attributes:
        settings: the configuration.
        engine: the database engine (embedded SQLite by default).
        db: runs a storage function in one transaction (``db.run_sync(fn, **kw)``).
        guild_id: the league's Discord server; None is the console's own league.
        commands: the console's command table (for help).
    """

    settings: Settings
    engine: Engine
    guild_id: int | None = None
    commands: Sequence[ConsoleCommand] = COMMANDS
    db: Database = field(init=False)
    _rules: rulings.RuleIndex | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.db = Database(self.engine)

    @property
    def rules(self) -> rulings.RuleIndex:
        """The rulebook index, loaded on first use."""
        if self._rules is None:
            from bot.app import load_rule_index

            self._rules = load_rule_index(self.settings)
        return self._rules


_OPTION = re.compile(r"(?:^|\s)([a-z_]+):\s*")


def parse_options(args: str, names: Sequence[str]) -> dict[str, str]:
    """Split Discord-style options out of a console line.

    The text before the first ``name:`` belongs to the first name; ``name:value`` pairs follow.
    Only the given names count as options, so ``a:b`` inside free text stays text.

    Args:
        args: the rest of the line after the command.
        names: the option names, the first being the main one.

    Returns:
        The options present, with their values stripped.

    Raises:
        BadOption: the same option is given twice.

    >>> parse_options("As Ks vs Qh Qd board: 2c 7d 9h", ("cards", "board"))
    {'cards': 'As Ks vs Qh Qd', 'board': '2c 7d 9h'}
    """
    found: dict[str, str] = {}
    current, start = names[0], 0
    for match in _OPTION.finditer(args):
        if match.group(1) not in names:
            continue
        _put(found, current, args[start : match.start()])
        current, start = match.group(1), match.end()
    _put(found, current, args[start:])
    return found


def _put(found: dict[str, str], name: str, value: str) -> None:
    value = value.strip()
    if not value:
        return
    if name in found:
        raise BadOption(f"{name}: is given twice.")
    found[name] = value


def help_reply(entries: Iterable[tuple[str, str]], *, title: str = "Commands") -> Reply:
    """A list of commands as a reply: one ``usage — summary`` line each."""
    lines = [f"**{usage}**: {summary}" for usage, summary in entries]
    return Reply(
        title=title,
        text="\n".join(lines),
        footer="Ask the floor: pokerfloor answers from the league's own rulebook.",
    )


# -- the built-in handlers -------------------------------------------------------------------


def rule_command(ctx: ConsoleContext, args: str) -> Reply:
    """``/rule <words> [book:NAME]``."""
    opts = parse_options(args, ("query", "book"))
    from bot.views.rule import rule_reply

    return rule_reply(ctx.rules, opts.get("query", ""), book=opts.get("book"))


def hand_command(ctx: ConsoleContext, args: str) -> Reply:
    """``/hand <cards> [board:<cards>]``."""
    opts = parse_options(args, ("cards", "board"))
    cards = tidy_text(opts.get("cards", ""), what="some cards")
    board = opts.get("board")
    from bot.views.hand import hand_reply
    from bot.views.league_commands import league_rules_for

    rules = ctx.db.run_sync(league_rules_for, guild_id=ctx.guild_id)
    return hand_reply(cards, tidy_text(board, what="the board") if board else None, rules=rules)


def help_command(ctx: ConsoleContext, args: str) -> Reply:
    """``/help``: every console command."""
    return help_reply(
        ((f"/{c.name} {c.usage}".rstrip(), c.summary) for c in ctx.commands),
        title="pokerfloor console",
    )


# -- the router ------------------------------------------------------------------------------


class UnknownCommandError(RulingsError):
    """A line that names no console command."""


class Console:
    """Routes console lines to handlers and prints their replies."""

    def __init__(self, ctx: ConsoleContext) -> None:
        self.ctx = ctx
        self.commands = {c.name: c for c in ctx.commands}

    def handle(self, line: str) -> Reply | None:
        """Answer one line; None for a blank line or a ``#`` comment.

        Raises:
            RulingsError: a user mistake (including an unknown command); the message is
                one short line for the user.
        """
        text = line.strip()
        if not text or text.startswith("#"):
            return None
        name, _, args = text.lstrip("/").partition(" ")
        command = self.commands.get(name.lower())
        if command is None:
            known = ", ".join(f"/{c}" for c in self.commands)
            raise UnknownCommandError(f"Unknown command {name!r}; try {known}.")
        return command.handler()(self.ctx, args.strip())

    def run(self, stdin: TextIO, stdout: TextIO, stderr: TextIO, *, interactive: bool) -> int:
        """Read lines until EOF (or ``quit``), printing each answer.

        Answers go to ``stdout``, separated by a blank line; a user mistake prints one line on
        ``stderr`` and the console goes on.

        Returns:
            0 when every line was answered, 2 when a line was a user mistake, 1 after a bug.
        """
        code = EXIT_OK
        if interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())
        while True:
            line = _read(stdin, stdout, interactive=interactive)
            if line is None or line.strip().lower() in ("quit", "exit", "/quit", "/exit"):
                return code
            try:
                reply = self.handle(line)
            except (RulingsError, BadOption) as exc:
                log.debug("console line %r rejected: %s", line, exc)
                stderr.write(f"{_one_line(str(exc))}\n")
                code = max(code, EXIT_MISTAKE) if code != EXIT_BUG else code
                continue
            except Exception:
                log.exception("console line %r failed", line)
                stderr.write(f"{APOLOGY}\n")
                code = EXIT_BUG
                continue
            if reply is None:
                continue
            if reply.private and not reply.fields:
                stderr.write(f"{_one_line(reply.text or reply.title)}\n")
                code = max(code, EXIT_MISTAKE) if code != EXIT_BUG else code
                continue
            stdout.write(plain(reply.to_text()) + "\n\n")
            stdout.flush()


def _read(stdin: TextIO, stdout: TextIO, *, interactive: bool) -> str | None:
    if interactive and stdin is sys.stdin:
        try:
            return input(PROMPT)
        except EOFError:
            stdout.write("\n")
            return None
    line = stdin.readline()
    return line if line else None


def plain(text: str) -> str:
    """Drop bold markers, which a terminal would show literally."""
    return text.replace("**", "")


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "That didn't work."
