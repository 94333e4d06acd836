"""Fixtures: a real database per test (tests/conftest.py: SQLite and PostgreSQL), a
campaign on guild A, and gang builders."""

from __future__ import annotations

from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.storage import Campaign, Storage
from bot.storage.opening import open_storage
from rules.dice import ScriptedRoller
from rules.models import (
    Advancement,
    CampaignSettings,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    VehicleStatus,
)
from rules.world import RuleResult, Workspace, World
from tests import factories as f

GUILD_A = 111_111_111_111_111_111
GUILD_B = 222_222_222_222_222_222
ACTOR = "333333333333333333"


@pytest.fixture
async def campaign(storage: Storage) -> Campaign:
    return await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Ash Wastes"))


async def migrated_then_changed(url: str, *statements: str) -> None:
    """A PostgreSQL database the bot made (opened and closed), then ``statements`` run on a
    plain connection, behind its back (as a damaged copy or a newer release might)."""
    store = await open_storage(url)
    await store.close()
    conn = await asyncpg.connect(url)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def write_old_territories(
    conn: aiosqlite.Connection, names: list[str], *, income: str
) -> None:
    """Territories of campaign pk 1 written straight into a file of an older schema, as
    its code wrote them (pks and positions from 1), then the file is committed and closed."""
    for pk, name in enumerate(names, start=1):
        await conn.execute(
            "INSERT INTO territories (pk, campaign_pk, position, id, name, name_key, income,"
            " boons, can_be_staked) VALUES (?, 1, ?, ?, ?, ?, ?, '[]', 1)",
            (pk, pk, f"t{pk}", name, name.casefold(), income),
        )
    await conn.commit()
    await conn.close()


def full_gang(name: str = "Ash Wolves", prefix: str = "a", **fields: Any) -> Gang:
    """A gang that uses every part of the roster: profiles, equipment, vehicles, Stash."""
    boss = f.fighter(
        f"{prefix} Boss", FighterCategory.LEADER, cost=120, id=f"{prefix}-boss",
        xp=7, kills=2, skills=["Nerves of Steel"], special_rules=["Leader"],
        lasting_injuries=["Humiliated"],
        advancements=[Advancement(name="+1 WS", xp_cost=6, credits=10, stat="ws")],
        equipment=[f.item("Lasgun", 15, id=f"{prefix}-i1"),
                   f.item("Flak armour", 10, EquipmentKind.ARMOUR, id=f"{prefix}-i2",
                          availability="Rare (8)")],
    )
    boss.profile.improve("ws")
    ganger = f.fighter(f"{prefix} Ganger", id=f"{prefix}-ganger",
                       equipment=[f.item("Autopistol", 10, id=f"{prefix}-i3")])
    van = f.vehicle(f"{prefix} Van", id=f"{prefix}-van", crew_id=ganger.id,
                    upgrades=[f.item("Ram", 20, EquipmentKind.VEHICLE_UPGRADE,
                                     id=f"{prefix}-i4")],
                    equipment=[f.item("Heavy stubber", 130, id=f"{prefix}-i5", two_slots=True)],
                    lasting_damage=["Loss of Power"])
    wreck = f.vehicle(f"{prefix} Wreck", id=f"{prefix}-wreck", status=VehicleStatus.IN_STASH)
    return f.gang(
        name, fighters=[boss, ganger], id=fields.pop("id", f"{prefix}-gang"),
        vehicles=[van], stash_vehicles=[wreck],
        stash=[f.item("Stimm-slug stash", 30, EquipmentKind.WARGEAR, id=f"{prefix}-i6",
                      availability="Illegal (9)", boon_of_sequence="seq1")],
        reputation=5, battles_fought=3, **fields,
    )


async def two_gangs(storage: Storage, campaign: Campaign) -> tuple[Gang, Gang]:
    """The Ash Wolves and the Iron Kin, both full gangs, stored in ``campaign``."""
    wolves = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    kin = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Iron Kin", "b"), actor=ACTOR)
    return wolves, kin


async def held_captive(
    storage: Storage, campaign: Campaign, gang: Gang, fighter_id: str, captor: Gang
) -> Fighter:
    """``gang``'s fighter made Captive of ``captor``, as stored."""
    fighter = gang.fighter(fighter_id)
    fighter.capture(captor.id)
    return await storage.write(GUILD_A).update_fighter(campaign.id, gang.id, fighter, actor=ACTOR)


def post_battle_step(world: World, gang_id: str, fighter_id: str, faces: list[int]) -> RuleResult:
    """A small rules function as the engine writes them: rolls, credits and a status."""
    ws = Workspace(world)
    roller = ScriptedRoller(faces)
    gang = ws.gang(gang_id)
    income = ws.roll(roller, "D6x10", f"income for {gang.name}")
    gang.credits += income.total
    recovery = ws.roll(roller, "D6", f"recovery of {gang.fighter(fighter_id).name}")
    status = FighterStatus.ACTIVE if recovery.total >= 4 else FighterStatus.IN_RECOVERY
    gang.fighter(fighter_id).set_status(status)
    ws.note(f"{gang.name} collects {income.total} credits.")
    return ws.finish(RuleResult, clause="PB-4", title="Collect Income")


def add_credits(world: World, gang_id: str, amount: int) -> RuleResult:
    ws = Workspace(world)
    ws.gang(gang_id).credits += amount
    return ws.finish(RuleResult, clause="TEST", title=f"+{amount} credits")


async def scalar(storage: Storage, sql: str) -> Any:
    """One value straight from the database, for checks the API deliberately does not offer."""
    return (await fetch(storage, sql))[0][0]


async def fetch(storage: Storage, sql: str) -> list[Any]:
    """Rows straight from the database, through the driver (``?`` works on both)."""
    if storage.driver == "sqlite":  # the writer's connection, as its pragmas are set
        return list(await storage._conn.execute_fetchall(sql))
    async with storage.read_only(0) as tx:
        return list(await tx._db.execute_fetchall(sql))


async def execute(storage: Storage, sql: str) -> int:
    """One statement in a write transaction of its own, through the driver."""
    async with storage.transaction(0) as tx:
        return await tx._db.execute(sql)
