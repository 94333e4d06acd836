"""Update Roster through the real bot: the Trading Post after a Trade, an advancement, deferral.

bob and dan are plain players, alice the Arbitrator who started the campaign.
"""

from __future__ import annotations

import re

import pytest

from demo.arena import Arena
from rules.data import default_ruleset
from rules.models import FighterCategory, Rarity
from tests.e2e.battle_helpers import (
    ADVANCEMENTS,
    CHANNEL,
    GUILD,
    STEPS_BEFORE_ACTIONS,
    TRADING_POST,
    all_text,
    at_post_battle_actions,
    at_step,
    battle_reported,
    confirm,
    confirm_until,
    credits_of,
    default_elsewhere,
    new_campaign,
    new_gang_with,
    number_after,
    slash,
    until,
)

pytestmark = pytest.mark.usefixtures("players")


@pytest.mark.rule("PB-6B.4")
@pytest.mark.rule("PB-6B.5")
@pytest.mark.rule("PB-6B.6")
@pytest.mark.rule("PB-6E")
async def test_trading_post_visit_and_an_advancement(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, "Market")
    await new_gang_with(d, "bob", "Market", "Forge Lords",
                        {"Brakka": "Goliath Forge Tyrant", "Tusk": "Goliath Forge Boss"})
    await new_gang_with(d, "dan", "Market", "Ash Rats", {"Cinder": "Goliath Forge Tyrant"},
                        alignment="Outlaw")
    await slash(d, "bob", "stash add", gang="Forge Lords", item="Frag grenade",
                campaign="Market")
    await slash(d, "bob", "fighter edit", fighter="Tusk", xp=10, campaign="Market")

    thread = await battle_reported(arena, "Market", "Forge Lords", "Ash Rats")

    # Rewards: the dice are capped at four (PB-3.2).
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS[:2], ["bob", "dan"])
    await at_step(arena.driver, thread, "▶️ Receive Rewards")
    rewards = await d.slash(GUILD, CHANNEL, "bob", "rewards claim", gang="Forge Lords",
                            credit_dice=6, reputation_gain=2, reason="won",
                            campaign="Market")
    assert rewards.ephemeral
    assert re.search(r"reward credits for Forge Lords: 4D6x10 → \[\d, \d, \d, \d\]",
                     rewards.text())
    assert "rewards are capped at 4D6, so 4 were rolled" in rewards.text()
    again = await d.slash(GUILD, CHANNEL, "bob", "rewards claim", gang="Forge Lords",
                          credit_dice=1, campaign="Market")
    assert again.ephemeral and "already rolled its reward dice" in again.content
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS[2:], ["bob", "dan"])

    # A Trade action unlocks Seek Rare & Illegal.
    await at_step(arena.driver, thread, "▶️ Post-battle Actions")
    traded = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Brakka",
                           action="Trade", campaign="Market")
    assert "Brakka trades" in traded.text()
    early = await d.slash(GUILD, CHANNEL, "bob", "roster seek", gang="Forge Lords",
                          campaign="Market")
    assert early.ephemeral and "belongs to Update Roster (B. Visit the Trading Post)" in (
        early.content)
    await confirm_until(d, thread, ["▶️ Post-battle Actions",
                                    "▶️ Update Roster (A. Clean House)"], ["bob", "dan"])
    await at_step(arena.driver, thread, TRADING_POST)

    credits = await credits_of(arena, "Forge Lords", "Market")
    sold = await d.slash(GUILD, CHANNEL, "bob", "roster sell", item="Frag grenade",
                         gang="Forge Lords", campaign="Market")
    deduction = number_after(r"sale of Frag grenade for Forge Lords: D6x10 → \[\d\] = "
                             r"\*\*(\d+)\*\*", sold.text())
    gained = max(5, 30 - deduction)
    assert f"sells for {gained} credits" in sold.text()
    bought = await d.slash(GUILD, CHANNEL, "bob", "roster buy", item="Lasgun",
                           gang="Forge Lords", campaign="Market")
    assert "Forge Lords buys Lasgun for 15 credits into the Stash." in bought.text()
    rare = await d.slash(GUILD, CHANNEL, "bob", "roster buy", item="Boltgun",
                         gang="Forge Lords", campaign="Market")
    assert rare.ephemeral and "need a Seek Rare & Illegal roll" in rare.content
    assert await credits_of(arena, "Forge Lords", "Market") == credits + gained - 15

    seek = await d.slash(GUILD, CHANNEL, "bob", "roster seek", gang="Forge Lords",
                         campaign="Market")
    text = seek.text()
    dice = number_after(r"Rare & Illegal availability for Forge Lords: 2D6 → \[\d, \d\] = "
                        r"\*\*(\d+)\*\*", text)
    # +2 for the Leader who traded; Reputation 3 adds nothing.
    level = number_after(r"Availability (\d+) = ", text)
    assert level == dice + 2
    # In the shipped Trading Post's order (the Armoury's weapons, then its wargear); Law
    # Abiding: Illegal (X) needs X <= availability - 4 (PB-6B.6).
    rare_or_illegal = [(e.name, e.availability) for e in default_ruleset().trading_post
                       if e.availability.level is not None]
    expected = [f"{name} ({availability})" for name, availability in rare_or_illegal
                if availability.level is not None and availability.level <= (
                    level if availability.rarity is Rarity.RARE else level - 4)]
    assert f"On offer: {', '.join(expected[:3]) or 'nothing.'}" in text
    twice = await d.slash(GUILD, CHANNEL, "bob", "roster seek", gang="Forge Lords",
                          campaign="Market")
    assert twice.ephemeral and "rolled once per post-battle sequence" in twice.content
    offered = await d.autocomplete(GUILD, CHANNEL, "bob", "roster buyrare", focused="item",
                                   gang="Forge Lords", campaign="Market")
    names = [e.rsplit(" (", 2)[0] for e in expected]
    # Suggestions stop at Discord's 25.
    assert len(offered) == min(25, len(names)) and {c.value for c in offered} <= set(names)

    await confirm_until(d, thread, [TRADING_POST,
                                    "▶️ Update Roster (C. Gain Boons from Territories)",
                                    "▶️ Update Roster (D. Distribute Equipment)"],
                        ["bob", "dan"])
    await at_step(arena.driver, thread, ADVANCEMENTS)
    options = await d.autocomplete(GUILD, CHANNEL, "bob", "roster advance", focused="option",
                                   fighter="Tusk", campaign="Market")
    assert "+1 Weapon Skill or Ballistic Skill" in [c.value for c in options]
    advanced = await d.slash(GUILD, CHANNEL, "bob", "roster advance", fighter="Tusk",
                             option="+1 Weapon Skill or Ballistic Skill", stat="ws",
                             campaign="Market")
    assert "Tusk spends 6 XP on +1 Weapon Skill or Ballistic Skill" in advanced.text()
    assert "Tusk: ws 4 → 3" in advanced.text()
    card = await slash(d, "bob", "fighter show", fighter="Tusk", campaign="Market")
    assert "4 · 0 kills" in card
    await confirm(d, thread, ADVANCEMENTS, ["bob", "dan"])
    await at_step(arena.driver, thread, "▶️ Update Roster (F. Update Gang Rating)")


