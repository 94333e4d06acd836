"""Every option that names something of the rule data offers suggestions.

The commands are read as the real bot synced them to the fake Discord: a
string option with neither autocomplete nor choices is free text, which is
right for a new name, a note or a dice expression, and wrong for anything
the campaign's rule data knows (a scenario, skill, skill set, item, fighter
type, Hanger-on or Territory template): a player would have to guess its
spelling.
"""

from __future__ import annotations

from collections.abc import Iterator

from demo.arena import Arena
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    bot_ready,
    default_elsewhere,
    new_campaign,
    new_gang_with,
    slash,
)

STRING, SUB_COMMAND, SUB_COMMAND_GROUP = 3, 1, 2


def free_text_options(
    options: list[dict[str, object]], path: str
) -> Iterator[tuple[str, str, str]]:
    for option in options:
        kind, name = option.get("type"), str(option.get("name"))
        children = option.get("options") or []
        assert isinstance(children, list)
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            yield from free_text_options(children, f"{path} {name}")
        elif kind == STRING and not option.get("autocomplete") and not option.get("choices"):
            yield path, name, str(option.get("description", ""))


# Free text on purpose, by option name: new names and what a player writes in
# their own words. Anything else that is a string must offer suggestions.
FREE_TEXT = {
    "name": "a new name (of a campaign, gang, fighter, vehicle, Territory)",
    "recruit_name": "a new name, for a fighter a Boon may give",
    "url": "an address to import from",
    "expression": "dice as players write them",
    "purpose": "what a roll is for, in the player's words",
    "reason": "why Reputation changed, in the player's words",
    "description": "what a Boon gave, in the player's words",
    "income": "a Territory's income: a dice expression or credits",
    "profile": "a profile pasted from a roster",
    "notes": "notes in the player's words",
    "categories": "categories of fighter types the rule data lacks, as the player sets them",
    "when": "a time, typed as a date and hour or pasted as a Discord timestamp",
    "reminders": "lead times of reminders, in the Arbitrator's words (24h, 1h)",
    "starts": "a date and time, or days from now (a cycle's start)",
    "ends": "a date and time, or days from now (a cycle's end)",
    "until": "a date and time, or days from now (a cycle's new end)",
}


async def test_every_option_naming_rule_data_suggests(arena: Arena) -> None:
    await bot_ready(arena)
    commands = arena.fake.commands.list_scope(None)
    assert len(commands) > 10  # the bot synced its whole tree
    silent = [
        f"/{path} {name} ({description})"
        for command in commands
        for path, name, description in free_text_options(
            list(command.get("options") or []), str(command["name"]))
        if name not in FREE_TEXT
    ]
    assert not silent, "options without suggestions: " + "; ".join(silent)


async def test_scenarios_skill_sets_and_skills_are_suggested(arena: Arena) -> None:
    await bot_ready(arena)
    d = arena.driver
    await default_elsewhere(d, "Not The Skills")
    campaign = "Suggested Skills"
    await new_campaign(d, campaign)
    await new_gang_with(d, "bob", campaign, "Skill Seekers", {"Learner": "Goliath Forge Tyrant"})

    async def names(command: str, focused: str, **values: object) -> list[str]:
        choices = await d.autocomplete(GUILD, CHANNEL, "bob", command, focused=focused,
                                       campaign=campaign, **values)
        return [choice.value for choice in choices]

    assert await names("postbattle start", "scenario", scenario="loot") == [
        "Blind Box Looting"]
    assert "Brawn" in await names("roster advance", "skill_set", skill_set="")
    assert sorted(await names("roster advance", "skill", fighter="Learner", skill_set="Brawn",
                              skill="")) == ["Bulging Biceps", "Bull Charge", "Crushing Blow",
                                     "Headbutt", "Hurl", "Iron Jaw"]
    assert await names("roster advance", "skill", skill="dodg") == ["Dodge"]


async def test_names_are_suggested_from_the_campaign_the_command_names(arena: Arena) -> None:
    await bot_ready(arena)
    d = arena.driver
    elsewhere, campaign = "Not The Names", "Suggested Names"
    await default_elsewhere(d, elsewhere)
    await new_gang_with(d, "bob", elsewhere, "Home Guard", {"Homebody": "Goliath Forge Tyrant"})
    await slash(d, "alice", "campaign territory add", name="Home Well", template="Settlement",
                campaign=elsewhere)
    await new_campaign(d, campaign)
    await new_gang_with(d, "bob", campaign, "Ash Runners",
                        {"Runner": "Goliath Forge Tyrant", "Jumper": "Goliath Bully"})
    await new_gang_with(d, "carol", campaign, "Dregs", {"Dreg": "Goliath Forge Tyrant"})
    await slash(d, "alice", "campaign territory add", name="Sump Well", template="Settlement",
                campaign=campaign)

    async def names(command: str, focused: str, **values: object) -> list[str]:
        choices = await d.autocomplete(GUILD, CHANNEL, "bob", command, focused=focused,
                                       **values)
        return [choice.value for choice in choices]

    assert await names("gang show", "gang", campaign=campaign) == ["Ash Runners", "Dregs"]
    assert await names("fighter equip", "fighter", gang="Ash Runners", campaign=campaign) == [
        "Jumper", "Runner"]
    assert await names("fighter equip", "fighter", campaign=campaign) == [
        "Dreg", "Jumper", "Runner"]
    assert await names("campaign territory assign", "territory", campaign=campaign) == [
        "Sump Well"]
    # Without the option, the server's default campaign is the one suggested from.
    assert await names("gang show", "gang") == ["Home Guard"]
    assert await names("campaign territory assign", "territory") == ["Home Well"]
