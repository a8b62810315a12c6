"""The worker processes that run CPU-heavy work off the event loop, with admission control and a deadline.

Threads share the interpreter lock, so a thread pool does not keep CPU work from starving the event loop: the
work runs in a process pool of ``Settings.workers`` processes (one per core by default), at a lower scheduling
priority than the event loop's process. At most ``workers + max_waiting`` pieces of work are admitted at once;
past that a request is refused at once with :class:`OverloadedError` (503, ``Retry-After``), never queued
without bound. Each piece of work has ``Settings.request_seconds`` from admission, queueing included: the
library's per-ply loops stop it (:mod:`plybits.deadline`), and the event loop stops waiting for it a moment
later in any case. Work and its arguments cross the process boundary by pickle: a module-level function and
plain values, never a lambda.
"""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.orphans import die_with_parent
from app.settings import Settings
from plybits import registry
from plybits.deadline import deadline
from plybits.errors import DeadlineExceededError, PlybitsError

T = TypeVar("T")

RETRY_AFTER_SECONDS = 1
"""What a refused client is told to wait before it tries again."""
WORKER_NICENESS = 10
"""How much lower the workers' scheduling priority is than the event loop's, so that the loop gets a core first."""
GRACE_SECONDS = 1.0
"""How long after the deadline the event loop still waits for work that did not stop itself (a long parse)."""


class OverloadedError(PlybitsError):
    """Every worker is busy and the waiting line is full: try again after ``retry_after`` seconds."""

    def __init__(self, reason: str, *, retry_after: int = RETRY_AFTER_SECONDS) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


def worker_count(settings: Settings) -> int:
    """The number of worker processes: ``settings.workers``, or one per CPU core this process may run on."""
    if settings.workers:
        return settings.workers
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _start_worker(preload: tuple[str, ...], parent: int) -> None:
    """Runs once in each worker process: die with the service (``parent``), lower the priority, import every game
    and the ``preload`` modules."""
    die_with_parent(parent)
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # not on POSIX, or not allowed: the workers keep the loop's priority
        pass
    registry.games()
    for module in preload:
        importlib.import_module(module)


def _ready() -> bool:
    """A no-op, sent once to each worker at start-up so that it is spawned and warm before the first request."""
    return True


def _call(end: float, seconds: float, work: Callable[..., T], args: tuple[Any, ...]) -> T:
    """``work(*args)`` in a worker, stopped by the library between plies once ``time.monotonic()`` passes ``end``."""
    with deadline(end, seconds):
        return work(*args)


class Workers:
    """A process pool with a bounded count of admitted work."""

    def __init__(self, settings: Settings, preload: tuple[str, ...] = ()) -> None:
        """``preload``: modules each worker imports as it starts (those of the work it will be sent), so that the
        first requests do not pay for the imports."""
        self.settings = settings
        self.preload = preload
        self.size = worker_count(settings)
        self.capacity = self.size + settings.max_waiting
        """Most pieces of work admitted at once (running or waiting)."""
        self.admitted = 0
        self._count = threading.Lock()  # admitted is also decremented from the pool's management thread
        self._pool: ProcessPoolExecutor | None = None
        self._warming: list[Future[bool]] = []

    def _executor(self) -> ProcessPoolExecutor:
        """The pool; a new one (at start-up, or after a worker died) has every worker started at once: the pool
        itself would start one per request until all are, and the workers must be started by this (the event
        loop's) thread, which outlives them, for them to die with the service (:mod:`app.orphans`)."""
        if self._pool is None:
            # spawn, not fork: the service process has threads (the batch workers, the test client's portal).
            self._pool = ProcessPoolExecutor(max_workers=self.size, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start_worker, initargs=(self.preload, os.getpid()))
            self._warming = [self._pool.submit(_ready) for _ in range(self.size)]
        return self._pool

    async def start(self) -> None:
        """Spawn every worker now (at application start-up), not on the first requests."""
        self._executor()
        await asyncio.gather(*(asyncio.wrap_future(f) for f in self._warming))

    def close(self) -> None:
        """Stop the workers (work still running stops at its deadline); waiting work is dropped."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker process.

        :raises OverloadedError: if ``capacity`` pieces of work are already admitted.
        :raises DeadlineExceededError: if the work took longer than ``request_seconds``, waiting included.
        """
        with self._count:
            if self.admitted >= self.capacity:
                raise OverloadedError(
                    f"all {self.size} workers are busy and {self.settings.max_waiting} requests are waiting; "
                    f"retry after {RETRY_AFTER_SECONDS} s"
                )
            self.admitted += 1
        seconds = self.settings.request_seconds
        end = time.monotonic() + seconds
        try:
            future: Future[T] = self._executor().submit(_call, end, seconds, work, args)
        except BrokenProcessPool:
            self._pool = None  # a worker died (killed, out of memory): the next request gets a fresh pool
            self._release(None)
            raise OverloadedError("the worker processes are restarting; retry after 1 s") from None
        future.add_done_callback(self._release)  # the slot is held until the work has really stopped
        waiting = asyncio.wrap_future(future)
        waiting.add_done_callback(_retrieve)
        try:
            return await asyncio.wait_for(asyncio.shield(waiting), seconds + GRACE_SECONDS)
        except asyncio.TimeoutError:
            future.cancel()  # still waiting for a worker: never starts; running: stops at its next ply
            raise DeadlineExceededError(f"the work ran past its time limit of {seconds:g} s") from None
        except BrokenProcessPool:
            self._pool = None
            raise OverloadedError("a worker process died; retry after 1 s") from None

    def _release(self, _: Future[Any] | None) -> None:
        with self._count:
            self.admitted -= 1


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark the outcome of work nobody waits for any more as seen (no "exception never retrieved" log)."""
    if not future.cancelled():
        future.exception()
