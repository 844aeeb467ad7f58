from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from rulings import BlindStructureError, ClockAction, ClockError, position_at
from storage.clocks import (
    add_clock,
    add_clock_event,
    count_announcements,
    find_running_clock,
    get_clock,
    get_running_clock,
    list_running_clocks,
    record_announcements,
    set_status_message,
    settle_announcements,
)
from storage.db import make_engine, session_scope, upgrade_schema
from storage.errors import AlreadyExists, NotFound

T0 = datetime(2026, 3, 5, 19, 0, tzinfo=UTC)
CHANNEL = 1_234_567_890_123_456_789  # a real snowflake needs 64 bits


def start(session: Session, channel: int = CHANNEL, **kw):
    kw.setdefault("structure", "btown")
    kw.setdefault("started_at", T0)
    return add_clock(session=session, guild_id=9, channel_id=channel, created_by=7, **kw)


def test_add_clock_uses_the_structure_defaults(session):
    record = start(session, ping_role_id=2**62)
    assert record.state.level_seconds == 1200
    assert record.state.break_seconds == 600
    assert record.ping_role_id == 2**62
    again = get_running_clock(session=session, channel_id=CHANNEL)
    assert again.state == record.state
    assert again.state.started_at.tzinfo is not None
    assert again.announced == frozenset()


def test_decimal_level_minutes_and_non_utc_start_are_stored_as_utc(session):
    local = datetime(2026, 3, 5, 14, 0, tzinfo=UTC).astimezone()  # any offset
    record = add_clock(
        session=session,
        guild_id=9,
        channel_id=CHANNEL,
        structure="bar-league",
        started_at=local,
        created_by=7,
        level_seconds=2.5,
    )
    loaded = get_clock(session=session, clock_id=record.id)
    assert loaded.state.level_seconds == 2.5
    assert loaded.state.started_at == local
    assert loaded.state.started_at.utcoffset() == timedelta(0)


def test_one_running_clock_per_channel(session):
    start(session)
    with pytest.raises(AlreadyExists, match="already running in this channel"):
        start(session)
    start(session, channel=CHANNEL + 1)  # another location on the same server
    assert len(list_running_clocks(session=session)) == 2


def test_bad_start_changes_nothing(session):
    with pytest.raises(BlindStructureError, match="Unknown blind structure"):
        start(session, structure="nope")
    with pytest.raises(ClockError, match="between 1 second"):
        start(session, level_seconds=0.1)
    assert find_running_clock(session=session, channel_id=CHANNEL) is None


def test_actions_are_stored_in_order_and_replayed(engine: Engine):
    with session_scope(engine) as s:
        clock_id = start(s).id
    with session_scope(engine) as s:
        add_clock_event(
            session=s, clock_id=clock_id, action=ClockAction.PAUSE, at=T0 + timedelta(minutes=5)
        )
        add_clock_event(
            session=s, clock_id=clock_id, action=ClockAction.RESUME, at=T0 + timedelta(minutes=9)
        )
        add_clock_event(
            session=s,
            clock_id=clock_id,
            action=ClockAction.ADD_TIME,
            at=T0 + timedelta(minutes=10),
            value=1.5,
        )
    with session_scope(engine) as s:
        record = get_clock(session=s, clock_id=clock_id)
    assert [e.action for e in record.state.events] == ["pause", "resume", "add-time"]
    pos = position_at(record.state, T0 + timedelta(minutes=10))
    assert pos.remaining == 15.5 * 60  # 6 minutes played, 1.5 added


def test_a_refused_action_stores_nothing(engine: Engine):
    with session_scope(engine) as s:
        clock_id = start(s).id
    with pytest.raises(ClockError, match="not paused"), session_scope(engine) as s:
        add_clock_event(session=s, clock_id=clock_id, action=ClockAction.RESUME, at=T0)
    with pytest.raises(BlindStructureError, match="small blind"), session_scope(engine) as s:
        add_clock_event(session=s, clock_id=clock_id, action=ClockAction.ANTE, at=T0, value=500)
    with session_scope(engine) as s:
        assert get_clock(session=s, clock_id=clock_id).state.events == ()


def test_end_frees_the_channel(session):
    record = start(session)
    add_clock_event(
        session=session, clock_id=record.id, action=ClockAction.END, at=T0 + timedelta(hours=1)
    )
    assert find_running_clock(session=session, channel_id=CHANNEL) is None
    assert get_clock(session=session, clock_id=record.id).is_ended
    with pytest.raises(NotFound, match="No clock is running in this channel"):
        get_running_clock(session=session, channel_id=CHANNEL)
    start(session)  # a new night, a new clock


