"""Gangs, fighters, vehicles, Stash, territories, battles: stored and read back whole."""

from __future__ import annotations

import pytest

from bot.storage import Campaign, Storage, new_id
from rules.errors import InvalidRequest, NotFound
from rules.models import Battle, FighterCategory, FighterEndState, FighterStatus, VehicleStatus
from tests import factories as f

from .conftest import ACTOR, GUILD_A, full_gang, held_captive, scalar, two_gangs


async def test_a_full_gang_round_trips_exactly(storage: Storage, campaign: Campaign) -> None:
    gang = full_gang()
    assert await storage.write(GUILD_A).create_gang(campaign.id, gang, actor=ACTOR) == gang
    loaded = await storage.read(GUILD_A).get_gang(campaign.id, gang.id)
    assert loaded == gang
    assert loaded.fighters[0].profile.ws == 3
    assert loaded.vehicles[0].upgrades[0].name == "Ram"
    assert loaded.stash_vehicles[0].status is VehicleStatus.IN_STASH
    assert loaded.stash[0].availability.level == 9
    assert loaded.rating == gang.rating and loaded.wealth == gang.wealth


async def test_lookup_by_name_is_case_and_space_insensitive(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang_by_name(campaign.id, "ash   WOLVES")).id == gang.id
    found_gang, fighter = await storage.read(GUILD_A).find_fighter(campaign.id, "A BOSS")
    assert (found_gang.id, fighter.id) == (gang.id, "a-boss")
    with pytest.raises(NotFound, match=r"There is no gang called 'Nobody' in this campaign\."):
        await storage.read(GUILD_A).get_gang_by_name(campaign.id, "Nobody")
    with pytest.raises(NotFound, match="no fighter called 'Nobody'"):
        await storage.read(GUILD_A).find_fighter(campaign.id, "Nobody")


async def test_names_are_unique_per_campaign(storage: Storage, campaign: Campaign) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    with pytest.raises(InvalidRequest, match="already a gang called 'ASH WOLVES'"):
        await storage.write(GUILD_A).create_gang(
            campaign.id, full_gang("ASH WOLVES", "b"), actor=ACTOR)
    other = await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Iron Kin", "b"),
                                      actor=ACTOR)
    clash = f.fighter("A boss", id=new_id())
    with pytest.raises(InvalidRequest, match="already a fighter called 'A boss'"):
        await storage.write(GUILD_A).add_fighter(campaign.id, other.id, clash, actor=ACTOR)
    with pytest.raises(InvalidRequest, match="already a vehicle called 'A VAN'"):
        await storage.write(GUILD_A).add_vehicle(campaign.id, other.id,
                                  f.vehicle("A VAN", id=new_id()), actor=ACTOR)
    with pytest.raises(InvalidRequest, match="already a gang with id"):
        await storage.write(GUILD_A).create_gang(campaign.id, full_gang("New", "c", id=other.id),
                                  actor=ACTOR)
    # Nothing of the refused writes is left behind.
    assert len(await storage.read(GUILD_A).list_gangs(campaign.id)) == 2
    assert len(await storage.read(GUILD_A).list_actions(campaign.id)) == 2


