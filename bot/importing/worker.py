"""Files are read in a child process, so no import holds up the event loop.

Reading a large file (decoding, checking, validating, re-keying) in a
worker thread still stalled the loop for hundreds of milliseconds: one
pydantic call validating a whole campaign holds the GIL throughout, and so
does every full collection of the garbage collector, whichever thread
triggers it (docs/importing.md, "Off the event loop"). A child process has
a GIL and a heap of its own. It hands back the result pickled; unpickling
happens on the pool's result thread, in small steps that let the loop run.

What remains in the bot's process is the result itself (a campaign file is
hundreds of thousands of objects) and the writes that follow. So that no full
collection scans them while they live, full collections are deferred from the
moment a file is sent to the child until ``grace_seconds`` after its result
came back (young collections go on, and the start-up heap is frozen by
:func:`settle_heap`, so the deferred collection is short once the import's
objects are gone).

One child, started with ``spawn`` (``fork`` is unsafe in a threaded asyncio
program, and ``spawn`` leaves no fork server behind), is started on first use
(or by :meth:`ImportWorker.warm_up` at start-up) and kept. If it dies
mid-file (killed, out of memory), the import is refused in words and the
next one starts a fresh child. The child exits with the bot: on shutdown
(:meth:`ImportWorker.shutdown`), and within half a second when the bot is
killed (it watches its parent).
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

from bot.child import one_child
from bot.importing.jobs import ready
from rules.errors import InvalidRequest

T = TypeVar("T")

# Seconds after a result comes back during which full collections stay deferred:
# long enough for the staging or writing that follows a read.
GRACE_SECONDS = 30.0
# The third threshold counts young collections between full ones (CPython's default is
# 10); this many is about ten million allocations, never reached by one import.
DEFERRED_THRESHOLD = 1_000_000

WORKER_DIED = (
    "The file reader stopped before it finished (the bot's host may be short of memory); "
    "nothing was imported. Try again in a moment."
)


class ImportWorker:
    """A pool of one child process that reads files for the importers."""

    def __init__(self, grace_seconds: float = GRACE_SECONDS) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._grace = grace_seconds
        # Deferrals of full collections that end when their grace runs out (or at shutdown).
        self._pending: set[asyncio.TimerHandle] = set()
        # How many calls the child has answered (tests and the benchmark read it).
        self.answered = 0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = one_child()
        return self._pool

    async def run(self, function: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``function(*args, **kwargs)`` in the child; arguments and result are pickled.

        InvalidRequest raised in the child reaches the caller as it was raised.
        """
        pool = self._executor()
        loop = asyncio.get_running_loop()
        full_collections.defer()
        try:
            result = await loop.run_in_executor(pool, partial(function, *args, **kwargs))
        except BrokenProcessPool:
            self._discard(pool)
            raise InvalidRequest(WORKER_DIED) from None
        finally:
            self._resume_later(loop)
        self.answered += 1
        return result

    async def warm_up(self) -> int:
        """Start the child and load the importers in it; its process id."""
        return await self.run(ready)

    def _resume_later(self, loop: asyncio.AbstractEventLoop) -> None:
        def resume() -> None:
            self._pending.discard(handle)
            full_collections.resume()

        handle = loop.call_later(self._grace, resume)
        self._pending.add(handle)

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        if self._pool is pool:
            self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """Stop the child (waiting for a file it is reading); a later run starts another."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for handle in self._pending:
            handle.cancel()
            full_collections.resume()
        self._pending.clear()


class _FullCollections:
    """Defers the garbage collector's full collections while any import needs it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deferring = 0
        self._threshold = gc.get_threshold()

    @property
    def deferred(self) -> bool:
        return self._deferring > 0

    def defer(self) -> None:
        with self._lock:
            if self._deferring == 0:
                self._threshold = gc.get_threshold()
                young, middle, _ = self._threshold
                gc.set_threshold(young, middle, DEFERRED_THRESHOLD)
            self._deferring += 1

    def resume(self) -> None:
        with self._lock:
            self._deferring -= 1
            if self._deferring == 0:
                gc.set_threshold(*self._threshold)


full_collections = _FullCollections()


# The bot's one worker (bot.app starts it and shuts it down).
import_worker = ImportWorker()


def settle_heap() -> None:
    """After start-up: what is loaded now stays, so full collections skip it.

    Every full collection of the garbage collector scans all tracked objects
    while holding the GIL; the bot's start-up leaves hundreds of thousands
    (discord.py, pydantic schemas, the rule sets) that live as long as it does.
    """
    gc.collect()
    gc.freeze()
