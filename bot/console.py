"""The console: the bot's commands typed in a terminal, read from the same definitions.

A line such as ``/td season add name:2026 Fall`` is matched against ``bot.commands.COMMANDS``
(the longest run of words that is a command), its options are split as Discord splits them
(``bot.commands.options.parse_line``: only the command's own option names count, a value runs
to the next one or sits in quotes) and checked (``bind``), then the command's handler runs and
the console prints ``Reply.to_plain()``. A mistake prints one line on stderr and writes
nothing; a bug prints the apology (``bot.errors.describe`` decides which). Nothing here knows
Discord, so the console works on a fresh machine with no token: embedded SQLite and the bundled
rulebooks. The person at the terminal is the local director.
"""

from __future__ import annotations

import contextlib
import getpass
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from sqlalchemy.engine import Engine

import rulings
from bot.commands.model import Command, Context
from bot.commands.options import bind, parse_line, usage
from bot.config import Settings
from bot.database import Database
from bot.errors import UnknownCommandError, describe, one_line
from bot.reply import Reply

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_BUG = 1
EXIT_MISTAKE = 2

PROMPT = "pokerfloor> "
QUIT = ("quit", "exit", "/quit", "/exit")

Legacy = Callable[["ConsoleContext", str], Reply]


@dataclass(frozen=True)
class ConsoleCommand:
    """A console command not yet defined in ``bot.commands`` (its handler parses the line).

    Attributes:
        name: typed after the slash, e.g. ``td``.
        target: ``"module:function"``, ``fn(ctx: ConsoleContext, args: str) -> Reply``.
        usage: the arguments, shown in help.
        summary: one line saying what it does.
    """

    name: str
    target: str
    usage: str
    summary: str

    def handler(self) -> Legacy:
        """Import and return the handler function."""
        module_name, _, attr = self.target.partition(":")
        fn: Legacy = getattr(importlib.import_module(module_name), attr)
        return fn


LEGACY: tuple[ConsoleCommand, ...] = (
    ConsoleCommand("clock", "bot.views.clock:clock_console", "status", "Show the running clocks"),
)


def _definitions() -> tuple[Command, ...]:
    from bot.commands import COMMANDS

    return tuple(c for c in COMMANDS if "console" in c.surfaces)


@dataclass
class ConsoleContext:
    """The console's session: settings, the database, the league it speaks for.

    Attributes:
        settings: the configuration.
        engine: the database engine (embedded SQLite by default).
        guild_id: the league's Discord server (``--guild``); None is the database's own league.
        commands: the definitions the console answers (default: every console command).
        db: runs a storage function in one transaction (``db.run_sync(fn, **kw)``).
        actor: the audit log's name for the person at the terminal.
    """

    settings: Settings
    engine: Engine
    guild_id: int | None = None
    commands: Sequence[Command] = field(default_factory=_definitions)
    legacy: Sequence[ConsoleCommand] = LEGACY
    db: Database = field(init=False)
    actor: str = field(default_factory=lambda: f"console:{getpass.getuser()}")
    clock: Any = None
    _rules: rulings.RuleIndex | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.db = Database(self.engine)

    @property
    def rules(self) -> rulings.RuleIndex:
        """The rulebook index, loaded on first use."""
        if self._rules is None:
            self._rules = rulings.load_rulebooks(self.settings.rulebook_dir)
        return self._rules

    def context(self) -> Context:
        """A handler's context for one console line."""
        return Context(
            surface="console",
            settings=self.settings,
            db=self.db,
            guild_id=self.guild_id,
            actor=self.actor,
            is_director=True,
            rule_index=lambda: self.rules,
            clock=self.clock,
            extras={"help_extra": [(f"/{c.name} {c.usage}", c.summary) for c in self.legacy]},
        )


def match(commands: Sequence[Command], words: Sequence[str]) -> tuple[Command | None, int]:
    """The command named by the longest run of leading ``words``, and how many it took."""
    lowered = [w.lower().replace("-", "_") for w in words]
    best: Command | None = None
    taken = 0
    for command in commands:
        path = [p.replace("-", "_") for p in command.path]
        n = len(path)
        if n > taken and lowered[:n] == path:
            best, taken = command, n
    return best, taken


