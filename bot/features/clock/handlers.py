"""/clock: start, run and show the live tournament clock, whichever surface runs it.

The clock itself is ``bot.features.clock.service.ClockService``, an asyncio service that posts the
announcements as they fall due. A handler runs in a worker thread (Discord) or on the console's
thread, so it reaches the service through ``ClockDoor``: each call runs on the service's own
event loop and waits for its answer. The Discord bot's door posts to channels; the console's
prints the announcements while it waits for input. Without a door (the command line) only
``status`` answers, from the database.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from bot.command.model import Context
from bot.errors import BadOption
from bot.reply import Button, Reply
from rulings import ClockAction, position_at

if TYPE_CHECKING:
    from bot.features.clock.service import ClockService
    from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

T = TypeVar("T")

"""The console's one channel: its clock announces in the terminal."""


class ClockDoor:
    """A clock service seen from another thread: ``call`` runs a coroutine on its loop.

    Attributes:
        service: the clock service.
        loop: the event loop it runs on.
    """

    def __init__(self, service: ClockService, loop: asyncio.AbstractEventLoop) -> None:
        self.service = service
        self.loop = loop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the service's loop and wait for its result (or its error)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def now(self) -> dt.datetime:
        """The service's clock (tests inject one)."""
        return self.service.now()


def parse_warning_minutes(text: str) -> tuple[float, ...]:
    """``"5, 1"`` → ``(300.0, 60.0)``; ``"none"`` (or ``0``) → no warnings.

    >>> parse_warning_minutes("5, 1"), parse_warning_minutes("none")
    ((300.0, 60.0), ())

    Raises:
        BadOption: not a list of minutes (the range is checked when the clock is created).
    """
    words = text.replace(",", " ").split()
    if not words or [w.lower() for w in words] in (["none"], ["0"], ["off"]):
        return ()
    try:
        minutes = [float(w) for w in words]
    except ValueError:
        raise BadOption(
            f"warnings: '{text.strip()[:40]}' is not a list of minutes (e.g. '5 1' or 'none')."
        ) from None
    return tuple(sorted((m * 60 for m in minutes), reverse=True))


def _door(ctx: Context) -> ClockDoor:
    door = ctx.clock
    if not isinstance(door, ClockDoor):
        raise BadOption("The clock runs in Discord or the console, not on the command line.")
    return door


def _done(record: ClockRecord, now: dt.datetime) -> Reply:
    return Reply(title="Clock", text=position_at(record.state, now).summary, private=True)


BUTTONS: dict[str, tuple[str, str, ClockAction, float]] = {
    "pause": ("Pause", "secondary", ClockAction.PAUSE, 0.0),
    "resume": ("Resume", "success", ClockAction.RESUME, 0.0),
    "plus1": ("+1 min", "primary", ClockAction.ADD_TIME, 1.0),
}
"""A status message's buttons: label, style, what the clock does, and by how many minutes."""


def status_buttons(clock_id: int, *, paused: bool, ended: bool) -> tuple[Button, ...]:
    """The director buttons under a clock's status message (none once it has ended)."""
    if ended:
        return ()
    shown = ("resume" if paused else "pause", "plus1")
    return tuple(Button(BUTTONS[b][0], f"pf:clock:{b}:{clock_id}", BUTTONS[b][1]) for b in shown)


def button(ctx: Context, what: str, clock_id: str) -> Reply:
    """A status message's button: pause, resume or add a minute, confirmed privately.

    Raises:
        BadOption: a button this bot no longer has.
        NotFound: another server's clock (nothing is changed).
    """
    if what not in BUTTONS or not clock_id.isdigit():
        raise BadOption("That button no longer works; ask again.")
    door = _door(ctx)
    _, _, action, minutes = BUTTONS[what]
    record = door.call(
        door.service.act_on(
            int(clock_id), action, minutes, user_id=ctx.user_id or 0, guild_id=ctx.guild_id or 0
        )
    )
    return _done(record, door.now())


