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
