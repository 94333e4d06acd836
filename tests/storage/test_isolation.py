"""Per-server isolation: guild A cannot read or change guild B's data, even naming it exactly."""

from __future__ import annotations

import pytest

from bot.storage import Storage, new_id
from rules.errors import NotFound
from rules.models import Battle, CampaignSettings
from tests import factories as f

from .conftest import ACTOR, GUILD_A, GUILD_B, add_credits, full_gang


async def test_guild_a_cannot_reach_guild_b(storage: Storage) -> None:
    mine = await storage.create_campaign(GUILD_A, CampaignSettings(name="Mine"))
    theirs = await storage.create_campaign(GUILD_B, CampaignSettings(name="Theirs"))
    target = await storage.create_gang(GUILD_B, theirs.id, full_gang(), actor=ACTOR)
    turf = await storage.add_territory(GUILD_B, theirs.id, f.territory("Sump", id="t-b"),
                                       actor=ACTOR)
    stranger = "666"

    # Guild A names guild B's campaign id: it simply does not exist for A.
    reads = [
        storage.get_campaign(GUILD_A, theirs.id),
        storage.get_gang(GUILD_A, theirs.id, target.id),
        storage.get_gang_by_name(GUILD_A, theirs.id, target.name),
        storage.list_gangs(GUILD_A, theirs.id),
        storage.load_world(GUILD_A, theirs.id, [target.id]),
        storage.list_territories(GUILD_A, theirs.id),
        storage.recent_events(GUILD_A, theirs.id),
        storage.export_campaign(GUILD_A, theirs.id),
    ]
    for read in reads:
        with pytest.raises(NotFound, match="no campaign with id"):
            await read
    with pytest.raises(NotFound):
        await storage.get_campaign_by_name(GUILD_A, "Theirs")

    # Through its own campaign, A cannot see B's gang, fighters or territory by id or name.
    with pytest.raises(NotFound):
        await storage.get_gang(GUILD_A, mine.id, target.id)
    with pytest.raises(NotFound, match="no gang called 'Ash Wolves'"):
        await storage.get_gang_by_name(GUILD_A, mine.id, target.name)
    with pytest.raises(NotFound):
        await storage.find_fighter(GUILD_A, mine.id, target.fighters[0].name)
    with pytest.raises(NotFound):
        await storage.get_territory(GUILD_A, mine.id, turf.id)
    assert await storage.list_gangs(GUILD_A, mine.id) == []

    # Nor change them, whichever way it tries.
    changed = target.model_copy(update={"credits": 999})
    writes = [
        storage.update_gang(GUILD_A, mine.id, changed, actor=stranger),
        storage.rename_gang(GUILD_A, mine.id, target.id, "Mine now", actor=stranger),
        storage.transfer_gang(GUILD_A, mine.id, target.id, stranger, actor=stranger),
        storage.delete_gang(GUILD_A, mine.id, target.id, actor=stranger),
        storage.remove_fighter(GUILD_A, mine.id, target.id, "a-boss", actor=stranger),
        storage.assign_territory(GUILD_A, mine.id, turf.id, None, actor=stranger),
        storage.update_gang(GUILD_A, theirs.id, changed, actor=stranger),
        storage.delete_campaign(GUILD_A, theirs.id),
        storage.set_default_campaign(GUILD_A, theirs.id),
    ]
    for write in writes:
        with pytest.raises(NotFound):
            await write
    world = f.world(target)
    with pytest.raises(NotFound, match=f"no gang with id {target.id}"):
        await storage.apply(GUILD_A, mine.id, add_credits(world, target.id, 50), actor=stranger)

    assert await storage.get_gang(GUILD_B, theirs.id, target.id) == target
    assert (await storage.get_territory(GUILD_B, theirs.id, turf.id)).name == "Sump"
    assert (await storage.get_default_campaign(GUILD_B)).id == theirs.id
    assert await storage.list_actions(GUILD_A, mine.id) == []


async def test_the_same_ids_live_side_by_side_on_two_servers(storage: Storage) -> None:
    mine = await storage.create_campaign(GUILD_A, CampaignSettings(name="Same"))
    theirs = await storage.create_campaign(GUILD_B, CampaignSettings(name="Same"))
    await storage.create_gang(GUILD_A, mine.id, full_gang(credits=10), actor=ACTOR)
    await storage.create_gang(GUILD_B, theirs.id, full_gang(credits=20), actor=ACTOR)
    world = await storage.load_world(GUILD_A, mine.id, ["a-gang"])
    await storage.apply(GUILD_A, mine.id, add_credits(world, "a-gang", 5), actor=ACTOR)
    assert (await storage.get_gang(GUILD_A, mine.id, "a-gang")).credits == 15
    assert (await storage.get_gang(GUILD_B, theirs.id, "a-gang")).credits == 20
    await storage.create_battle(GUILD_B, theirs.id, Battle(id=new_id(), gang_ids=["a-gang",
                                await _second_gang(storage, theirs.id)]))
    assert await storage.list_battles(GUILD_A, mine.id) == []


async def _second_gang(storage: Storage, campaign_id: str) -> str:
    gang = await storage.create_gang(GUILD_B, campaign_id, full_gang("Other", "z"), actor=ACTOR)
    return gang.id
