"""/campaign through the real bot process: create, list, show, settings, Territories.

One bot serves the module. The first test starts the Underhive's default
campaign; later tests name their campaign explicitly where it matters.
"""

from __future__ import annotations

import pytest

from bot.storage import Storage
from demo.arena import Arena
from fakediscord.errors import CommandInputError
from fakediscord.result import InteractionResult
from rules.models import Fighter, FighterCategory
from tests.e2e.helpers import G, U, slash

MAIN = "Dust Falls"


def field_value(result: InteractionResult, name: str) -> str:
    assert result.embed is not None, result.content
    for field in result.embed.get("fields", []):
        if field["name"] == name:
            return str(field["value"])
    raise AssertionError(f"no field {name!r} in {result.text()}")


async def test_first_campaign_is_open_to_anyone_and_becomes_default(arena: Arena) -> None:
    # bob has no Manage Server; the server has no campaign, so he may start one.
    started = await slash(arena, "bob", "campaign create", name=MAIN, scenario_die="D4",
                          ruleset="core-2023", report_channel="campaign")
    assert not started.ephemeral
    assert "**Dust Falls** has begun" in started.content
    assert "default campaign" in started.content
    bob_id = arena.fake.world.user("bob").id
    assert field_value(started, "Arbitrators") == f"<@{bob_id}>"
    assert field_value(started, "Scenario die") == "D4"
    assert field_value(started, "Default campaign") == "yes"
    channel_id = arena.fake.world.channel("campaign", arena.fake.world.guild(U)).id
    assert field_value(started, "Report channel") == f"<#{channel_id}>"
    assert started.message is not None and started.message.pinged_user_ids() == []


async def test_further_campaigns_need_manage_server(arena: Arena) -> None:
    refused = await slash(arena, "bob", "campaign create", name="Second Try")
    assert refused.ephemeral and "Manage Server" in refused.content
    second = await slash(arena, "carol", "campaign create", name="Ash Wastes",
                         ruleset="core-2018-injuries")
    assert not second.ephemeral
    assert field_value(second, "Default campaign") == "no"
    assert field_value(second, "Rule set") == "core-2018-injuries"
    duplicate = await slash(arena, "alice", "campaign create", name="ash  WASTES")
    assert duplicate.ephemeral and "already a campaign called" in duplicate.content
    with pytest.raises(CommandInputError):  # not one of the choices Discord offers
        await slash(arena, "alice", "campaign create", name="Odd", ruleset="../etc")


async def test_list_shows_every_campaign_and_the_default(arena: Arena) -> None:
    listed = await slash(arena, "bob", "campaign list")
    assert not listed.ephemeral
    text = listed.text()
    assert "**Dust Falls** (default): 0 gangs, rule set core-2023, scenario die D4" in text
    assert "**Ash Wastes**: 0 gangs, rule set core-2018-injuries" in text


async def test_standings_sorted_by_rating(arena: Arena) -> None:
    for who, name in (("alice", "Ash Wolves"), ("bob", "Sump Rats"), ("carol", "Iron Fangs")):
        made = await slash(arena, who, "gang create", name=name, house="Goliath",
                           alignment="Outlaw")
        assert not made.ephemeral, made.content
    # Fighters come from /fighter (another cog); seed them through the bot's database.
    guild_id = arena.fake.world.guild(U).id
    storage = await Storage.open(arena.database_path)
    try:
        campaign = await storage.read(guild_id).get_campaign_by_name(MAIN)
        for gang_name, cost in (("Sump Rats", 300), ("Iron Fangs", 120)):
            gang = await storage.read(guild_id).get_gang_by_name(campaign.id, gang_name)
            await storage.write(guild_id).add_fighter(campaign.id, gang.id, Fighter(
                id=f"lead-{gang.id}", name=f"{gang_name} boss",
                category=FighterCategory.LEADER, cost=cost,
            ), actor="seed")
    finally:
        await storage.close()
    shown = await slash(arena, "alice", "campaign show")
    assert not shown.ephemeral
    assert shown.embed is not None
    assert shown.embed["title"] == "Dust Falls: standings"
    names = [f["name"] for f in shown.embed["fields"]]
    assert names == ["1. Sump Rats", "2. Iron Fangs", "3. Ash Wolves"]
    bob_id = arena.fake.world.user("bob").id
    first = shown.embed["fields"][0]["value"]
    assert f"owner <@{bob_id}>" in first
    assert "Rating **300** · Wealth 1300 · Reputation 1 · 1000 credits" in first
    assert "0 territories · 0 battles fought" in first


