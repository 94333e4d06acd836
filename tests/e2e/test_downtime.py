"""Downtime through the real bot and the fake Discord: one run per gang, in its own thread.

alice (the Arbitrator) opens Downtime for bob's and dan's gangs; each gang's steps
(Fighters Recover, Captives are Returned, Promotions, Fresh Recruitment) are confirmed
by its owner; eve, who owns neither gang, is refused; alice undoes a step; a campaign
of the other gangs is never touched.
"""

from __future__ import annotations

import pytest

from bot.storage import Storage
from demo.arena import Arena
from fakediscord import Driver
from fakediscord.entities import Channel, Message
from rules.models import Advancement, Fighter, FighterCategory, FighterStatus, Gang
from rules.money import percent_of
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    capture,
    new_campaign,
    new_fighter,
    new_gang,
    slash,
    thread_messages,
    thread_named,
    until,
)
from tests.e2e.helpers import database

pytestmark = pytest.mark.usefixtures("players")

CAMPAIGN, ELSEWHERE = "Downtime Hive", "Downtime Elsewhere"
WOLVES, RATS, OTHERS = "Dt Wolves", "Dt Rats", "Dt Bystanders"


def _has(message: Message, prefix: str) -> bool:
    return any(str(c.get("custom_id", "")).startswith(prefix)
               for c in message.iter_components())


async def step_message(driver: Driver, thread: Channel, label: str) -> Message:
    """The newest message of ``thread`` opening the step ``label``, with its buttons."""

    def find() -> Message | None:
        for message in reversed(thread_messages(driver, thread)):
            title = " ".join(str(e.get("title", "")) for e in message.embeds)
            if label in title and "▶️" in title and _has(message, "munda:dt:undo:"):
                return message
        return None

    return await until(find, f"the Downtime step {label!r}")


async def press(driver: Driver, thread: Channel, label: str, button: str, user: str) -> str:
    message = await step_message(driver, thread, label)
    custom = next(str(c["custom_id"]) for c in message.iter_components()
                  if c.get("label") == button)
    result = await driver.click(message, custom, user)
    text = result.text()
    assert "Something went wrong" not in text, text
    return text if result.ephemeral else ""


async def gang_now(arena: Arena, campaign: str, name: str) -> Gang:
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        found = await storage.read(guild_id).get_campaign_by_name(campaign)
        return await storage.read(guild_id).get_gang_by_name(found.id, name)


async def seed_juve(storage: Storage, guild_id: int, campaign: str, gang: str) -> None:
    """A Juve with three advancements and its fighter entry's Promotion rule (the figures
    are the test's own; no command gives advancements outside a post-battle sequence)."""
    found = await storage.read(guild_id).get_campaign_by_name(campaign)
    target = await storage.read(guild_id).get_gang_by_name(found.id, gang)
    await storage.write(guild_id).add_fighter(found.id, target.id, Fighter(
        id="dtjuve1", name="Young Grub", category=FighterCategory.JUVE,
        fighter_type="Goliath Bully", cost=30,
        special_rules=["Promotion (Goliath Forge Boss or Goliath Stimmer)"],
        advancements=[Advancement(name="+1 WS", xp_cost=6, credits=10, stat="ws")] * 3,
    ), actor="test")


