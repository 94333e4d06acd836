"""/gang through the real bot process: create, show, list, edit, transfer, delete.

One bot serves the module, so every test founds gangs with its own names in
the campaign the first test starts (the Underhive's default).
"""

from __future__ import annotations

from typing import Any

import pytest

from demo.arena import Arena
from fakediscord.errors import CommandInputError
from fakediscord.result import InteractionResult
from rules.models import EquipmentKind, Fighter, FighterCategory, Item
from rules.profiles import parse_profile
from tests.e2e.helpers import G, U, database, slash

CAMPAIGN = "Dust Falls"


async def roster_text(arena: Arena, gang: str) -> str:
    shown = await slash(arena, "carol", "gang show", gang=gang)
    assert not shown.ephemeral, shown.content
    return shown.text()


async def found(arena: Arena, user: str, name: str, house: str = "Goliath",
                alignment: str = "Outlaw", **options: Any) -> InteractionResult:
    made = await slash(arena, user, "gang create", name=name, house=house,
                       alignment=alignment, **options)
    assert not made.ephemeral, made.content
    return made


async def add_fighters(arena: Arena, gang: str, *fighters: Fighter,
                       captor: str | None = None) -> None:
    """Write ``fighters`` into the stored ``gang`` behind the bot's back; with ``captor``,
    each is held captive by that gang."""
    guild_id = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        owner = await storage.read(guild_id).get_gang_by_name(campaign.id, gang)
        if captor is not None:
            held_by = await storage.read(guild_id).get_gang_by_name(campaign.id, captor)
            for fighter in fighters:
                fighter.capture(held_by.id)
        for fighter in fighters:
            await storage.write(guild_id).add_fighter(campaign.id, owner.id, fighter, actor="seed")


async def click_as(arena: Arena, result: InteractionResult, label: str,
                   user: str) -> InteractionResult:
    """Press a button of someone else's ephemeral message.

    Discord shows an ephemeral message to its user only, so the fake's driver
    refuses this; a replayed or forged custom_id is the same request, and the
    bot must refuse it by itself.
    """
    return await arena.driver.forge(result, label, user)


async def test_campaign_then_gangs_of_alice_and_bob(arena: Arena) -> None:
    started = await slash(arena, "alice", "campaign create", name=CAMPAIGN)
    assert not started.ephemeral
    alice = await found(arena, "alice", "Ash Wolves", house="goliath", alignment="Outlaw")
    assert "**Ash Wolves** (Goliath, Outlaw) joins Dust Falls with 1000 credits" in alice.content
    bob = await found(arena, "bob", "Sump Rats", house="Escher", alignment="Law Abiding",
                      credits=600)
    assert "600 credits" in bob.content
    listed = await slash(arena, "carol", "gang list")
    assert "Ash Wolves" in listed.text() and "Sump Rats" in listed.text()
    only_bob = await slash(arena, "carol", "gang list", owner="bob")
    assert "Sump Rats" in only_bob.text() and "Ash Wolves" not in only_bob.text()


async def test_names_are_unique_per_campaign_whatever_the_case(arena: Arena) -> None:
    await found(arena, "alice", "Iron Fangs")
    again = await slash(arena, "bob", "gang create", name="  iron   FANGS ", house="Escher",
                        alignment="Outlaw")
    assert again.ephemeral
    assert "already a gang called" in again.content


async def test_credits_are_bounded_by_discord_and_house_is_free_text(arena: Arena) -> None:
    with pytest.raises(CommandInputError):
        await slash(arena, "alice", "gang create", name="Rich", house="Goliath",
                    alignment="Outlaw", credits=10_001)
    with pytest.raises(CommandInputError):
        await slash(arena, "alice", "gang create", name="Poor", house="Goliath",
                    alignment="Outlaw", credits=-1)
    odd = await found(arena, "alice", "Cawdor Crew", house="House Cawdor", credits=0)
    assert "(House Cawdor, Outlaw)" in odd.content
    assert "0 credits" in odd.content


async def test_roster_shows_fighters_equipment_and_status(arena: Arena) -> None:
    await found(arena, "alice", "Show Boys")
    await add_fighters(arena, "Show Boys", Fighter(
        id="boss1", name="Big Grux", category=FighterCategory.LEADER,
        fighter_type="Goliath Forge Tyrant", cost=120, xp=5, gang_hierarchy=True,
        profile=parse_profile('M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+'),
        equipment=[Item(id="it1", name="Combat shotgun", cost=60, kind=EquipmentKind.WEAPON),
                   Item(id="it2", name="Furnace plates", cost=25, kind=EquipmentKind.ARMOUR)],
        lasting_injuries=["Humiliated"],
    ))
    await add_fighters(arena, "Show Boys", Fighter(
        id="taken1", name="Little Grux", category=FighterCategory.JUVE, cost=25,
    ), captor="Sump Rats")
    text = await roster_text(arena, "show boys")
    assert "Big Grux (Leader, Goliath Forge Tyrant)" in text
    assert "205 credits · 5 XP · Active" in text
    assert '`M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+`' in text
    assert "Equipment: ⚔ Combat shotgun, Furnace plates" in text
    assert "Injuries: Humiliated" in text
    assert "Captured by Sump Rats" in text
    assert "`profile not set`" in text  # Little Grux: nobody gave his
    assert "Gang Rating: 205" in text  # the captive does not count
    captors = await roster_text(arena, "Sump Rats")
    assert "Captives held: Little Grux of Show Boys" in captors


