"""PostgreSQL: one process per shard on one database, claimed with session advisory locks.

Each claim is what one bot process takes at start-up (bot/__main__.py); here
several claims in one test stand for several processes, each on a connection of
its own, against the session's real server.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from bot.shards import ShardSet
from bot.storage.opening import open_storage
from bot.storage.postgres import (
    ShardClaim,
    ShardCountInUse,
    ShardInUse,
    claim_shards,
)
from rules.models import CampaignSettings
from tests.postgres_server import create_database, drop_database

from .conftest import ACTOR, GUILD_A, full_gang

NO_HANG = 30


Hold = Callable[[ShardSet], Awaitable[ShardClaim]]


@pytest.fixture
async def hold(postgres_url: str) -> AsyncIterator[Hold]:
    """Claim shards on the test's database as a process would; every claim taken so is
    released at the test's end whatever happens."""
    taken: list[ShardClaim] = []

    async def claim(shards: ShardSet) -> ShardClaim:
        taken.append(await claim_shards(postgres_url, shards))
        return taken[-1]

    try:
        yield claim
    finally:
        for claim_taken in taken:
            await claim_taken.release()


async def test_a_shard_held_is_refused_naming_it_and_its_holder(
    postgres_url: str, hold: Hold,
) -> None:
    await hold(ShardSet.of(2, [1]))
    with pytest.raises(ShardInUse) as refused:
        await claim_shards(postgres_url, ShardSet.of(2, [1]))
    message = refused.value.message
    assert message.startswith("Shard 1 of 2 is held by another Munda Arbitrator process")
    assert f"munda-arbitrator pid {os.getpid()} on " in message  # the holder's name
    assert "secret" not in message and "\n" not in message
    # The other shard is free, and holding it does not touch shard 1's claim.
    await hold(ShardSet.of(2, [0]))


async def test_a_refused_claim_holds_nothing(postgres_url: str, hold: Hold) -> None:
    await hold(ShardSet.of(3, [2]))
    with pytest.raises(ShardInUse):
        # Shard 0 is taken first, then shard 2 is refused: shard 0 must not stay held.
        await claim_shards(postgres_url, ShardSet.of(3, [0, 2]))
    await hold(ShardSet.of(3, [0, 1]))


async def test_shards_of_another_count_are_refused(
    postgres_url: str, hold: Hold,
) -> None:
    await hold(ShardSet.of(2, [1]))
    # Shard 3 of 4 is a part of shard 1 of 2: another number, the same servers.
    with pytest.raises(ShardCountInUse) as refused:
        await claim_shards(postgres_url, ShardSet.of(4, [3]))
    assert "holds shards of 2, not of 4" in refused.value.message
    # So is one process holding every shard of one (a process started without shards).
    with pytest.raises(ShardCountInUse):
        await claim_shards(postgres_url, ShardSet.of(1))
    await hold(ShardSet.of(2, [0]))


async def test_a_released_or_dead_claim_frees_its_shards(
    postgres_url: str, hold: Hold,
) -> None:
    first = await claim_shards(postgres_url, ShardSet.of(1))
    await first.release()
    second = await hold(ShardSet.of(1))
    lost = asyncio.Event()
    second.when_lost(lost.set)
    # The server ends the holder's session, as when its process is killed or its
    # machine's connection is given up for dead.
    admin = await asyncpg.connect(postgres_url)
    try:
        ended = await admin.fetchval(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name LIKE 'munda-arbitrator pid %'")
        assert ended
    finally:
        await admin.close()
    await asyncio.wait_for(lost.wait(), NO_HANG)
    assert second.lost
    await hold(ShardSet.of(1))


async def test_claims_on_another_database_are_its_own(
    postgres_url: str, postgres_admin_url: str, hold: Hold,
) -> None:
    other = await create_database(postgres_admin_url, migrated=False)
    try:
        await hold(ShardSet.of(2, [0]))
        # Same shard, another count, another database on the same server: no clash.
        elsewhere = await claim_shards(other, ShardSet.of(1))
        await elsewhere.release()
    finally:
        await drop_database(postgres_admin_url, other)


async def test_the_shard_locks_never_meet_the_campaign_locks(
    postgres_url: str, hold: Hold,
) -> None:
    storage = await open_storage(postgres_url)
    try:
        # Campaign pk 1 and 2 take the one-bigint keys 1 and 2 while writing; shards 1
        # and 2 are held in the two-int key space by another session meanwhile.
        await hold(ShardSet.of(3))
        for name in ("One", "Two"):
            camp = await storage.write(GUILD_A).create_campaign(CampaignSettings(name=name))
            async with asyncio.timeout(NO_HANG):
                await storage.write(GUILD_A).create_gang(camp.id, full_gang(f"{name} Gang"),
                                          actor=ACTOR)
    finally:
        await storage.close()


async def test_an_unreachable_database_is_a_storage_error_without_its_password() -> None:
    from bot.storage.errors import DatabaseUnreachable

    # Its own kind of StorageError: start-up tries again instead of stopping.
    with pytest.raises(DatabaseUnreachable) as refused:
        await claim_shards("postgresql://munda:secret@127.0.0.1:1/munda", ShardSet.of(1))
    assert refused.value.message.startswith(
        "could not reach the database postgresql://munda:***@127.0.0.1:1/munda")
