"""/prebattle through the real bot: one public message, the battle recorded, refusals, rescue.

bob and dan are plain players, eve a member with no gang, alice the Arbitrator.
"""

from __future__ import annotations

import re

import pytest

from demo.arena import Arena
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    held_captive,
    new_campaign,
    new_campaign_of_two,
    new_gang,
    new_gang_with,
    slash,
)

pytestmark = pytest.mark.usefixtures("players")

SCENARIOS = ["Battle Royale", "Blind Box Looting", "Race to Acquire Archeotech",
             "Take and Hold", "Eliminate High Value Targets", "Small Crews Bump Into Each Other"]


@pytest.mark.rule("PRE-1")
@pytest.mark.rule("PRE-2")
@pytest.mark.rule("PRE-3")
@pytest.mark.rule("PRE-4")
@pytest.mark.rule("PRE-5")
@pytest.mark.rule("PRE-6")
async def test_prebattle_posts_one_message_and_records_the_battle(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, "Pre")
    await new_gang_with(d, "bob", "Pre", "Big Guns", {"Ogg": "Goliath Forge Tyrant"})
    await new_gang_with(d, "dan", "Pre", "Small Fry", {"Pip": "Goliath Bully"})
    before = len(d.messages(CHANNEL, guild=GUILD))
    result = await d.slash(GUILD, CHANNEL, "bob", "prebattle", gang1="Small Fry",
                           gang2="Big Guns", campaign="Pre")
    assert not result.ephemeral
    assert len(d.messages(CHANNEL, guild=GUILD)) == before + 1  # one answer, nothing else
    embed = result.embed
    assert embed is not None
    text = result.text()
    assert embed["title"] == "Pre-battle: Small Fry vs Big Guns"
    # PRE-2: highest Gang Rating first; PRE-3: the lowest is the Underdog.
    assert "1. **Big Guns**: Gang Rating 135" in text
    assert "2. **Small Fry**: Gang Rating 35 · **Underdog**" in text
    # PRE-4: the die is named and its roll shown.
    scenario = re.search(r"\*\*(.+?)\*\*: rolled on a \*\*D6\*\* \(the campaign's scenario "
                         r"die\) → (\d)", text)
    assert scenario is not None
    assert scenario.group(1) == SCENARIOS[int(scenario.group(2)) - 1]
    assert "🎲 scenario roll (D6, Scripted Scenario chart): D6 → [" in text
    # PRE-5: no agreement, so a D6; PRE-6: priority follows the scenario.
    assert re.search(r"no agreement, so a D6 → \d \(4\+ Sector Mechanicus\)", text)
    assert "Priority: " in text and "PRE-" not in text
    battle_id = re.search(r"Battle recorded \(([0-9a-f]+)\)", text)
    assert battle_id is not None

    choices = await d.autocomplete(GUILD, CHANNEL, "bob", "postbattle start", focused="battle",
                                   campaign="Pre", winner="Big Guns")
    assert battle_id.group(1) in [c.value for c in choices]
    assert any(scenario.group(1) in c.name for c in choices)
    ledger = await slash(d, "bob", "ledger", campaign="Pre")
    assert "scenario roll (D6, Scripted Scenario chart)" in ledger


async def test_agreed_battlefield_and_a_d4_campaign(arena: Arena) -> None:
    d = arena.driver
    created = await d.slash(GUILD, CHANNEL, "alice", "campaign create", name="Dice Four",
                            scenario_die="D4")
    assert "has begun" in created.text()
    await new_gang(d, "bob", "Dice Four", "Fours")
    await new_gang(d, "dan", "Dice Four", "Sixes")
    text = await slash(d, "dan", "prebattle", gang1="Fours", gang2="Sixes",
                       battlefield="Zone Mortalis", campaign="Dice Four")
    assert "rolled on a **D4**" in text
    assert "**Zone Mortalis**, as the players agreed." in text
    assert "battlefield roll" not in text


