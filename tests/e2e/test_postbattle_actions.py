"""Post-battle actions through the real bot: a Medical Escort paid, a captive sold, refusals.

Each test plays its own campaign with its own gangs: bob and dan are plain
players, eve a member with no gang, alice the Arbitrator who started the
campaigns.
"""

from __future__ import annotations

import pytest

from demo.arena import Arena
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    all_text,
    at_post_battle_actions,
    capture,
    credits_of,
    default_elsewhere,
    held_captive,
    new_campaign,
    new_fighter,
    new_gang_with,
    number_after,
    report,
    slash,
    stage_message,
    start_battle,
    thread_named,
    until,
)

pytestmark = pytest.mark.usefixtures("players")


@pytest.mark.rule("PB-5.5")
async def test_medical_escort_paid_and_a_stranger_refused(arena: Arena) -> None:
    d = arena.driver
    await default_elsewhere(d, "Not The Escorts")
    await new_campaign(d, "Escorts")
    await new_gang_with(d, "bob", "Escorts", "Doc Seekers",
                        {"Varn": "Goliath Forge Tyrant", "Hollis": "Goliath Forge Boss"})
    await new_gang_with(d, "dan", "Escorts", "Pit Dogs", {"Mange": "Goliath Forge Tyrant"},
                        alignment="Outlaw")

    thread = await start_battle(arena, "Escorts", "Doc Seekers", "Pit Dogs")
    await report(d, thread, "bob", "Doc Seekers", [("Critical Injury suffered", ["Hollis"])])
    await report(d, thread, "dan", "Pit Dogs")
    await at_post_battle_actions(d, thread, ["bob", "dan"])

    # With no gang typed, each player is offered the fighters of their own gang only.
    async def acting(user: str) -> list[str]:
        choices = await d.autocomplete(GUILD, CHANNEL, user, "action take", focused="fighter",
                                       campaign="Escorts")
        return [c.value for c in choices]

    assert await acting("bob") == ["Varn"]
    assert await acting("dan") == ["Mange"]
    assert await acting("eve") == []

    # A stranger cannot act for the gang, and nothing changes.
    before = all_text(d, thread)
    refused = await d.slash(GUILD, CHANNEL, "eve", "action take", fighter="Varn",
                            action="Trade", campaign="Escorts")
    assert refused.ephemeral
    assert "not your gang" in refused.content
    listing = await slash(d, "bob", "action list", gang="Doc Seekers", campaign="Escorts")
    assert "Varn**: Trade" in listing
    assert "Medical Escort" in listing
    assert all_text(d, thread) == before

    # Only the actions open to Varn are offered.
    offered = await d.autocomplete(GUILD, CHANNEL, "bob", "action take", focused="action",
                                   fighter="Varn", campaign="Escorts")
    assert sorted(c.value for c in offered) == ["Medical Escort", "Trade"]

    credits = await credits_of(arena, "Doc Seekers", "Escorts")
    asked = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Varn",
                          action="Medical Escort", target="Hollis", campaign="Escorts")
    followups = await asked.wait_followups(2)
    assert "Medical Escort cost for Hollis: 2D6x10 → [" in asked.text()
    question = next(m for m in followups if "the Doc asks" in m.content)
    assert not question.ephemeral
    cost = number_after(r"the Doc asks \*\*(\d+)\*\* credits", question.content)
    assert 20 <= cost <= 120

    # Asking again shows the stored cost: the dice are never rolled twice.
    again = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Varn",
                          action="Medical Escort", target="Hollis", campaign="Escorts")
    await again.wait_followups(2)
    assert f"already rolled: {cost} credits" in again.text()
    assert f"the Doc asks **{cost}** credits" in again.text()

    stranger = await d.click(question, "Pay", "eve")
    assert stranger.ephemeral and "not your gang" in stranger.content
    paid = await d.click(question, "Pay", "bob")
    assert "Something went wrong" not in paid.text()
    await until(lambda: "Bob paid" in question.content or None, "the decision to show")
    assert f"Doc Seekers pays the Doc {cost} credits." in question.content
    assert question.buttons == []
    assert await credits_of(arena, "Doc Seekers", "Escorts") == credits - cost
    assert "Medical Escort for Hollis" in all_text(d, thread)

    # The action is used up, and Hollis no longer needs the Doc.
    twice = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Varn",
                          action="Trade", campaign="Escorts")
    assert twice.ephemeral and "Medical Escort" in twice.content