async def test_two_gangs_through_downtime(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, ELSEWHERE)
    await new_gang(d, "eve", ELSEWHERE, OTHERS)
    await new_campaign(d, CAMPAIGN)
    await new_gang(d, "bob", CAMPAIGN, WOLVES)
    await new_gang(d, "dan", CAMPAIGN, RATS)
    await new_fighter(d, "bob", CAMPAIGN, WOLVES, "Limper", "Goliath Forge-Born")
    await slash(d, "alice", "fighter status", fighter="Limper", status="In Recovery",
                campaign=CAMPAIGN)
    await new_fighter(d, "dan", CAMPAIGN, RATS, "Snatched", "Goliath Forge-Born")
    await capture(d, CAMPAIGN, "Snatched", WOLVES)
    async with database(arena) as storage:
        await seed_juve(storage, arena.fake.world.guild(GUILD).id, CAMPAIGN, WOLVES)
    snatched = next(f for f in (await gang_now(arena, CAMPAIGN, RATS)).fighters
                    if f.name == "Snatched")
    ransom = percent_of(snatched.total_cost, 50)
    others_before = await gang_now(arena, ELSEWHERE, OTHERS)

    # Only an Arbitrator opens it.
    refused = await d.slash(GUILD, CHANNEL, "bob", "campaign downtime open", campaign=CAMPAIGN)
    assert refused.ephemeral and "Only an Arbitrator" in refused.text(), refused.text()
    opened = await d.slash(GUILD, CHANNEL, "alice", "campaign downtime open",
                           campaign=CAMPAIGN)
    assert not opened.ephemeral, opened.text()
    assert WOLVES in opened.text() and RATS in opened.text() and OTHERS not in opened.text()
    wolves = await thread_named(d, f"Downtime: {WOLVES}")
    rats = await thread_named(d, f"Downtime: {RATS}")
    assert not [t for t in d.threads(CHANNEL, guild=GUILD) if OTHERS in t.name]

    # A. Fighters Recover, rolled as it opened; eve may not confirm, bob does.
    first = await step_message(d, wolves, "A. Fighters Recover")
    assert "Limper recovers." in first.embed_text()
    refusal = await press(d, wolves, "A. Fighters Recover", "Confirm", "eve")
    assert "only its owner or an Arbitrator" in refusal, refusal
    refusal = await press(d, wolves, "A. Fighters Recover", "Confirm", "dan")
    assert "only its owner or an Arbitrator" in refusal, refusal
    assert await press(d, wolves, "A. Fighters Recover", "Confirm", "bob") == ""
    limper = next(f for f in (await gang_now(arena, CAMPAIGN, WOLVES)).fighters
                  if f.name == "Limper")
    assert limper.status is FighterStatus.ACTIVE

    # B. The Wolves hand Snatched back and take half its value.
    returned = await step_message(d, wolves, "B. Captives are Returned")
    assert f"Snatched goes back to {RATS}" in returned.embed_text()
    freed = next(f for f in (await gang_now(arena, CAMPAIGN, RATS)).fighters
                 if f.name == "Snatched")
    assert freed.status is FighterStatus.ACTIVE
    credits_after_ransom = (await gang_now(arena, CAMPAIGN, WOLVES)).credits
    assert credits_after_ransom == 1000 + ransom
    await press(d, wolves, "B. Captives are Returned", "Confirm", "bob")

    # C. Promotions: bob promotes his Juve, eve may not.
    promotions = await step_message(d, wolves, "C. Experienced Juves")
    assert "Young Grub (Juve, 3 advancements) may be promoted" in promotions.embed_text()
    stranger = await d.slash(GUILD, CHANNEL, "eve", "campaign downtime promote",
                             fighter="Young Grub", to="Goliath Stimmer", campaign=CAMPAIGN)
    assert stranger.ephemeral and "not your gang" in stranger.text(), stranger.text()
    promoted = await slash(d, "bob", "campaign downtime promote", fighter="Young Grub",
                           to="Goliath Stimmer", campaign=CAMPAIGN)
    assert "promoted from Goliath Bully to Goliath Stimmer" in promoted, promoted
    await press(d, wolves, "C. Experienced Juves", "Confirm", "bob")

    # D. Fresh Recruitment: 250 credits to spend now.
    await step_message(d, wolves, "D. Fresh Recruitment")
    assert (await gang_now(arena, CAMPAIGN, WOLVES)).credits == credits_after_ransom + 250

    # alice takes D back: the 250 go, C is open again; bob may not undo.
    refusal = await press(d, wolves, "D. Fresh Recruitment", "Undo (Arbitrator)", "bob")
    assert "Only an Arbitrator" in refusal, refusal
    await press(d, wolves, "D. Fresh Recruitment", "Undo (Arbitrator)", "alice")
    reopened = await step_message(d, wolves, "C. Experienced Juves")
    assert "Reopened by an undo" in reopened.embed_text()
    assert (await gang_now(arena, CAMPAIGN, WOLVES)).credits == credits_after_ransom
    await press(d, wolves, "C. Experienced Juves", "Confirm", "bob")

    # Recruit with 100 of the 250, then confirm: the other 150 are lost, the Stash's stay.
    await step_message(d, wolves, "D. Fresh Recruitment")
    await slash(d, "bob", "stash remove", gang=WOLVES, credits=100, campaign=CAMPAIGN)
    await press(d, wolves, "D. Fresh Recruitment", "Confirm", "bob")

    def over() -> Message | None:
        return next((m for m in thread_messages(d, wolves)
                     if "Downtime over" in " ".join(str(e.get("title")) for e in m.embeds)),
                    None)

    ended = await until(over, "the Wolves' Downtime to end")
    assert "150 of the 250 Fresh Recruitment credits were not spent" in ended.embed_text()
    assert (await gang_now(arena, CAMPAIGN, WOLVES)).credits == credits_after_ransom

    # The Rats' own run: dan confirms, bob (a player of the campaign) may not.
    refusal = await press(d, rats, "A. Fighters Recover", "Confirm", "bob")
    assert "only its owner or an Arbitrator" in refusal, refusal
    await press(d, rats, "A. Fighters Recover", "Confirm", "dan")
    await step_message(d, rats, "B. Captives are Returned")

    # A second Downtime is refused while the Rats' is in progress.
    again = await d.slash(GUILD, CHANNEL, "alice", "campaign downtime open", campaign=CAMPAIGN)
    assert again.ephemeral and "still in progress" in again.text(), again.text()

    # The other campaign's gang is as it was; no battle was recorded for any of this.
    assert await gang_now(arena, ELSEWHERE, OTHERS) == others_before
    status = await d.slash(GUILD, CHANNEL, "dan", "postbattle status", gang=RATS,
                           campaign=CAMPAIGN)
    assert status.ephemeral and "post-battle sequence" in status.text(), status.text()
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        found = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        assert await storage.read(guild_id).list_battles(found.id) == []


