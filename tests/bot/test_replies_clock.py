"""Clock replies shared by the cog and the console, and the console's /clock status."""

from __future__ import annotations

import datetime as dt
import io

from sqlalchemy.engine import Engine

from bot.config import Settings
from bot.features.clock.wording import running_clocks_reply
from bot.reply import Reply
from bot.surfaces.console import Console, ConsoleContext
from rulings import ClockAction
from storage.clocks import add_clock, add_clock_event, list_running_clocks
from storage.db import session_scope

T0 = dt.datetime(2026, 3, 5, 19, 0, tzinfo=dt.UTC)


def _clocks(engine: Engine) -> None:
    with session_scope(engine) as s:
        add_clock(
            session=s, guild_id=1, channel_id=10, structure="btown", started_at=T0, created_by=9
        )
        paused = add_clock(
            session=s,
            guild_id=1,
            channel_id=11,
            structure="poker-pub",
            started_at=T0,
            created_by=9,
        )
        add_clock_event(
            session=s,
            clock_id=paused.id,
            action=ClockAction.PAUSE,
            at=T0 + dt.timedelta(minutes=5),
        )
        add_clock(
            session=s,
            guild_id=2,
            channel_id=20,
            structure="bar-league",
            started_at=T0,
            created_by=9,
        )
        ended = add_clock(
            session=s, guild_id=1, channel_id=12, structure="btown", started_at=T0, created_by=9
        )
        add_clock_event(session=s, clock_id=ended.id, action=ClockAction.END, at=T0)


def _console(engine: Engine, guild_id: int | None = None, now: dt.datetime = T0) -> ConsoleContext:
    return ConsoleContext(
        settings=Settings(_env_file=None), engine=engine, guild_id=guild_id, now=lambda: now
    )


def clock_console(ctx: ConsoleContext, line: str) -> Reply:
    reply = Console(ctx).handle(f"/clock {line}".strip())
    assert reply is not None
    return reply


def test_console_clock_status_lists_every_running_clock_briefly(engine: Engine):
    _clocks(engine)
    reply = clock_console(_console(engine, now=T0 + dt.timedelta(minutes=65.5)), "status")
    assert reply.text == "3 running."
    assert reply.private  # /clock status is private on every surface (the one runner)
    assert [(f.name, f.value) for f in reply.fields] == [
        (
            "Clock 1: BTown Poker League, channel 10",
            "Level 4: blinds 400/800, 14:30 left; break 1 in 34:30",
        ),
        ("Clock 2: The Poker Pub, channel 11", "Level 1: blinds 25/50, 10:00 left (paused)"),
        ("Clock 3: Bar League, channel 20", "Level 3: blinds 4/8, 24:30 left"),
    ]
    one_server = clock_console(_console(engine, guild_id=2), "status")
    # a console speaking for a server with one running clock shows that clock in full
    assert one_server.title == "Tournament clock: Bar League"


def test_console_clock_status_without_clocks_says_so(engine: Engine):
    reply = clock_console(_console(engine), "status")
    assert (reply.text, reply.fields) == ("No clock is running.", ())


def test_console_clock_refuses_an_unknown_sub_command_on_one_line(engine: Engine):
    _clocks(engine)
    out, err = io.StringIO(), io.StringIO()
    lines = io.StringIO("/clock status\n/clock frobnicate\n")
    later = _console(engine, now=T0 + dt.timedelta(minutes=10))
    code = Console(later).run(lines, out, err, interactive=False)
    assert code == 0  # end of input: the mistake was answered on stderr
    assert "Clock 1: BTown Poker League, channel 10" in out.getvalue()
    assert "(paused)" in out.getvalue()
    assert err.getvalue().count("\n") == 1
    assert err.getvalue().startswith("Unknown command '/clock frobnicate'; /clock takes")


def test_more_clocks_than_fields_are_counted_in_the_footer(engine: Engine):
    with session_scope(engine) as s:
        for channel in range(30):
            add_clock(
                session=s,
                guild_id=1,
                channel_id=100 + channel,
                structure="btown",
                started_at=T0,
                created_by=9,
            )
        records = list_running_clocks(session=s)
    reply = running_clocks_reply(records, T0)
    assert len(reply.fields) == 25
    assert reply.footer == "And 5 more."
