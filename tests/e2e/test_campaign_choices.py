"""A Collapsed Dome's income dice, the Hangers-on limit and a Ganger's roll, through the bot.

bob and dan are plain players, alice the Arbitrator who started the campaign.
"""

from __future__ import annotations

import re

import pytest

from demo.arena import Arena
from rules.data import default_ruleset
from tests.e2e.battle_helpers import (
    ADVANCEMENTS,
    CHANNEL,
    GUILD,
    STEPS_BEFORE_ACTIONS,
    TRADING_POST,
    all_text,
    at_step,
    battle_reported,
    confirm_until,
    new_campaign_of_two,
    new_fighter,
    slash,
)

pytestmark = pytest.mark.usefixtures("players")


@pytest.mark.rule("PB-4")
@pytest.mark.rule("PB-6B.3")
@pytest.mark.rule("PB-6E")
async def test_dome_dice_hangers_on_limit_and_the_gangers_skill_set(arena: Arena) -> None:
    d = arena.driver
    await new_campaign_of_two(d, "Underhive", "Gearheads", "Drifters")
    await new_fighter(d, "bob", "Underhive", "Gearheads", "Krug", "Goliath Forge Tyrant")
    await new_fighter(d, "bob", "Underhive", "Gearheads", "Lad", "Goliath Bruiser")
    await new_fighter(d, "dan", "Underhive", "Drifters", "Dusty", "Goliath Forge Tyrant")
    await slash(d, "bob", "fighter edit", fighter="Lad", xp=6, campaign="Underhive")
    await slash(d, "alice", "campaign territory add", name="Old Dome", template="Collapsed Dome",
                campaign="Underhive")
    await slash(d, "alice", "campaign territory assign", territory="Old Dome", gang="Drifters",
                campaign="Underhive")

    thread = await battle_reported(arena, "Underhive", "Gearheads", "Drifters")
    early = await d.slash(GUILD, CHANNEL, "dan", "rewards dome", dice=4, campaign="Underhive")
    assert early.ephemeral and "during Receive Rewards" in early.text(), early.text()

    # The Collapsed Dome's controller chooses its income dice before Collect Income rolls.
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS[:2], ["bob", "dan"])
    await at_step(arena.driver, thread, "▶️ Receive Rewards")
    too_many = await d.slash(GUILD, CHANNEL, "dan", "rewards dome", dice=7,
                             campaign="Underhive")
    assert too_many.ephemeral and "choose between 2 and 6 income dice" in too_many.text()
    none_held = await d.slash(GUILD, CHANNEL, "bob", "rewards dome", dice=4,
                              campaign="Underhive")
    assert none_held.ephemeral and "no Territory with a choice of income dice" in (
        none_held.text())
    chosen = await d.slash(GUILD, CHANNEL, "dan", "rewards dome", dice=5, campaign="Underhive")
    assert not chosen.ephemeral
    assert "**Drifters** will roll **5** income dice for **Old Dome**" in chosen.text()
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS[2:], ["bob", "dan"])
    await at_step(arena.driver, thread, "▶️ Post-battle Actions")
    said = all_text(d, thread)
    assert "Drifters chooses to roll 5D6x10 for Old Dome" in said, said
    assert re.search(r"income from Old Dome for Drifters: 5D6x10 → \[\d, \d, \d, \d, \d\]",
                     said), said

    # One Hanger-on at Reputation 1; the next is refused and changes nothing.
    await confirm_until(d, thread, ["▶️ Post-battle Actions",
                                    "▶️ Update Roster (A. Clean House)"], ["bob", "dan"])
    await at_step(arena.driver, thread, TRADING_POST)
    doc = await d.slash(GUILD, CHANNEL, "bob", "roster hangeron", fighter_type="Rogue Doc",
                        name="Sawbones", gang="Gearheads", campaign="Underhive")
    assert "Gearheads recruits Sawbones, a Rogue Doc, for 50 credits" in doc.text(), doc.text()
    assert "1 of 1 Hangers-on and Brutes" in doc.text()
    extra = await d.slash(GUILD, CHANNEL, "bob", "roster hangeron", fighter_type="Slopper",
                          name="Cookie", gang="Gearheads", campaign="Underhive")
    assert extra.ephemeral
    assert ("With Reputation 1 Gearheads may have 1 Hangers-on and Brutes, and already has 1"
            in extra.text()), extra.text()
    roster = await slash(d, "bob", "gang show", gang="Gearheads", campaign="Underhive")
    assert "Sawbones" in roster and "Cookie" not in roster

    # A Ganger's roll without the skill set a promotion would use: refused before the dice.
    await confirm_until(d, thread, [TRADING_POST,
                                    "▶️ Update Roster (C. Gain Boons from Territories)",
                                    "▶️ Update Roster (D. Distribute Equipment)"],
                        ["bob", "dan"])
    await at_step(arena.driver, thread, ADVANCEMENTS)
    refused = await d.slash(GUILD, CHANNEL, "bob", "roster advance", fighter="Lad",
                            option="Ganger advancement roll", campaign="Underhive")
    assert refused.ephemeral
    text = refused.text().replace("\\", "")
    assert "skill_set option" in text, text
    sets = ", ".join(s.name for s in default_ruleset().skill_sets)
    assert f"Skill sets of this campaign: {sets}." in text, text
    assert "advancement for Lad" not in all_text(d, thread)
    card = await slash(d, "bob", "fighter show", fighter="Lad", campaign="Underhive")
    assert "XP: 6 ·" in card, card