async def test_an_arbitrator_confirms_too_when_asked_and_an_undo_at_the_start_withdraws(
    arena: Arena,
) -> None:
    d = arena.driver
    camp, gang = "Downtime Strict", "Dt Strict"
    await new_campaign(d, camp)
    await new_gang(d, "bob", camp, gang)
    opened = await d.slash(GUILD, CHANNEL, "alice", "campaign downtime open", campaign=camp,
                           arbitrator_confirms=True, credits=100)
    assert "confirmed by its owner and an Arbitrator" in opened.text(), opened.text()
    thread = await thread_named(d, f"Downtime: {gang}")
    first = await step_message(d, thread, "A. Fighters Recover")
    assert "Waiting for the gang's owner" in first.embed_text()
    assert "and an Arbitrator to confirm" in first.embed_text()

    await press(d, thread, "A. Fighters Recover", "Confirm", "bob")
    waiting = await until(lambda: next(
        (m for m in thread_messages(d, thread) if "Confirmed (owner)" in m.embed_text()
         and "Waiting for an Arbitrator" in m.embed_text()), None), "bob's confirmation")
    assert _has(waiting, "munda:dt:confirm:")
    # bob's second press changes nothing: the step waits for an Arbitrator still.
    await press(d, thread, "A. Fighters Recover", "Confirm", "bob")
    assert not [m for m in thread_messages(d, thread)
                if "B. Captives are Returned" in " ".join(str(e.get("title")) for e in m.embeds)]
    await press(d, thread, "A. Fighters Recover", "Confirm", "alice")
    await step_message(d, thread, "B. Captives are Returned")
    for label in ("B. Captives are Returned", "C. Experienced Juves"):
        for user in ("bob", "alice"):
            await press(d, thread, label, "Confirm", user)
    await step_message(d, thread, "D. Fresh Recruitment")
    assert (await gang_now(arena, camp, gang)).credits == 1000 + 100

    # Undone back to its start, the Downtime is withdrawn and may be opened again.
    for label in ("D. Fresh Recruitment", "C. Experienced Juves", "B. Captives are Returned",
                  "A. Fighters Recover"):
        await press(d, thread, label, "Undo (Arbitrator)", "alice")
    await until(lambda: next((m for m in thread_messages(d, thread)
                              if "Downtime is withdrawn" in m.embed_text()), None),
                "the withdrawn Downtime")
    assert (await gang_now(arena, camp, gang)).credits == 1000
    again = await d.slash(GUILD, CHANNEL, "alice", "campaign downtime open", campaign=camp)
    assert not again.ephemeral, again.text()


async def test_the_answer_naming_every_gangs_thread_fits_discords_limits(arena: Arena) -> None:
    d = arena.driver
    camp = "Downtime Crowd"
    await new_campaign(d, camp)
    names = [f"Crowd {index:02d} " + "Longname" * 12 for index in range(18)]
    for name in names:
        await new_gang(d, "bob", camp, name[:100])
    opened = await d.slash(GUILD, CHANNEL, "alice", "campaign downtime open", campaign=camp)
    assert not opened.ephemeral, opened.text()
    assert "Downtime is open" in opened.text(), opened.text()
    assert all(name[:100] in opened.text() for name in names), opened.text()
