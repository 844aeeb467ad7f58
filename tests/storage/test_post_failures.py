"""Failed posts: recorded every time, told once per server, kind and channel an hour."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlmodel import Session

from storage.db import create_schema, make_engine, session_scope
from storage.post_failures import PostFailureInfo, add_post_failure, list_post_failures, set_told

T0 = dt.datetime(2026, 12, 4, 19, 0, tzinfo=dt.UTC)
GUILD, CHANNEL = 2**62, 2**61


def _fail(
    session: Session,
    at: dt.datetime,
    *,
    kind: str = "clock",
    channel: int = CHANNEL,
    guild: int = GUILD,
) -> PostFailureInfo:
    return add_post_failure(
        session=session,
        guild_id=guild,
        kind=kind,
        channel_id=channel,
        status=403,
        code=50013,
        error="Missing Permissions",
        now=at,
    )


def test_the_directors_are_told_once_an_hour_per_kind_and_channel(session):
    first = _fail(session, T0)
    assert first.should_tell
    assert not _fail(session, T0 + dt.timedelta(minutes=20)).should_tell
    assert _fail(session, T0 + dt.timedelta(minutes=20), kind="reminder").should_tell
    assert _fail(session, T0 + dt.timedelta(minutes=20), channel=CHANNEL + 1).should_tell
    assert _fail(session, T0 + dt.timedelta(minutes=20), guild=GUILD + 1).should_tell
    assert _fail(session, T0 + dt.timedelta(minutes=61)).should_tell
    listed = list_post_failures(session=session, guild_id=GUILD, limit=10)
    assert len(listed) == 5
    assert listed[0].at == T0 + dt.timedelta(minutes=61)
    assert (listed[-1].status, listed[-1].code, listed[-1].told_at) == (403, 50013, T0)


def test_a_notice_nobody_could_receive_is_told_at_the_next_failure(session):
    first = _fail(session, T0)
    set_told(session=session, failure_id=first.id, how=None)
    assert _fail(session, T0 + dt.timedelta(minutes=1)).should_tell


def test_an_unknown_kind_is_a_bug(session):
    with pytest.raises(ValueError, match="unknown kind"):
        _fail(session, T0, kind="tweet")


def test_failures_recorded_at_once_are_told_once(tmp_path: Path):
    # A clock's status message and its announcement fail together: two threads, one notice.
    engine = make_engine(f"sqlite:///{tmp_path / 'race.db'}")
    create_schema(engine)
    start = threading.Barrier(4)

    def record(_: int) -> bool:
        start.wait()
        with session_scope(engine) as session:
            return _fail(session, T0).should_tell

    with ThreadPoolExecutor(4) as pool:
        told = list(pool.map(record, range(4)))
    engine.dispose()
    assert sorted(told) == [False, False, False, True]