async def test_settings_are_for_arbitrators_and_answer_as_they_now_are(arena: Arena) -> None:
    alice_id = arena.fake.world.user("alice").id
    carol_id = arena.fake.world.user("carol").id
    refused = await slash(arena, "carol", "campaign settings", campaign="Ash Wastes")
    assert not refused.ephemeral  # looking is allowed
    refused = await slash(arena, "bob", "campaign settings", campaign="Ash Wastes",
                          scenario_die="D4")
    assert refused.ephemeral and "Only an Arbitrator of Ash Wastes" in refused.content
    changed = await slash(arena, "carol", "campaign settings", campaign="ash wastes",
                          name="Ash Wastes Reborn", scenario_die="D4", ruleset="core-2023",
                          arbitrator_add="alice", default=True)
    assert not changed.ephemeral
    assert changed.embed is not None
    assert changed.embed["title"] == "Ash Wastes Reborn: settings"
    assert field_value(changed, "Scenario die") == "D4"
    assert field_value(changed, "Rule set") == "core-2023"
    assert field_value(changed, "Default campaign") == "yes"
    assert field_value(changed, "Arbitrators") == f"<@{carol_id}>, <@{alice_id}>"
    # Who changed what is in the campaign's ledger; the unchanged report channel is not.
    ledger = (await slash(arena, "bob", "ledger", campaign="Ash Wastes Reborn")).text()
    assert "Campaign settings changed: Name: Ash Wastes → Ash Wastes Reborn; " in ledger
    assert "Rule set: core-2018-injuries → core-2023; Scenario die: D6 → D4; " in ledger
    assert "Arbitrators added: @Alice" in ledger
    assert "Report channel" not in ledger
    removed = await slash(arena, "carol", "campaign settings", campaign="Ash Wastes Reborn",
                          arbitrator_remove="carol", arbitrator_role="Arbitrator",
                          default=False)
    assert removed.ephemeral and "always has a default" in removed.content
    removed = await slash(arena, "carol", "campaign settings", campaign="Ash Wastes Reborn",
                          arbitrator_remove="carol", arbitrator_role="Arbitrator")
    assert field_value(removed, "Arbitrators") == f"<@{alice_id}>"
    role_id = arena.fake.world.guild(U).role("Arbitrator").id
    assert field_value(removed, "Arbitrator role") == f"<@&{role_id}>"
    ledger = (await slash(arena, "bob", "ledger", campaign="Ash Wastes Reborn")).text()
    assert "Arbitrator role: none → @Arbitrator; Arbitrators removed: @Carol" in ledger
    # Give the default back to Dust Falls so the other tests see it.
    back = await slash(arena, "bob", "campaign settings", campaign=MAIN, default=True)
    assert field_value(back, "Default campaign") == "yes"
    listed = await slash(arena, "bob", "campaign list")
    assert "**Dust Falls** (default)" in listed.text()
    assert "Ash Wastes Reborn**: " in listed.text()