async def test_thirty_fighters_are_paged_not_crashed(arena: Arena) -> None:
    await found(arena, "bob", "Horde")
    await add_fighters(arena, "Horde", *(Fighter(
        id=f"horde{n}", name=f"Horde {n:02d} " + "x" * 80,
        category=FighterCategory.GANGER, fighter_type="y" * 100, cost=50,
        lasting_injuries=["z" * 100] * 5, skills=["w" * 100] * 5,
        equipment=[Item(id=f"h{n}-{k}", name=f"Gun {k} " + "g" * 80, cost=5,
                        kind=EquipmentKind.WEAPON) for k in range(3)],
    ) for n in range(30)))
    shown = await slash(arena, "carol", "gang show", gang="Horde")
    assert shown.embed is not None
    pages = int(shown.embed["footer"]["text"].split(" of ")[1])
    assert pages > 1
    # The pages that do not fit the first message come as follow-ups.
    while f"page {pages} of {pages}" not in shown.text():
        await shown.wait_followups(len(shown.followups) + 1)
    text = shown.text()
    for n in range(30):
        assert f"Horde {n:02d}" in text
    assert "page 1 of " in text


async def test_others_cannot_edit_and_nothing_changes(arena: Arena) -> None:
    await found(arena, "alice", "Proud Few")
    refused = await slash(arena, "bob", "gang edit", gang="Proud Few", name="Bob's Now",
                          reputation=50)
    assert refused.ephemeral
    assert "not your gang" in refused.content
    text = await roster_text(arena, "Proud Few")
    assert "Reputation: 1" in text
    missing = await slash(arena, "carol", "gang show", gang="Bob's Now")
    assert missing.ephemeral and "no gang called" in missing.content


async def test_owner_and_arbitrator_may_edit(arena: Arena) -> None:
    await found(arena, "alice", "Edited Ones")
    own = await slash(arena, "alice", "gang edit", gang="edited ones", reputation=5,
                      battles_fought=2)
    assert not own.ephemeral
    assert "reputation: 1 → 5" in own.content and "battles fought: 0 → 2" in own.content
    # carol is an Arbitrator through her Administrator role, not by name.
    arbitrated = await slash(arena, "carol", "gang edit", gang="Edited Ones",
                             name="Edited Twice", alignment="Law Abiding")
    assert not arbitrated.ephemeral
    assert "name: Edited Ones → Edited Twice" in arbitrated.content
    text = await roster_text(arena, "Edited Twice")
    assert "Law Abiding" in text and "Reputation: 5" in text and "Battles fought: 2" in text
    taken = await slash(arena, "alice", "gang edit", gang="Edited Twice", name="ash WOLVES")
    assert taken.ephemeral and "already a gang called" in taken.content
    empty = await slash(arena, "alice", "gang edit", gang="Edited Twice")
    assert empty.ephemeral and "Nothing to change" in empty.content


async def test_delete_asks_and_only_the_asker_may_confirm(arena: Arena) -> None:
    await found(arena, "alice", "Doomed")
    refused = await slash(arena, "bob", "gang delete", gang="Doomed")
    assert refused.ephemeral and "not your gang" in refused.content
    asked = await slash(arena, "alice", "gang delete", gang="Doomed")
    assert asked.ephemeral
    assert "Delete **Doomed**" in asked.content
    assert "[Confirm] [Cancel]" in asked.text()
    stranger = await click_as(arena, asked, "Confirm", "bob")
    assert stranger.ephemeral
    assert "Only the person who asked" in stranger.content
    assert "Doomed" in (await slash(arena, "carol", "gang list")).text()

    cancelled = await arena.driver.click(asked, "Cancel", "alice")
    assert cancelled.content == "Cancelled; nothing was changed."
    assert not cancelled.components
    assert "Doomed" in (await slash(arena, "carol", "gang list")).text()

    asked_again = await slash(arena, "alice", "gang delete", gang="doomed")
    twice = await slash(arena, "alice", "gang delete", gang="doomed")
    done = await arena.driver.click(asked_again, "Confirm", "alice")
    assert done.content == "**Doomed** has been deleted."
    assert not done.components
    notice = await done.wait_followups(1)
    assert not notice[0].ephemeral and "deleted the gang **Doomed**" in notice[0].content
    gone = await slash(arena, "carol", "gang show", gang="Doomed")
    assert gone.ephemeral and "no gang called" in gone.content
    late = await arena.driver.click(twice, "Confirm", "alice")
    assert "already gone" in late.content


async def test_an_arbitrator_may_delete_and_the_button_survives_a_restart(arena: Arena) -> None:
    await found(arena, "bob", "Restart Proof")
    asked = await slash(arena, "carol", "gang delete", gang="Restart Proof")
    await arena.restart_bot()
    done = await arena.driver.click(asked, "Confirm", "carol")
    assert "has been deleted" in done.content
    listed = await slash(arena, "carol", "gang list")
    assert "Restart Proof" not in listed.text()