async def test_strangers_and_nonsense_are_refused(arena: Arena) -> None:
    d = arena.driver
    await new_campaign_of_two(d, "Closed", "Alpha", "Beta")
    refused = await d.slash(GUILD, CHANNEL, "eve", "prebattle", gang1="Alpha", gang2="Beta",
                            campaign="Closed")
    assert refused.ephemeral and "Only a player of one of these gangs" in refused.content
    twice = await d.slash(GUILD, CHANNEL, "bob", "prebattle", gang1="Alpha", gang2="alpha",
                          campaign="Closed")
    assert twice.ephemeral and "listed more than once" in twice.content
    unknown = await d.slash(GUILD, CHANNEL, "bob", "prebattle", gang1="Alpha", gang2="Gamma",
                            campaign="Closed")
    assert unknown.ephemeral and "Gamma" in unknown.content
    choices = await d.autocomplete(GUILD, CHANNEL, "bob", "postbattle start", focused="battle",
                                   campaign="Closed", winner="Alpha")
    assert choices == []
    # An Arbitrator may run it for any gangs of the campaign.
    allowed = await slash(d, "alice", "prebattle", gang1="Alpha", gang2="Beta",
                          campaign="Closed")
    assert "Pre-battle: Alpha vs Beta" in allowed


@pytest.mark.rule("PB-1.7")
async def test_rescue_mission_replaces_the_scenario_roll(arena: Arena) -> None:
    d = arena.driver
    await held_captive(d, "Rescue", "Jailers", "Kin", "Lost Boy")
    await new_gang(d, "dan", "Rescue", "Bystanders")
    captives = await d.autocomplete(GUILD, CHANNEL, "dan", "prebattle", focused="rescue_captive",
                                    campaign="Rescue")
    assert [c.value for c in captives] == ["Lost Boy"]
    wrong = await d.slash(GUILD, CHANNEL, "dan", "prebattle", gang1="Kin", gang2="Bystanders",
                          rescue_captive="Lost Boy", campaign="Rescue")
    assert wrong.ephemeral and "Rescue Mission" in wrong.content
    text = await slash(d, "dan", "prebattle", gang1="Kin", gang2="Jailers",
                       rescue_captive="Lost Boy", campaign="Rescue")
    assert "**Rescue Mission**: Kin comes for Lost Boy, held by Jailers." in text
    assert "🎲 scenario roll" not in text
    choices = await d.autocomplete(GUILD, CHANNEL, "dan", "postbattle start", focused="battle",
                                   campaign="Rescue", winner="Kin")
    assert any("Rescue Mission" in c.name for c in choices)


async def test_the_message_stays_within_discord_limits_with_absurd_names() -> None:
    """Four gangs named with 100 markdown characters, tied to the roll-off, many re-rolls."""
    from bot.ui.prebattle import ROLL_OFF_FIELD, prebattle_embed, within_limits
    from rules.data import load_ruleset
    from rules.dice import ScriptedRoller
    from rules.models import Battle, CampaignSettings, Gang
    from rules.prebattle import prebattle
    from rules.world import World

    names = [(f"{n}*_~`|>@everyone " * 10)[:100] for n in range(4)]
    gangs = [Gang(id=f"g{n}", name=name, house="Goliath", owner="1")
             for n, name in enumerate(names)]
    # Everyone ties the roll-off five times before the faces separate them.
    faces = [3] * 20 + [1, 2, 3, 4] + [2, 5]
    result = prebattle(World.of(gangs), [g.id for g in gangs], load_ruleset("core-2023"),
                       CampaignSettings(name="Limits"), ScriptedRoller(faces))
    battle = Battle(id="b1", gang_ids=[g.id for g in gangs])
    closed = [f"{name}: B. Visit the Trading Post is closed." for name in names] * 3
    embed = prebattle_embed(result, {g.id: g for g in gangs}, battle, closed)
    assert len(embed) <= 6000
    assert len(embed.title or "") <= 256
    assert len(embed.fields) <= 25
    assert all(len(field.value or "") <= 1024 for field in embed.fields)
    assert "@everyone" not in (embed.title or "").replace("@\u200beveryone", "")
    # Were it longer, the repeated roll-off goes first, then the longest fields shrink.
    squeezed = within_limits(embed, limit=3000)
    assert len(squeezed) <= 3000
    assert ROLL_OFF_FIELD not in [field.name for field in squeezed.fields]