async def test_fighters_vehicles_and_stash(storage: Storage, campaign: Campaign) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    cid, gid = campaign.id, gang.id
    juve = f.fighter("Kid", FighterCategory.JUVE, cost=25, id=new_id(),
                     equipment=[f.item("Stub gun", 5, id=new_id())])
    await storage.write(GUILD_A).add_fighter(cid, gid, juve, actor=ACTOR)
    juve.xp = 4
    juve.equipment.append(f.item("Knife", 5, id=new_id()))
    juve.profile.worsen("bs")
    assert await storage.write(GUILD_A).update_fighter(cid, gid, juve, actor=ACTOR) == juve
    removed = await storage.write(GUILD_A).remove_fighter(cid, gid, "a-ganger", actor=ACTOR)
    assert removed.name == "a Ganger"

    bike = f.vehicle("Bike", id=new_id())
    await storage.write(GUILD_A).add_vehicle(cid, gid, bike, actor=ACTOR, stash=True)
    bike.status = VehicleStatus.IN_REPAIR
    await storage.write(GUILD_A).update_vehicle(cid, gid, bike, actor=ACTOR)
    await storage.write(GUILD_A).remove_vehicle(cid, gid, "a-van", actor=ACTOR)
    grenade = f.item("Frag grenades", 30, id=new_id())
    await storage.write(GUILD_A).add_stash_item(cid, gid, grenade, actor=ACTOR)
    assert (await storage.write(GUILD_A).remove_stash_item(
        cid, gid, "a-i6", actor=ACTOR)).id == "a-i6"

    loaded = await storage.read(GUILD_A).get_gang(cid, gid)
    assert [x.name for x in loaded.fighters] == ["a Boss", "Kid"]
    assert loaded.fighter(juve.id) == juve
    assert loaded.vehicles == []
    assert [v.name for v in loaded.stash_vehicles] == ["a Wreck", "Bike"]
    assert loaded.stash_vehicles[1].status is VehicleStatus.IN_REPAIR
    assert [i.name for i in loaded.stash] == ["Frag grenades"]
    # Boss, juve, Stash: the van's items went with it.
    assert await scalar(storage, "SELECT COUNT(*) FROM items") == 2 + 2 + 1
    with pytest.raises(NotFound):
        await storage.write(GUILD_A).remove_fighter(cid, gid, "a-ganger", actor=ACTOR)


async def test_moving_equipment_and_swapping_names_in_one_edit(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    boss, ganger = gang.fighters
    lasgun = boss.equipment.pop(0)
    gang.stash.append(lasgun)
    ganger.equipment.append(boss.equipment.pop(0))
    boss.name, ganger.name = ganger.name, boss.name
    assert await storage.write(GUILD_A).update_gang(campaign.id, gang, actor=ACTOR) == gang
    assert await storage.read(GUILD_A).get_gang(campaign.id, gang.id) == gang


async def test_rename_transfer_and_delete_gang(storage: Storage, campaign: Campaign) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    turf = await storage.write(GUILD_A).add_territory(
        campaign.id, f.territory("Sump", id=new_id(), controller=gang.id), actor=ACTOR
    )
    assert (await storage.write(GUILD_A).rename_gang(campaign.id, gang.id, "Grey Wolves",
                                      actor=ACTOR)).name == "Grey Wolves"
    assert (await storage.write(GUILD_A).transfer_gang(campaign.id, gang.id, "555",
                                        actor=ACTOR)).owner == "555"
    assert [g.id for g in await storage.read(GUILD_A).list_gangs(
        campaign.id, owner="555")] == [gang.id]
    assert await storage.read(GUILD_A).list_gangs(campaign.id, owner="1") == []
    await storage.write(GUILD_A).delete_gang(campaign.id, gang.id, actor=ACTOR)
    with pytest.raises(NotFound):
        await storage.read(GUILD_A).get_gang(campaign.id, gang.id)
    assert (await storage.read(GUILD_A).get_territory(campaign.id, turf.id)).controller is None
    for table in ("fighters", "vehicles", "items"):
        assert await scalar(storage, f"SELECT COUNT(*) FROM {table}") == 0


async def test_territories_and_world(storage: Storage, campaign: Campaign) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    ruins = await storage.write(GUILD_A).add_territory(
        campaign.id, f.territory("Old Ruins", id=new_id(), boons=["Reputation +1"]),
        actor=ACTOR,
    )
    await storage.write(GUILD_A).add_territory(campaign.id, f.territory("Sump", id=new_id()),
                                actor=ACTOR)
    assigned = await storage.write(GUILD_A).assign_territory(
        campaign.id, ruins.id, kin.id, actor=ACTOR)
    assert assigned.controller == kin.id
    with pytest.raises(NotFound):
        await storage.write(GUILD_A).assign_territory(campaign.id, ruins.id, "nope", actor=ACTOR)
    controlled = await storage.read(GUILD_A).list_territories(campaign.id, controller=kin.id)
    assert [t.name for t in controlled] == ["Old Ruins"]
    assert controlled[0].boons == ["Reputation +1"]

    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    assert set(world.gangs) == {wolves.id, kin.id}
    assert [t.name for t in world.territories.values()] == ["Old Ruins", "Sump"]
    assert world.territories_of(kin.id)[0].id == ruins.id
    with pytest.raises(NotFound, match="no gang with id nope"):
        await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, "nope"])
    await storage.write(GUILD_A).remove_territory(campaign.id, ruins.id, actor=ACTOR)
    assert len(await storage.read(GUILD_A).list_territories(campaign.id)) == 1


