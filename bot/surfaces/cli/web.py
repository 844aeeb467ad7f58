"""``pokerfloor web [--host H] [--port P] [--guild ID]``: the public league pages alone.

Serves ``bot.surfaces.web`` over the database in ``DATABASE_URL`` (or ``--db``) until
interrupted; it only reads, so it runs beside the bot on the same database. ``pokerfloor run``
serves the same pages itself when ``WEB_PORT`` is set.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

EXIT_USAGE = 2
DEFAULT_PORT = 8080


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


def run_web(args: argparse.Namespace) -> int:
    """Serve the pages until interrupted: Ctrl+C or SIGTERM ends them with exit 0."""
    import signal

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM while starting up: as Ctrl+C would

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        previous = None
    try:
        return _run_web(args)
    except KeyboardInterrupt:
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run_web(args: argparse.Namespace) -> int:
    import asyncio

    from pydantic import ValidationError

    from bot.surfaces.cli.run import _configure_logging, _first_error, load_settings

    _configure_logging(logging.INFO)
    try:
        settings = load_settings(args)
    except ValidationError as exc:
        _say(f"pokerfloor: bad configuration: {_first_error(exc)}")
        return EXIT_USAGE
    from bot.surfaces.web.links import WEB_HOST

    host = args.host or WEB_HOST
    port = args.port or settings.web_port or DEFAULT_PORT
    if not 1 <= port <= 65535:
        _say(f"pokerfloor: --port {port}: use a port from 1 to 65535")
        return EXIT_USAGE
    guild_id: int | None = args.guild  # checked by the command line (commands.guild_option)
    from sqlalchemy import exc as sa_exc
    from sqlalchemy import inspect

    import rulings
    import rulings.rulebook
    from bot.surfaces.web.site import Site
    from storage.db import make_engine

    missing = _missing_sqlite_file(settings.database_url)
    if missing is not None:  # opening it would create an empty file: the pages write nothing
        _say(f"pokerfloor: there is no database at {missing} (run the bot or import an event)")
        return EXIT_USAGE
    engine = make_engine(settings.database_url)
    try:
        try:
            tables = set(inspect(engine).get_table_names())
        except (sa_exc.OperationalError, sa_exc.ArgumentError) as exc:
            _say(f"pokerfloor: cannot use the database: {str(exc).splitlines()[0]}")
            return EXIT_USAGE
        if "league" not in tables:
            _say("pokerfloor: the database has no league yet (run the bot or import an event)")
            return EXIT_USAGE
        try:
            index = rulings.rulebook.load_rulebooks(settings.rulebook_dir)
        except rulings.RulingsError as exc:
            _say(f"pokerfloor: {exc}")
            return EXIT_USAGE
        site = Site(engine, guild_id=guild_id, rules=lambda: index, public_url=settings.public_url)
        try:
            asyncio.run(_serve(site, host, port))
        except OSError as exc:
            _say(f"pokerfloor: cannot listen on {host}:{port}: {_listen_error(exc)}")
            return EXIT_USAGE
    finally:
        engine.dispose()
    return 0


def _listen_error(exc: OSError) -> str:
    """Why ``--host``/``--port`` cannot be listened on, in a few words."""
    import errno
    import socket

    if isinstance(exc, socket.gaierror):
        return f"--host is not an address ({exc.strerror})"
    if exc.errno == errno.EADDRNOTAVAIL:
        return "--host is not an address of this machine"
    if exc.errno == errno.EADDRINUSE:
        return "the port is in use (another --port?)"
    if exc.errno == errno.EACCES:
        return "not allowed (ports below 1024 need privileges)"
    return exc.strerror or str(exc)


def _missing_sqlite_file(url: str) -> str | None:
    """The path of an SQLite file URL whose file does not exist (None otherwise)."""
    from pathlib import Path

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # make_engine reports it
    database = parsed.database
    if not parsed.drivername.startswith("sqlite") or database in (None, "", ":memory:"):
        return None
    return None if Path(database).exists() else database


async def _serve(site: Any, host: str, port: int) -> None:
    import asyncio
    import contextlib
    import os
    import signal

    from bot.surfaces.web.site import start_site
    from bot.thread_pool import DaemonThreadPool

    # Pages render on the default executor: daemon threads, so SIGINT stops the server at once
    # instead of waiting for a page a thread is still reading (see bot.thread_pool).
    workers = min(32, (os.cpu_count() or 1) + 4)
    loop = asyncio.get_running_loop()
    loop.set_default_executor(DaemonThreadPool(workers, thread_name_prefix="asyncio"))
    runner = await start_site(site, host, port)
    sys.stderr.write(f"pokerfloor: league pages on http://{host}:{port}/\n")
    # SIGTERM (systemd, docker stop, kill) ends the pages as Ctrl+C does: stop serving, exit 0.
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows' loop
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
