"""Concurrent writers on a real file never lose an update."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.storage import Campaign, Storage
from rules.models import CampaignSettings

from .conftest import ACTOR, GUILD_A, add_credits, full_gang

TASKS = 2
INCREMENTS = 50


async def increment(storage: Storage, campaign_id: str, gang_id: str) -> None:
    for _ in range(INCREMENTS):
        async with storage.transaction(GUILD_A) as tx:
            gang = await tx.get_gang(campaign_id, gang_id)
            # Give the other writer every chance to interleave.
            await asyncio.sleep(0)
            world = await tx.load_world(campaign_id, [gang.id])
            await tx.apply(campaign_id, add_credits(world, gang_id, 1), actor=ACTOR)


async def test_tasks_sharing_one_storage(storage: Storage, campaign: Campaign) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(credits=0), actor=ACTOR)
    await asyncio.gather(*(increment(storage, campaign.id, gang.id) for _ in range(TASKS)))
    assert (await storage.read(GUILD_A).get_gang(
        campaign.id, gang.id)).credits == TASKS * INCREMENTS
    actions = await storage.read(GUILD_A).list_actions(campaign.id, limit=1000)
    assert len(actions) == TASKS * INCREMENTS + 1


async def test_two_storages_on_the_same_file(db_path: Path) -> None:
    first = await Storage.open(db_path)
    second = await Storage.open(db_path)
    try:
        campaign = await first.write(GUILD_A).create_campaign(CampaignSettings(name="Shared"))
        gang = await first.write(GUILD_A).create_gang(
            campaign.id, full_gang(credits=0), actor=ACTOR)
        await asyncio.gather(
            increment(first, campaign.id, gang.id),
            increment(second, campaign.id, gang.id),
            increment(first, campaign.id, gang.id),
        )
        expected = 3 * INCREMENTS
        assert (await second.read(GUILD_A).get_gang(campaign.id, gang.id)).credits == expected
        events = await first.read(GUILD_A).recent_events(campaign.id, limit=1000)
        afters = sorted(int(str(e.after)) for e in events if e.path == "credits")
        assert afters == list(range(1, expected + 1))
    finally:
        await first.close()
        await second.close()


async def test_storage_calls_inside_its_own_transaction_are_refused(
    storage: Storage, campaign: Campaign
) -> None:
    async with storage.transaction(GUILD_A) as tx:
        with pytest.raises(RuntimeError, match="use the transaction object"):
            await storage.read(GUILD_A).list_gangs(campaign.id)
        assert await tx.list_gangs(campaign.id) == []
    with pytest.raises(RuntimeError, match="transaction has ended"):
        await tx.list_gangs(campaign.id)