def start(
    ctx: Context,
    structure: str | None = None,
    level_minutes: float | None = None,
    channel: int | None = None,
    ping_role: int | None = None,
    warnings: str | None = None,
) -> Reply:
    """``/clock start [structure] ...``: a clock for this channel (one per channel).

    Without ``structure`` the clock runs the league's blind structure (its rules'
    ``blind_structure``: ``poker-pub`` for a Poker Pub league).
    """
    door = _door(ctx)
    if structure is None:
        structure = ctx.league_rules().blind_structure
    warning_seconds = parse_warning_minutes(warnings) if warnings is not None else None
    if ping_role is None and ctx.guild_id is not None:
        from storage.guild_settings import get_guild_settings

        settings = ctx.db.run_sync(get_guild_settings, guild_id=ctx.guild_id)
        ping_role = settings.clock_ping_role_id
    channel_id = channel if channel is not None else ctx.channel
    if ctx.guild_id is not None:  # not in a channel where another server's night runs
        from storage.tournaments import check_channel_guild

        ctx.db.run_sync(check_channel_guild, channel_id=channel_id, guild_id=ctx.guild_id)
    record = door.call(
        door.service.start_clock(
            guild_id=ctx.guild_id or 0,
            channel_id=channel_id,
            structure=structure,
            created_by=ctx.user_id or 0,
            level_minutes=level_minutes,
            ping_role_id=ping_role,
            warning_seconds=warning_seconds,
        )
    )
    title = record.state.structure.title
    where = f" in <#{channel_id}>" if ctx.surface == "discord" else ""
    text = f"{title} clock started{where}. {_done(record, door.now()).text}"
    return Reply(title="Clock started", text=text, private=True)


def _act(ctx: Context, action: ClockAction, value: float = 0.0) -> Reply:
    door = _door(ctx)
    record = door.call(
        door.service.act(
            ctx.channel, action, value, user_id=ctx.user_id, guild_id=ctx.guild_id or 0
        )
    )
    return _done(record, door.now())


def pause(ctx: Context) -> Reply:
    """``/clock pause``."""
    return _act(ctx, ClockAction.PAUSE)


def resume(ctx: Context) -> Reply:
    """``/clock resume``."""
    return _act(ctx, ClockAction.RESUME)


def next_level(ctx: Context) -> Reply:
    """``/clock next``."""
    return _act(ctx, ClockAction.NEXT)


def back(ctx: Context) -> Reply:
    """``/clock back``."""
    return _act(ctx, ClockAction.BACK)


def level(ctx: Context, n: int) -> Reply:
    """``/clock level n``."""
    return _act(ctx, ClockAction.LEVEL, n)


def add_time(ctx: Context, minutes: float) -> Reply:
    """``/clock add-time minutes`` (negative takes time off)."""
    return _act(ctx, ClockAction.ADD_TIME, minutes)


def ante(ctx: Context, amount: int) -> Reply:
    """``/clock ante amount``."""
    return _act(ctx, ClockAction.ANTE, amount)


def end(ctx: Context) -> Reply:
    """``/clock end``."""
    return _act(ctx, ClockAction.END)


def status(ctx: Context) -> Reply:
    """``/clock status``: this channel's clock; elsewhere, every running clock briefly."""
    from bot.features.clock.wording import running_clocks_reply, status_reply
    from storage import clocks
    from storage.errors import NotFound

    now = ctx.clock.now() if isinstance(ctx.clock, ClockDoor) else ctx.now()
    guild = ctx.guild_id if ctx.surface == "discord" else (ctx.guild_id or 0)
    try:
        record = ctx.db.run_sync(
            clocks.get_clock_for_channel, channel_id=ctx.channel, guild_id=guild
        )
    except NotFound:
        if ctx.surface == "discord":
            raise
        records = ctx.db.run_sync(clocks.list_running_clocks, guild_id=ctx.guild_id)
        return running_clocks_reply(records, now)
    link = None
    if ctx.settings.public_url is not None:
        from bot.surfaces.web.links import live_url
        from storage.live import is_live_page_shown_for_guild

        if ctx.db.run_sync(is_live_page_shown_for_guild, guild_id=record.guild_id):
            link = live_url(ctx.settings.public_url, record.channel_id)
    # Only a Discord message is edited as the clock runs; a terminal shows it once.
    live = ctx.surface == "discord"
    return replace(status_reply(record, now, live_url=link, live=live), private=True)