def test_announcements_are_recorded_once(session):
    record = start(session)
    assert record_announcements(session=session, clock_id=record.id, keys=["a", "b"], at=T0) == [
        "a",
        "b",
    ]
    assert record_announcements(
        session=session, clock_id=record.id, keys=["b", "c", "c"], at=T0
    ) == ["c"]
    assert get_clock(session=session, clock_id=record.id).announced == {"a", "b", "c"}
    assert count_announcements(session=session, clock_id=record.id) == 3
    assert record_announcements(session=session, clock_id=record.id, keys=[], at=T0) == []


def test_status_message_id(session):
    record = start(session)
    set_status_message(session=session, clock_id=record.id, message_id=2**63 - 1)
    assert get_clock(session=session, clock_id=record.id).status_message_id == 2**63 - 1
    with pytest.raises(NotFound):
        set_status_message(session=session, clock_id=999, message_id=1)
    with pytest.raises(NotFound, match="no clock 999"):
        get_clock(session=session, clock_id=999)


def test_naive_times_are_refused(session):
    with pytest.raises(ClockError, match="timezone-aware"):
        start(session, started_at=datetime(2026, 1, 1))  # noqa: DTZ001


def test_stored_times_are_utc_in_the_database(engine: Engine):
    with session_scope(engine) as s:
        start(s)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT started_at FROM clock")).scalar_one()
    if isinstance(stored, str):  # SQLite keeps text
        assert stored.startswith("2026-03-05 19:00:00")
    else:
        assert stored.astimezone(UTC) == T0


def test_claims_stay_unsettled_until_settled_and_say_when_they_were_made(session):
    one = start(session)
    two = start(session, channel=CHANNEL + 1)
    record_announcements(session=session, clock_id=one.id, keys=["a", "b"], at=T0)
    record_announcements(session=session, clock_id=two.id, keys=["a", "c"], at=T0)
    assert get_clock(session=session, clock_id=one.id).unsettled == {"a", "b"}
    later = T0 + timedelta(seconds=1)
    assert settle_announcements(session=session, keys={one.id: ["a", "zz"]}, at=later) == 1
    assert settle_announcements(session=session, keys={one.id: ["a"]}, at=later) == 0
    assert get_clock(session=session, clock_id=one.id).unsettled == {"b"}
    assert get_clock(session=session, clock_id=two.id).unsettled == {"a", "c"}  # its own "a"
    assert get_clock(session=session, clock_id=one.id).unsettled_since == {"b": T0}
    assert get_clock(session=session, clock_id=one.id).announced == {"a", "b"}
    assert settle_announcements(session=session, keys={}, at=later) == 0
    with pytest.raises(ClockError, match="timezone-aware"):
        settle_announcements(session=session, keys={one.id: ["b"]}, at=datetime(2026, 3, 5))  # noqa: DTZ001


def test_migration_0004_settles_announcements_made_before_it():
    engine = make_engine("sqlite://")
    upgrade_schema(engine, "0003")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO clock (id, guild_id, channel_id, structure, level_seconds,"
                " break_seconds, warning_seconds, created_by, started_at)"
                " VALUES (1, 9, 5, 'btown', 1200, 600, '60', 7, '2026-03-05 19:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO clock_announcement (clock_id, key, made_at)"
                " VALUES (1, '0:start:0', '2026-03-05 19:00:00')"
            )
        )
    upgrade_schema(engine)
    with session_scope(engine) as s:
        record = get_clock(session=s, clock_id=1)
    assert record.announced == {"0:start:0"}
    assert record.unsettled == frozenset()  # posted before the upgrade: no catch-up for it
    engine.dispose()


def test_clocks_read_aloud_answers_every_channel_asked_in_one_read(session):
    from storage.guild_settings import update_guild_settings
    from storage.live import clocks_read_aloud

    update_guild_settings(session=session, guild_id=9, actor="td", clock_tts=True, confirm=True)
    update_guild_settings(session=session, guild_id=10, actor="td", clock_tts=False, confirm=True)
    start(session, channel=1)  # server 9: read aloud
    add_clock(
        session=session,
        guild_id=10,
        channel_id=2,
        structure="btown",
        started_at=T0,
        created_by=7,
    )
    ended = start(session, channel=3)
    add_clock_event(
        session=session, clock_id=ended.id, action=ClockAction.END, at=T0 + timedelta(minutes=1)
    )
    assert clocks_read_aloud(session=session, channel_ids=[1, 2, 3, 4]) == {
        1: True,  # server 9 said on
        2: False,  # server 10 said off
        3: False,  # its clock has ended
        4: False,  # no clock ever ran there
    }
