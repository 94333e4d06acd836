"""Per-server isolation: guild A cannot read or change guild B's data, even naming it exactly."""

from __future__ import annotations

import pytest

from bot.storage import Storage, new_id
from rules.errors import NotFound
from rules.models import Battle, CampaignSettings
from tests import factories as f

from .conftest import ACTOR, GUILD_A, GUILD_B, add_credits, full_gang


async def test_guild_a_cannot_reach_guild_b(storage: Storage) -> None:
    mine = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Mine"))
    theirs = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Theirs"))
    target = await storage.write(GUILD_B).create_gang(theirs.id, full_gang(), actor=ACTOR)
    turf = await storage.write(GUILD_B).add_territory(theirs.id, f.territory("Sump", id="t-b"),
                                       actor=ACTOR)
    stranger = "666"

    # Guild A names guild B's campaign id: it simply does not exist for A.
    reads = [
        storage.read(GUILD_A).get_campaign(theirs.id),
        storage.read(GUILD_A).get_gang(theirs.id, target.id),
        storage.read(GUILD_A).get_gang_by_name(theirs.id, target.name),
        storage.read(GUILD_A).list_gangs(theirs.id),
        storage.read(GUILD_A).load_world(theirs.id, [target.id]),
        storage.read(GUILD_A).list_territories(theirs.id),
        storage.read(GUILD_A).recent_events(theirs.id),
        storage.read(GUILD_A).export_campaign(theirs.id),
    ]
    for read in reads:
        with pytest.raises(NotFound, match="no campaign with id"):
            await read
    with pytest.raises(NotFound):
        await storage.read(GUILD_A).get_campaign_by_name("Theirs")

    # Through its own campaign, A cannot see B's gang, fighters or territory by id or name.
    with pytest.raises(NotFound):
        await storage.read(GUILD_A).get_gang(mine.id, target.id)
    with pytest.raises(NotFound, match="no gang called 'Ash Wolves'"):
        await storage.read(GUILD_A).get_gang_by_name(mine.id, target.name)
    with pytest.raises(NotFound):
        await storage.read(GUILD_A).find_fighter(mine.id, target.fighters[0].name)
    with pytest.raises(NotFound):
        await storage.read(GUILD_A).get_territory(mine.id, turf.id)
    assert await storage.read(GUILD_A).list_gangs(mine.id) == []

    # Nor change them, whichever way it tries.
    changed = target.model_copy(update={"credits": 999})
    writes = [
        storage.write(GUILD_A).update_gang(mine.id, changed, actor=stranger),
        storage.write(GUILD_A).rename_gang(mine.id, target.id, "Mine now", actor=stranger),
        storage.write(GUILD_A).transfer_gang(mine.id, target.id, stranger, actor=stranger),
        storage.write(GUILD_A).delete_gang(mine.id, target.id, actor=stranger),
        storage.write(GUILD_A).remove_fighter(mine.id, target.id, "a-boss", actor=stranger),
        storage.write(GUILD_A).assign_territory(mine.id, turf.id, None, actor=stranger),
        storage.write(GUILD_A).update_gang(theirs.id, changed, actor=stranger),
        storage.write(GUILD_A).delete_campaign(theirs.id),
        storage.write(GUILD_A).set_default_campaign(theirs.id),
    ]
    for write in writes:
        with pytest.raises(NotFound):
            await write
    world = f.world(target)
    with pytest.raises(NotFound, match=f"no gang with id {target.id}"):
        await storage.write(GUILD_A).apply(
            mine.id, add_credits(world, target.id, 50), actor=stranger)

    assert await storage.read(GUILD_B).get_gang(theirs.id, target.id) == target
    assert (await storage.read(GUILD_B).get_territory(theirs.id, turf.id)).name == "Sump"
    assert (await storage.read(GUILD_B).get_default_campaign()).id == theirs.id
    assert await storage.read(GUILD_A).list_actions(mine.id) == []


async def test_the_same_ids_live_side_by_side_on_two_servers(storage: Storage) -> None:
    mine = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Same"))
    theirs = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Same"))
    await storage.write(GUILD_A).create_gang(mine.id, full_gang(credits=10), actor=ACTOR)
    await storage.write(GUILD_B).create_gang(theirs.id, full_gang(credits=20), actor=ACTOR)
    world = await storage.read(GUILD_A).load_world(mine.id, ["a-gang"])
    await storage.write(GUILD_A).apply(mine.id, add_credits(world, "a-gang", 5), actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang(mine.id, "a-gang")).credits == 15
    assert (await storage.read(GUILD_B).get_gang(theirs.id, "a-gang")).credits == 20
    await storage.write(GUILD_B).create_battle(theirs.id, Battle(id=new_id(), gang_ids=["a-gang",
                                await _second_gang(storage, theirs.id)]))
    assert await storage.read(GUILD_A).list_battles(mine.id) == []


async def _second_gang(storage: Storage, campaign_id: str) -> str:
    gang = await storage.write(GUILD_B).create_gang(
        campaign_id, full_gang("Other", "z"), actor=ACTOR)
    return gang.id
