"""One asyncio lock per key (a run, a channel), forgotten when nobody needs it.

A dict of locks that is never pruned grows with every post-battle run and
every channel the bot has ever posted to. Here a lock lives only while a task
holds it or waits for it (each keeps a reference), so an idle bot keeps none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Generic, TypeVar
from weakref import WeakValueDictionary

K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    def __init__(self) -> None:
        self._locks: WeakValueDictionary[K, asyncio.Lock] = WeakValueDictionary()

    def __call__(self, key: K) -> asyncio.Lock:
        """The lock of ``key``: the same object for every caller while anyone holds it."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def __len__(self) -> int:
        return len(self._locks)