async def test_territories_added_listed_and_assigned(arena: Arena) -> None:
    templated = await slash(arena, "bob", "campaign territory add", name="Home Settlement",
                            template="settlement")
    assert not templated.ephemeral
    assert "income D6x10, cannot be staked, boons: +1 Reputation" in templated.content
    flat = await slash(arena, "bob", "campaign territory add", name="Old Mine", income="15")
    assert "income 15" in flat.content
    dice = await slash(arena, "bob", "campaign territory add", name="Sludge Pits",
                       template="Old Ruins", income="d6x5")
    assert "income D6x5" in dice.content
    bad = await slash(arena, "bob", "campaign territory add", name="Bad", income="-5")
    assert bad.ephemeral and "not a dice expression" in bad.content
    huge = await slash(arena, "bob", "campaign territory add", name="Bad", income="99999")
    assert huge.ephemeral and "at most 1000" in huge.content
    unknown = await slash(arena, "bob", "campaign territory add", name="Bad", template="Moon")
    assert unknown.ephemeral and "no Territory called 'Moon'" in unknown.content
    again = await slash(arena, "bob", "campaign territory add", name="old mine")
    assert again.ephemeral and "already a Territory" in again.content
    not_arbitrator = await slash(arena, "bob", "campaign territory add", name="Mine",
                                 campaign="Ash Wastes Reborn")
    assert not_arbitrator.ephemeral and "Only an Arbitrator" in not_arbitrator.content

    templates = await arena.driver.autocomplete(U, G, "bob", "campaign territory add",
                                                focused="template", template="tu")
    assert [c.value for c in templates] == ["Tunnels"]
    given = await slash(arena, "bob", "campaign territory assign", territory="old mine",
                        gang="ash wolves")
    assert given.content == "**Old Mine** is now held by **Ash Wolves**."
    refused = await slash(arena, "bob", "campaign territory assign", territory="Old Mine",
                          campaign="Ash Wastes Reborn")
    assert refused.ephemeral
    listed = await slash(arena, "alice", "campaign territory list")
    text = listed.text()
    assert "**Old Mine**: held by Ash Wolves; income 15" in text
    assert "**Home Settlement**: unclaimed; income D6x10" in text
    standings = await slash(arena, "alice", "campaign show")
    assert "1 territory" in standings.text()
    roster = await slash(arena, "alice", "gang show", gang="Ash Wolves")
    assert "Territories: Old Mine" in roster.text()
    unclaimed = await slash(arena, "bob", "campaign territory assign", territory="Old Mine")
    assert unclaimed.content == "**Old Mine** is now unclaimed."
    missing = await slash(arena, "bob", "campaign territory assign", territory="Nowhere")
    assert missing.ephemeral and "no Territory called 'Nowhere'" in missing.content


async def test_names_at_the_limit_and_hostile_names(arena: Arena) -> None:
    longest = "C" * 100
    made = await slash(arena, "alice", "campaign create", name=longest)
    assert not made.ephemeral and longest in made.content
    hostile = "**@everyone** <@&1>"
    made = await slash(arena, "alice", "campaign create", name=hostile)
    assert "@everyone" not in made.content and "\\*\\*@" in made.content
    assert made.message is not None and made.message.pinged_user_ids() == []
    territory = await slash(arena, "alice", "campaign territory add", name="__@here__",
                            campaign=hostile)
    assert "@here" not in territory.content and "\\_\\_@" in territory.content
    choices = await arena.driver.autocomplete(U, G, "bob", "campaign show", focused="campaign",
                                              campaign="c" * 10)
    assert [c.value for c in choices] == [longest]


async def test_the_spire_sees_only_its_own_campaigns(arena: Arena) -> None:
    nothing = await slash(arena, "dave", "campaign show", guild="Spire")
    assert nothing.ephemeral and "no campaign yet" in nothing.content
    by_name = await slash(arena, "dave", "campaign show", guild="Spire", campaign=MAIN)
    assert by_name.ephemeral and "no campaign called" in by_name.content
    own = await slash(arena, "dave", "campaign create", guild="Spire", name=MAIN)
    assert not own.ephemeral  # names are per server
    standings = await slash(arena, "dave", "campaign show", guild="Spire")
    assert "No gangs yet" in standings.text()
    territories = await slash(arena, "dave", "campaign territory list", guild="Spire")
    assert "Old Mine" not in territories.text()
    refused = await slash(arena, "dave", "campaign territory assign", guild="Spire",
                          territory="Old Mine", gang="Ash Wolves")
    assert refused.ephemeral
    listed = await slash(arena, "bob", "campaign list", guild="Spire")
    assert "Ash Wastes" not in listed.text()
