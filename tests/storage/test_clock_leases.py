"""Clock ownership across instances: leases, adoption, release, racing claims, server checks."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import Engine

from rulings import ClockAction
from storage.clocks import (
    add_clock,
    add_clock_event,
    adopt_expired_clocks,
    get_clock,
    list_owned_versions,
    record_many_announcements,
    release_leases,
    renew_leases,
)
from storage.db import session_scope
from storage.errors import NotFound

T0 = datetime(2026, 3, 5, 19, 0, tzinfo=UTC)
LEASE = timedelta(seconds=10)


def start(engine: Engine, channel: int, owner: str | None = "a") -> int:
    with session_scope(engine) as s:
        record = add_clock(
            session=s,
            guild_id=9,
            channel_id=channel,
            structure="btown",
            started_at=T0,
            created_by=7,
            owner_id=owner,
            lease_until=None if owner is None else T0 + LEASE,
        )
    return record.id


def test_a_live_lease_is_kept_and_an_expired_one_is_adopted_once(engine: Engine):
    one = start(engine, 1)
    unowned = start(engine, 2, owner=None)
    with session_scope(engine) as s:
        # within the lease: b gets only the clock nobody owns
        assert adopt_expired_clocks(session=s, owner_id="b", now=T0, until=T0 + LEASE) == {unowned}
        assert renew_leases(session=s, owner_id="a", until=T0 + 2 * LEASE) == {one}
        assert renew_leases(session=s, owner_id="b", until=T0 + 3 * LEASE) == {unowned}
    later = T0 + LEASE + timedelta(seconds=1)  # renewed: still theirs
    with session_scope(engine) as s:
        assert (
            adopt_expired_clocks(session=s, owner_id="b", now=later, until=later + LEASE) == set()
        )
    dead = T0 + 2 * LEASE + timedelta(seconds=1)  # a stopped renewing
    with session_scope(engine) as s:
        assert adopt_expired_clocks(session=s, owner_id="b", now=dead, until=dead + LEASE) == {one}
        assert adopt_expired_clocks(session=s, owner_id="c", now=dead, until=dead + LEASE) == set()
        assert renew_leases(session=s, owner_id="a", until=dead + LEASE, clock_ids=[one]) == set()
        assert get_clock(session=s, clock_id=one).owner_id == "b"
        assert list_owned_versions(session=s, owner_id="b") == {one: 0, unowned: 0}


def test_a_released_clock_is_adopted_at_once_and_an_ended_one_never(engine: Engine):
    one = start(engine, 1)
    two = start(engine, 2)
    with session_scope(engine) as s:
        add_clock_event(session=s, clock_id=two, action=ClockAction.END, at=T0)
        assert release_leases(session=s, owner_id="a") == 1
        assert get_clock(session=s, clock_id=one).owner_id is None
        assert adopt_expired_clocks(session=s, owner_id="b", now=T0, until=T0 + LEASE) == {one}


def test_actions_count_versions_and_a_clock_of_another_server_is_refused(engine: Engine):
    one = start(engine, 1)
    with session_scope(engine) as s:
        record = add_clock_event(session=s, clock_id=one, action=ClockAction.PAUSE, at=T0)
        assert record.version == 1
        assert list_owned_versions(session=s, owner_id="a") == {one: 1}
    with pytest.raises(NotFound, match="not running on this server"), session_scope(engine) as s:
        add_clock_event(session=s, clock_id=one, action=ClockAction.RESUME, at=T0, guild_id=10)
    with session_scope(engine) as s:  # nothing was written
        record = get_clock(session=s, clock_id=one)
        assert [e.action for e in record.state.events] == [ClockAction.PAUSE]
        assert record.version == 1


def test_two_instances_claiming_at_once_each_key_goes_to_exactly_one(engine: Engine):
    if engine.dialect.name == "sqlite":
        pytest.skip("in-memory SQLite is one shared connection: no concurrent transactions")
    one = start(engine, 1)
    keys = [f"k{i}" for i in range(50)]
    results: list[dict[int, list[str]]] = []
    barrier = threading.Barrier(2)

    def claim() -> None:
        barrier.wait()
        with session_scope(engine) as s:
            results.append(record_many_announcements(session=s, keys={one: keys}, at=T0))

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = [k for r in results for k in r[one]]
    assert sorted(got) == sorted(keys)  # all claimed, none twice, no error for the loser
