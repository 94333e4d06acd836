"""PostgreSQL: writers of one campaign wait for each other, and for nobody else."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.storage.opening import open_storage
from rules.models import CampaignSettings
from tests.postgres_server import create_database, drop_database

from .conftest import ACTOR, GUILD_A, GUILD_B, full_gang, migrated_then_changed

NO_HANG = 30


async def _advisory_waiters(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
    finally:
        await conn.close()


async def test_a_write_waits_only_for_writers_of_its_own_campaign(
    postgres_admin_url: str,
) -> None:
    url = await create_database(postgres_admin_url, migrated=True)
    storage = await open_storage(url)
    try:
        ash = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Ash"))
        dust = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Dust"))
        held, release = asyncio.Event(), asyncio.Event()

        async def hold_ash() -> None:
            async with storage.transaction(GUILD_A) as tx:
                await tx.get_campaign(ash.id)
                await tx.create_gang(ash.id, full_gang("Ash Wolves"), actor=ACTOR)
                held.set()
                await release.wait()

        holder = asyncio.create_task(hold_ash())
        await asyncio.wait_for(held.wait(), NO_HANG)
        # Another server's campaign is written while Ash's writer holds its lock.
        async with asyncio.timeout(NO_HANG):
            await storage.write(GUILD_B).create_gang(
                dust.id, full_gang("Dust Kin", "d"), actor=ACTOR)
        # A second writer of Ash waits on the advisory lock until the first commits.
        second = asyncio.create_task(
            storage.write(GUILD_A).create_gang(ash.id, full_gang("Ash Kin", "k"), actor=ACTOR))
        async with asyncio.timeout(NO_HANG):
            while await _advisory_waiters(url) == 0:
                await asyncio.sleep(0.05)
        assert not second.done()
        release.set()
        await asyncio.wait_for(holder, NO_HANG)
        await asyncio.wait_for(second, NO_HANG)
        names = [g.name for g in await storage.read(GUILD_A).list_gangs(ash.id)]
        assert names == ["Ash Wolves", "Ash Kin"]
    finally:
        await storage.close()
        await drop_database(postgres_admin_url, url)


async def test_a_damaged_ledger_is_refused_at_start_up(postgres_url: str) -> None:
    from bot.storage import DatabaseDamaged

    # What the foreign keys forbid, done behind their back (as a damaged copy might).
    await migrated_then_changed(
        postgres_url, "SET session_replication_role = replica",
        "INSERT INTO ledger_events (campaign_pk, at, actor, kind, clause)"
        " VALUES (4242, 'now', 'x', 'note', 'X')")
    with pytest.raises(DatabaseDamaged, match="ledger events of a missing campaign"):
        await open_storage(postgres_url)
