"""The command line: a sub-command per definition of the one command model.

``pokerfloor rule "oversized chip"``, ``pokerfloor td season add "2026 Fall"``: each command of
``bot.features.COMMANDS`` that exists on the command line gets a sub-command with its words, a
positional argument for its positional option(s) and a ``--flag`` for every other one
(``--late-big-blind``; ``--late_big_blind`` works too; a yes/no option is ``--early``,
``--early yes`` or ``--early no``). Values are checked by ``bot.command.options.bind``, as in
Discord and the console. Every league command also takes ``--db URL`` (else ``DATABASE_URL``),
``--guild ID`` (a Discord server's league; without it, the database's only league) and
``--actor NAME`` (the audit log's name). The database is opened only by commands that use it,
so ``pokerfloor hand`` starts fast. A command's older spellings (``Command.aliases``) still run
it, with one deprecation line on stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import getpass
import json
import logging
import sys
from pathlib import Path
from typing import Any

from bot.command.model import Command, Context, Opt, Who

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USAGE = 2

_YES_WORDS = frozenset({"yes", "no", "y", "n", "true", "false", "on", "off", "1", "0"})


def common_options(parser: argparse.ArgumentParser) -> None:
    """``--db``, ``--guild`` and ``--actor``: the same on every league command."""
    parser.add_argument("--db", metavar="URL", help="database URL (default: DATABASE_URL)")
    parser.add_argument(
        "--guild", metavar="ID", help="the league of this Discord server (default: the only one)"
    )
    parser.add_argument("--actor", default=None, help="name recorded in the audit log")
    parser.add_argument("--league", default=None, help=argparse.SUPPRESS)


def _add_option(parser: argparse.ArgumentParser, opt: Opt, *, positionals: int) -> None:
    help_text = opt.description.replace("%", "%%")
    if opt.positional:
        # An argument (``pokerfloor rule oversized chip``), or the flag like any other option.
        # One positional takes every word; two or more (``player alias NAME ALIAS``) one each.
        nargs = "*" if positionals == 1 else "?"
        parser.add_argument("_" + opt.name, nargs=nargs, help=help_text, metavar=opt.name.upper())
    flags = [opt.flag]
    if "_" in opt.name:
        flags.append("--" + opt.name)
    if opt.kind == "yes":
        # ``--early``, ``--early yes`` or ``--early no``: ``main`` glues a yes/no word that
        # follows the flag to it (``--early=yes``), so no other word is ever taken as its value.
        parser.add_argument(
            *flags,
            dest=opt.name,
            nargs="?",
            const="yes",
            default=None,
            metavar="yes|no",
            help=help_text,
        )
    elif opt.repeat:
        parser.add_argument(*flags, dest=opt.name, action="append", metavar="NAME", help=help_text)
    else:
        metavar = "PATH" if opt.kind == "file" else opt.name.upper()
        parser.add_argument(*flags, dest=opt.name, metavar=metavar, help=help_text)


def _commands() -> tuple[Command, ...]:
    from bot.features import COMMANDS

    return tuple(c for c in COMMANDS if "cli" in c.surfaces)


def commands_under(word: str) -> tuple[Command, ...] | None:
    """The command-line commands spelled (or once spelled) with ``word`` first; None if none.

    >>> [c.cli_path for c in commands_under("hand") or ()]
    [('hand',)]
    >>> commands_under("--help") is None
    True
    """
    found = tuple(c for c in _commands() if any(w[0] == word for w in (c.cli_path, *c.aliases)))
    return found or None


def register(
    sub: argparse._SubParsersAction[Any], commands: tuple[Command, ...] | None = None
) -> None:
    """Add a sub-command for every command defined for the command line (and its aliases)."""
    from bot.features import group_description

    groups: dict[tuple[str, ...], argparse._SubParsersAction[Any]] = {(): sub}

    def group(path: tuple[str, ...], *, listed: bool = True) -> argparse._SubParsersAction[Any]:
        if path not in groups:
            parent = group(path[:-1], listed=listed)
            described = group_description(path)
            # A group only older spellings use is not listed in --help (no ``help``).
            if listed:
                parser = parent.add_parser(path[-1], help=described, description=described)
            else:
                parser = parent.add_parser(path[-1], description=described)
            groups[path] = parser.add_subparsers(
                dest="_".join(path) + "_command", metavar="ACTION", required=True
            )
        return groups[path]

    chosen = _commands() if commands is None else commands
    spellings = [(c, c.cli_path) for c in chosen if "cli" in c.surfaces]
    spellings += [(c, words) for c, _ in spellings for words in c.aliases]  # after: unlisted
    for command, words in spellings:
        is_alias = words != command.cli_path
        parent = group(words[:-1], listed=not is_alias)
        if is_alias:
            parser = parent.add_parser(words[-1], description=command.description)
        else:
            parser = parent.add_parser(
                words[-1], help=command.description, description=command.description
            )
        options = command.options_on("cli")
        positionals = sum(o.positional for o in options)
        for opt in options:
            _add_option(parser, opt, positionals=positionals)
        if command.league or command.process:
            common_options(parser)
        elif command.whole_database:
            parser.add_argument("--db", metavar="URL", help="database URL (default: DATABASE_URL)")
        parser.set_defaults(handler=lambda args, c=command, w=words: run(c, args, words=w))


def glue_yes_flags(argv: list[str], commands: tuple[Command, ...] | None = None) -> list[str]:
    """``--early yes`` -> ``--early=yes`` for the yes/no flags of the command ``argv`` names.

    So a yes/no flag takes a following yes/no word as its value and never a name:
    ``pokerfloor stack --early yes`` is not a stack for a player called "yes".

    >>> from bot.command.model import Command, Opt
    >>> c = Command(("stack",), "x", "m:f", options=(Opt("early", "x", kind="yes"),))
    >>> glue_yes_flags(["stack", "--early", "yes", "Bea"], (c,))
    ['stack', '--early=yes', 'Bea']
    >>> glue_yes_flags(["stack", "--early", "Bea"], (c,))
    ['stack', '--early=yes', 'Bea']
    """
    found = None
    for command in _commands() if commands is None else commands:
        for words in (command.cli_path, *command.aliases):
            if tuple(argv[: len(words)]) == words and (found is None or len(words) > len(found[1])):
                found = (command, words)
    if found is None:
        return list(argv)
    command, words = found
    flags = {
        flag
        for opt in command.options_on("cli")
        if opt.kind == "yes"
        for flag in (opt.flag, "--" + opt.name)
    }
    out = list(argv[: len(words)])
    rest = list(argv[len(words) :])
    i = 0
    while i < len(rest):
        token = rest[i]
        if token == "--":
            out.extend(rest[i:])
            break
        if token in flags:
            following = rest[i + 1] if i + 1 < len(rest) else None
            if following is not None and following.lower() in _YES_WORDS:
                out.append(f"{token}={following}")
                i += 2
                continue
            out.append(f"{token}=yes")
        else:
            out.append(token)
        i += 1
    return out


def _sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///`` URL (None for other databases and in-memory SQLite).

    >>> _sqlite_path("sqlite:///pokerfloor.db"), _sqlite_path("postgresql+psycopg://x/y")
    ('pokerfloor.db', None)
    """
    head, sep, path = url.partition(":///")
    if not sep or not head.startswith("sqlite"):
        return None
    return path.split("?", 1)[0] or None


