"""The bot's door to storage: one storage call in a worker thread, inside one transaction.

Transient database errors (SQLite's "database is locked" after its busy timeout, a dropped or
restarting PostgreSQL connection, a serialization failure or deadlock) are retried with
backoff: the transaction is run again from the start, which storage functions allow (they only
touch their session). Past ``retry_seconds`` the call raises ``DatabaseBusyError``, a user
error whose message is "The database is busy, try again in a moment." (no apology, no
traceback); nothing was written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session

from storage.db import session_scope
from storage.errors import DatabaseBusyError

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_SECONDS = 10.0
FIRST_BACKOFF_S = 0.05
MAX_BACKOFF_S = 1.0


def is_transient(exc: BaseException) -> bool:
    """Whether a database error is worth running the transaction again for.

    SQLite: only a lock ("database is locked", "database table is locked", busy); its other
    ``OperationalError``s (no such table...) are bugs. Other engines: any ``OperationalError``
    (connection lost, serialization failure, deadlock) or an invalidated connection.
    """
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    text = str(exc.orig).lower()
    module = type(exc.orig).__module__
    if module.startswith("sqlite3"):
        return "locked" in text or "busy" in text
    return True


class Database:
    """Runs storage functions off the event loop.

    Every storage function takes a keyword-only ``session``; ``run`` opens a session, calls
    the function in a worker thread and commits when it returns (rolls back when it raises).

    Args:
        engine: the database.
        retry_seconds: how long transient errors are retried before ``DatabaseBusyError``.
    """

    def __init__(self, engine: Engine, *, retry_seconds: float = RETRY_SECONDS) -> None:
        self.engine = engine
        self.retry_seconds = retry_seconds

    async def run(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """Call ``fn(session=..., **kwargs)`` in a thread, in one transaction.

        Args:
            fn: a storage function taking a keyword-only ``session``.
            **kwargs: its other keyword arguments.

        Returns:
            What ``fn`` returns.

        Raises:
            DatabaseBusyError: the database stayed busy through every retry.
        """
        return await asyncio.to_thread(self.run_sync, fn, **kwargs)

    def run_sync(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """The same as ``run`` on the calling thread (console and CLI)."""
        deadline = time.monotonic() + self.retry_seconds
        backoff = FIRST_BACKOFF_S
        attempt = 0
        while True:
            attempt += 1
            try:
                session: Session
                with session_scope(self.engine) as session:
                    return fn(session=session, **kwargs)
            except DBAPIError as exc:
                if not is_transient(exc):
                    raise
                if time.monotonic() + backoff > deadline:
                    log.warning("%s: database busy after %d attempts: %s", _name(fn), attempt, exc)
                    raise DatabaseBusyError() from exc
                log.info("%s: database busy (%s); again in %.2f s", _name(fn), exc.orig, backoff)
                time.sleep(backoff)
                backoff = min(MAX_BACKOFF_S, backoff * 2)


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", repr(fn))
