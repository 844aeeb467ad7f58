"""Announcements claimed ahead: posted at their time from memory, settled after, never twice.

The service runs its own timer here (real time, levels of a few seconds); the database is a
SQLite file, the poster records what Discord would have received (and drops a repeated nonce,
as Discord does).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from bot.database import Database
from bot.features.clock.leases import announcement_nonce
from bot.features.clock.service import ClockService
from rulings import Announcement, BlindStructureError
from storage import clocks
from storage.db import create_schema, make_engine
from storage.errors import AlreadyExists
from tests.bot.test_clock_service import CHANNEL, Poster

LEVEL_MINUTES = 0.05  # 3 s levels


def file_engine(path: Path, *, busy_timeout_ms: int | None = None) -> Engine:
    engine = make_engine(f"sqlite:///{path}")
    if busy_timeout_ms is not None:

        @event.listens_for(engine, "connect")
        def _short(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")

    create_schema(engine)
    return engine


async def until_posted(poster: Poster, text: str, seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if any(t.startswith(text) for t in poster.texts() + poster.deduplicated):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} never posted: {poster.texts()}")


async def start(service: ClockService, **kw: Any) -> int:
    record = await service.start_clock(
        guild_id=1,
        channel_id=CHANNEL,
        structure="bar-league",
        created_by=9,
        level_minutes=LEVEL_MINUTES,
        **kw,
    )
    return record.id


async def die(service: ClockService) -> None:
    """What ``kill -9`` leaves: nothing of the service runs any more, nothing is released."""
    for task in [service._watcher, service._keeper, service._flusher, *service._tasks]:
        if task is not None:
            task.cancel()
    await service.jobs.stop()


async def test_the_timer_posts_claimed_ahead_levels_and_settles_them_after(tmp_path: Path):
    engine = file_engine(tmp_path / "clock.db")
    poster = Poster()
    service = ClockService(Database(engine), poster, status_interval=600, warning_seconds=())
    await service.start()
    try:
        clock_id = await start(service)
        record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
        for _ in range(100):  # the bookkeeping claims what falls due in the next minute
            if "0:start:5" in record.unsettled:
                break
            await asyncio.sleep(0.05)
            record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
        assert {"0:start:1", "0:start:5"} <= record.unsettled  # levels 2 and 6: ahead
        await until_posted(poster, "Level 3")
        assert poster.texts() == [
            "Level 1: blinds 1/2",
            "Level 2: blinds 2/4",
            "Level 3: blinds 4/8",
        ]
        for _ in range(100):
            record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
            if not record.unsettled & {"0:start:0", "0:start:1", "0:start:2"}:
                break
            await asyncio.sleep(0.05)
        assert not record.unsettled & {"0:start:0", "0:start:1", "0:start:2"}  # settled after
    finally:
        await service.stop()
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()  # a clean stop takes back what it claimed ahead
    assert "0:start:5" not in record.announced
    engine.dispose()


class DiesAfterPosting(Poster):
    """Discord receives the message starting with ``die_on``; the process dies before it hears."""

    def __init__(self, die_on: str) -> None:
        super().__init__()
        self.die_on = die_on
        self.reached = asyncio.Event()

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        await super().announce(channel_id, announcement, ping_role_id, nonce=nonce)
        if announcement.text.startswith(self.die_on):
            self.reached.set()
            await asyncio.Event().wait()


async def test_an_owner_dying_between_a_claimed_ahead_post_and_its_settling_costs_no_duplicate(
    tmp_path: Path,
):
    engine = file_engine(tmp_path / "clock.db")
    dying = DiesAfterPosting("Level 2")
    first = ClockService(
        Database(engine), dying, status_interval=600, warning_seconds=(), lease_seconds=1
    )
    await first.start()
    clock_id = await start(first)
    await asyncio.wait_for(dying.reached.wait(), 10)
    await die(first)
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert "0:start:1" in record.unsettled  # level 2: claimed ahead, posted, never settled
    assert "0:start:3" in record.unsettled  # level 4: claimed ahead, not due yet

    poster = Poster(nonces=list(dying.nonces))  # Discord remembers the nonces it has seen
    second = ClockService(
        Database(engine), poster, status_interval=600, warning_seconds=(), lease_seconds=1
    )
    await asyncio.sleep(1.2)  # the dead owner's lease runs out
    await second.start()
    try:
        await until_posted(poster, "Level 4")
        # Level 2 again with its nonce (Discord drops it); 3 and 4 at their time, once each:
        # the dead owner's claims ahead are the adopter's to post.
        assert poster.deduplicated == ["Level 2: blinds 2/4"]
        assert poster.texts() == ["Level 3: blinds 4/8", "Level 4: blinds 8/16"]
        record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
        assert poster.nonces[-1] == announcement_nonce(record, "0:start:3")
        assert dying.texts() + poster.texts() == [
            "Level 1: blinds 1/2",
            "Level 2: blinds 2/4",
            "Level 3: blinds 4/8",
            "Level 4: blinds 8/16",
        ]
    finally:
        await second.stop()
        engine.dispose()


async def test_a_warning_the_timer_could_not_post_in_time_is_dropped_not_posted_late(
    tmp_path: Path,
):
    path = tmp_path / "clock.db"
    engine = file_engine(path, busy_timeout_ms=50)
    poster = Poster()
    service = ClockService(
        Database(engine, retry_seconds=0.2),
        poster,
        status_interval=600,
        warning_seconds=(3,),
        claim_ahead=0,  # claimed at its time: a held write lock delays the claim
        stale_warning_s=1.0,
    )
    await service.start()
    other = None
    try:
        started = await service.start_clock(
            guild_id=1, channel_id=CHANNEL, structure="bar-league", created_by=9, level_minutes=0.1
        )
        await asyncio.sleep(1.0)
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # across the warning (3 s) and 2 s more
        await asyncio.sleep(4.5)
        other.rollback()
        other.close()
        other = None
        await until_posted(poster, "Level 2")
        assert poster.texts() == ["Level 1: blinds 1/2", "Level 2: blinds 2/4"]
        record = await Database(engine).run(clocks.get_clock, clock_id=started.id)
        assert "0.0:warn3:0" in record.announced  # claimed and done with: never posted late
    finally:
        if other is not None:
            other.rollback()
            other.close()
        await service.stop()
        engine.dispose()


async def test_clocks_started_together_share_one_transaction_and_a_refused_start_fails_alone(
    tmp_path: Path,
):
    engine = file_engine(tmp_path / "clock.db")
    commits = [0]
    inserted_in: list[int] = []  # per clock row inserted: how many commits came before it

    @event.listens_for(engine, "commit")
    def _committed(_conn: Any) -> None:
        commits[0] += 1

    @event.listens_for(engine, "before_cursor_execute")
    def _inserting(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("INSERT INTO clock "):
            inserted_in.append(commits[0])

    poster = Poster()
    service = ClockService(Database(engine), poster, status_interval=600, warning_seconds=())
    await service.start()
    try:
        channels = [CHANNEL, CHANNEL + 1, CHANNEL + 2, CHANNEL]  # the second in CHANNEL: refused
        asked = [
            service.start_clock(
                guild_id=1,
                channel_id=channel,
                structure="bar-league",
                created_by=9,
                level_minutes=LEVEL_MINUTES,
            )
            for channel in channels
        ]
        unknown = service.start_clock(
            guild_id=1, channel_id=CHANNEL + 3, structure="no-such", created_by=9
        )
        *results, refused = await asyncio.gather(*asked, unknown, return_exceptions=True)
        started, again = results[:3], results[3]
        assert [type(r).__name__ for r in started] == ["ClockRecord"] * 3
        assert isinstance(again, AlreadyExists)
        assert isinstance(refused, BlindStructureError)
        assert len(inserted_in) == 3
        assert len(set(inserted_in)) == 1  # one transaction
        running = await Database(engine).run(clocks.list_running_clocks)
        assert sorted(r.channel_id for r in running) == channels[:3]
        await until_posted(poster, "Level 1")
        level1 = sorted(c for c, text, *_ in poster.posts if text.startswith("Level 1"))
        assert level1 == channels[:3]  # once each, none for the refused starts
        for _ in range(100):  # the status messages' ids are stored behind their posts
            running = await Database(engine).run(clocks.list_running_clocks)
            if all(r.status_message_id is not None for r in running):
                break
            await asyncio.sleep(0.05)
        assert {r.status_message_id for r in running} == {i for _, i, _ in poster.statuses}
    finally:
        await service.stop()