async def test_captives_stay_on_their_owners_roster(storage: Storage, campaign: Campaign) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    victim = await held_captive(storage, campaign, wolves, "a-ganger", kin)
    held = await storage.read(GUILD_A).captives_held_by(campaign.id, kin.id)
    assert [(g.id, x.id) for g, x in held] == [(wolves.id, victim.id)]
    stored = (await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)).fighter(victim.id)
    assert stored.status is FighterStatus.CAPTURED and stored.captured_by == kin.id


async def test_battles(storage: Storage, campaign: Campaign) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    first = Battle(id=new_id(), gang_ids=[wolves.id, kin.id], scenario="Stand-off")
    assert await storage.write(GUILD_A).create_battle(campaign.id, first) == first
    second = Battle(
        id=new_id(), gang_ids=[kin.id, wolves.id], winner=kin.id, scenario="Ambush",
        fighters=[FighterEndState(gang_id=wolves.id, fighter_id="a-boss", out_of_action=True)],
        enemies_out_of_action={kin.id: 1}, bottled_out=[wolves.id],
    )
    await storage.write(GUILD_A).create_battle(campaign.id, second)
    second.gangs_with_models_left = [kin.id]
    assert await storage.write(GUILD_A).update_battle(campaign.id, second) == second
    assert await storage.read(GUILD_A).get_battle(campaign.id, second.id) == second
    assert [b.id for b in await storage.read(GUILD_A).list_battles(campaign.id)] == [
        second.id, first.id,
    ]
    other = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Loners", "c"), actor=ACTOR)
    assert await storage.read(GUILD_A).list_battles(campaign.id, gang_id=other.id) == []
    with pytest.raises(InvalidRequest, match="already a battle"):
        await storage.write(GUILD_A).create_battle(campaign.id, first)
    with pytest.raises(NotFound, match="no gang with id ghost"):
        await storage.write(GUILD_A).create_battle(campaign.id,
                                    Battle(id=new_id(), gang_ids=[wolves.id, "ghost"]))


async def test_a_battle_and_its_world_with_the_captives_gangs_are_one_read(
    storage: Storage, campaign: Campaign, pg_trips: list[str]
) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    await held_captive(storage, campaign, wolves, "a-ganger", kin)
    await storage.write(GUILD_A).create_battle(campaign.id, Battle(
        id="b1", gang_ids=[kin.id, wolves.id], winner=kin.id, campaign=True))

    async with storage.read_only(GUILD_A) as tx:
        await tx.get_campaign(campaign.id)
        pg_trips.clear()
        battle, world, rows = await tx.world_rows_with_captives(
            campaign.id, [kin.id, wolves.id], battle_id="b1")
        assert len(pg_trips) == (1 if storage.driver == "postgresql" else 0), pg_trips
        # The captive's gang was read already: its fighters held by kin.
        assert battle is not None and battle.gang_ids == [kin.id, wolves.id]
        assert list(world.gangs) == [kin.id, wolves.id] and set(rows.gangs) == set(world.gangs)
        assert world.territories.keys() == rows.territories.keys()

        pg_trips.clear()
        battle, world, rows = await tx.world_rows_with_captives(campaign.id, [kin.id])
        # A captive's gang outside the list: a second read for its roster.
        assert len(pg_trips) == (2 if storage.driver == "postgresql" else 0), pg_trips
        assert battle is None and list(world.gangs) == [kin.id, wolves.id]
        assert world.gangs[wolves.id].fighters == (
            await tx.load_world(campaign.id, [wolves.id])).gangs[wolves.id].fighters