async def test_transfer_changes_who_may_edit(arena: Arena) -> None:
    # bob is the only plain player of the Underhive (alice owns the server, carol is an
    # Administrator: both are Arbitrators), so he is the one who loses control.
    await found(arena, "alice", "Not Yours")
    refused = await slash(arena, "bob", "gang transfer", gang="Not Yours", user="bob")
    assert refused.ephemeral and "not your gang" in refused.content
    await found(arena, "bob", "Gift Horse")
    given = await slash(arena, "bob", "gang transfer", gang="Gift Horse", user="alice")
    assert not given.ephemeral
    assert "now belongs to" in given.content
    assert given.message is not None and given.message.pinged_user_ids() == []
    alice_id = arena.fake.world.user("alice").id
    assert f"owner <@{alice_id}>" in await roster_text(arena, "Gift Horse")
    no_longer = await slash(arena, "bob", "gang edit", gang="Gift Horse", reputation=9)
    assert no_longer.ephemeral and "not your gang" in no_longer.content
    assert "Reputation: 1" in await roster_text(arena, "Gift Horse")
    back = await slash(arena, "carol", "gang transfer", gang="Gift Horse", user="bob")
    assert not back.ephemeral
    now_bob = await slash(arena, "bob", "gang edit", gang="Gift Horse", reputation=9)
    assert not now_bob.ephemeral
    same = await slash(arena, "bob", "gang transfer", gang="Gift Horse", user="bob")
    assert same.ephemeral and "already belongs" in same.content


async def test_long_and_hostile_names_are_shown_escaped(arena: Arena) -> None:
    longest = "L" * 99 + "!"
    made = await found(arena, "bob", longest)
    assert longest in made.content
    assert longest in await roster_text(arena, longest)
    hostile = "**@everyone** _sneaky_"
    made = await found(arena, "bob", hostile, house="<@&1> ~~House~~")
    assert made.message is not None
    assert "@everyone" not in made.content  # broken by a zero-width space
    assert "\\*\\*@" in made.content and "\\_sneaky\\_" in made.content
    assert made.message.pinged_user_ids() == []
    shown = await slash(arena, "carol", "gang show", gang=hostile)
    assert shown.embed is not None
    assert shown.embed["title"] == "\\*\\*@\u200beveryone\\*\\* \\_sneaky\\_"
    assert "\\~\\~House\\~\\~" in shown.embed["description"]
    too_long = "x" * 101
    with pytest.raises(CommandInputError):
        await slash(arena, "bob", "gang create", name=too_long, house="Goliath",
                    alignment="Outlaw")
    blank = await slash(arena, "bob", "gang create", name="   ", house="Goliath",
                        alignment="Outlaw")
    assert blank.ephemeral and "cannot be empty" in blank.content


async def test_autocomplete_offers_the_campaigns_gangs(arena: Arena) -> None:
    choices = await arena.driver.autocomplete(U, G, "bob", "gang show", focused="gang",
                                              gang="sump")
    assert [c.value for c in choices] == ["Sump Rats"]
    every = await arena.driver.autocomplete(U, G, "bob", "gang edit", focused="gang", gang="")
    names = {c.value for c in every}
    assert {"Ash Wolves", "Sump Rats", "Iron Fangs"} <= names
    houses = await arena.driver.autocomplete(U, G, "bob", "gang create", focused="house",
                                             house="go")
    assert [c.value for c in houses] == ["Goliath"]
    elsewhere = await arena.driver.autocomplete("Spire", G, "dave", "gang show",
                                                focused="gang", gang="")
    assert elsewhere == []


async def test_the_spire_cannot_see_or_touch_underhive_gangs(arena: Arena) -> None:
    none_yet = await slash(arena, "dave", "gang show", guild="Spire", gang="Ash Wolves")
    assert none_yet.ephemeral and "no campaign yet" in none_yet.content
    await slash(arena, "dave", "campaign create", guild="Spire", name="High Spire")
    for command, options in (
        ("gang show", {"gang": "Ash Wolves"}),
        ("gang edit", {"gang": "Ash Wolves", "reputation": 99}),
        ("gang transfer", {"gang": "Ash Wolves", "user": "dave"}),
        ("gang delete", {"gang": "Ash Wolves"}),
    ):
        refused = await slash(arena, "dave", command, guild="Spire", **options)
        assert refused.ephemeral, command
        assert "no gang called 'Ash Wolves'" in refused.content, command
    by_name = await slash(arena, "dave", "gang show", guild="Spire", gang="Ash Wolves",
                          campaign=CAMPAIGN)
    assert by_name.ephemeral and "no campaign called" in by_name.content
    # bob is a member of both servers: his Spire view holds no Underhive gang either.
    listed = await slash(arena, "bob", "gang list", guild="Spire")
    assert "Sump Rats" not in listed.text()
    assert "Reputation: 1" in await roster_text(arena, "Ash Wolves")
