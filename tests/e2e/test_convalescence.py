"""Convalescence and Old Battle Wound across two battles, through the real bot.

Convalescence lasts for the post-battle sequence in which it was received:
the fighter makes no post-battle action in it, may fight the next battle, and
that battle's Wrap-up makes it Active again, before the next post-battle
actions. An Old Battle Wound rolls a D6 in the Wrap-up of each later battle of
the fighter's gang; on a 1 Convalescence. That die is secret-seeded, so the
test reads the roll line and checks the status and the action refusal agree
with it, whichever way it fell. bob and dan are plain players; alice, who
starts every campaign, is its Arbitrator.
"""

from __future__ import annotations

import pytest

from demo.arena import Arena
from fakediscord import Driver, InteractionResult
from fakediscord.entities import Channel
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    STEPS_BEFORE_ACTIONS,
    all_text,
    battle_reported,
    confirm_until,
    new_campaign_of_two,
    new_fighter,
    number_after,
    report,
    slash,
    start_battle,
    thread_messages,
    until,
    wrap_up_text,
)

pytestmark = pytest.mark.usefixtures("players")

# The steps after the post-battle actions, to the end of the sequence.
STEPS_AFTER_ACTIONS = ["▶️ Post-battle Actions", "A. Clean House", "B. Visit the Trading Post",
                       "C. Gain Boons from Territories", "D. Distribute Equipment",
                       "E. Purchase Advancements", "F. Update Gang Rating", "Report Results"]
PLAYERS = ["bob", "dan"]


async def two_gangs(arena: Arena, campaign: str, ours: str, theirs: str, patient: str) -> None:
    """bob's ``ours`` (``patient``, a leader, and a ganger) and dan's ``theirs`` (a leader).

    Each test names its own gangs: a battle's thread is found by their names.
    """
    d = arena.driver
    await new_campaign_of_two(d, campaign, ours, theirs, dans_alignment="Outlaw")
    await new_fighter(d, "bob", campaign, ours, patient, "Goliath Forge Tyrant")
    await new_fighter(d, "bob", campaign, ours, f"{patient} Junior", "Goliath Bully")
    await new_fighter(d, "dan", campaign, theirs, f"{theirs} Boss", "Goliath Forge Tyrant")


async def injured(arena: Arena, campaign: str, ours: str, theirs: str, patient: str,
                  injury: str) -> tuple[Channel, str]:
    """A battle ``theirs`` starts against ``ours`` in which ``patient`` goes Out of Action
    with ``injury`` rolled at the table; its thread and the Wrap-up's text, which names it."""
    d = arena.driver
    thread = await start_battle(arena, campaign, theirs, ours)
    await report(d, thread, "dan", theirs)
    await report(d, thread, "bob", ours, [("Out of Action", [patient])],
                 injuries={patient: [injury]})
    text = await wrap_up_text(arena, thread)
    assert f"{patient}'s Lasting Injuries were rolled during the battle: {injury}." in text
    return thread, text


async def back_in_action(arena: Arena, campaign: str, thread: Channel,
                         fighter: str) -> InteractionResult:
    """The battle's Wrap-up ends ``fighter``'s Convalescence: at the post-battle actions it
    is Active and its Trade is taken (the answer returned)."""
    text = await wrap_up_text(arena, thread)
    assert f"{fighter}'s Convalescence from an earlier battle ends." in text
    await to_the_actions(arena, thread)
    assert await status_of(arena.driver, fighter, campaign) == "Active"
    acted = await trade(arena.driver, fighter, campaign)
    assert "cannot act" not in acted.text(), acted.text()
    return acted


async def to_the_actions(arena: Arena, thread: Channel) -> None:
    await confirm_until(arena.driver, thread, STEPS_BEFORE_ACTIONS, PLAYERS)
    await until(lambda: "▶️ Post-battle Actions" in all_text(arena.driver, thread) or None,
                "the Post-battle Actions step")


async def to_the_end(arena: Arena, thread: Channel) -> None:
    """Confirm the rest of the sequence; done once the thread has no Confirm button left."""
    d = arena.driver
    await confirm_until(d, thread, STEPS_AFTER_ACTIONS, PLAYERS)

    def finished() -> bool | None:
        buttons = [c for m in thread_messages(d, thread) for c in m.iter_components()
                   if str(c.get("custom_id", "")).startswith("munda:pb:confirm:")]
        return True if not buttons else None

    await until(finished, "the sequence to end")


async def trade(d: Driver, fighter: str, campaign: str) -> InteractionResult:
    return await d.slash(GUILD, CHANNEL, "bob", "action take", fighter=fighter,
                         action="Trade", campaign=campaign)


