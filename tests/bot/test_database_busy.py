"""A locked or unreachable database is retried, then answered as busy: never a bug, never lost."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from bot.database import Database, is_transient
from bot.surfaces.discord.tree import is_user_error, user_message
from storage.db import create_schema, make_engine
from storage.errors import DatabaseBusyError
from storage.guild_settings import get_guild_settings, update_guild_settings


def short_wait_engine(path: Path) -> Engine:
    """A file database whose connections wait only 50 ms for a lock (the bot's waits 30 s)."""
    engine = make_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _short(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA busy_timeout=50")

    create_schema(engine)
    return engine


def hold_write_lock(path: Path) -> sqlite3.Connection:
    """Another process's long write (a big import): the write lock, held until closed."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    return other


def set_role(*, session: Session, role: int) -> None:
    update_guild_settings(session=session, guild_id=1, actor="td", director_role_id=role)


async def test_a_lock_held_past_every_retry_answers_busy_and_writes_nothing(tmp_path: Path):
    path = tmp_path / "busy.db"
    engine = short_wait_engine(path)
    db = Database(engine, retry_seconds=0.3)
    await db.run(set_role, role=5)
    other = hold_write_lock(path)
    try:
        with pytest.raises(DatabaseBusyError) as caught:
            await db.run(set_role, role=6)
    finally:
        other.rollback()
        other.close()
    assert is_user_error(caught.value)
    assert user_message(caught.value) == "The database is busy, try again in a moment."
    settings = await db.run(get_guild_settings, guild_id=1)
    assert settings.director_role_id == 5  # nothing changed
    engine.dispose()


async def test_a_lock_released_during_the_retries_goes_through(tmp_path: Path):
    path = tmp_path / "busy.db"
    engine = short_wait_engine(path)
    db = Database(engine, retry_seconds=5.0)
    await db.run(set_role, role=5)
    other = hold_write_lock(path)

    def release() -> None:
        other.rollback()
        other.close()

    releaser = threading.Timer(0.4, release)
    releaser.start()
    await db.run(set_role, role=6)
    releaser.join()
    assert (await db.run(get_guild_settings, guild_id=1)).director_role_id == 6
    engine.dispose()


async def test_a_real_bug_is_not_retried(tmp_path: Path):
    engine = short_wait_engine(tmp_path / "bug.db")
    db = Database(engine, retry_seconds=5.0)
    calls = 0

    def broken(*, session: Session) -> None:
        nonlocal calls
        calls += 1
        session.execute(text("SELECT * FROM no_such_table"))

    with pytest.raises(Exception, match="no such table") as caught:
        await asyncio.wait_for(db.run(broken), 2)
    assert not is_transient(caught.value)
    assert calls == 1
    engine.dispose()


def test_a_handlers_transaction_under_a_held_lock_answers_busy_and_writes_nothing(
    tmp_path: Path,
):
    from bot.command.model import Context
    from bot.config import Settings
    from bot.errors import describe

    path = tmp_path / "busy.db"
    engine = short_wait_engine(path)
    ctx = Context(surface="console", settings=Settings(_env_file=None), db=Database(engine))
    with ctx.transaction() as session:
        set_role(session=session, role=5)
    other = hold_write_lock(path)
    try:
        with pytest.raises(DatabaseBusyError) as caught, ctx.transaction() as session:
            set_role(session=session, role=6)
    finally:
        other.rollback()
        other.close()
    assert describe(caught.value) == ("The database is busy, try again in a moment.", False)
    with ctx.transaction() as session:
        assert get_guild_settings(session=session, guild_id=1).director_role_id == 5
    engine.dispose()
