"""The synced-commands digest, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.engine import Engine

from storage.bot_models import get_command_digest, set_command_digest
from storage.db import session_scope

NOW = dt.datetime(2026, 11, 29, 20, 0, tzinfo=dt.UTC)


def test_digest_round_trip_per_scope(engine: Engine):
    with session_scope(engine) as s:
        assert get_command_digest(session=s, scope="1:global") is None
        set_command_digest(session=s, scope="1:global", digest="a" * 64, now=NOW)
        set_command_digest(session=s, scope="1:guild:5", digest="b" * 64, now=NOW)
    with session_scope(engine) as s:
        set_command_digest(session=s, scope="1:global", digest="c" * 64, now=NOW)
    with session_scope(engine) as s:
        assert get_command_digest(session=s, scope="1:global") == "c" * 64
        assert get_command_digest(session=s, scope="1:guild:5") == "b" * 64


def test_instances_recording_the_same_sync_at_once_both_succeed(engine: Engine):
    import threading

    if engine.dialect.name == "sqlite":
        import pytest

        pytest.skip("in-memory SQLite is one shared connection: no concurrent transactions")
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def record() -> None:
        try:
            with session_scope(engine) as s:
                get_command_digest(session=s, scope="1:global")  # both see none
                barrier.wait()
                set_command_digest(session=s, scope="1:global", digest="d" * 64, now=NOW)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=record) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with session_scope(engine) as s:
        assert get_command_digest(session=s, scope="1:global") == "d" * 64