# A fighter reported Out of Action while Webbed in a lost battle escapes on a natural 6 only
# (PB-1.2: -2 lost, -2 Webbed). The escape die is secret-seeded, so a battle whose capture
# did not stick is cancelled and another is fought: six battles all escaping is 1 in 46,656.
CAPTURE_TRIES = 6


@pytest.mark.rule("PB-1.2")
@pytest.mark.rule("PB-1.7")
@pytest.mark.rule("PB-5.2")
async def test_captive_sold_to_the_guilders_in_a_later_battle(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, "Captives")
    await new_gang_with(d, "bob", "Captives", "Wardens", {"Marshal Kade": "Goliath Forge Tyrant"})
    await new_gang_with(d, "dan", "Captives", "Scavs",
                        {"Scav Boss": "Goliath Forge Tyrant", "Runt": "Goliath Bully"},
                        alignment="Outlaw")

    # The Runt goes Out of Action while Webbed, and Captured was rolled at the table: the
    # Wrap-up makes its escape roll instead of rolling an injury.
    battles_fought: list[str] = []
    thread_id = 0
    for _attempt in range(CAPTURE_TRIES):
        await slash(d, "bob", "prebattle", gang1="Wardens", gang2="Scavs", campaign="Captives")
        battles = await d.autocomplete(GUILD, CHANNEL, "bob", "postbattle start",
                                       focused="battle", campaign="Captives", winner="Wardens")
        battle = battles[0].value
        assert battle not in battles_fought
        battles_fought.append(battle)
        await slash(d, "bob", "postbattle start", winner="Wardens", battle=battle,
                    campaign="Captives")
        thread = await thread_named(d, "Wardens vs Scavs", after=thread_id)
        thread_id = thread.id
        await report(d, thread, "bob", "Wardens")
        await report(d, thread, "dan", "Scavs", [("Out of Action while Webbed", ["Runt"])],
                     injuries={"Runt": ["Captured"]})
        wrap_up = (await stage_message(d, thread, "Wrap-up")).embed_text()
        assert "Runt's Lasting Injuries were rolled during the battle: Captured." in wrap_up
        assert "Lasting Injury for Runt: D66" not in wrap_up  # not rolled again
        natural = number_after(r"escape roll for Runt: D6 → \[(\d)\]", wrap_up)
        if natural != 6:
            assert (f"Runt rolls {natural} (-2 lost, -2 Webbed) = {natural - 4} and is "
                    "Captured by Wardens.") in wrap_up
            break
        assert "Runt rolls 6 (-2 lost, -2 Webbed) = 2 and escapes into Convalescence." in wrap_up
        cancelled = await slash(d, "alice", "postbattle cancel", gang="Wardens",
                                campaign="Captives")
        assert "Cancelled" in cancelled
    else:
        raise AssertionError(f"the Runt escaped {CAPTURE_TRIES} times in a row")

    listed = await slash(d, "dan", "captive list", campaign="Captives")
    assert "**Runt** of Scavs, held by **Wardens** (rescue chance not yet given" in listed
    assert "Wardens may: Trade to its owner." in listed

    await at_post_battle_actions(d, thread, ["bob", "dan"])
    # Before the owner's rescue chance the captor may not sell it.
    offered = await d.autocomplete(GUILD, CHANNEL, "bob", "action take", focused="action",
                                   fighter="Marshal Kade", campaign="Captives")
    assert [c.value for c in offered] == ["Trade"]
    early = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Marshal Kade",
                          action="Sell to the Guilders", target="Runt", campaign="Captives")
    assert early.ephemeral and "cannot make a Sell to the Guilders action now" in early.content
    # Cancel this run: the sale happens in a later battle's sequence.
    cancelled = await d.slash(GUILD, CHANNEL, "alice", "postbattle cancel", gang="Wardens",
                              campaign="Captives")
    assert "Something went wrong" not in cancelled.text()

    # The owner declines the Rescue Mission; the captor is free to sell.
    bob_refused = await d.slash(GUILD, CHANNEL, "bob", "captive rescue-declined",
                                captive="Runt", campaign="Captives")
    assert bob_refused.ephemeral and "not your gang" in bob_refused.content
    declined = await slash(d, "dan", "captive rescue-declined", captive="Runt",
                           campaign="Captives")
    assert "Scavs declined a Rescue Mission for Runt." in declined
    listed = await slash(d, "dan", "captive list", gang="Scavs", campaign="Captives")
    assert "has had its rescue chance" in listed
    assert "Sell to the Guilders" in listed and "Claim a bounty" in listed

    # A later battle: Marshal Kade sells the Runt in its Post-battle Actions.
    await slash(d, "dan", "prebattle", gang1="Scavs", gang2="Wardens", campaign="Captives")
    battles = await d.autocomplete(GUILD, CHANNEL, "dan", "postbattle start", focused="battle",
                                   campaign="Captives", winner="Scavs")
    later = battles[0].value
    assert later not in battles_fought
    await slash(d, "dan", "postbattle start", winner="Scavs", battle=later, campaign="Captives")
    thread = await thread_named(d, "Scavs vs Wardens")
    await report(d, thread, "dan", "Scavs")
    await report(d, thread, "bob", "Wardens")
    await at_post_battle_actions(d, thread, ["bob", "dan"])
    offered = await d.autocomplete(GUILD, CHANNEL, "bob", "action take", focused="action",
                                   fighter="Marshal Kade", campaign="Captives")
    assert sorted(c.value for c in offered) == ["Claim Bounties", "Sell to the Guilders",
                                                 "Trade"]
    targets = await d.autocomplete(GUILD, CHANNEL, "bob", "action take", focused="target",
                                   fighter="Marshal Kade", action="Sell to the Guilders",
                                   campaign="Captives")
    assert [c.value for c in targets] == ["Runt"]

    credits = await credits_of(arena, "Wardens", "Captives")
    sold = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Marshal Kade",
                         action="Sell to the Guilders", target="Runt", campaign="Captives")
    assert sold.ephemeral
    # Goliath Bully cost 35: half is 17.5, rounded up to 5 is 20.
    assert "Wardens gains 20 credits" in sold.text()
    assert await credits_of(arena, "Wardens", "Captives") == credits + 20
    assert "Sell to the Guilders: Runt" in all_text(d, thread)
    roster = await slash(d, "dan", "gang show", gang="Scavs", campaign="Captives")
    assert "Runt" not in roster
    assert "Nobody is held captive." in await slash(d, "dan", "captive list",
                                                     campaign="Captives")


