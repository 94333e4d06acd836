"""A vehicle's profile and a weapon's rule data lines, as /vehicle add, /gang show (text and
card) and /fighter show give them, through the real bot and the fake Discord."""

from __future__ import annotations

from bot.pictures.roster import RosterOptions, WeaponLine, paginate, roster_blocks, roster_card
from bot.storage import Storage
from demo.arena import Arena
from rules.data import load_ruleset
from rules.models import Gang
from tests.e2e.helpers import U, database, ok, said, slash

CAMPAIGN = "Axle Hive"
WOLFQUAD = 'M8" Front3 Side3 Rear3 HP2 Hnd5+ Sv5+'


async def _stored(storage: Storage, arena: Arena, name: str) -> Gang:
    guild_id = arena.fake.world.guild(U).id
    campaign = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
    return next(g for g in await storage.read(guild_id).list_gangs(campaign.id)
                if g.name == name)


async def _gang_with_a_vehicle_and_a_bare_weapon(arena: Arena) -> None:
    await ok(arena, "carol", "campaign create", name=CAMPAIGN, ruleset="necromunda-2023")
    await ok(arena, "alice", "gang create", name="Axle Lords", house="Goliath",
             alignment="Law Abiding", credits=1000, campaign=CAMPAIGN)
    await ok(arena, "alice", "fighter add", gang="Axle Lords", name="Krull",
             fighter_type="Goliath Forge Tyrant", campaign=CAMPAIGN)
    await ok(arena, "alice", "fighter add", gang="Axle Lords", name="Thug",
             fighter_type="Road Thug", campaign=CAMPAIGN)
    # Written down by hand: the item carries no profile of its own (the Stub cannon is
    # the Goliath list's own weapon, not a Trading Post one).
    await ok(arena, "alice", "stash add", gang="Axle Lords", item="Stub cannon", cost=20,
             kind="weapon", campaign=CAMPAIGN)
    await ok(arena, "alice", "fighter equip", fighter="Krull", item="Stub cannon",
             from_stash=True, campaign=CAMPAIGN)


async def test_vehicle_profiles_and_weapon_lines_of_the_data_in_text_and_on_the_card(
        arena: Arena) -> None:
    await _gang_with_a_vehicle_and_a_bare_weapon(arena)
    added = await ok(arena, "alice", "vehicle add", gang="Axle Lords", name="Rumbler",
                     vehicle_type="Wolfquad", crew="Thug", campaign=CAMPAIGN)
    assert "70 credits" in added and WOLFQUAD in added
    shown = await slash(arena, "alice", "gang show", gang="Axle Lords", campaign=CAMPAIGN)
    assert WOLFQUAD in said(shown)
    [page] = [a for message in shown.messages for a in message.attachments]
    async with database(arena) as storage:
        stored = await _stored(storage, arena, "Axle Lords")
    ruleset = load_ruleset("necromunda-2023")
    wolfquad = ruleset.vehicle_profiles(["Wolfquad"])
    lines = ruleset.weapon_lines(["Stub cannon"])
    owner = arena.fake.world.user("alice").display_name
    # The card posted is the one drawn with the rule data's vehicle profile and weapon lines.
    assert page.data == roster_card(stored, owner_name=owner, weapon_profiles=lines,
                                    vehicle_profiles=wolfquad)[0]
    assert page.data != roster_card(stored, owner_name=owner, weapon_profiles=lines)[0]
    options = RosterOptions(owner_name=owner, weapon_profiles=lines, vehicle_profiles=wolfquad)
    placed = {p.block.title: p.block for p in paginate(roster_blocks(stored, options))[0]}
    assert placed["Rumbler"].stats == [("M", '8"'), ("Front", "3"), ("Side", "3"),
                                       ("Rear", "3"), ("HP", "2"), ("Hnd", "5+"), ("Sv", "5+")]
    figures = [p.row.figures for p in placed["Krull"].lines if isinstance(p, WeaponLine)]
    assert figures == [tuple(str(getattr(line, field)) for field in (
        "short_range", "long_range", "short_accuracy", "long_accuracy", "strength", "ap",
        "damage", "ammo")) for line in lines["stub cannon"]]

    # /fighter show gives the weapon the lines the card draws: its first, "- static", "- warp".
    text = await ok(arena, "alice", "fighter show", fighter="Krull", campaign=CAMPAIGN)
    assert "Stub cannon" in text and "- static" in text and "- warp" in text
    assert "Shield Breaker" in text
