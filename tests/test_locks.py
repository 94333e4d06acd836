"""KeyedLocks: one lock per key while it is needed, none once nobody holds it."""

from __future__ import annotations

import asyncio
import gc

from bot.locks import KeyedLocks


async def test_callers_of_one_key_take_turns_and_other_keys_do_not_wait() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    order: list[str] = []
    inside, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with locks("run-1"):
            order.append("first in")
            inside.set()
            await release.wait()
            order.append("first out")

    async def second() -> None:
        async with locks("run-1"):
            order.append("second in")

    one = asyncio.create_task(first())
    await inside.wait()
    two = asyncio.create_task(second())
    await asyncio.sleep(0)
    async with asyncio.timeout(5):
        async with locks("run-2"):  # another key: free at once
            order.append("other key")
    assert locks("run-1").locked()
    release.set()
    await asyncio.gather(one, two)
    assert order == ["first in", "other key", "first out", "second in"]


async def test_locks_nobody_holds_are_forgotten() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    for channel in range(100):
        async with locks(channel):
            assert len(locks) >= 1
    gc.collect()
    assert len(locks) == 0
