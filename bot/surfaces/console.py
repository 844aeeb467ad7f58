"""The console: the bot's commands typed in a terminal, read from the same definitions.

A line such as ``/td season add name:2026 Fall`` is matched against ``bot.features.COMMANDS``
(the longest run of words that is a command), its options are split as Discord splits them
(``bot.command.options.parse_line``: only the command's own option names count, a value runs
to the next one or sits in quotes) and checked (``bind``), then the command's handler runs and
the console prints ``Reply.to_plain()``. A mistake prints one line on stderr and writes
nothing; a bug prints the apology (``bot.errors.describe`` decides which). Nothing here knows
Discord, so the console works on a fresh machine with no token: embedded SQLite and the bundled
rulebooks. The person at the terminal is the local director.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import getpass
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy.engine import Engine

import rulings
import rulings.rulebook
from bot.command.model import Command, Context
from bot.command.options import parse_line, usage
from bot.command.run import computed, run_command
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


class ConsolePoster:
    """Where the console's clock posts: its announcements are printed as they fall due."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._ids = 0

    async def announce(
        self,
        channel_id: int,
        announcement: Any,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        """Print an announcement on its own line (the prompt stays where it is)."""
        self.out.write(f"\n[clock] {plain(announcement.text)}\n")
        self.out.flush()

    async def post_status(self, channel_id: int, status: Any) -> int:
        """The console has no status message to keep: ``/clock status`` shows it."""
        self._ids += 1
        return self._ids

    async def edit_status(self, channel_id: int, message_id: int, status: Any) -> bool:
        """Nothing to edit (see ``post_status``)."""
        return True


class ConsoleClock:
    """The console's clock service, on an event loop of its own in a background thread.

    Started on first use (``door``), so a console that never touches the clock never starts a
    scheduler; stopped by ``close``. Its clocks announce in the terminal while the console
    waits for input, and resume (with one catch-up) when a later console starts one again.
    """

    def __init__(self, engine: Engine, out: TextIO) -> None:
        self.engine = engine
        self.out = out
        self._door: Any = None
        self._thread: Any = None

    def door(self) -> Any:
        """The ``ClockDoor`` handlers use (starting the service the first time)."""
        if self._door is None:
            import asyncio
            import threading

            from bot.features.clock.handlers import ClockDoor
            from bot.features.clock.service import ClockService

            loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=loop.run_forever, name="console-clock", daemon=True
            )
            self._thread.start()
            service = ClockService(Database(self.engine), ConsolePoster(self.out))
            door = ClockDoor(service, loop)
            door.call(service.start())
            self._door = door
        return self._door

    def close(self) -> None:
        """Stop the service and its loop (the clocks stay in the database)."""
        if self._door is None:
            return
        door, self._door = self._door, None
        try:
            door.call(door.service.stop())
        finally:
            door.loop.call_soon_threadsafe(door.loop.stop)
            self._thread.join(timeout=5)
            door.loop.close()


def _definitions() -> tuple[Command, ...]:
    from bot.features import COMMANDS

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
        out: where the console's clock prints its announcements (the console's output).
        now: the clock for handlers (tests inject one).
    """

    settings: Settings
    engine: Engine
    guild_id: int | None = None
    commands: Sequence[Command] = field(default_factory=_definitions)
    db: Database = field(init=False)
    actor: str = field(default_factory=lambda: f"console:{getpass.getuser()}")
    out: TextIO = field(default_factory=lambda: sys.stdout)
    now: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))
    clock: ConsoleClock = field(init=False)
    _rules: rulings.rulebook.RuleIndex | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.db = Database(self.engine)
        self.clock = ConsoleClock(self.engine, self.out)

    @property
    def rules(self) -> rulings.rulebook.RuleIndex:
        """The rulebook index, loaded on first use."""
        if self._rules is None:
            self._rules = rulings.rulebook.load_rulebooks(self.settings.rulebook_dir)
        return self._rules

    def context(self, *, clock: bool = False) -> Context:
        """A handler's context for one console line (``clock``: with the console's clock)."""
        return Context(
            surface="console",
            settings=self.settings,
            db=self.db,
            guild_id=self.guild_id,
            actor=self.actor,
            is_director=True,
            rule_index=lambda: self.rules,
            clock=self.clock.door() if clock else None,
            now=self.now,
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

    def names(self) -> list[str]:
        """The first words of every command, in help order."""
        seen: dict[str, None] = {}
        for c in self.ctx.commands:
            seen.setdefault(f"/{c.path[0]}", None)
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
            raise self._unknown(words)
        rest = text
        for word in words[:taken]:
            rest = rest[rest.index(word) + len(word) :]
        raw = parse_line(command, rest.strip())
        ctx = self.ctx.context(clock=command.path[0] == "clock" and command.path[-1] != "status")
        return computed(run_command(command, ctx, raw))

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
            0 after ``quit`` or at the end of the input (a mistake was already answered on
            ``stderr``: ``make run`` with piped lines ends well), 1 after a bug.
        """
        self.ctx.out = stdout
        self.ctx.clock.out = stdout
        try:
            return self._loop(stdin, stdout, stderr, interactive=interactive)
        finally:
            self.ctx.clock.close()

    def _loop(self, stdin: TextIO, stdout: TextIO, stderr: TextIO, *, interactive: bool) -> int:
        code = EXIT_OK
        if interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())
        while True:
            line = _read(stdin, stdout, interactive=interactive)
            if line is None:
                return code  # end of input: 0, or 1 when a line hit a bug
            if line.strip().lower() in QUIT:
                return EXIT_OK  # asked to leave: a session ends well whatever it typed
            try:
                reply = self.handle(line)
            except Exception as exc:  # the one error path
                message, is_bug = describe(exc)
                if is_bug:
                    log.error("console line %r failed", line, exc_info=exc)
                    code = EXIT_BUG
                else:
                    log.debug("console line %r rejected: %s", line, exc)
                stderr.write(f"{one_line(message)}\n")
                stderr.flush()
                continue
            if reply is None:
                continue
            stdout.write(reply.to_plain() + "\n")
            for file in reply.files:  # a chart: saved beside the console, and said where
                path = Path(file.filename).resolve()
                path.write_bytes(file.data)
                stdout.write(f"(saved {path})\n")
            stdout.write("\n")
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


def plain(text: str) -> str:
    """Drop markdown a terminal would show literally (see ``bot.reply.plain``)."""
    from bot.reply import plain as _plain

    return _plain(text)
