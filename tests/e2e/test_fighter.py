"""/fighter and /vehicle through the real bot process against the fake Discord.

Alice (server owner) starts the campaign, so she is its Arbitrator; Bob is a
plain member who owns only the gangs he founds. Every test founds its own
gangs, since the module shares one bot and one database.
"""

from __future__ import annotations

from typing import Any

import pytest_asyncio

from demo.arena import Arena
from tests.e2e.helpers import G, U, new_gang, ok, refused, said, slash, stash


async def card(arena: Arena, fighter: str) -> str:
    return await ok(arena, "bob", "fighter show", fighter=fighter)


async def stocked_gang(arena: Arena, gang_name: str, fighter: str, carried: str, stashed: str,
                       vehicle: str, **vehicle_options: Any) -> str:
    """Alice's gang ``gang_name`` with something in every part of a roster: a Bruiser
    ``fighter`` carrying ``carried``, ``stashed`` in the Stash, and the ``vehicle`` added
    with ``vehicle_options``."""
    gang = await new_gang(arena, "alice", gang_name)
    await ok(arena, "alice", "fighter add", gang=gang, name=fighter,
             fighter_type="Goliath Bruiser")
    await ok(arena, "alice", "fighter equip", fighter=fighter, item=carried)
    await ok(arena, "alice", "stash add", gang=gang, item=stashed)
    await ok(arena, "alice", "vehicle add", gang=gang, name=vehicle, **vehicle_options)
    return gang


@pytest_asyncio.fixture(loop_scope="module", scope="module", autouse=True)
async def campaign(arena: Arena) -> str:
    await ok(arena, "alice", "campaign create", name="Roster Wars")
    return "Roster Wars"


# --------------------------------------------------------------------------- add