_UNREAD = object()


class LazyDatabase:
    """The database, opened (and migrated) on first use.

    So ``hand`` on a fresh machine never imports SQLAlchemy, and a command that only reads
    never creates a database that is missing.
    """

    def __init__(self, url: str, *, writes: bool = True) -> None:
        self.url = url
        self.writes = writes
        self._db: Any = None
        self._leagues: Any = _UNREAD

    def is_empty(self) -> bool:
        """Whether the database is a SQLite file that does not exist yet (one ``stat``)."""
        if self._db is not None:
            return False
        path = _sqlite_path(self.url)
        return path is not None and not Path(path).exists()

    def read_leagues(self) -> Any:
        """The league rows read without opening the database (``storage.light.read_leagues``).

        None once the database is open, or where only the full path can read them.
        """
        if self._db is not None:
            return None
        if self._leagues is _UNREAD:
            from storage.light import read_leagues

            self._leagues = read_leagues(self.url)
        return self._leagues

    def _open(self) -> Any:
        if self._db is None:
            gc.enable()  # off for a one-shot command until now (``main``): sessions make cycles
            from bot.database import Database
            from storage.db import create_schema, make_engine, upgrade_schema

            if not self.writes and self.is_empty():
                engine = make_engine("sqlite://")  # reads see an empty league; no file made
                create_schema(engine)
            else:
                engine = make_engine(self.url)
                upgrade_schema(engine)
            self._db = Database(engine)
        return self._db

    @property
    def engine(self) -> Any:
        """The engine (opening the database)."""
        return self._open().engine

    def run_sync(self, fn: Any, /, **kwargs: Any) -> Any:
        """``Database.run_sync`` on the opened database."""
        return self._open().run_sync(fn, **kwargs)

    def dispose(self) -> None:
        """Close the connections, if the database was opened."""
        if self._db is not None:
            self._db.engine.dispose()