@pytest.mark.rule("PB-6B.8")
async def test_deferral_needs_everyone_and_is_closed_by_the_next_prebattle(
    arena: Arena,
) -> None:
    d = arena.driver
    await new_campaign(d, "Later")
    await new_gang_with(d, "bob", "Later", "Slow Hands", {"Drudge": "Goliath Forge Tyrant"})
    await new_gang_with(d, "dan", "Later", "Quick Knives", {"Flick": "Goliath Forge Tyrant"})
    thread = await battle_reported(arena, "Later", "Slow Hands", "Quick Knives", winner="draw")
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS, ["bob", "dan"])

    # bob asks; dan agrees; the Arbitrator agrees last and the deferral is recorded.
    asked = await d.slash(GUILD, CHANNEL, "bob", "roster defer",
                          substep="B. Visit the Trading Post", gang="Slow Hands",
                          campaign="Later")
    assert not asked.ephemeral
    assert "Waiting for: Quick Knives, an Arbitrator." in asked.content
    await d.click(asked.message, "Agree", "dan")
    await until(lambda: "Waiting for: an Arbitrator." in asked.content or None,
                "dan's agreement")
    await d.click(asked.message, "Agree", "alice")
    await until(lambda: "Agreed by all." in asked.content or None, "the deferral")
    assert "Slow Hands will finish B. Visit the Trading Post later" in asked.content
    assert "finishes B. Visit the Trading Post later" in all_text(d, thread)

    # The sequence goes on to its end; the deferred sub-step waits for bob.
    labels = ["▶️ Post-battle Actions", "▶️ Update Roster (A. Clean House)", TRADING_POST,
              "▶️ Update Roster (C. Gain Boons from Territories)",
              "▶️ Update Roster (D. Distribute Equipment)", ADVANCEMENTS,
              "▶️ Update Roster (F. Update Gang Rating)", "▶️ Report Results"]
    await confirm_until(d, thread, labels, ["bob", "dan"])
    await at_step(arena.driver, thread, "✅ Report Results")
    closed = await d.slash(GUILD, CHANNEL, "bob", "roster buy", item="Lasgun",
                           gang="Slow Hands", campaign="Later")
    assert closed.ephemeral and "Trading Post" in closed.content
    reopened = await slash(d, "bob", "roster reopen", substep="B. Visit the Trading Post",
                           gang="Slow Hands", campaign="Later")
    assert "is back in **B. Visit the Trading Post**" in reopened
    bought = await d.slash(GUILD, CHANNEL, "bob", "roster buy", item="Lasgun",
                           gang="Slow Hands", campaign="Later")
    assert "Slow Hands buys Lasgun for 15 credits into the Stash." in bought.text()
    dan_cannot = await d.slash(GUILD, CHANNEL, "dan", "roster buy", item="Lasgun",
                               gang="Quick Knives", campaign="Later")
    assert dan_cannot.ephemeral

    # The next pre-battle sequence closes what is still deferred.
    pre = await slash(d, "dan", "prebattle", gang1="Slow Hands", gang2="Quick Knives",
                      campaign="Later")
    assert "Slow Hands: B. Visit the Trading Post is closed." in pre
    late = await d.slash(GUILD, CHANNEL, "bob", "roster reopen",
                         substep="B. Visit the Trading Post", gang="Slow Hands",
                         campaign="Later")
    assert late.ephemeral