async def status_of(d: Driver, fighter: str, campaign: str) -> str:
    card = await slash(d, "bob", "fighter show", fighter=fighter, campaign=campaign)
    found = [s for s in ("Convalescent", "Active") if s in card]
    assert len(found) == 1, card
    return found[0]


@pytest.mark.rule("PB-1.5")
@pytest.mark.rule("PB-5.0")
async def test_convalescence_bars_its_own_sequence_and_ends_at_the_next_wrap_up(
    arena: Arena,
) -> None:
    d, campaign = arena.driver, "Sickbay"
    await two_gangs(arena, campaign, "Menders", "Rivets", "Gorm")

    # Battle 1: Gorm goes Out of Action, Humiliated rolled at the table.
    thread, text = await injured(arena, campaign, "Menders", "Rivets", "Gorm", "Humiliated")
    assert "Convalescence from an earlier battle ends" not in text
    await to_the_actions(arena, thread)
    assert await status_of(d, "Gorm", campaign) == "Convalescent"

    # Convalescence received in this battle: no post-battle action, and nothing changes.
    before = all_text(d, thread)
    refused = await trade(d, "Gorm", campaign)
    assert refused.ephemeral
    assert "Gorm is convalescing and cannot act." in refused.content
    assert all_text(d, thread) == before
    listing = await slash(d, "bob", "action list", gang="Menders", campaign=campaign)
    assert "Gorm**:" not in listing
    await to_the_end(arena, thread)
    assert await status_of(d, "Gorm", campaign) == "Convalescent"

    # Battle 2: Gorm may fight (the report panel offers it), and the Wrap-up ends it.
    thread = await start_battle(arena, campaign, "Menders", "Rivets")
    await report(d, thread, "bob", "Menders", [("Out of Action", ["Gorm"])],
                 injuries={"Gorm": ["Out Cold"]})
    await report(d, thread, "dan", "Rivets")
    acted = await back_in_action(arena, campaign, thread, "Gorm")
    assert "Something went wrong" not in acted.text()
    await until(lambda: "Trade" in all_text(d, thread) or None, "Gorm's Trade in the thread")


@pytest.mark.rule("PB-1.5")
async def test_a_fighter_set_convalescent_before_a_battle_may_act_after_its_wrap_up(
    arena: Arena,
) -> None:
    d, campaign = arena.driver, "Bed Rest"
    await two_gangs(arena, campaign, "Bedwarmers", "Sheet Rats", "Tull")
    said = await slash(d, "alice", "fighter status", fighter="Tull", status="Convalescent",
                       gang="Bedwarmers", campaign=campaign)
    assert "Tull is now Convalescent" in said

    thread = await battle_reported(arena, campaign, "Bedwarmers", "Sheet Rats")
    await back_in_action(arena, campaign, thread, "Tull")


@pytest.mark.rule("PB-1.5")
async def test_old_battle_wound_rolls_in_the_next_wrap_up(arena: Arena) -> None:
    d, campaign = arena.driver, "Old Scars"
    await two_gangs(arena, campaign, "Scarred", "Sawbones", "Krag")

    # Battle 1: the wound is received; it rolls only after later battles.
    thread, text = await injured(arena, campaign, "Scarred", "Sawbones", "Krag",
                                 "Old Battle Wound")
    assert "Old Battle Wound roll for Krag" not in text
    await to_the_actions(arena, thread)
    assert await status_of(d, "Krag", campaign) == "Active"
    await to_the_end(arena, thread)
    card = await slash(d, "bob", "fighter show", fighter="Krag", campaign=campaign)
    assert "Old Battle Wound" in card

    # Battle 2: Krag was not taken Out of Action, yet the Wrap-up rolls its D6.
    thread = await battle_reported(arena, campaign, "Scarred", "Sawbones")
    text = await wrap_up_text(arena, thread)
    rolled = number_after(r"Old Battle Wound roll for Krag: D6 → \[(\d)\]", text)
    assert text.count("Old Battle Wound roll for Krag") == 1
    await to_the_actions(arena, thread)
    acted = await trade(d, "Krag", campaign)
    if rolled == 1:
        assert "Krag rolls 1 for Old Battle Wound: Convalescence." in text
        assert await status_of(d, "Krag", campaign) == "Convalescent"
        assert acted.ephemeral and "Krag is convalescing and cannot act." in acted.content
    else:
        assert f"Krag rolls {rolled} for Old Battle Wound: no effect this time." in text
        assert await status_of(d, "Krag", campaign) == "Active"
        assert "cannot act" not in acted.text(), acted.text()
