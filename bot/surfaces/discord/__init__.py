"""LeagueBot: the Discord client. Loads the cogs, syncs commands only when they changed.

Other topics add their cog module to ``EXTENSIONS`` (one line); a cog module exposes
``async def setup(bot: LeagueBot)`` that calls ``bot.add_cog(...)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime as dt
import gc
import hashlib
import json
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

import aiohttp
import discord
import yarl
from aiohttp import web
from discord.ext import commands
from sqlalchemy.engine import Engine

import rulings
import rulings.rulebook
from bot.config import Settings
from bot.database import Database
from bot.fair_queue import FairQueue, UserCooldown
from bot.reply import Reply
from bot.surfaces.discord import render
from bot.surfaces.discord.gateway import install_fair_gateway, install_lanes
from bot.surfaces.discord.tree import LeagueTree, respond
from bot.thread_pool import DaemonThreadPool
from storage import bot_models
from storage.db import upgrade_schema
from storage.guild_settings import guild_rulebooks

log = logging.getLogger(__name__)

T = TypeVar("T")

SLASH = "bot.surfaces.discord.build"
"""The app commands of every definition and the ``pf:`` buttons (loaded after the cogs)."""

EXTENSIONS: tuple[str, ...] = (
    "bot.surfaces.discord.clock",
    "bot.surfaces.discord.backup",
    "bot.features.night.discord",
)

# A command that has not answered after this long defers ("is thinking…") so that the
# interaction is acknowledged well inside Discord's 3 s, then answers with a follow-up.
DEFER_AFTER_S = 0.8

# CPU-heavy work (preflop equity) runs in worker processes: in threads it held the GIL often
# enough to lag the event loop by 40 ms and more during a burst. Started on first use, one
# core fewer than the machine has and at a lower OS priority, so the event loop keeps a core.
COMPUTE_WORKERS = max(1, (os.cpu_count() or 2) - 1)
COMPUTE_NICENESS = 5

HANDLER_THREADS = 64
"""Threads that run command and button handlers (a pool of their own, larger than the default
one (cores + 4) that database calls and clock writes use). A handler never waits on a compute
job here: it returns a ``Heavy`` (``Context.compute``) and the runner queues the job on the
event loop, so a crowd of heavy commands (40 users x 5 pre-flop equities) holds no thread while
it queues and another user's light command finds one free (``benchmarks/bot.py --crowd``)."""
HTTP_CONNECTIONS = 64