@pytest.mark.rule("PB-1.7")
async def test_a_failed_rescue_mission_frees_the_captor(arena: Arena) -> None:
    d = arena.driver
    await held_captive(d, "Rescues", "Jailers", "Kin", "Lost Boy", owner_alignment="Outlaw")
    await new_fighter(d, "dan", "Rescues", "Kin", "Kin Boss", "Goliath Forge Tyrant")
    await slash(d, "dan", "prebattle", gang1="Kin", gang2="Jailers",
                rescue_captive="Lost Boy", campaign="Rescues")

    stranger = await d.slash(GUILD, CHANNEL, "eve", "captive rescue-failed",
                             captive="Lost Boy", campaign="Rescues")
    assert stranger.ephemeral and "Only the players of Kin and Jailers" in stranger.content
    free = await d.slash(GUILD, CHANNEL, "dan", "captive rescue-failed", captive="Kin Boss",
                         campaign="Rescues")
    assert free.ephemeral and "is not held captive" in free.content
    assert "Jailers may: Trade to its owner." in await slash(
        d, "dan", "captive list", campaign="Rescues")

    # The Rescue Mission failed; the captor's player records it (the owner's could too).
    failed = await slash(d, "bob", "captive rescue-failed", captive="Lost Boy",
                         campaign="Rescues")
    assert "Kin failed its Rescue Mission for Lost Boy." in failed
    assert "Jailers may now sell Lost Boy to the Guilders" in failed
    listed = await slash(d, "dan", "captive list", campaign="Rescues")
    assert "has had its rescue chance" in listed
    assert "Sell to the Guilders" in listed and "Trade to any gang" in listed
    ledger = await slash(d, "dan", "ledger", gang="Kin", campaign="Rescues")
    assert "Kin failed its Rescue Mission for Lost Boy." in ledger

    # When the gangs meet again the owner may try again (PB-1.7); a second failure is
    # recorded, and the captor was free already.
    again = await slash(d, "dan", "captive rescue-failed", captive="Lost Boy",
                        campaign="Rescues")
    assert "Kin failed its Rescue Mission for Lost Boy." in again
    assert "may now sell" not in again


