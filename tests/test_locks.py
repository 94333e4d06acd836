"""KeyedLocks: one lock per key while it is needed, none once nobody holds it."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from bot.locks import KeyedLocks, ServerLocks
from bot.shards import EVERY_SHARD, ServerOfAnotherProcess, ShardSet, hold
from fakediscord import guild_id_on_shard


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


@pytest.fixture
def holding_shard_1_of_2() -> Iterator[None]:
    hold(ShardSet.of(2, [1]))
    try:
        yield
    finally:
        hold(EVERY_SHARD)


async def test_a_server_lock_of_another_process_s_server_is_an_internal_error(
    holding_shard_1_of_2: None,
) -> None:
    locks: ServerLocks[tuple[int, str]] = ServerLocks()
    mine, theirs = guild_id_on_shard(1, 2), guild_id_on_shard(0, 2)
    async with locks((mine, "run-1")):
        assert locks((mine, "run-1")).locked()
    with pytest.raises(ServerOfAnotherProcess) as error:
        locks((theirs, "run-1"))
    message = str(error.value)
    assert f"server {theirs}, which is on shard 0" in message
    assert "this process holds shard 1 of 2" in message
    assert len(locks) == 0


async def test_holding_every_shard_every_server_lock_is_ours() -> None:
    locks: ServerLocks[tuple[int, str]] = ServerLocks()
    for shard in range(3):
        async with locks((guild_id_on_shard(shard, 3), "run")):
            pass