def _values(command: Command, args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for opt in command.options_on("cli"):
        value = getattr(args, opt.name, None)
        if opt.positional:
            words = getattr(args, "_" + opt.name, None) or []
            if isinstance(words, str):
                words = [words]
            if words and value is not None:
                from bot.errors import BadOption

                raise BadOption(f"give {opt.name} once: as an argument or as {opt.flag}.")
            if words:
                value = " ".join(words)
        if value is not None:
            values[opt.name] = value  # a repeated flag stays a list (values may hold commas)
    return values


DEFAULT_DATABASE_URL = "sqlite:///pokerfloor.db"  # Settings' default


class LazySettings:
    """``bot.config.Settings``, built on first use of a field it alone can answer.

    ``database_url`` (``--db``, else ``DATABASE_URL``) and ``rulebook_dir`` are peeked at
    (``bot.environment.peek``) so that ``pokerfloor hand`` and ``rule`` never import pydantic;
    any other field (``timezone``, ...) builds the real ``Settings``, validated as always.
    """

    def __init__(self, database_url: str | None) -> None:
        self._url = database_url
        self._real: Any = None

    def real(self) -> Any:
        """The validated ``Settings`` (built once)."""
        if self._real is None:
            from bot.config import Settings

            settings = Settings()
            if self._url:
                settings = settings.model_copy(update={"database_url": self._url})
            self._real = settings
        return self._real

    @property
    def database_url(self) -> str:
        """``--db``, else ``DATABASE_URL``, else SQLite in the working directory."""
        if self._real is not None:
            return str(self._real.database_url)
        from bot.environment import peek

        return self._url or peek("DATABASE_URL") or DEFAULT_DATABASE_URL

    @property
    def rulebook_dir(self) -> Path | None:
        """``RULEBOOK_DIR`` (checked by ``load_rulebooks``)."""
        if self._real is not None:
            folder: Path | None = self._real.rulebook_dir
            return folder
        from bot.environment import peek

        value = peek("RULEBOOK_DIR")
        return Path(value) if value else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


def guild_option(raw: Any) -> int | None:
    """``--guild`` as a Discord server id (None when not given); one line refuses another.

    >>> guild_option("123"), guild_option(None)
    (123, None)
    """
    from bot.errors import BadOption
    from rulings import MAX_ID

    if raw is None:
        return None
    text = str(raw).strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ID:
        raise BadOption(f"--guild {raw}: not a Discord server id (a number from 1 to {MAX_ID})")
    return int(text)


def context(
    args: argparse.Namespace, *, league: bool, writes: bool = True
) -> tuple[Context, LazyDatabase]:
    """The handler's context for one command line (``--db``, ``--guild``, ``--actor``)."""
    url = getattr(args, "db", None)
    settings = LazySettings(str(url) if url else None)
    db = LazyDatabase(settings.database_url, writes=writes)
    guild_id = guild_option(getattr(args, "guild", None))
    if guild_id is None and league and not db.is_empty():
        leagues = db.read_leagues()
        if leagues is not None:
            from storage.light import only_league_guild_of

            guild_id = only_league_guild_of([row.guild_id for row in leagues])
        else:
            from storage.leagues import only_league_guild

            guild_id = db.run_sync(only_league_guild)
    ctx = Context(
        surface="cli",
        settings=settings,  # type: ignore[arg-type]  # the same fields, built on first use
        db=db,  # type: ignore[arg-type]  # the same interface, opened on first use
        guild_id=guild_id,
        actor=str(getattr(args, "actor", None) or f"cli:{getpass.getuser()}"),
        is_director=True,
        rule_index=lambda: _rulebooks(settings),
    )
    return ctx, db


def _rulebooks(settings: LazySettings) -> Any:
    from bot.surfaces.cli.rulebook_cache import load_rulebooks

    return load_rulebooks(settings.rulebook_dir)


def _flagged(command: Command, message: str) -> str:
    """A message naming an option (``limit: ...``) names its flag instead (``--limit: ...``)."""
    head, sep, rest = message.partition(": ")
    for opt in command.options_on("cli"):
        if sep and head == opt.name and not opt.positional:
            return f"{opt.flag}: {rest}"
    return message


def _hint(command: Command, exc: BaseException) -> str:
    """The flag that confirms what ``exc`` refused, when the command has one."""
    from storage.errors import (
        AlreadyExists,
        DuplicatePlayerError,
        SuspendedPlayerError,
        UnconfirmedRescoreError,
    )

    names = {o.name for o in command.options_on("cli")}
    if isinstance(exc, DuplicatePlayerError) and "new_player" in names:
        return f' (--new-player "{exc.name}" confirms)'
    if isinstance(exc, AlreadyExists) and "confirm" in str(exc) and "allow_new" in names:
        return " (--allow-new confirms)"
    if isinstance(exc, SuspendedPlayerError | UnconfirmedRescoreError) and "confirm" in names:
        return " (--confirm)"
    return ""


def _process(command: Command, args: argparse.Namespace, today: Any) -> int:
    """Run a process command (``console``, ``web``): its handler gets the parsed options."""
    from bot.command.options import bind

    guild = guild_option(getattr(args, "guild", None))
    kwargs = bind(command, _values(command, args), surface="cli", today=today)
    namespace = argparse.Namespace(
        db=getattr(args, "db", None),
        guild=guild,
        actor=getattr(args, "actor", None),
        **kwargs,
    )
    code: int = command.resolve()(namespace)  # type: ignore[assignment]  # exit status
    return code


def run(command: Command, args: argparse.Namespace, *, words: tuple[str, ...] = ()) -> int:
    """Run one command from the command line: plain text (or ``--json``) on stdout.

    A user mistake exits 2 with one line on stderr (nothing is written); a bug exits 1.
    ``words``: how it was typed; an older spelling prints one deprecation line first.
    """
    from bot.command.run import computed, run_command
    from bot.errors import describe, one_line

    name = " ".join(command.cli_path)
    if words and words != command.cli_path:
        sys.stderr.write(f"pokerfloor {' '.join(words)}: deprecated, use: pokerfloor {name}\n")
    db: LazyDatabase | None = None
    try:
        if command.process:
            gc.enable()  # off for a one-shot command (``main``); this process lives on
            return _process(command, args, dt.date.today)
        ctx, db = context(
            args,
            league=command.league,
            writes=command.writes or command.who is not Who.EVERYONE,
        )
        values = _values(command, args)
        reply = computed(run_command(command, ctx, values))
    except Exception as exc:  # the one error path
        message, is_bug = describe(exc)
        if is_bug:
            log.error("pokerfloor %s failed", name, exc_info=exc)
        else:
            log.debug("pokerfloor %s rejected: %s", name, exc)
            message = _flagged(command, message) + _hint(command, exc)
        sys.stderr.write(f"pokerfloor {name}: {one_line(message)}\n")
        return EXIT_BUG if is_bug else EXIT_USAGE
    finally:
        if db is not None:
            db.dispose()
    if values.get("json") and reply.data is not None:
        sys.stdout.write(json.dumps(reply.data, indent=2, ensure_ascii=False) + "\n")
        if reply.note:
            sys.stderr.write(f"pokerfloor {name}: {reply.note}\n")
    else:
        text = reply.to_plain()
        if text:
            sys.stdout.write(text + "\n")
    return EXIT_OK