@pytest.mark.rule("PB-5.6")
@pytest.mark.rule("PB-6A.2")
@pytest.mark.rule("PB-6A.3")
@pytest.mark.rule("PB-6B.1")
@pytest.mark.rule("PB-6B.2")
@pytest.mark.rule("PB-6C")
@pytest.mark.rule("PB-6D")
async def test_repairs_clean_house_hiring_boons_and_equipment(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, "Workshop")
    await new_gang_with(d, "bob", "Workshop", "Gearheads",
                        {"Krug": "Goliath Forge Tyrant", "Oiler": "Road Thug",
                         "Old Timer": "Goliath Bruiser"})
    await new_gang_with(d, "dan", "Workshop", "Drifters", {"Dusty": "Goliath Forge Tyrant"})
    await slash(d, "bob", "fighter equip", fighter="Old Timer", item="Autogun",
                campaign="Workshop")
    await slash(d, "bob", "vehicle add", gang="Gearheads", name="Rustbucket",
                vehicle_type="Mauler", crew="Oiler", campaign="Workshop")
    await slash(d, "bob", "vehicle edit", vehicle="Rustbucket", add_damage="Persistent Rattle",
                campaign="Workshop")
    await slash(d, "alice", "campaign territory add", name="Home Turf", template="Settlement",
                campaign="Workshop")
    await slash(d, "alice", "campaign territory assign", territory="Home Turf",
                gang="Gearheads", campaign="Workshop")
    await slash(d, "alice", "campaign territory add", name="Rat Runs", template="Tunnels",
                campaign="Workshop")
    await slash(d, "alice", "campaign territory assign", territory="Rat Runs",
                gang="Gearheads", campaign="Workshop")

    thread = await battle_reported(arena, "Workshop", "Gearheads", "Drifters")
    await at_post_battle_actions(d, thread, ["bob", "dan"])

    # Negotiate Repairs: the price is rolled, the player declines, nothing changes.
    asked = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Krug",
                          action="Negotiate Repairs", target="Rustbucket", campaign="Workshop")
    question = next(m for m in await asked.wait_followups(2) if "Negotiate Repairs" in m.content)
    assert "Negotiate Repairs for Rustbucket: D6 → [" in asked.text()
    await d.click(question, "Leave it", "bob")
    await until(lambda: "Bob did not pay" in question.content or None, "the decision")
    assert "Gearheads does not pay; Rustbucket stays as it is." in question.content

    await confirm_until(d, thread, ["▶️ Post-battle Actions"], ["bob", "dan"])
    await at_step(arena.driver, thread, "▶️ Update Roster (A. Clean House)")
    retired = await d.slash(GUILD, CHANNEL, "bob", "roster retire", fighter="Old Timer",
                            campaign="Workshop")
    assert "Old Timer's gear goes to the Stash: Autogun." in retired.text()
    scrapped = await d.slash(GUILD, CHANNEL, "bob", "roster scrap", vehicle="Rustbucket",
                             crew_choice="wait", gang="Gearheads", campaign="Workshop")
    # 25% of the Mauler's 100 credits, rounded up to 5.
    assert "gives 25 credits" in scrapped.text()
    assert "Oiler waits for the vehicle Gearheads will buy" in scrapped.text()
    await confirm_until(d, thread, ["▶️ Update Roster (A. Clean House)"], ["bob", "dan"])

    await at_step(arena.driver, thread, TRADING_POST)
    hired = await d.slash(GUILD, CHANNEL, "bob", "roster hire", fighter_type="Goliath Bruiser",
                          name="New Blood", gang="Gearheads", campaign="Workshop")
    assert "Gearheads hires New Blood, a Goliath Bruiser, for 55 credits." in hired.text()
    quad = await d.slash(GUILD, CHANNEL, "bob", "roster vehicle", vehicle_type="Mauler",
                         name="Shiny", crew="Oiler", gang="Gearheads", campaign="Workshop")
    assert "Shiny goes to Oiler." in quad.text()
    own = await d.slash(GUILD, CHANNEL, "bob", "roster buy", item="Boltgun", fighter="Krug",
                        campaign="Workshop")
    assert "Krug buys Boltgun from their Equipment List for 55." in own.text()
    await confirm_until(d, thread, [TRADING_POST], ["bob", "dan"])

    await at_step(arena.driver, thread, "▶️ Update Roster (C. Gain Boons from Territories)")
    territories = await d.autocomplete(GUILD, CHANNEL, "bob", "roster boon", focused="territory",
                                       gang="Gearheads", campaign="Workshop")
    assert sorted(c.value for c in territories) == ["Home Turf", "Rat Runs"]
    # The Settlement's Boon is rolled and applied by the bot: declaring it is refused.
    declared = await d.slash(GUILD, CHANNEL, "bob", "roster boon", territory="Home Turf",
                             reputation=1, gang="Gearheads", campaign="Workshop")
    assert declared.ephemeral and "rolled and applied by the bot" in declared.text()
    boon = await d.slash(GUILD, CHANNEL, "bob", "roster boon", territory="Home Turf",
                         recruit_name="Lucky Find", gang="Gearheads", campaign="Workshop")
    said = boon.text()
    faces = re.search(r"Home Turf recruit roll for Gearheads: 2D6 → \[(\d), (\d)\]", said)
    assert faces, said
    sixes = [faces.group(1), faces.group(2)].count("6")
    # The recruit is the House List's Juve or Ganger: the Goliath Bully and Goliath Bruiser.
    goliath = {t.category: t.fighter_type for t in default_ruleset().house("Goliath").fighters}
    recruit = {0: "", 1: f"Lucky Find, a {goliath[FighterCategory.JUVE]}",
               2: f"Lucky Find, a {goliath[FighterCategory.GANGER]}"}[sixes]
    if recruit:
        assert f"{recruit}" in said and "joins Gearheads for free" in said, said
        assert "Home Turf gives Gearheads +1 Reputation, Lucky Find." in said, said
    else:
        assert "no recruit this time" in said
        assert "Home Turf gives Gearheads +1 Reputation." in said, said
    twice = await d.slash(GUILD, CHANNEL, "bob", "roster boon", territory="Home Turf",
                          gang="Gearheads", campaign="Workshop")
    assert twice.ephemeral and "already claimed the Boon of Home Turf" in twice.content
    # The Tunnels' Boon cannot be applied by the bot: it says what to do at the table.
    tunnels = await d.slash(GUILD, CHANNEL, "bob", "roster boon", territory="Rat Runs",
                            gang="Gearheads", campaign="Workshop")
    assert "the bot does not apply this Boon; at the table: Up to 3 fighters may deploy " \
           "via the tunnels" in tunnels.text(), tunnels.text()
    await confirm_until(d, thread, ["▶️ Update Roster (C. Gain Boons from Territories)"],
                        ["bob", "dan"])

    await at_step(arena.driver, thread, "▶️ Update Roster (D. Distribute Equipment)")
    given = await d.slash(GUILD, CHANNEL, "bob", "roster give", item="Autogun",
                          fighter="New Blood", campaign="Workshop")
    assert "New Blood takes Autogun from the Stash" in given.text()
    taken = await d.slash(GUILD, CHANNEL, "bob", "roster take", item="Boltgun", fighter="Krug",
                          campaign="Workshop")
    assert "Krug hands Boltgun back to the Stash." in taken.text()
    stash = await slash(d, "bob", "stash show", gang="Gearheads", campaign="Workshop")
    assert "Boltgun" in stash and "Autogun" not in stash