async def test_add_from_house_list_and_by_hand_charges_nothing(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Forge Lords")
    text = await ok(arena, "alice", "fighter add", gang=gang, name="Krag",
                    fighter_type="Goliath Forge Tyrant")
    assert "Goliath Forge Tyrant" in text and "135 credits" in text
    # The House List's profile comes with the type.
    assert 'M4" WS3+ BS3+ S4 T4 W2 I3+ A3 Ld5+ Cl4+ Wil8+ Int7+' in text
    shown = await card(arena, "Krag")
    assert "Leader" in shown and "Gang Leader" in shown and "135 (135 with gear)" in shown

    await ok(arena, "alice", "fighter add", gang=gang, name="Spud", category="Juve", cost=30)
    assert "Juve" in await card(arena, "Spud")
    # A type the House List lacks is written as typed when category and cost are given.
    await ok(arena, "alice", "fighter add", gang=gang, name="Vex", fighter_type="Hired Gun",
             category="Specialist", cost=60)
    assert "Hired Gun" in await card(arena, "Vex")
    assert "1,000" in await stash(arena, gang)

    message = await refused(arena, "alice", "fighter add", gang=gang, name="Nobody")
    assert "House List" in message
    message = await refused(arena, "alice", "fighter add", gang=gang, name="Krag",
                            category="Ganger", cost=50)
    assert "already a fighter called" in message


async def test_add_with_pay_hires_through_the_trading_post(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Paying Lords", credits=100)
    text = await ok(arena, "alice", "fighter add", gang=gang, name="Brakk",
                    fighter_type="Goliath Bruiser", pay=True)
    assert "55 credits" in text
    assert "45" in await stash(arena, gang)
    message = await refused(arena, "alice", "fighter add", gang=gang, name="Dear",
                            fighter_type="Goliath Forge Boss", pay=True)
    assert "100 credits" in message and "45" in message
    await refused(arena, "alice", "fighter add", gang=gang, name="Cheap", category="Juve",
                  cost=5, pay=True)


# --------------------------------------------------------------------------- equip


async def test_equip_up_to_three_weapon_slots_and_the_fourth_is_refused(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Gear Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Gorr",
             fighter_type="Goliath Forge Boss")
    # Not on a Forge Boss's list: the Trading Post's price.
    text = await ok(arena, "alice", "fighter equip", fighter="Gorr", item="Autogun")
    assert "15 credits, Trading Post price" in text and "1 of 3" in text
    # The list marks the two-handed hammer *: two slots, as the data says.
    text = await ok(arena, "alice", "fighter equip", fighter="Gorr", item="Two-handed hammer")
    assert "35 credits, Equipment List price" in text and "3 of 3" in text

    before = await card(arena, "Gorr")
    message = await refused(arena, "alice", "fighter equip", fighter="Gorr", item="Stub gun")
    assert "3 of 3 weapon slots" in message and "Stub Gun" in message
    after = await card(arena, "Gorr")
    assert after == before and "Stub Gun" not in after

    # Armour takes no weapon slot (5 on the list); an unknown item needs its cost.
    await ok(arena, "alice", "fighter equip", fighter="Gorr", item="Furnace plates")
    assert "cost" in await refused(arena, "alice", "fighter equip", fighter="Gorr",
                                   item="Lucky charm")
    await ok(arena, "alice", "fighter equip", fighter="Gorr", item="Lucky charm", cost=5)
    shown = await card(arena, "Gorr")
    assert "Furnace plates" in shown and "Lucky charm · wargear · 5 credits" in shown
    assert "3 of 3" in shown and "100 (160 with gear)" in shown


async def test_equip_with_pay_buys_from_the_fighters_own_list(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Buying Lords", credits=100)
    await ok(arena, "alice", "fighter add", gang=gang, name="Brag",
             fighter_type="Goliath Forge Boss")
    # A Boltgun is Rare (8) at the Trading Post; on a Forge Boss's own list it is bought
    # at the list's 55.
    text = await ok(arena, "alice", "fighter equip", fighter="Brag", item="Boltgun", pay=True)
    assert "Boltgun" in text and "55" in text and "1 of 3" in text
    assert "45" in await stash(arena, gang)
    # Named as players write it: the list's "Frag grenade", 30.
    text = await ok(arena, "alice", "fighter equip", fighter="Brag", item="frag grenades",
                    pay=True)
    assert "Frag grenade" in text and "2 of 3" in text
    assert "15" in await stash(arena, gang)
    before, stash_before = await card(arena, "Brag"), await stash(arena, gang)
    # A * weapon would make four slots; an item off the list is bought into the Stash at
    # the Trading Post instead; the list sets the price.
    assert "takes two" in await refused(arena, "alice", "fighter equip", fighter="Brag",
                                        item="Two-handed hammer", pay=True)
    assert "not on" in await refused(arena, "alice", "fighter equip", fighter="Brag",
                                     item="Autogun", pay=True)
    assert "costs 25 credits" in await refused(arena, "alice", "fighter equip",
                                               fighter="Brag", item="Chainaxe", pay=True)
    assert "leave out" in await refused(arena, "alice", "fighter equip", fighter="Brag",
                                        item="Axe", cost=1, pay=True)
    assert await card(arena, "Brag") == before
    assert await stash(arena, gang) == stash_before


async def test_equip_from_the_stash_and_unequip_back(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Stash Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Dreg",
             fighter_type="Goliath Bruiser")
    await ok(arena, "alice", "stash add", gang=gang, item="Autogun")
    text = await ok(arena, "alice", "fighter equip", fighter="Dreg", item="Autogun",
                    from_stash=True)
    assert "Autogun" in text
    assert "Autogun" in await card(arena, "Dreg")
    assert "Autogun" not in await stash(arena, gang)
    await refused(arena, "alice", "fighter equip", fighter="Dreg", item="Autogun",
                  from_stash=True)

    text = await ok(arena, "alice", "fighter unequip", fighter="Dreg", item="Autogun")
    assert "Stash" in text
    assert "Autogun" not in await card(arena, "Dreg")
    assert "Autogun" in await stash(arena, gang)
    await refused(arena, "alice", "fighter unequip", fighter="Dreg", item="Autogun")


# --------------------------------------------------------------------------- status, retire


async def test_statuses_and_capture(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Status Lords")
    rivals = await new_gang(arena, "bob", "Status Rivals")
    await ok(arena, "alice", "fighter add", gang=gang, name="Mog", fighter_type="Goliath Bruiser")
    text = await ok(arena, "alice", "fighter status", fighter="Mog", status="In Recovery")
    assert "Active → In Recovery" in text
    assert "already" in await refused(arena, "alice", "fighter status", fighter="Mog",
                                      status="In Recovery")
    assert "captor" in await refused(arena, "alice", "fighter status", fighter="Mog",
                                     status="Captured")
    await refused(arena, "alice", "fighter status", fighter="Mog", status="Captured",
                  captor=gang)
    await ok(arena, "alice", "fighter status", fighter="Mog", status="Captured", captor=rivals)
    assert "Captured by Status Rivals" in await card(arena, "Mog")
    await ok(arena, "alice", "fighter status", fighter="Mog", status="Active")
    assert "Captured" not in await card(arena, "Mog")
    text = await ok(arena, "alice", "fighter status", fighter="Mog", status="Dead")
    assert "Clean House" in text


async def test_retire_sends_gear_to_the_stash(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Retiring Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Old Bull",
             fighter_type="Goliath Bruiser")
    await ok(arena, "alice", "fighter equip", fighter="Old Bull", item="Fighting knife")
    await ok(arena, "alice", "fighter equip", fighter="Old Bull", item="Furnace plates")
    text = await ok(arena, "alice", "fighter retire", fighter="Old Bull")
    assert "retires" in text
    assert "no fighter called" in await refused(arena, "bob", "fighter show",
                                                fighter="Old Bull")
    shown = await stash(arena, gang)
    assert "Fighting Knife" in shown and "Furnace plates" in shown

    # Retired as a status does the same.
    await ok(arena, "alice", "fighter add", gang=gang, name="Young Bull",
             fighter_type="Goliath Bruiser")
    await ok(arena, "alice", "fighter equip", fighter="Young Bull", item="Stub gun")
    await ok(arena, "alice", "fighter status", fighter="Young Bull", status="Retired")
    assert "Stub Gun" in await stash(arena, gang)


# --------------------------------------------------------------------------- edit


async def test_edit_profile_cost_xp_and_name(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Edit Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Thug", fighter_type="Goliath Bruiser",
             profile='M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+')
    text = await ok(arena, "alice", "fighter edit", fighter="Thug", ws=3, s=4,
                    options={"int": 6}, cost=60, xp=5)
    for expected in ("ws 4 → 3", "s 3 → 4", "int 7 → 6", "cost 55 → 60", "xp 0 → 5"):
        assert expected in text, text
    shown = await card(arena, "Thug")
    assert "3+" in shown and "60 (60 with gear)" in shown
    await ok(arena, "alice", "fighter edit", fighter="thug", name="Big Thug")
    assert "Big Thug" in await card(arena, "Big Thug")
    assert "at least one" in await refused(arena, "alice", "fighter edit", fighter="Big Thug")


async def test_hostile_input_is_refused_politely_or_shown_escaped(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Hostile Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Grim", fighter_type="Goliath Bruiser")
    before = await card(arena, "Grim")

    message = await refused(arena, "alice", "fighter edit", fighter="Grim", ws=13)
    assert "WS" in message and "between 1 and 12" in message
    message = await refused(arena, "alice", "fighter edit", fighter="Grim", cost=-5)
    assert "between 0 and 1,000,000" in message
    assert "between" in await refused(arena, "alice", "fighter edit", fighter="Grim",
                                      xp=10**12)
    assert "between" in await refused(arena, "alice", "fighter add", gang=gang, name="Neg",
                                      category="Juve", cost=-1)
    assert "between" in await refused(arena, "alice", "fighter equip", fighter="Grim",
                                      item="Gold tooth", cost=-10)
    assert "empty" in await refused(arena, "alice", "fighter add", gang=gang, name="   ",
                                    category="Juve", cost=5)
    assert await card(arena, "Grim") == before

    hostile = ("**@everyone** <@&1> __x__ `y` " + "~" * 100)[:100]
    result = await slash(arena, "alice", "fighter add", gang=gang, name=hostile,
                         category="Ganger", cost=40)
    assert not result.ephemeral
    assert "@everyone" not in said(result).replace("@\u200beveryone", "")
    assert result.message is not None and result.message.pinged_user_ids() == []
    shown = await slash(arena, "bob", "fighter show", fighter=hostile)
    embed = shown.embed
    assert embed is not None
    assert embed["title"].startswith(r"\*\*@")
    assert "@everyone" not in embed["title"].replace("@\u200beveryone", "")
    assert len(embed["title"]) <= 256


# --------------------------------------------------------------------------- permissions


async def test_a_player_cannot_change_someone_elses_gang(arena: Arena) -> None:
    gang = await stocked_gang(arena, "Guarded Lords", "Guard", "Autogun", "Mesh armour",
                              "Guard Quad", vehicle_type="Mauler")
    fighter_before = await card(arena, "Guard")
    stash_before = await stash(arena, gang)

    attempts: list[tuple[str, dict[str, Any]]] = [
        ("fighter add", {"gang": gang, "name": "Spy", "category": "Juve", "cost": 5}),
        ("fighter edit", {"fighter": "Guard", "ws": 2}),
        ("fighter equip", {"fighter": "Guard", "item": "Stub gun"}),
        ("fighter equip", {"fighter": "Guard", "item": "Mesh armour", "from_stash": True}),
        ("fighter unequip", {"fighter": "Guard", "item": "Autogun"}),
        ("fighter status", {"fighter": "Guard", "status": "Dead"}),
        ("fighter retire", {"fighter": "Guard"}),
        ("vehicle add", {"gang": gang, "name": "Spy Quad", "cost": 10}),
        ("vehicle edit", {"vehicle": "Guard Quad", "cost": 1}),
        ("stash add", {"gang": gang, "credits": 100}),
        ("stash remove", {"gang": gang, "item": "Mesh armour"}),
    ]
    for command, options in attempts:
        message = await refused(arena, "bob", command, **options)
        assert "not your gang" in message, (command, message)
    assert await card(arena, "Guard") == fighter_before
    assert await stash(arena, gang) == stash_before

    # Bob may change his own gang; Carol (an Administrator) may change anyone's.
    own = await new_gang(arena, "bob", "Bob's Own")
    await ok(arena, "bob", "fighter add", gang=own, name="Bobling", category="Juve", cost=25)
    await ok(arena, "carol", "fighter edit", fighter="Guard", xp=1)


# --------------------------------------------------------------------------- vehicles


async def test_vehicle_add_crew_and_lasting_damage(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Wheel Lords")
    await ok(arena, "alice", "fighter add", gang=gang, name="Driver",
             fighter_type="Road Thug")
    await ok(arena, "alice", "fighter add", gang=gang, name="Walker",
             fighter_type="Goliath Bruiser")
    text = await ok(arena, "alice", "vehicle add", gang=gang, name="Rumbler",
                    vehicle_type="Mauler", crew="Driver")
    assert "100 credits" in text and "driven by Driver" in text
    text = await ok(arena, "alice", "vehicle add", gang=gang, name="Spare", cost=40)
    assert "Stash" in text
    assert "crew" in await refused(arena, "alice", "vehicle add", gang=gang, name="Bad",
                                   cost=10, crew="Walker")
    assert "already drives" in await refused(arena, "alice", "vehicle edit", vehicle="Spare",
                                             crew="Driver")

    text = await ok(arena, "alice", "vehicle edit", vehicle="Rumbler",
                    add_damage="persistent rattle")
    assert "Persistent Rattle" in text
    text = await ok(arena, "alice", "vehicle edit", vehicle="Rumbler", clear_damage=True,
                    cost=80, name="Big Rumbler")
    assert "cost 100 → 80" in text
    await ok(arena, "alice", "vehicle edit", vehicle="Big Rumbler", remove_crew=True)
    assert "Big Rumbler" in await stash(arena, gang)
    await ok(arena, "alice", "vehicle edit", vehicle="Spare", crew="Driver")
    assert "Spare" not in await stash(arena, gang)

    text = await ok(arena, "alice", "vehicle add", gang=gang, name="Bought",
                    vehicle_type="Mauler", pay=True)
    assert "bought for 100 credits" in text and "credits 1000 → 900" in text
    assert "900" in await stash(arena, gang)


# --------------------------------------------------------------------------- autocomplete


async def test_autocomplete_suggests_from_the_roster_and_the_rule_set(arena: Arena) -> None:
    gang = await stocked_gang(arena, "Suggest Lords", "Hinter", "Stub gun", "Lasgun",
                              "Hint Quad", cost=10)
    driver = arena.driver

    async def names(command: str, focused: str, **values: Any) -> list[str]:
        choices = await driver.autocomplete(U, G, "bob", command, focused=focused, **values)
        return [choice.name for choice in choices]

    assert await names("fighter unequip", "item", fighter="Hinter", item="") == ["Stub Gun"]
    assert "Lasgun" in await names("fighter equip", "item", fighter="Hinter", item="lasg")
    # The Bruiser's own list and the Trading Post.
    assert "Fighting Knife" in await names("fighter equip", "item", fighter="Hinter",
                                           item="fighting")
    assert "Autogun" in await names("fighter equip", "item", fighter="Hinter", item="autog")
    # A fighter carries no vehicle Upgrade; buying, only the own list is offered.
    assert await names("fighter equip", "item", fighter="Hinter", item="fuel tank") == []
    bought = await names("fighter equip", "item", fighter="Hinter", item="", pay=True)
    assert "Axe" in bought and "Lasgun" not in bought and "Autogun" not in bought
    assert await names("fighter equip", "item", fighter="Hinter", item="",
                       from_stash=True) == ["Lasgun"]
    # The House's own vehicle and the universal ones every House may take.
    offered = await names("vehicle add", "vehicle_type", gang=gang, vehicle_type="")
    assert {"Mauler", "Wolfquad", "Ridgerunner"} <= set(offered)
    assert "Outrider Quad" not in offered
    assert "Persistent Rattle" in await names("vehicle edit", "add_damage", vehicle="Hint Quad",
                                              add_damage="pers")
    assert await names("fighter add", "fighter_type", gang=gang, fighter_type="forge") == [
        "Goliath Forge Boss", "Goliath Forge Tyrant", "Goliath Forge-Born"]