@pytest.mark.rule("PB-1.8")
async def test_captive_trade_needs_both_gangs_and_survives_a_restart(arena: Arena) -> None:
    d = arena.driver
    await held_captive(d, "Swaps", "Hunters", "Prey", "Bait")
    stranger = await d.slash(GUILD, CHANNEL, "eve", "captive trade", captive="Bait",
                             to_gang="Prey", campaign="Swaps")
    assert stranger.ephemeral and "Only the players of Hunters and Prey" in stranger.content
    # Before the rescue chance the captor may trade only to the owner.
    elsewhere = await d.slash(GUILD, CHANNEL, "bob", "captive trade", captive="Bait",
                              to_gang="Hunters", campaign="Swaps")
    assert elsewhere.ephemeral

    offer = await d.slash(GUILD, CHANNEL, "dan", "captive trade", captive="Bait",
                          to_gang="Prey", credits_from_receiver=25, campaign="Swaps")
    assert not offer.ephemeral
    assert "Hunters hands Bait (of Prey) to Prey; Prey pays 25 credits." in offer.content
    assert "Agreed: Prey." in offer.content and "Waiting for: Hunters." in offer.content
    refused = await d.click(offer.message, "Agree", "eve")
    assert refused.ephemeral and "Only the players of the gangs concerned" in refused.content
    again = await d.click(offer.message, "Agree", "dan")
    assert again.ephemeral and "already agreed" in again.content

    # The buttons carry everything they need: they still work after a restart.
    await arena.restart_bot()
    hunters = await credits_of(arena, "Hunters", "Swaps")
    prey = await credits_of(arena, "Prey", "Swaps")
    agreed = await d.click(offer.message, "Agree", "bob")
    assert "Something went wrong" not in agreed.text()
    await until(lambda: "Agreed by all." in offer.content or None, "the trade")
    assert "Bait returns to Prey and is available at once." in offer.content
    assert offer.message.buttons == []
    assert await credits_of(arena, "Hunters", "Swaps") == hunters + 25
    assert await credits_of(arena, "Prey", "Swaps") == prey - 25
    assert "Nobody is held captive." in await slash(d, "dan", "captive list", campaign="Swaps")

    # Either side may decline instead.
    await capture(d, "Swaps", "Bait", "Hunters")
    second = await d.slash(GUILD, CHANNEL, "bob", "captive trade", captive="Bait",
                           to_gang="Prey", credits_from_receiver=500, campaign="Swaps")
    await d.click(second.message, "Decline", "dan")
    await until(lambda: "Declined." in second.content or None, "the refusal")
    assert "captured" in (await slash(d, "dan", "gang show", gang="Prey",
                                      campaign="Swaps")).casefold()
