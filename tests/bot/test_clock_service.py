"""The clock service with injected time and a recording poster (no scheduler, no Discord)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from bot.database import Database
from bot.features.clock.leases import announcement_nonce, new_instance_id, start_many
from bot.features.clock.posting import ClockStatus, PostRejected
from bot.features.clock.service import ClockService
from bot.features.clock.wording import status_reply
from rulings import (
    Announcement,
    Arrival,
    BlindStructureError,
    ClockAction,
    ClockError,
    Room,
    load_league_rules,
    sign_in,
)
from storage import clocks
from storage.db import create_schema, make_engine, session_scope
from storage.errors import AlreadyExists, NotFound
from storage.leagues import ensure_league
from storage.tournaments import add_entry, open_tournament

T0 = dt.datetime(2026, 3, 5, 19, 0, tzinfo=dt.UTC)
CHANNEL = 555
ROLE = 777


@dataclass
class Poster:
    """Records what the service posts."""

    posts: list[tuple[int, str, bool, int | None]] = field(default_factory=list)
    statuses: list[tuple[str, int, ClockStatus]] = field(default_factory=list)
    nonces: list[str | None] = field(default_factory=list)
    deduplicated: list[str] = field(default_factory=list)  # texts Discord dropped (same nonce)
    fail_next: bool = False
    reject_next: bool = False
    deleted: set[int] = field(default_factory=set)
    _ids: int = 1000

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("Discord is down")
        if self.reject_next:
            self.reject_next = False
            raise PostRejected("403 Missing Access")
        if nonce is not None and nonce in self.nonces:  # Discord's enforce_nonce
            self.deduplicated.append(announcement.text)
            return
        self.nonces.append(nonce)
        self.posts.append((channel_id, announcement.text, announcement.pings, ping_role_id))

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        self._ids += 1
        self.statuses.append(("post", self._ids, status))
        return self._ids

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        if message_id in self.deleted:
            return False
        self.statuses.append(("edit", message_id, status))
        return True

    def texts(self) -> list[str]:
        return [p[1] for p in self.posts]


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += dt.timedelta(minutes=minutes)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def poster() -> Poster:
    return Poster()


@pytest.fixture
def service(engine: Engine, poster: Poster, clock: Clock) -> ClockService:
    return ClockService(Database(engine), poster, now=clock, status_interval=0)


async def start(service: ClockService, **kw: Any) -> int:
    record = await service.start_clock(
        guild_id=1, channel_id=CHANNEL, structure=kw.pop("structure", "btown"), created_by=9, **kw
    )
    return record.id


async def test_start_posts_status_then_level_1(service: ClockService, poster: Poster):
    await start(service, ping_role_id=ROLE)
    assert poster.posts == [(CHANNEL, "Level 1: blinds 100/200", True, ROLE)]
    kind, _, status = poster.statuses[0]
    assert kind == "post"
    assert status.reply.fields[0].value == "**Level 1**: blinds **100/200**"
    assert not status.is_paused


async def test_due_announcements_are_posted_once_in_order(
    service: ClockService, poster: Poster, clock: Clock
):
    clock_id = await start(service)
    clock.advance(19)
    await service.run_due(clock_id)
    await service.run_due(clock_id)  # nothing new
    clock.advance(1)
    await service.run_due(clock_id)
    assert poster.texts() == [
        "Level 1: blinds 100/200",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
        "Level 2: blinds 200/400",
    ]
    assert [p[2] for p in poster.posts] == [True, False, True]  # only levels ping


async def test_director_actions_post_at_once_and_bad_ones_change_nothing(
    service: ClockService, poster: Poster, clock: Clock
):
    await start(service)
    clock.advance(5)
    await service.act(CHANNEL, ClockAction.PAUSE, user_id=9)
    with pytest.raises(ClockError, match="already paused"):
        await service.act(CHANNEL, ClockAction.PAUSE)
    clock.advance(30)
    await service.act(CHANNEL, ClockAction.RESUME)
    await service.act(CHANNEL, ClockAction.NEXT)
    with pytest.raises(BlindStructureError, match=r"small blind \(200\)"):
        await service.act(CHANNEL, ClockAction.ANTE, 300)
    assert poster.texts() == [
        "Level 1: blinds 100/200",
        "The clock is paused: level 1 (100/200), 15:00 left.",
        "The clock is running again: level 1 (100/200), 15:00 left.",
        "Level 2: blinds 200/400",
    ]
    with pytest.raises(NotFound, match="No clock is running"):
        await service.act(CHANNEL + 1, ClockAction.PAUSE)


async def test_a_clock_announcing_elsewhere_is_found_from_its_server(
    service: ClockService, poster: Poster
):
    await start(service)
    await service.act(CHANNEL + 1, ClockAction.PAUSE, guild_id=1)
    assert poster.texts()[-1].startswith("The clock is paused")
    reply = await service.status(CHANNEL + 1, guild_id=1)
    assert "(paused)" in reply.fields[1].value


async def test_one_clock_per_channel_but_several_per_server(service: ClockService, poster: Poster):
    await start(service)
    with pytest.raises(AlreadyExists):
        await start(service)
    await service.start_clock(
        guild_id=1, channel_id=CHANNEL + 1, structure="poker-pub", created_by=9
    )
    assert [p[0] for p in poster.posts] == [CHANNEL, CHANNEL + 1]
    with pytest.raises(NotFound, match="Several clocks"):
        await service.act(CHANNEL + 2, ClockAction.PAUSE, guild_id=1)


async def test_restart_collapses_missed_announcements_into_one_catch_up(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    await start(service, ping_role_id=ROLE)
    clock.advance(15)
    await service.run_due(1)
    await service.stop()
    # down for an hour and a half: level 2..5, break 1 and level 6 were missed
    clock.advance(100)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await restarted.resume_all() == 1
    assert poster.texts()[1:] == [
        "We are now at level 6: blinds 1,000/2,000, 15:00 left. Late registration is closed."
    ]
    assert poster.posts[-1][2] is True  # it covers level announcements: pings the role
    again = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await again.resume_all() == 0  # a second instance at once: the clock has an owner
    clock.advance(14)
    await again.run_due(1)  # not its clock: nothing
    await restarted.run_due(1)
    assert poster.texts()[2:] == ["One minute left in level 6. Next: level 7: blinds 2,000/4,000."]


async def test_several_clocks_resume_each_with_its_own_catch_up(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    await start(service)
    await service.start_clock(guild_id=1, channel_id=CHANNEL + 1, structure="btown", created_by=9)
    await service.start_clock(
        guild_id=2, channel_id=CHANNEL + 2, structure="poker-pub", created_by=9
    )
    clock.advance(5)
    await service.act(CHANNEL + 1, ClockAction.PAUSE)
    await service.stop()
    clock.advance(110)
    after = len(poster.posts)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await restarted.resume_all() == 3
    assert sorted(poster.posts[after:]) == [
        (CHANNEL, "We are now at level 6: blinds 1,000/2,000, 15:00 left. "
         "Late registration is closed.", True, None),
        (CHANNEL + 2, "We are now at level 7: blinds 1,600/3,200, 5:00 left. "
         "Late registration is closed.", True, None),
    ]  # fmt: skip
    reply = await restarted.status(CHANNEL + 1)
    assert reply.fields[1].value == "15:00 (paused)"  # the paused one stayed paused, silently


async def test_restart_with_nothing_missed_posts_nothing(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    await start(service)
    clock.advance(3)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    assert poster.texts() == ["Level 1: blinds 100/200"]


async def test_a_paused_clock_stays_paused_across_a_restart(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    await start(service)
    clock.advance(5)
    await service.act(CHANNEL, ClockAction.PAUSE)
    clock.advance(60)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    assert len(poster.texts()) == 2
    reply = await restarted.status(CHANNEL)
    assert reply.fields[1].value == "15:00 (paused)"


async def test_a_post_that_fails_is_retried_with_the_same_nonce_and_posted_once(
    engine: Engine, poster: Poster, clock: Clock
):
    service = ClockService(
        Database(engine), poster, now=clock, status_interval=0, post_retry_delays=(0.0,)
    )
    clock_id = await start(service)
    clock.advance(19)
    poster.fail_next = True  # Discord answers 5xx once: the post is tried again
    await service.run_due(clock_id)
    await service.run_due(clock_id)
    assert poster.texts() == [
        "Level 1: blinds 100/200",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
    ]
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert poster.nonces[1] == announcement_nonce(record, "0.0:warn60:0")
    assert len(set(poster.nonces)) == 2
    assert all(len(n or "") == 25 for n in poster.nonces)
    assert await Database(engine).run(clocks.count_announcements, clock_id=clock_id) == 2


async def test_a_post_discord_refuses_is_given_up_not_repeated(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    clock_id = await start(service)
    clock.advance(19)
    poster.reject_next = True  # 403: no retry can help
    await service.run_due(clock_id)  # the warning is lost, not retried
    await service.run_due(clock_id)
    assert poster.texts() == ["Level 1: blinds 100/200"]
    assert await Database(engine).run(clocks.count_announcements, clock_id=clock_id) == 2


async def test_status_is_edited_only_when_it_changes(engine: Engine, poster: Poster, clock: Clock):
    service = ClockService(Database(engine), poster, now=clock, status_interval=0)
    clock_id = await start(service)
    await service.act(CHANNEL, ClockAction.PAUSE)
    edits = len(poster.statuses)
    clock.advance(1)
    await service._status(clock_id)  # paused: nothing changed, no edit
    assert len(poster.statuses) == edits
    assert poster.statuses[-1][2].is_paused
    poster.deleted.add(poster.statuses[0][1])
    await service.act(CHANNEL, ClockAction.RESUME)
    assert poster.statuses[-1][0] == "post"  # the status message was deleted: a new one
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.status_message_id == poster.statuses[-1][1]


async def test_status_edits_wait_for_the_interval(engine: Engine, poster: Poster, clock: Clock):
    service = ClockService(Database(engine), poster, now=clock, status_interval=30)
    await start(service)
    await service.act(CHANNEL, ClockAction.PAUSE)
    await service.act(CHANNEL, ClockAction.RESUME)
    assert [s[0] for s in poster.statuses] == ["post"]  # edits wait for the 30 s window


async def test_warnings_are_configurable(engine: Engine, poster: Poster, clock: Clock):
    service = ClockService(Database(engine), poster, now=clock, warning_seconds=(300, 60))
    clock_id = await start(service)
    clock.advance(19)
    await service.run_due(clock_id)
    assert poster.texts()[1:] == [
        "5 minutes left in level 1. Next: level 2: blinds 200/400.",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
    ]


async def test_a_clock_may_have_its_own_warnings_or_none(
    service: ClockService, poster: Poster, clock: Clock
):
    clock_id = await start(service, warning_seconds=())
    other = await service.start_clock(
        guild_id=1,
        channel_id=CHANNEL + 1,
        structure="btown",
        created_by=9,
        warning_seconds=(120.0,),
    )
    clock.advance(19.5)
    await service.run_due(clock_id)
    await service.run_due(other.id)
    assert poster.texts()[2:] == ["2 minutes left in level 1. Next: level 2: blinds 200/400."]
    assert poster.posts[-1][0] == CHANNEL + 1


async def test_end_posts_a_final_status_without_buttons(
    service: ClockService, poster: Poster, clock: Clock
):
    await start(service)
    clock.advance(30)
    await service.act(CHANNEL, ClockAction.END)
    assert poster.texts()[-1] == "The clock has been stopped at level 2 (200/400)."
    assert poster.statuses[-1][2].is_ended
    with pytest.raises(NotFound):
        await service.status(CHANNEL)


def test_status_reply_names_level_time_next_level_break_and_late_registration():
    from rulings import ClockState, load_structure
    from storage.clocks import ClockRecord

    state = ClockState(load_structure("btown"), T0, 1200, 600)
    record = ClockRecord(1, 1, CHANNEL, None, None, 9, state, frozenset())
    reply = status_reply(record, T0 + dt.timedelta(minutes=65.5))
    values = {f.name: f.value for f in reply.fields}
    assert values["Now"] == "**Level 4**: blinds **400/800**"
    assert values["Time left"].startswith("14:30 (ends <t:")
    assert values["Next level"] == "5: 500/1,000"
    assert values["Next break"] == "Break 1 in 34:30"
    assert values["Late registration"] == (
        "Open until the end of break 1; a late player starts 1,600 short (1.E.d)"
    )


class HangingPoster(Poster):
    """Posts normally until a message starting with ``hang_on``: then blocks until cancelled."""

    def __init__(self, hang_on: str) -> None:
        super().__init__()
        self.hang_on = hang_on
        self.reached = asyncio.Event()

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        if announcement.text.startswith(self.hang_on):
            self.reached.set()
            await asyncio.Event().wait()  # the process dies here
        await super().announce(channel_id, announcement, ping_role_id, nonce=nonce)


async def crash_while_posting(service: ClockService, poster: HangingPoster, coro: Any) -> None:
    """Run ``coro`` until the poster blocks, then kill it (what dying mid-post leaves behind)."""
    task = asyncio.create_task(coro)
    await asyncio.wait_for(poster.reached.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await service.stop()


async def test_a_crash_between_claim_and_post_is_retried_and_discord_drops_the_repeat(
    engine: Engine, clock: Clock
):
    crashing = HangingPoster("Level 2")
    service = ClockService(Database(engine), crashing, now=clock, status_interval=0)
    clock_id = await start(service, ping_role_id=ROLE)
    clock.advance(20)  # the warning and level 2 are due; the process dies posting level 2
    await crash_while_posting(service, crashing, service.run_due(clock_id))
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    # claimed together, settled together: the posted warning is unsettled as well
    assert record.unsettled == {"0.0:warn60:0", "0:start:1"}
    assert crashing.texts()[-1].startswith("One minute left in level 1")

    clock.advance(0.5)
    poster = Poster(nonces=crashing.nonces)  # Discord remembers the nonces it has seen
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    # Both claims are posted again with their nonces: Discord drops the warning it has.
    assert poster.posts == [(CHANNEL, "Level 2: blinds 200/400", True, ROLE)]
    assert poster.deduplicated == ["One minute left in level 1. Next: level 2: blinds 200/400."]
    again = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await again.resume_all() == 0  # settled, and owned by a live instance
    clock.advance(19)
    await restarted.run_due(clock_id)
    assert poster.texts()[1:] == ["One minute left in level 2. Next: level 3: blinds 300/600."]
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()


async def test_unsettled_claims_older_than_the_nonce_window_fold_into_a_catch_up(
    engine: Engine, clock: Clock
):
    crashing = HangingPoster("Level 2")
    service = ClockService(Database(engine), crashing, now=clock, status_interval=0)
    clock_id = await start(service, ping_role_id=ROLE)
    clock.advance(20)
    await crash_while_posting(service, crashing, service.run_due(clock_id))
    clock.advance(2)  # past Discord's nonce memory: a repeat would not be dropped
    poster = Poster(nonces=crashing.nonces)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    assert poster.posts == [
        (CHANNEL, "We are now at level 2: blinds 200/400, 18:00 left.", True, ROLE)
    ]
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()


async def test_a_crash_while_posting_the_catch_up_is_covered_by_the_next_restart(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    clock_id = await start(service)
    await service.stop()
    clock.advance(45)  # down through level 2 into level 3
    crashing = HangingPoster("We are now")
    first = ClockService(Database(engine), crashing, now=clock, status_interval=0)
    await crash_while_posting(first, crashing, first.resume_all())
    clock.advance(1)
    second = Poster()
    restarted = ClockService(Database(engine), second, now=clock, status_interval=0)
    await restarted.resume_all()
    # the catch-up alone, under its first key (and nonce), never what it covered
    assert second.texts() == ["We are now at level 3: blinds 300/600, 14:00 left."]
    assert crashing.texts() == []
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()


async def test_a_post_that_fails_is_settled_so_a_restart_posts_no_catch_up(
    engine: Engine, service: ClockService, poster: Poster, clock: Clock
):
    clock_id = await start(service)
    clock.advance(20)
    poster.reject_next = True  # Discord refuses the warning: given up, not a crash
    await service.run_due(clock_id)
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()
    await service.stop()
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    assert poster.texts() == ["Level 1: blinds 100/200", "Level 2: blinds 200/400"]


_DIE_WHILE_POSTING = """
import asyncio, datetime as dt, os, sys
from bot.features.clock.service import ClockService
from bot.database import Database
from storage.db import make_engine

