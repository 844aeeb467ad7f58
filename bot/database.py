"""The bot's door to storage: one storage call in a worker thread, inside one transaction."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storage.db import session_scope

log = logging.getLogger(__name__)

T = TypeVar("T")


class Database:
    """Runs storage functions off the event loop.

    Every storage function takes a keyword-only ``session``; ``run`` opens a session, calls
    the function in a worker thread and commits when it returns (rolls back when it raises).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def run(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """Call ``fn(session=..., **kwargs)`` in a thread, in one transaction.

        Args:
            fn: a storage function taking a keyword-only ``session``.
            **kwargs: its other keyword arguments.

        Returns:
            What ``fn`` returns.
        """
        return await asyncio.to_thread(self.run_sync, fn, **kwargs)

    def run_sync(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """The same as ``run`` on the calling thread (console and CLI)."""
        session: Session
        with session_scope(self.engine) as session:
            return fn(session=session, **kwargs)
