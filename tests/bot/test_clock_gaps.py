"""The clock's other work kept in the gaps between announcements (``bot.features.clock.gaps``),
and the status messages' reads shared (``bot.features.clock.status.Contexts``).

Real time, short waits; no assertion on how long anything took: only on what came first.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from bot.database import Database
from bot.features.clock import gaps
from bot.features.clock.gaps import STATUS_EDITS_AT_ONCE, clear_of_announcements, collect_in_gap
from bot.features.clock.jobs import ClockJobs
from bot.features.clock.posting import ClockStatus
from bot.features.clock.service import ClockService
from bot.features.clock.status import Contexts, read_contexts
from rulings import Arrival, Room, load_league_rules, sign_in
from storage.db import session_scope
from storage.guild_settings import update_guild_settings
from storage.leagues import ensure_league
from storage.live import is_live_page_shown_for_guild
from storage.tournaments import add_entry, open_tournament, tournament_status_line
from tests.bot.test_clock_card import T0 as CARD_T0
from tests.bot.test_clock_card import Now
from tests.bot.test_clock_card import Poster as CardPoster
from tests.bot.test_clock_service import CHANNEL, T0


def utc_in(seconds: float) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


async def test_bookkeeping_waits_while_a_batch_posts_and_goes_once_it_has_posted():
    jobs = ClockJobs()
    jobs.start()
    quiet = asyncio.Event()  # a batch is posting
    posting = [True]
    try:
        waiting = asyncio.create_task(
            clear_of_announcements(jobs, lambda: posting[0], quiet, most=30)
        )
        for _ in range(20):
            await asyncio.sleep(0)
        assert not waiting.done()
        posting[0] = False
        quiet.set()
        await asyncio.wait_for(waiting, 10)
    finally:
        await jobs.stop()


async def test_bookkeeping_does_not_start_just_before_an_announcement_falls_due():
    jobs = ClockJobs()
    jobs.start()
    order: list[str] = []
    try:
        jobs.at("clock:1", utc_in(gaps.CLEAR_AHEAD_S / 2), order.append, "announcement")
        jobs.at("clock-status:1", utc_in(0), order.append, "status")  # not an announcement
        await asyncio.wait_for(
            clear_of_announcements(jobs, lambda: False, asyncio.Event(), most=30), 10
        )
        order.append("bookkeeping")
        assert order == ["status", "announcement", "bookkeeping"]
    finally:
        await jobs.stop()


async def test_bookkeeping_waits_for_a_gap_no_longer_than_its_bound():
    jobs = ClockJobs()
    jobs.start()
    try:  # a batch that never ends: the heartbeat goes anyway
        await asyncio.wait_for(
            clear_of_announcements(jobs, lambda: True, asyncio.Event(), most=0.05), 10
        )
    finally:
        await jobs.stop()


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The full collections made, the collector's count at half its threshold."""
    made: list[int] = []

    def collect(generation: int = 2) -> int:
        made.append(generation)
        return 0

    monkeypatch.setattr(gc, "get_threshold", lambda: (700, 10, 10))
    monkeypatch.setattr(gc, "get_count", lambda: (0, 0, 5))
    monkeypatch.setattr(gc, "collect", collect)
    return made


async def test_a_near_full_collection_is_made_in_a_gap_and_never_just_before_an_announcement(
    collections: list[int],
):
    jobs = ClockJobs()
    jobs.start()
    try:
        jobs.at("clock:1", utc_in(gaps.GC_GAP_S / 2), lambda: None)
        assert not collect_in_gap(jobs)
        jobs.at("clock:1", utc_in(gaps.GC_GAP_S * 5), lambda: None)
        assert collect_in_gap(jobs)
        assert collections == [2]
    finally:
        await jobs.stop()


async def test_no_full_collection_is_brought_forward_while_the_collector_is_far_from_one(
    collections: list[int], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(gc, "get_count", lambda: (0, 0, 4))
    assert not collect_in_gap(ClockJobs())
    assert collections == []


class Counting(Database):
    def __init__(self, engine: Engine, *, fail: bool = False) -> None:
        super().__init__(engine)
        self.calls: list[str] = []
        self.fail = fail

    async def run(self, fn: Any, /, **kwargs: Any) -> Any:
        self.calls.append(fn.__name__)
        if self.fail:
            raise RuntimeError("database gone")
        return await super().run(fn, **kwargs)


async def test_status_messages_edited_together_read_their_lines_in_one_transaction(
    engine: Engine,
):
    db = Counting(engine)
    contexts = Contexts(db, pages=True)
    got = await asyncio.gather(*(contexts.get(CHANNEL + i, 1) for i in range(5)))
    assert db.calls == ["read_contexts"]
    assert got == [(None, True)] * 5  # no tournament open; the live page shown by default
    await contexts.get(CHANNEL, 1)
    assert db.calls == ["read_contexts"] * 2  # a later edit reads again: nothing stale


async def test_a_failed_shared_read_fails_each_status_edit_waiting_for_it(engine: Engine):
    contexts = Contexts(Counting(engine, fail=True), pages=False)
    results = await asyncio.gather(
        contexts.get(CHANNEL, 1), contexts.get(CHANNEL + 1, 1), return_exceptions=True
    )
    assert [str(r) for r in results] == ["database gone"] * 2


def test_the_shared_read_says_what_each_status_read_alone_says(engine: Engine):
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
        for name in ("Ann", "Bob"):
            night, entry, _ = sign_in(rec.night, name, Arrival(), load_league_rules(), rng)
            rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td")
        update_guild_settings(session=s, guild_id=2, actor="test", live_page=False)
    channels = {CHANNEL: 1, CHANNEL + 1: 2}
    with session_scope(engine) as s:
        read = read_contexts(session=s, channels=channels, pages=True)
        alone = {
            c: (
                tournament_status_line(session=s, channel_id=c),
                is_live_page_shown_for_guild(session=s, guild_id=g),
            )
            for c, g in channels.items()
        }
    assert read == alone
    assert read[CHANNEL] == ("Tournament: 2 players left, average stack 18,000", True)
    assert read[CHANNEL + 1] == (None, False)


@dataclass
class HeldPoster(CardPoster):
    """Status edits wait for ``go``; the most in flight at once is kept."""

    go: asyncio.Event = field(default_factory=asyncio.Event)
    full: asyncio.Event = field(default_factory=asyncio.Event)  # as many as may be in flight
    in_flight: int = 0
    most: int = 0

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        if self.in_flight == STATUS_EDITS_AT_ONCE:
            self.full.set()
        await self.go.wait()
        self.in_flight -= 1
        return await super().edit_status(channel_id, message_id, status)


async def test_status_edits_due_together_go_a_few_at_a_time(engine: Engine):
    poster, now = HeldPoster(), Now()
    service = ClockService(Database(engine), poster, now=now, status_interval=0)
    records = [
        await service.start_clock(
            guild_id=1, channel_id=CHANNEL + i, structure="btown", created_by=9
        )
        for i in range(STATUS_EDITS_AT_ONCE * 2 + 1)
    ]
    now.at = CARD_T0 + dt.timedelta(minutes=20, seconds=5)  # level 2: every card changes
    edits = asyncio.gather(*(service._status(r.id) for r in records))
    await asyncio.wait_for(poster.full.wait(), 30)
    for _ in range(20):  # the others would have started by now, were they not held back
        await asyncio.sleep(0)
    poster.go.set()
    await asyncio.wait_for(edits, 30)
    assert poster.most == STATUS_EDITS_AT_ONCE
    assert len(poster.edits) == 2 * len(records)  # each card posted, then edited once
    await service.stop()
