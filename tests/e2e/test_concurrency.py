"""Simultaneous clicks through the real bot: one transition, and forms applied as the rules say.

Every burst is sent with ``asyncio.gather``: the fake Discord writes the
interactions to the bot's socket one after the other without waiting for an
answer, so the bot handles them concurrently, as it would a player's
double-click or two players clicking at the same moment. What counts is the
database afterwards (read beside the live bot) and what the channel shows.

Its own module: one bot process and database.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from demo.arena import Arena
from fakediscord import InteractionResult, Message
from tests.e2e.battle_helpers import (
    STEPS_BEFORE_ACTIONS,
    battle_reported,
    bot_ready,
    confirm_until,
    ensure_member,
    new_campaign,
    new_gang_with,
    number_after,
    report,
    start_battle,
)
from tests.e2e.helpers import ok
from tests.e2e.postbattle_steps import (
    CH,
    G,
    campaign,
    campaign_of_two,
    eventually,
    gang,
    in_thread,
    open_stage,
    report_panel,
    start,
    territory_battle,
    titled,
)
from tests.e2e.test_crash_resume import roll_line, stored, to_step


async def answers(results: list[InteractionResult]) -> list[str]:
    """What each click was told (its ephemeral answer or its follow-up)."""
    said: list[str] = []
    for result in results:
        if result.ephemeral or result.content:
            said.append(result.content)
        else:
            said.append((await result.wait_followups(1))[-1].content)
    return said


async def test_ten_clicks_of_one_player_and_bursts_of_submits_change_the_run_once(
    arena: Arena,
) -> None:
    camp = "Double Click"
    await campaign_of_two(arena, camp, "Quick Hands", "Slow Feet")
    _, thread = await start(arena, "bob", camp, "Quick Hands", "Quick Hands", "Slow Feet")
    panels = {g: report_panel(arena, thread, g) for g in ("Quick Hands", "Slow Feet")}
    submits = await asyncio.gather(*(
        arena.driver.click(panels[g], "Submit", user)
        for _ in range(3) for g, user in (("Quick Hands", "bob"), ("Slow Feet", "carol"))
    ))
    said = await answers(list(submits))
    assert sum("Wrap-up has been rolled" in text for text in said) == 1, said
    wraps = await eventually(lambda: titled(in_thread(arena, thread), "Wrap-up"),
                             "the Wrap-up")
    after_submits = await stored(arena, camp)
    assert len(after_submits.run.stages) == 1 and len(wraps) == 1
    assert {g.battles_fought for g in after_submits.gangs.values()} == {1}  # once, not 3 times

    wrap = wraps[0]
    clicks = await asyncio.gather(*(arena.driver.click(wrap, "Confirm", "bob")
                                    for _ in range(10)))
    said = await answers(list(clicks))
    assert sum(text.startswith("Confirmed Wrap-up") for text in said) == 1, said
    assert sum("Already confirmed" in text for text in said) == 9, said
    clicks = await asyncio.gather(*(arena.driver.click(wrap, "Confirm", "carol")
                                    for _ in range(10)))
    said = await answers(list(clicks))
    assert sum("Next: Assign/Reassign Territory" in text for text in said) == 1, said
    await eventually(lambda: titled(in_thread(arena, thread), "Assign/Reassign Territory"),
                     "the next step")
    run = (await stored(arena, camp)).run
    assert [r.label for r in run.stages] == ["Wrap-up", "Assign/Reassign Territory"]
    assert len(titled(in_thread(arena, thread), "Assign/Reassign Territory")) == 1
    assert list(run.stages[0].confirmations) == run.gang_ids  # each gang confirmed once


async def test_both_players_clicking_together_roll_the_next_step_once(arena: Arena) -> None:
    camp = "Crowded Click"
    await campaign_of_two(arena, camp, "Pit Kings", "Dust Saints")
    thread = await territory_battle(arena, camp, "Pit Kings", "Pit Kings", "Dust Saints",
                                    "Glow Wells", "D6x10")
    await eventually(lambda: open_stage(arena, thread), "the Wrap-up")
    rewards = await to_step(arena, thread, "Receive Rewards", ["bob", "carol"])
    before = await stored(arena, camp)
    clicks = await asyncio.gather(*(arena.driver.click(rewards, "Confirm", user)
                                    for _ in range(5) for user in ("bob", "carol")))
    said = await answers(list(clicks))
    assert sum("Next: Collect Income" in text for text in said) == 1, said
    income = await eventually(lambda: titled(in_thread(arena, thread), "Collect Income"),
                              "Collect Income")
    after = await stored(arena, camp)
    rolled = after.rolls("Collect Income")
    assert len(rolled) == 1 and len(income) == 1  # one set of rolls, one message
    assert roll_line(rolled[0]) in income[0].embed_text()
    gained = after.gangs["Pit Kings"].credits - before.gangs["Pit Kings"].credits
    assert gained == rolled[0].total
    assert [r.label for r in after.run.stages][-2:] == ["Receive Rewards", "Collect Income"]


async def test_reward_dice_claimed_twice_at_once_are_rolled_once(arena: Arena) -> None:
    camp = "Greedy Click"
    await campaign_of_two(arena, camp, "Coin Biters", "Ash Monks")
    _, thread = await start(arena, "bob", camp, "Coin Biters", "Coin Biters", "Ash Monks")
    for g, user in (("Coin Biters", "bob"), ("Ash Monks", "carol")):
        await arena.driver.click(report_panel(arena, thread, g), "Submit", user)
    await eventually(lambda: open_stage(arena, thread), "the Wrap-up")
    await to_step(arena, thread, "Receive Rewards", ["bob", "carol"])
    before = await stored(arena, camp)
    claims = await asyncio.gather(*(
        arena.driver.slash(G, CH, "bob", "rewards claim", gang="Coin Biters", credit_dice=2,
                           campaign=camp)
        for _ in range(4)
    ))
    texts = [claim.text() for claim in claims]
    assert sum("already rolled its reward dice" in text for text in texts) == 3, texts
    after = await stored(arena, camp)
    rolled = [e for e in after.rolls("Receive Rewards")
              if e.purpose == "reward credits for Coin Biters"]
    assert len(rolled) == 1, rolled
    gained = after.gangs["Coin Biters"].credits - before.gangs["Coin Biters"].credits
    assert gained == rolled[0].total


async def test_credits_added_twice_at_once_are_added_twice(arena: Arena) -> None:
    camp = "Busy Stash"
    await campaign(arena, camp)
    await gang(arena, "bob", "Penny Rats", camp, credits=100)
    results = await asyncio.gather(*(
        arena.driver.slash(G, CH, "bob", "stash add", gang="Penny Rats", credits=10,
                           campaign=camp)
        for _ in range(10)
    ))
    assert not any(result.ephemeral for result in results), [r.text() for r in results]
    shown = await ok(arena, "bob", "stash show", gang="Penny Rats", campaign=camp)
    assert "**200** credits" in shown  # ten additions, none lost
    ledger = await ok(arena, "bob", "ledger", gang="Penny Rats", campaign=camp)
    assert ledger.count("Into the Stash: 10 credits") == 10, ledger


async def test_pay_clicked_twice_at_once_pays_once(arena: Arena) -> None:
    await bot_ready(arena)
    d = arena.driver
    await new_campaign(d, "Twice Paid")
    await new_gang_with(d, "bob", "Twice Paid", "Stitchers",
                        {"Sawbones": "Goliath Forge Tyrant", "Patch": "Goliath Forge Boss"})
    await new_gang_with(d, "carol", "Twice Paid", "Bone Pickers",
                        {"Gristle": "Goliath Forge Tyrant"})
    thread = await start_battle(arena, "Twice Paid", "Stitchers", "Bone Pickers")
    await report(d, thread, "bob", "Stitchers", [("Critical Injury suffered", ["Patch"])])
    await report(d, thread, "carol", "Bone Pickers")
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS, ["bob", "carol"])
    await eventually(lambda: _open_titled(arena, thread, "Post-battle Actions"),
                     "the Post-battle Actions step")
    before = await stored(arena, "Twice Paid")
    asks = await asyncio.gather(*(
        d.slash(G, CH, "bob", "action take", fighter="Sawbones", action="Medical Escort",
                target="Patch", campaign="Twice Paid")
        for _ in range(3)
    ))
    quoted = await stored(arena, "Twice Paid")
    costs = [e for e in quoted.events if e.purpose == "Medical Escort cost for Patch"]
    assert len(costs) == 1, [a.text() for a in asks]  # the Doc's price is rolled once
    asked = next(a for a in asks if "Medical Escort cost for Patch: 2D6x10" in a.text())
    followups = await asked.wait_followups(2)
    question = next(m for m in followups if "the Doc asks" in m.content)
    cost = number_after(r"the Doc asks \*\*(\d+)\*\* credits", question.content)
    clicks = await asyncio.gather(*(d.click(question, "Pay", "bob") for _ in range(2)))
    said = [click.text() for click in clicks]
    assert not any("Something went wrong" in text for text in said), said
    await eventually(lambda: "Bob paid" in question.content, "the decision to show")
    after = await stored(arena, "Twice Paid")
    assert after.gangs["Stitchers"].credits == before.gangs["Stitchers"].credits - cost
    assert [a.title for a in after.actions].count("Medical Escort for Patch") == 1


def _open_titled(arena: Arena, thread: Any, label: str) -> bool:
    stage = open_stage(arena, thread)
    return stage is not None and label in stage.embeds[0]["title"]


async def test_the_last_agreement_clicked_at_once_is_carried_out_once(arena: Arena) -> None:
    await bot_ready(arena)
    ensure_member(arena, "dan")  # a plain player (carol is an Arbitrator: she would agree twice)
    d = arena.driver
    await new_campaign(d, "Agreed Twice")
    await new_gang_with(d, "bob", "Agreed Twice", "Late Lamps", {"Dawdle": "Goliath Forge Tyrant"})
    await new_gang_with(d, "dan", "Agreed Twice", "Early Birds", {"Hasty": "Goliath Forge Tyrant"})
    thread = await battle_reported(arena, "Agreed Twice", "Late Lamps", "Early Birds",
                                   winner="draw")
    await confirm_until(d, thread, STEPS_BEFORE_ACTIONS, ["bob", "dan"])
    asked = await d.slash(G, CH, "bob", "roster defer", substep="B. Visit the Trading Post",
                          gang="Late Lamps", campaign="Agreed Twice")
    assert "Waiting for: Early Birds, an Arbitrator." in asked.content, asked.text()
    await d.click(asked.message, "Agree", "dan")
    await eventually(lambda: "Waiting for: an Arbitrator." in asked.content, "dan's yes")
    clicks = await asyncio.gather(*(d.click(asked.message, "Agree", "alice") for _ in range(3)))
    assert not any("Something went wrong" in c.text() for c in clicks), [c.text() for c in clicks]
    await eventually(lambda: "Agreed by all." in asked.content, "the deferral")
    after = await stored(arena, "Agreed Twice")
    deferrals = [a for a in after.actions if a.step == "Post-battle Actions"
                 and "later" in (a.title + " ".join(a.notes)).lower()]
    assert len(deferrals) == 1, [(a.title, a.notes) for a in after.actions]
    assert after.run.sequence.deferred == {
        after.gangs["Late Lamps"].id: ["B. Visit the Trading Post"]}


async def _doomed_run(arena: Arena, camp: str) -> tuple[Any, Message]:
    """A campaign of two gangs whose post-battle sequence waits at Receive Rewards."""
    await campaign_of_two(arena, camp, f"{camp} Kings", f"{camp} Saints")
    thread = await territory_battle(arena, camp, f"{camp} Kings", f"{camp} Kings",
                                    f"{camp} Saints", "Glow Wells", "D6x10")
    await eventually(lambda: open_stage(arena, thread), "the Wrap-up")
    return thread, await to_step(arena, thread, "Receive Rewards", ["bob", "carol"])


async def _told(result: InteractionResult) -> str:
    return (await answers([result]))[0]


async def _buttons_gone(arena: Arena, thread: Any) -> None:
    def unbuttoned() -> bool:
        return all(not m.buttons and not m.selects for m in in_thread(arena, thread))

    await eventually(lambda: unbuttoned() or None, "every button of the thread removed")


async def test_a_confirm_racing_the_campaigns_delete_gets_a_sentence(arena: Arena) -> None:
    camp = "Doomed Race"
    thread, rewards = await _doomed_run(arena, camp)
    asked = await arena.driver.slash(G, CH, "alice", "campaign delete", campaign=camp)
    assert asked.ephemeral, asked.content

    deleted, clicked = await asyncio.gather(
        arena.driver.click(asked, "Confirm", "alice"),
        arena.driver.click(rewards, "Confirm", "bob"))

    assert "has been deleted, with everything in it" in deleted.content
    said = await _told(clicked)
    assert "Something went wrong" not in said, said
    # The click either went first (and was taken) or finds the campaign gone.
    assert "This campaign was deleted" in said or "Confirmed" in said or not clicked.ephemeral, said
    await _buttons_gone(arena, thread)
    assert "was deleted" in rewards.embed_text()


async def test_a_confirm_landing_after_the_delete_gets_a_sentence(arena: Arena) -> None:
    camp = "Doomed Late"
    thread, rewards = await _doomed_run(arena, camp)
    # What the player's screen still shows: the step as it was, with its buttons.
    seen = copy.deepcopy(rewards)
    asked = await arena.driver.slash(G, CH, "alice", "campaign delete", campaign=camp)
    deleted = await arena.driver.click(asked, "Confirm", "alice")
    assert "has been deleted" in deleted.content
    await _buttons_gone(arena, thread)
    assert "was deleted" in rewards.embed_text() and camp in rewards.embed_text()

    late = await arena.driver.forge(seen, "Confirm", "bob")

    said = await _told(late)
    assert "This campaign was deleted (/campaign delete)" in said, said
    assert late.ephemeral or "Something went wrong" not in said
