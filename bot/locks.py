"""One asyncio lock per key (a run, a channel), forgotten when nobody needs it.

A dict of locks that is never pruned grows with every post-battle run and
every channel the bot has ever posted to. Here a lock lives only while a task
holds it or waits for it (each keeps a reference), so an idle bot keeps none.

Locks of a server's things (:class:`ServerLocks`) live in the process, not in
the database, even when several bot processes share the shards: Discord routes
all of a server's events (its commands, clicks, removal) to exactly one shard,
and one process holds that shard, so nobody in another process ever waits for
them. That holds only while a process acts for its own servers alone, so taking
another process's server's lock is an internal error, raised at once rather than
left to become a lock that guards nothing (docs/deploying.md, "Shards").
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any, Generic, TypeVar
from weakref import WeakValueDictionary

from bot.shards import ServerOfAnotherProcess, owns_guild

K = TypeVar("K", bound=Hashable)
ServerKey = TypeVar("ServerKey", bound=tuple[Any, ...])


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


class ServerLocks(KeyedLocks[ServerKey]):
    """Locks whose keys start with a server id, for servers this process holds only."""

    def __call__(self, key: ServerKey) -> asyncio.Lock:
        guild_id = key[0]
        if not owns_guild(guild_id):
            raise ServerOfAnotherProcess(guild_id, f"a lock was asked for {key!r}")
        return super().__call__(key)
