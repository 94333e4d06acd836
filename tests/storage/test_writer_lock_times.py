"""The writer lock's waits and holds are counted (bench/bot_bench.py reports them)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import Campaign, Storage
from bot.storage.repository import WRITER_LOCK

from .conftest import GUILD_A


@pytest.mark.sqlite_only("the one SQLite writer lock; PostgreSQL has none to wait for")
async def test_a_write_that_waits_for_another_is_counted_as_waiting(
    storage: Storage, campaign: Campaign
) -> None:
    before_holds, before_waited, before_held = (WRITER_LOCK.holds, WRITER_LOCK.waited,
                                                WRITER_LOCK.held)
    first_in = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with storage.transaction(GUILD_A) as tx:
            first_in.set()
            await release.wait()
            await tx.set_default_campaign(campaign.id)

    async def second() -> None:
        await first_in.wait()
        async with storage.transaction(GUILD_A) as tx:
            await tx.get_campaign(campaign.id)

    holding = asyncio.create_task(first())
    waiting = asyncio.create_task(second())
    await first_in.wait()
    await asyncio.sleep(0.05)  # the second write is now queued behind the first
    assert storage.writer_busy and not waiting.done()
    release.set()
    await asyncio.gather(holding, waiting)
    assert WRITER_LOCK.holds == before_holds + 2
    assert WRITER_LOCK.held - before_held >= 0.05  # the first held it while the second waited
    assert WRITER_LOCK.waited - before_waited >= 0.05
    assert WRITER_LOCK.longest_wait >= 0.05
