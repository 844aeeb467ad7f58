"""``pokerfloor console`` (the commands in a terminal) and ``pokerfloor run`` (the Discord bot).

``pokerfloor`` with no sub-command runs the bot when ``DISCORD_TOKEN`` is set and the console
otherwise, so ``make run`` on a fresh machine opens the console on ``pokerfloor.db``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

    from bot.config import Settings

log = logging.getLogger(__name__)

EXIT_USAGE = 2


def load_settings(args: argparse.Namespace) -> Settings:
    """Settings from the environment and ``.env``, with command-line overrides.

    Raises:
        ValidationError: a variable with a bad value.
    """
    from bot.config import Settings

    settings = Settings()
    url = getattr(args, "db", None)
    if url:
        settings = settings.model_copy(update={"database_url": url})
    return settings


def _settings(args: argparse.Namespace) -> Settings | None:
    """``load_settings``, or None after one line on stderr for a bad configuration."""
    from pydantic import ValidationError

    try:
        return load_settings(args)
    except ValidationError as exc:
        _say(f"pokerfloor: bad configuration: {_first_error(exc)}")
        return None


def _configure_logging(level: int) -> None:
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def run_console(args: argparse.Namespace) -> int:
    """Read command lines from the prompt (a terminal) or stdin until EOF."""
    _configure_logging(logging.WARNING)
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    from bot.database import Database
    from bot.errors import describe
    from bot.surfaces.console import Console, ConsoleContext
    from storage.db import make_engine, upgrade_schema
    from storage.leagues import only_league_guild

    raw_guild = getattr(args, "guild", None)  # an id already (commands.guild_option)
    try:
        engine = make_engine(settings.database_url)
    except Exception as exc:
        _say(f"pokerfloor console: {describe(exc)[0]}")
        return EXIT_USAGE
    try:
        upgrade_schema(engine)
        if raw_guild is not None:
            guild_id: int | None = int(raw_guild)
        else:
            guild_id = Database(engine).run_sync(only_league_guild)
        interactive = sys.stdin.isatty()
        if interactive:
            where = f" (the league of server {guild_id})" if guild_id else ""
            sys.stdout.write(f"pokerfloor console{where}: type /help, or quit to leave.\n")
        console = Console(ConsoleContext(settings=settings, engine=engine, guild_id=guild_id))
        return console.run(sys.stdin, sys.stdout, sys.stderr, interactive=interactive)
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # the one error path, for what fails before the first line
        message, is_bug = describe(exc)
        if is_bug:
            log.error("the console failed to start", exc_info=exc)
        _say(f"pokerfloor console: {message}")
        return 1 if is_bug else EXIT_USAGE
    finally:
        engine.dispose()


def run_bot(args: argparse.Namespace) -> int:
    """Connect to Discord and serve every league until interrupted."""
    _configure_logging(logging.INFO)
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    if settings.discord_token is None or not settings.has_token:
        _say("pokerfloor: DISCORD_TOKEN is not set (see .env.example)")
        return EXIT_USAGE
    import aiohttp
    import discord

    from bot.surfaces.discord import LeagueBot
    from rulings import RulingsError
    from storage.db import make_engine

    engine = make_engine(settings.database_url)
    bot = LeagueBot(settings, engine, stop_on_sigterm=True)
    try:
        serve(bot, settings.discord_token.get_secret_value())
    except discord.LoginFailure:
        _say("pokerfloor: Discord refused the token (DISCORD_TOKEN)")
        return EXIT_USAGE
    except RulingsError as exc:  # e.g. an unreadable book in RULEBOOK_DIR
        _say(f"pokerfloor: {exc}")
        return EXIT_USAGE
    except (aiohttp.ClientError, OSError) as exc:
        log.debug("cannot reach Discord", exc_info=exc)
        _say(f"pokerfloor: cannot reach Discord at {settings.discord_api_base}: {exc}")
        return 1
    finally:
        engine.dispose()
    return 0


def serve(bot: Any, token: str) -> None:
    """Run the bot until it closes (``SIGTERM``) or ``SIGINT``, as ``discord.Client.run`` does.

    The event loop's default executor (``asyncio.to_thread``: every storage call) runs on
    daemon threads (``bot.thread_pool``): ``asyncio.run`` and the interpreter's exit otherwise
    wait for the work a thread is doing when the bot stops (a storage call queued behind a
    database lock waits up to 40 s), so a stop took as long as that work did.
    """
    import asyncio
    import os

    from bot.thread_pool import DaemonThreadPool

    async def main() -> None:
        workers = min(32, (os.cpu_count() or 1) + 4)  # the size asyncio's own default has
        loop = asyncio.get_running_loop()
        loop.set_default_executor(DaemonThreadPool(workers, thread_name_prefix="asyncio"))
        async with bot:
            await bot.start(token)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # SIGINT: asyncio.run cancelled the bot, which closed
        log.info("interrupted: stopped")


def run_default(args: argparse.Namespace) -> int:
    """No sub-command: the bot when a token is configured, the console otherwise."""
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    has_token = settings.has_token
    return run_bot(args) if has_token else run_console(args)


def _say(line: str) -> None:
    """One line for the user on stderr (user mistakes: no traceback)."""
    sys.stderr.write(line + "\n")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"]).upper()
    return f"{where}: {err['msg']}"
