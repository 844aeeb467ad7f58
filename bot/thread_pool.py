"""A thread pool that never holds the process up when it stops.

``concurrent.futures.ThreadPoolExecutor`` joins every worker thread it ever started when the
interpreter exits, and ``asyncio.run`` waits for the loop's default executor to finish its work
before it returns. A stopping bot then waits for whatever a thread is doing: a storage call
queued behind a database lock (SQLite's busy timeout is 30 s, and ``Database.run`` retries for
10 s more), a handler waiting on a compute job. On a loaded machine ``SIGINT`` or ``SIGTERM``
took as long as that work did.

``DaemonThreadPool`` runs the same work on daemon threads that nothing joins at exit, and its
``shutdown(wait=True)`` waits at most ``grace_s`` for the work already running. Work abandoned
at exit is safe to abandon: every storage call is one transaction, which the database rolls back
when the process goes; a reply never sent is the same as the process dying a moment earlier.
It is a ``ThreadPoolExecutor`` (``loop.set_default_executor`` accepts nothing else) that
replaces the parent's thread handling through its public methods only.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

GRACE_S = 2.0
"""How long ``shutdown(wait=True)`` waits for running work before leaving it behind."""

_Work = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonThreadPool(ThreadPoolExecutor):
    """Run callables on up to ``max_workers`` daemon threads, started as work arrives.

    Args:
        max_workers: the most threads it runs at once.
        thread_name_prefix: names its threads ``<prefix>_0``, ``<prefix>_1``, ...
        grace_s: how long ``shutdown(wait=True)`` waits for running work.
    """

    def __init__(
        self, max_workers: int, thread_name_prefix: str = "pool", *, grace_s: float = GRACE_S
    ) -> None:
        super().__init__(max_workers, thread_name_prefix)  # starts no thread
        self._work: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []
        self._closed = False
        self._grace_s = grace_s
        self._prefix = thread_name_prefix

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Schedule ``fn(*args, **kwargs)``; a new thread starts when none is idle."""
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            future: Future[T] = Future()
            self._work.put((future, fn, args, kwargs))
            if not self._idle.acquire(timeout=0) and len(self._workers) < self._max_workers:
                name = f"{self._prefix}_{len(self._workers)}"
                thread = threading.Thread(target=self._run, name=name, daemon=True)
                thread.start()
                self._workers.append(thread)
            return future

    def _run(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                self._work.put(None)  # wake the next thread: it stops too
                return
            future, fn, args, kwargs = item
            del item  # drop the references before waiting for the next one
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:
                    future.set_exception(exc)
            del future, fn, args, kwargs
            self._idle.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; with ``wait``, give the running work ``grace_s`` to finish.

        Args:
            wait: wait (at most ``grace_s``) for the threads to finish what they run.
            cancel_futures: cancel the work that has not started.
        """
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        item = self._work.get_nowait()
                    except queue.Empty:
                        break
                    if item is not None:
                        item[0].cancel()
            self._work.put(None)
            workers = list(self._workers)
        if not wait:
            return
        deadline = time.monotonic() + self._grace_s
        for thread in workers:
            thread.join(max(0.0, deadline - time.monotonic()))
        busy = [t.name for t in workers if t.is_alive()]
        if busy:
            log.info("leaving %d busy thread(s) behind at shutdown: %s", len(busy), busy)