async def test_boon_suggestions_are_the_chosen_gangs_territories_in_the_named_campaign(
    arena: Arena,
) -> None:
    d = arena.driver
    # The default campaign holds a gang of the same name with a Boon Territory of its own.
    await default_elsewhere(d, "Boon Decoy")
    await new_gang_with(d, "bob", "Boon Decoy", "Claimants", {})
    await new_campaign(d, "Boon Claims")
    await new_gang_with(d, "bob", "Boon Claims", "Claimants", {})
    await new_gang_with(d, "dan", "Boon Claims", "Rivals", {})
    for campaign, territory, gang in (("Boon Decoy", "Decoy Den", "Claimants"),
                                      ("Boon Claims", "Our Turf", "Claimants"),
                                      ("Boon Claims", "Their Turf", "Rivals")):
        await slash(d, "alice", "campaign territory add", name=territory,
                    template="Settlement", campaign=campaign)
        await slash(d, "alice", "campaign territory assign", territory=territory, gang=gang,
                    campaign=campaign)

    async def offered(user: str, **values: object) -> list[str]:
        choices = await d.autocomplete(GUILD, CHANNEL, user, "roster boon",
                                       focused="territory", **values)
        return [c.value for c in choices]

    assert await offered("bob", gang="Claimants", campaign="Boon Claims") == ["Our Turf"]
    assert await offered("dan", gang="Rivals", campaign="Boon Claims") == ["Their Turf"]
    assert await offered("bob", gang="Claimants") == ["Decoy Den"]
