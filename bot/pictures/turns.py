"""Whose drawing goes next: servers take turns, each waits behind its own drawings only.

One server asking for a large card must not make another server's card wait
behind it. So drawings are not one queue: each server (the key a caller
gives) has a queue of its own, at most one drawing of a server runs at a
time, and a free drawer goes to the next server in turn that has one
waiting (round robin), not to whoever asked first.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager

# "Nobody is waiting", apart from every key a caller may give (None included: a drawing
# asked for outside any server).
_NOBODY = object()


class Turns:
    """At most ``at_once`` turns held together, one per key, keys served in turn."""

    def __init__(self, at_once: int) -> None:
        self._free = at_once
        self._waiting: OrderedDict[Hashable, deque[asyncio.Future[None]]] = OrderedDict()
        self._holding: set[Hashable] = set()

    @property
    def waiting(self) -> int:
        return sum(map(len, self._waiting.values()))

    @asynccontextmanager
    async def turn(self, key: Hashable) -> AsyncIterator[None]:
        """Wait for ``key``'s turn and hold it inside the ``async with``."""
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(granted)
        self._hand_out()
        try:
            await granted
        except BaseException:
            if granted.done() and not granted.cancelled():
                # Granted as the waiter was cancelled: the turn goes on to the next.
                self._release(key)
            else:
                self._forget(key, granted)
            raise
        try:
            yield
        finally:
            self._release(key)

    def _forget(self, key: Hashable, granted: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is not None and granted in queue:
            queue.remove(granted)
            if not queue:
                del self._waiting[key]

    def _release(self, key: Hashable) -> None:
        self._holding.discard(key)
        self._free += 1
        if key in self._waiting:
            # Its drawings that queued while it held its turn wait behind every other
            # server's.
            self._waiting.move_to_end(key)
        self._hand_out()

    def _hand_out(self) -> None:
        while self._free > 0:
            key = next((k for k in self._waiting if k not in self._holding), _NOBODY)
            if key is _NOBODY:
                return
            queue = self._waiting.pop(key)
            granted = queue.popleft()
            if queue:
                # Served: to the back of the line with what it still has waiting.
                self._waiting[key] = queue
            self._holding.add(key)
            self._free -= 1
            granted.set_result(None)