def _lower_priority() -> None:
    """Worker-process initializer: yield the CPU to the event loop's process."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(COMPUTE_NICENESS)


def configure_endpoints(settings: Settings) -> None:
    """Point discord.py at ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` (process-wide)."""
    discord.http.Route.BASE = settings.discord_api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)
    install_fair_gateway()


def commands_digest(payload: Sequence[dict[str, Any]]) -> str:
    """A stable hash of a command set as Discord receives it (order-independent)."""
    ordered = sorted(payload, key=lambda c: (c.get("type", 1), c["name"]))
    text = json.dumps(ordered, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class LeagueBot(commands.Bot, discord.AutoShardedClient):
    """The pokerfloor bot: one process serves every league (one league per Discord server).

    Sharded as discord.py's ``AutoShardedBot`` is (the same two bases, in the order that keeps
    it a ``commands.Bot`` for the code that checks): ``SHARD_COUNT`` shards in all (Discord's
    recommendation when unset), of which this process runs ``SHARD_IDS`` (all when unset), so
    a big bot splits its shards across processes that share one PostgreSQL database (and its
    clocks: see ``bot.features.clock.service``).

    Attributes:
        settings: the configuration it was built with.
        db: runs storage calls off the event loop.
        last_sync: after start-up, whether commands were pushed to Discord (False when the
            stored digest matched).
    """

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        *,
        extensions: Sequence[str] = EXTENSIONS,
        stop_on_sigterm: bool = False,
        **options: Any,
    ) -> None:
        configure_endpoints(settings)
        options.setdefault("intents", discord.Intents.default())
        if settings.shard_count is not None:
            options.setdefault("shard_count", settings.shard_count)
        if settings.shards is not None:
            options.setdefault("shard_ids", settings.shards)
        super().__init__(
            command_prefix=commands.when_mentioned,
            tree_cls=LeagueTree,
            allowed_mentions=render.NO_MENTIONS,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.engine = engine
        # Interactions parsed in turns between users (bot.surfaces.discord.gateway).
        self.interaction_lanes = install_lanes(self._connection, self.has_heavy_work)
        self.db = Database(engine)
        self.extension_names = tuple(extensions)
        self.last_sync: bool | None = None
        self._compute: ProcessPoolExecutor | None = None
        self._fair = FairQueue(COMPUTE_WORKERS)
        # Daemon threads: a handler still waiting (on the database, on a compute job) when the
        # bot stops does not hold the process up (bot.thread_pool).
        self._handler_pool = DaemonThreadPool(HANDLER_THREADS, thread_name_prefix="handler")
        self._stop_on_sigterm = stop_on_sigterm
        self._closing: asyncio.Task[None] | None = None
        self.heavy_cooldown = UserCooldown()
        self._rules: rulings.rulebook.RuleIndex | None = None
        # One index per home book a server chose (built once, shared by every server with that
        # home), and each such server's choice; servers without one use ``rules``.
        self._home_rules: dict[str, asyncio.Task[rulings.rulebook.RuleIndex]] = {}
        self._guild_homes: dict[int, str] = {}
        self.slash: Any = None  # bot.surfaces.discord.slash.SlashRunner, set by setup_hook
        self.clock_door: Any = None  # bot.features.clock.handlers.ClockDoor, set by the clock cog
        self._web: web.AppRunner | None = None

    # -- start-up and shutdown -------------------------------------------------------------

    async def login(self, token: str) -> None:
        """Log in over a pooled HTTP connector, then run ``setup_hook``."""
        if self.http.connector is discord.utils.MISSING:
            # discord.py's default has no connection limit: a burst of 1,000 interactions
            # opened ~1,000 TCP connections. A pool of keep-alive connections is cheaper.
            self.http.connector = aiohttp.TCPConnector(limit=HTTP_CONNECTIONS)
        await super().login(token)

    async def setup_hook(self) -> None:
        """Migrate the database, load the rulebooks and the cogs, then sync if changed."""
        if self._stop_on_sigterm:
            # systemd and docker stop with SIGTERM: close cleanly, so that the clock service
            # releases its leases and another instance takes the clocks over at once.
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._close_soon)
        await asyncio.to_thread(upgrade_schema, self.engine)
        await self.load_rules()
        await self.load_rule_homes()
        for name in self.extension_names:
            await self.load_extension(name)
        # Every definition in bot.features becomes an app command, loaded like a cog by its
        # name (the runner types against this class, which imports none of it).
        await self.load_extension(SLASH)
        self.last_sync = await self.sync_commands()
        await self.start_web()
        # Everything loaded so far (modules, hand tables, rulebook index) lives for the whole
        # run; moving it out of the collector's sight keeps full collections (which stop the
        # event loop) short.
        gc.collect()
        gc.freeze()

    def _close_soon(self) -> None:
        log.info("SIGTERM: closing")
        if self._closing is None:
            self._closing = asyncio.ensure_future(self.close())

    async def start_web(self) -> None:
        """Serve the public league pages on ``WEB_PORT`` when it is set (``bot.surfaces.web``)."""
        if self.settings.web_port is None or self._web is not None:
            return
        from bot.surfaces.web.links import WEB_HOST
        from bot.surfaces.web.site import Site, start_site

        site = Site(
            self.engine,
            guild_id=self.settings.discord_guild_id,
            rules=lambda: self._rules,
            public_url=self.settings.public_url,
        )
        try:
            self._web = await start_site(site, WEB_HOST, self.settings.web_port)
        except OSError as exc:  # the bot still serves Discord; the log says why the pages don't
            log.error("cannot serve the league pages on port %s: %s", self.settings.web_port, exc)

    async def close(self) -> None:
        """Disconnect, then stop the web pages and the compute workers."""
        if self._web is not None:
            await self._web.cleanup()
            self._web = None
        await super().close()
        self.interaction_lanes.stop()
        if self._compute is not None:
            # The interpreter joins the pool's workers at exit, and a worker finishes its job
            # first (a pre-flop equity takes seconds on a loaded machine): stop them now.
            workers = list((getattr(self._compute, "_processes", None) or {}).values())
            self._compute.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                with contextlib.suppress(OSError, ValueError):
                    worker.terminate()
            self._compute = None
        self._handler_pool.shutdown(wait=False, cancel_futures=True)

    # -- shared services for cogs ----------------------------------------------------------

    @property
    def rules(self) -> rulings.rulebook.RuleIndex | None:
        """The rulebook index, loaded once at start-up."""
        if self._rules is None:
            self._rules = load_rule_index(self.settings)
        return self._rules

    async def load_rules(self) -> None:
        """Load the rulebook index in a thread (parsing is not free)."""
        if self._rules is None:
            self._rules = await asyncio.to_thread(load_rule_index, self.settings)

    async def load_rule_homes(self) -> None:
        """Build the index of every home book a server chose (start-up), so no query waits."""
        homes = await self.db.run(guild_rulebooks)
        for guild_id, book in sorted(homes.items()):
            await self.set_rule_home(guild_id, book)

    async def set_rule_home(self, guild_id: int, book: str | None) -> None:
        """Make ``book`` the server's home rulebook (None: the default), index built first."""
        if book is None:
            self._guild_homes.pop(guild_id, None)
            return
        base = self.rules
        if base is not None and book not in base.books:
            log.warning(
                "guild %s: home rulebook %r is not loaded; using the default", guild_id, book
            )
        await self.home_index(book)
        self._guild_homes[guild_id] = book

    def rule_home(self, guild_id: int | None) -> str | None:
        """The home book a server chose, if any (None: the default index's home)."""
        return self._guild_homes.get(guild_id) if guild_id is not None else None

    async def home_index(self, book: str) -> rulings.rulebook.RuleIndex | None:
        """The rulebook index with ``book`` ranked first, built off the event loop once.

        The default index serves a book that is its home already or that is not loaded.
        """
        base = self.rules
        if base is None or book == base.home or book not in base.books:
            return base
        task = self._home_rules.get(book)
        if task is None or (task.done() and (task.cancelled() or task.exception())):
            task = asyncio.ensure_future(asyncio.to_thread(home_rule_index, base, book))
            self._home_rules[book] = task
        # Shielded: a command that gives up waiting does not cancel a build others share.
        return await asyncio.shield(task)

    async def rules_for(self, guild_id: int | None) -> rulings.rulebook.RuleIndex | None:
        """The rulebook index for a server: its own home book first, else the default."""
        book = self.rule_home(guild_id)
        return self.rules if book is None else await self.home_index(book)

    async def compute(self, fn: Callable[..., T], /, *args: Any, user_id: int | None = None) -> T:
        """Run CPU-heavy ``fn(*args)`` in a worker process, never on the event loop.

        ``fn`` and its arguments must pickle (a module-level function and plain values). With
        ``user_id`` the job waits in that user's queue (``FairQueue``): users take turns, so
        one user's flood does not delay another's answer by more than one job.
        """
        if user_id is not None:
            return await self._fair.run(user_id, lambda: self.compute(fn, *args))
        if self._compute is None:
            context = multiprocessing.get_context("spawn")  # no fork of a threaded process
            self._compute = ProcessPoolExecutor(
                COMPUTE_WORKERS, mp_context=context, initializer=_lower_priority
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._compute, fn, *args)

    def has_heavy_work(self, user_id: int) -> bool:
        """Whether ``user_id`` has a compute job queued or running."""
        return self._fair.has_jobs(user_id)

    def compute_busy(self) -> bool:
        """Whether a compute job queued now would wait for a worker."""
        return self._fair.running >= self._fair.slots or self._fair.waiting > 0

    async def in_handler_thread(self, fn: Callable[[], T]) -> T:
        """Run a command's or button's handler ``fn()`` on the handler threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._handler_pool, contextvars.copy_context().run, fn)

    async def answer(
        self,
        interaction: discord.Interaction,
        fn: Callable[..., Reply],
        /,
        *args: Any,
        defer_after: float = DEFER_AFTER_S,
    ) -> None:
        """Compute a reply on the handler threads and send it, deferring when it takes a while.

        The interaction is deferred ("thinking…") if the reply is not done after ``defer_after``
        seconds, so it is acknowledged well inside Discord's 3 s, and the answer follows. Heavy
        work goes through ``compute`` (the user's cooldown, then the compute workers, queued
        fairly per user), awaited on the event loop and never inside ``fn``, which would hold
        a handler thread while it queues (``SlashRunner.handle``). Errors propagate to
        ``LeagueTree``.
        """
        task = asyncio.ensure_future(self.in_handler_thread(lambda: fn(*args)))
        done, _ = await asyncio.wait({task}, timeout=defer_after)
        if not done and not interaction.response.is_done():
            await interaction.response.defer(thinking=True)
        await respond(interaction, await task)

    # -- command sync ----------------------------------------------------------------------

    def sync_scope(self) -> tuple[str, discord.Object | None]:
        """Where commands go: the dev guild when ``DISCORD_GUILD_ID`` is set, else global."""
        guild_id = self.settings.discord_guild_id
        guild = discord.Object(id=guild_id) if guild_id else None
        where = f"guild:{guild_id}" if guild_id else "global"
        return f"{self.application_id}:{where}", guild

    async def sync_commands(self, *, force: bool = False) -> bool:
        """Push the command set to Discord when it differs from the last one pushed.

        Discord allows 200 command creates per day per guild; a restart with unchanged
        commands makes no request. The digest of what was pushed is kept in the database.

        Returns:
            Whether a sync request was made.
        """
        scope, guild = self.sync_scope()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        digest = commands_digest(payload)
        stored = await self.db.run(bot_models.get_command_digest, scope=scope)
        if stored == digest and not force:
            log.info("commands unchanged for %s; not syncing", scope)
            return False
        synced = await self.tree.sync(guild=guild)
        await self.db.run(
            bot_models.set_command_digest,
            scope=scope,
            digest=digest,
            now=dt.datetime.now(dt.UTC),
        )
        log.info("synced %d commands to %s", len(synced), scope)
        return True


def load_rule_index(settings: Settings) -> rulings.rulebook.RuleIndex:
    """The bundled rulebooks plus those in ``RULEBOOK_DIR``.

    Raises:
        RulingsError: ``RULEBOOK_DIR`` is missing or holds an unreadable or empty book.
    """
    return rulings.rulebook.load_rulebooks(settings.rulebook_dir)


def home_rule_index(base: rulings.rulebook.RuleIndex, home: str) -> rulings.rulebook.RuleIndex:
    """``base``'s books indexed again with ``home`` ranked first.

    The parsed books and the glossary are shared, so no file is read again (the books stay
    exactly those of ``base``) and the build takes about half of a full load (~75 ms).
    """
    return rulings.rulebook.RuleIndex(base.books, home=home, glossary=base.glossary)