class DyingPoster:
    async def announce(self, channel_id, announcement, ping_role_id, *, nonce=None):
        if announcement.text.startswith("Level 2"):
            os._exit(3)  # the process dies between the claim and the post
        print(nonce, flush=True)  # what Discord received
    async def post_status(self, channel_id, status):
        return 1
    async def edit_status(self, channel_id, message_id, status):
        return True

now = [dt.datetime.fromisoformat(sys.argv[2])]
service = ClockService(
    Database(make_engine(sys.argv[1])), DyingPoster(), now=lambda: now[0], instance_id=sys.argv[4]
)

async def main():
    await service.resume_all()  # its own clock (same instance id): nothing missed
    now[0] = dt.datetime.fromisoformat(sys.argv[3])
    await service.run_due(1)

asyncio.run(main())
"""


async def test_a_process_that_dies_after_the_claim_costs_no_duplicate(tmp_path: Path, clock: Clock):
    url = f"sqlite:///{tmp_path / 'clock.db'}"
    engine = make_engine(url)
    create_schema(engine)
    poster = Poster()
    service = ClockService(
        Database(engine), poster, now=clock, status_interval=0, instance_id="first"
    )
    await start(service)
    started = clock.now
    clock.advance(20)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _DIE_WHILE_POSTING,
        url,
        started.isoformat(),
        clock.now.isoformat(),
        "first",
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    assert process.returncode == 3
    poster.nonces.extend(out.decode().split())  # the warning reached Discord
    record = await Database(engine).run(clocks.get_clock, clock_id=1)
    assert len(record.unsettled) == 2  # the warning (posted or not, nobody knows) and level 2
    clock.advance(1)
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    await restarted.resume_all()
    assert poster.texts() == ["Level 1: blinds 100/200", "Level 2: blinds 200/400"]
    assert poster.deduplicated == ["One minute left in level 1. Next: level 2: blinds 200/400."]
    engine.dispose()


def _fail_fast_engine(path: Path) -> Engine:
    from sqlalchemy import event

    engine = make_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _short(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA busy_timeout=50")  # fail fast: the retries are tested

    create_schema(engine)
    return engine


async def wait_for_text(poster: Poster, text: str, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if text in poster.texts():
            return
        await asyncio.sleep(0.05)


async def test_a_database_locked_past_a_level_not_claimed_ahead_delays_it_but_never_drops_the_clock(
    tmp_path: Path,
):
    import sqlite3

    path = tmp_path / "locked.db"
    engine = _fail_fast_engine(path)
    poster = Poster()
    service = ClockService(
        Database(engine, retry_seconds=0.2),
        poster,
        status_interval=600,
        warning_seconds=(),
        claim_ahead=0,  # nothing claimed ahead: each announcement is claimed at its time
    )
    await service.start()
    try:
        await service.start_clock(
            guild_id=1, channel_id=CHANNEL, structure="bar-league", created_by=9, level_minutes=0.05
        )
        await asyncio.sleep(1.5)
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # a long import holds the write lock across level 2
        await asyncio.sleep(3.0)
        assert poster.texts() == ["Level 1: blinds 1/2"]
        other.rollback()
        other.close()
        await wait_for_text(poster, "Level 3: blinds 4/8")
        assert poster.texts() == [
            "Level 1: blinds 1/2",
            "Level 2: blinds 2/4",
            "Level 3: blinds 4/8",
        ]
    finally:
        await service.stop()
        engine.dispose()


async def test_a_database_locked_across_levels_claimed_ahead_posts_them_on_time_and_records_after(
    tmp_path: Path,
):
    import sqlite3

    path = tmp_path / "locked.db"
    engine = _fail_fast_engine(path)
    poster = Poster()
    service = ClockService(
        Database(engine, retry_seconds=0.2), poster, status_interval=600, warning_seconds=()
    )
    await service.start()
    other = None
    try:
        record = await service.start_clock(
            guild_id=1, channel_id=CHANNEL, structure="bar-league", created_by=9, level_minutes=0.05
        )
        await asyncio.sleep(1.5)
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # a long import holds the write lock across 2 levels
        await asyncio.sleep(5.0)  # level 2 at 3 s and level 3 at 6 s (lease: 10 s)
        assert poster.texts() == [
            "Level 1: blinds 1/2",
            "Level 2: blinds 2/4",
            "Level 3: blinds 4/8",
        ]
        during = await Database(engine).run(clocks.get_clock, clock_id=record.id)
        assert {"0:start:1", "0:start:2"} <= during.unsettled  # claimed ahead, not settled yet
        other.rollback()
        other.close()
        other = None
        await wait_for_text(poster, "Level 4: blinds 8/16")
        assert poster.texts()[3:] == ["Level 4: blinds 8/16"]
        for _ in range(100):  # the bookkeeping settles what went out
            after = await Database(engine).run(clocks.get_clock, clock_id=record.id)
            if not after.unsettled & {"0:start:1", "0:start:2", "0:start:3"}:
                break
            await asyncio.sleep(0.05)
        assert not after.unsettled & {"0:start:1", "0:start:2", "0:start:3"}
        assert {"0:start:0", "0:start:1", "0:start:2", "0:start:3"} <= after.announced
    finally:
        if other is not None:
            other.rollback()
            other.close()
        await service.stop()
        engine.dispose()


async def test_a_restart_on_the_same_machine_takes_its_dead_former_selfs_clocks_at_once(
    engine: Engine, poster: Poster, clock: Clock
):
    host = new_instance_id().split(":")[0]
    earlier_life = f"{host}:{os.getpid()}:0:dead"  # this pid, an earlier process (pid 1 again)
    gone = f"{host}:999999999:0:dead"  # a pid that no longer runs
    elsewhere = "another-machine:1:0:live"  # its lease decides
    for channel, owner in ((CHANNEL, earlier_life), (CHANNEL + 1, gone), (CHANNEL + 2, elsewhere)):
        await Database(engine).run(
            clocks.add_clock,
            guild_id=1,
            channel_id=channel,
            structure="btown",
            started_at=clock.now,
            created_by=9,
            owner_id=owner,
            lease_until=clock.now + dt.timedelta(seconds=10),
        )
    restarted = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await restarted.resume_all() == 2  # within the leases
    assert restarted.owned == {1, 2}
    sibling = ClockService(Database(engine), poster, now=clock, status_interval=0)
    assert await sibling.resume_all() == 0  # a live service of this same process keeps its own


class SlowPoster(Poster):
    """Posts normally, but a message starting with ``slow_on`` waits for ``go``."""

    def __init__(self, slow_on: str) -> None:
        super().__init__()
        self.slow_on = slow_on
        self.reached = asyncio.Event()
        self.go = asyncio.Event()

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        if announcement.text.startswith(self.slow_on):
            self.reached.set()
            await self.go.wait()
        await super().announce(channel_id, announcement, ping_role_id, nonce=nonce)


async def test_a_starting_instance_never_touches_a_live_owners_claims(engine: Engine, clock: Clock):
    slow = SlowPoster("Level 2")
    owner = ClockService(Database(engine), slow, now=clock, status_interval=0)
    clock_id = await start(owner)
    clock.advance(20)
    posting = asyncio.create_task(owner.run_due(clock_id))  # level 2 in flight (slow Discord)
    await asyncio.wait_for(slow.reached.wait(), 5)
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == {"0.0:warn60:0", "0:start:1"}

    other = Poster(nonces=slow.nonces)
    newcomer = ClockService(Database(engine), other, now=clock, status_interval=0)
    assert await newcomer.resume_all() == 0  # the owner's lease is alive
    await newcomer.run_due(clock_id)  # and a stray job of the newcomer's posts nothing
    slow.go.set()
    await posting
    assert other.posts == []
    assert slow.texts()[-2:] == [
        "One minute left in level 1. Next: level 2: blinds 200/400.",
        "Level 2: blinds 200/400",
    ]
    record = await Database(engine).run(clocks.get_clock, clock_id=clock_id)
    assert record.unsettled == frozenset()
    assert record.owner_id == owner.instance_id


async def test_status_shows_players_left_and_average_stack_while_a_tournament_runs_13(
    engine: Engine, service: ClockService, poster: Poster
):
    rules = load_league_rules()
    rng = random.Random(5)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=T0)
        rec = open_tournament(
            session=s,
            league_id=league.id,
            channel_id=CHANNEL,
            room=Room("Brewpub", "2026 Fall", 2, 8),
            actor="td",
            now=T0,
        )
        for name in ("Ann", "Bob", "Cy"):
            night, entry, _ = sign_in(rec.night, name, Arrival(), rules, rng)
            rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td")
    await start(service)
    _, _, status = poster.statuses[-1]
    fields = {f.name: f.value for f in status.reply.fields}
    assert fields["Tournament"] == "Tournament: 3 players left, average stack 18,000"
    other = await service.start_clock(
        guild_id=1, channel_id=CHANNEL + 1, structure="btown", created_by=9
    )
    assert other.channel_id == CHANNEL + 1
    _, _, status = poster.statuses[-1]
    assert "Tournament" not in {f.name for f in status.reply.fields}  # no tournament there


async def test_a_post_refused_or_given_up_is_reported_off_the_posting_path(
    engine: Engine, poster: Poster, clock: Clock
):
    reported: list[tuple[int, str, str]] = []

    async def on_post_failure(record: Any, what: str, exc: BaseException) -> None:
        reported.append((record.id, what, str(exc)))

    service = ClockService(
        Database(engine),
        poster,
        now=clock,
        status_interval=0,
        post_retry_delays=(0.0,),
        on_post_failure=on_post_failure,
    )
    clock_id = await start(service)
    clock.advance(19)
    poster.reject_next = True  # 403: reported once, not retried
    await service.run_due(clock_id)
    clock.advance(1)

    async def always_down(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Discord is down")

    poster.announce = always_down  # type: ignore[method-assign]  # every retry fails: given up
    await service.run_due(clock_id)
    for _ in range(10):  # the reports run in tasks of their own
        await asyncio.sleep(0)
    assert reported == [
        (clock_id, "0.0:warn60:0", "403 Missing Access"),
        (clock_id, "0:start:1", "Discord is down"),  # level 2
    ]
    await service.stop()


class HeartbeatAmidStart(Database):
    """Runs the service's heartbeat once a start's transaction is committed, before it goes on."""

    service: ClockService | None = None
    resumed: set[int] | None = None

    async def run(self, fn: Any, /, **kwargs: Any) -> Any:
        result = await super().run(fn, **kwargs)
        if fn is start_many and self.service is not None:
            service, self.service = self.service, None
            self.resumed = await service._heartbeat()
        return result


async def test_a_heartbeat_amid_a_start_does_not_take_its_clock_for_one_left_behind(
    engine: Engine, poster: Poster, clock: Clock
):
    db = HeartbeatAmidStart(engine)
    service = ClockService(db, poster, now=clock, status_interval=0)
    db.service = service
    await start(service)
    assert db.resumed == set()  # stored, not yet run here: no catch-up for it
    assert poster.texts() == ["Level 1: blinds 100/200"]