class Console:
    """Routes console lines to the commands' handlers and prints their replies."""

    def __init__(self, ctx: ConsoleContext) -> None:
        self.ctx = ctx
        self.legacy = {c.name: c for c in ctx.legacy}

    def names(self) -> list[str]:
        """The first words of every command, in help order."""
        seen: dict[str, None] = {}
        for c in self.ctx.commands:
            seen.setdefault(f"/{c.path[0]}", None)
        for name in self.legacy:
            seen.setdefault(f"/{name}", None)
        names = [n for n in seen if n != "/help"]
        return [*names, "/help"] if "/help" in seen else names

    def handle(self, line: str) -> Reply | None:
        """Answer one line; None for a blank line or a ``#`` comment.

        Raises:
            RulingsError: a user mistake (an unknown command or option, a bad value); the
                message is one short line for the user.
        """
        text = line.strip()
        if not text or text.startswith("#"):
            return None
        text = text.removeprefix("/")
        words = text.split()
        command, taken = match(self.ctx.commands, words)
        if command is None:
            legacy = self.legacy.get(words[0].lower())
            if legacy is not None:
                rest = text[len(words[0]) :].strip()
                return legacy.handler()(self.ctx, rest)
            raise self._unknown(words)
        rest = text
        for word in words[:taken]:
            rest = rest[rest.index(word) + len(word) :]
        raw = parse_line(command, rest.strip())
        ctx = self.ctx.context()
        kwargs = bind(command, raw, surface="console", today=ctx.today)
        reply: Reply = command.resolve()(ctx, **kwargs)
        return reply

    def _unknown(self, words: Sequence[str]) -> UnknownCommandError:
        under = [
            c
            for c in self.ctx.commands
            if [p.lower() for p in c.path[:1]] == [words[0].lower()] and len(c.path) > 1
        ]
        if under:
            depth = 1
            while depth < len(words) and any(
                len(c.path) > depth + 1 and c.path[depth] == words[depth].lower() for c in under
            ):
                depth += 1
            prefix = tuple(w.lower() for w in words[:depth])
            subs = sorted(
                {c.path[depth] for c in under if c.path[:depth] == prefix and len(c.path) > depth}
            )
            shown = " ".join(words[: depth + 1]) if len(words) > depth else " ".join(prefix)
            return UnknownCommandError(
                f"Unknown command '/{shown}'; /{' '.join(prefix)} takes {', '.join(subs)}."
            )
        known = ", ".join(self.names())
        return UnknownCommandError(f"Unknown command {words[0]!r}; try {known}.")

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
            if line is None or line.strip().lower() in QUIT:
                return code
            try:
                reply = self.handle(line)
            except Exception as exc:  # the one error path
                message, is_bug = describe(exc)
                if is_bug:
                    log.error("console line %r failed", line, exc_info=exc)
                    code = EXIT_BUG
                else:
                    log.debug("console line %r rejected: %s", line, exc)
                    code = code if code == EXIT_BUG else EXIT_MISTAKE
                stderr.write(f"{one_line(message)}\n")
                stderr.flush()
                continue
            if reply is None:
                continue
            stdout.write(reply.to_plain() + "\n\n")
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


def help_usage(command: Command) -> str:
    """A command's console usage (for help and error messages)."""
    return usage(command, "console")


# -- what the legacy handlers still use -----------------------------------------------------


def parse_options(args: str, names: Sequence[str]) -> dict[str, str]:
    """Split ``name:value`` options for a legacy handler (the first name takes free text).

    Raises:
        BadOption: an unknown or empty option, or one given twice.

    >>> parse_options("As Ks vs Qh Qd board: 2c 7d 9h", ("cards", "board"))
    {'cards': 'As Ks vs Qh Qd', 'board': '2c 7d 9h'}
    """
    from bot.commands.model import Opt

    opts = tuple(
        Opt(n, n, positional=i == 0, lines=True, max_length=4000) for i, n in enumerate(names)
    )
    return parse_line(Command(("td",), "legacy", "m:f", options=opts), args)


def plain(text: str) -> str:
    """Drop markdown a terminal would show literally (see ``bot.reply.plain``)."""
    from bot.reply import plain as _plain

    return _plain(text)
