"""/postbattle, more: a restart mid-sequence, long rosters, undoing the Wrap-up, cancelling,
and a stage command (/rewards claim) acting inside a step.

Its own module, so its own bot process (restarted here) and database. The
helpers are those of test_postbattle.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from typing import Any

from bot.battle.state import PostBattleRun
from bot.storage import Storage
from demo.arena import Arena
from fakediscord.entities import Message
from tests.e2e.helpers import ok, said
from tests.e2e.postbattle_steps import (
    CH,
    G,
    campaign,
    campaign_of_two,
    confirm,
    eventually,
    figure,
    gang,
    gang_show,
    in_thread,
    open_stage,
    pick,
    report_panel,
    run_through,
    stage_text,
    start,
    submit,
    titled,
)


async def won_with_two_down(arena: Arena, name: str, bobs: str, carols: str) -> tuple[str, Any]:
    """A battle bob's gang won with two of carol's fighters Out of Action, reports submitted."""
    camp = await campaign_of_two(arena, name, bobs, carols)
    _, thread = await start(arena, "bob", camp, bobs, bobs, carols)
    await pick(arena, thread, carols, "carol", "ooa", [f"{carols} 1", f"{carols} 2"])
    await submit(arena, thread, bobs, "bob")
    await submit(arena, thread, carols, "carol")
    return camp, thread


async def test_restart_mid_sequence_old_buttons_still_work(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Long Night", "Lamp Eaters", "Bone Choir")
    _, thread = await start(arena, "bob", camp, "Bone Choir", "Lamp Eaters", "Bone Choir")
    await submit(arena, thread, "Lamp Eaters", "bob")
    await submit(arena, thread, "Bone Choir", "carol")
    await confirm(arena, thread, "bob")
    stage = open_stage(arena, thread)
    assert stage is not None and "Wrap-up" in stage.embeds[0]["title"]

    await arena.restart_bot(kill=True)  # a crash: no clean shutdown

    status = await ok(arena, "carol", "postbattle status", gang="Bone Choir", campaign=camp)
    assert "At step 1: Wrap-up" in status and "Lamp Eaters" in status
    again = await arena.driver.click(stage, "Confirm", "bob")  # the old message, after restart
    assert again.ephemeral and "Already confirmed" in again.content
    note = await confirm(arena, thread, "carol")
    assert "Next: Assign/Reassign Territory" in note
    current = open_stage(arena, thread)
    assert current is not None and "Assign/Reassign" in current.embeds[0]["title"]
    # Only one message per stage: nothing was posted twice at start-up.
    assert len(titled(in_thread(arena, thread), "Wrap-up")) == 1
    await arena.restart_bot()
    steps = await run_through(arena, thread, ["bob", "carol"])
    assert "Report Results" in steps[-1]
    await eventually(lambda: titled(arena.driver.messages("campaign", guild=G),
                                    "Lamp Eaters vs Bone Choir"), "the report after restarts")


async def test_a_roster_longer_than_one_select_still_reports(arena: Arena) -> None:
    camp = await campaign(arena, "Crowded Hive")
    await gang(arena, "bob", "Swarm", camp, fighters=30)
    await gang(arena, "carol", "Few", camp)
    _, thread = await start(arena, "bob", camp, "Few", "Swarm", "Few")
    panel = report_panel(arena, thread, "Swarm")
    section = await arena.driver.select(panel, "Report which part?", ["ooa"], "bob")
    await section.wait_for_update()
    panel = report_panel(arena, thread, "Swarm")
    picks = [s for s in panel.selects if s["custom_id"].startswith("munda:pb:pick:")]
    assert len(picks) == 2
    assert len(picks[0]["options"]) == 25 and len(picks[1]["options"]) == 5
    second = await arena.driver.select(panel, picks[1]["custom_id"], ["Swarm 28"], "bob")
    await second.wait_for_update()
    first = await arena.driver.select(report_panel(arena, thread, "Swarm"), picks[0]["custom_id"],
                                      ["Swarm 3"], "bob")
    await first.wait_for_update()
    text = report_panel(arena, thread, "Swarm").embed_text()
    assert "Swarm 28" in text and "Swarm 3" in text
    await submit(arena, thread, "Swarm", "bob")
    await submit(arena, thread, "Few", "carol")
    wrap = stage_text(arena, thread, "Wrap-up")
    assert "Lasting Injury for Swarm 28" in wrap and "Lasting Injury for Swarm 3" in wrap


async def test_undoing_the_wrap_up_reopens_the_reports_and_rolls_it_again_in_a_new_message(
    arena: Arena,
) -> None:
    camp, thread = await won_with_two_down(arena, "No Rerolls", "Cold Iron", "Soot Kings")
    first = stage_text(arena, thread, "Wrap-up")
    rolls = re.findall(r"🎲 [^\n]+", first)
    assert rolls
    assert figure(await gang_show(arena, "Cold Iron", camp), "Battles fought") == 1

    stage = open_stage(arena, thread)
    assert stage is not None
    question = await arena.driver.click(stage, "Undo", "alice")
    done = await arena.driver.click(question, "Yes, undo", "alice")
    await done.wait_for_update()
    assert "reports are open again" in (done.message.content if done.message else "")
    assert figure(await gang_show(arena, "Cold Iron", camp), "Battles fought") == 0
    assert "(undone)" in titled(in_thread(arena, thread), "Wrap-up")[-1].embeds[0]["title"]
    panel = report_panel(arena, thread, "Soot Kings")
    assert any(b.get("label") == "Submit" for b in panel.buttons)

    await submit(arena, thread, "Cold Iron", "bob")
    await submit(arena, thread, "Soot Kings", "carol")
    # Rolled again with fresh dice (test_postbattle_redo proves they are not the old
    # ones), in a new message; the undone one keeps what it showed.
    undone, redone = titled(in_thread(arena, thread), "Wrap-up")
    assert re.findall(r"🎲 [^\n]+", undone.embed_text()) == rolls
    assert re.findall(r"🎲 [^\n]+", redone.embed_text())
    assert open_stage(arena, thread) is redone


async def test_cancel_stops_the_sequence_and_frees_the_gangs(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Called Off", "Grey Lice", "Red Lamps")
    _, thread = await start(arena, "bob", camp, "Grey Lice", "Grey Lice", "Red Lamps")
    refused = await arena.driver.slash(G, CH, "bob", "postbattle start", winner="Red Lamps",
                                       gang1="Grey Lice", gang2="Red Lamps", campaign=camp)
    assert refused.ephemeral and "already in a post-battle sequence" in refused.content
    refused = await arena.driver.slash(G, CH, "bob", "postbattle cancel", gang="Grey Lice",
                                       campaign=camp)
    assert refused.ephemeral and "Only an Arbitrator" in refused.content
    cancelled = await arena.driver.slash(G, CH, "alice", "postbattle cancel", gang="Grey Lice",
                                         campaign=camp)
    assert "Cancelled" in cancelled.content
    panel = report_panel(arena, thread, "Grey Lice")
    assert not panel.buttons and "cancelled" in panel.embed_text()
    await start(arena, "carol", camp, "Red Lamps", "Grey Lice", "Red Lamps")


async def test_rewards_claimed_inside_the_step_show_in_the_thread(arena: Arena) -> None:
    camp = await campaign(arena, "Loot Run")
    await gang(arena, "bob", "Magpies", camp, credits=50)
    await gang(arena, "carol", "Rat Kings", camp)
    _, thread = await start(arena, "bob", camp, "Magpies", "Magpies", "Rat Kings")
    await submit(arena, thread, "Magpies", "bob")
    await submit(arena, thread, "Rat Kings", "carol")
    early = await arena.driver.slash(G, CH, "bob", "rewards claim", gang="Magpies",
                                     credit_dice=2, campaign=camp)
    assert early.ephemeral and "Receive Rewards" in early.content
    for _ in range(2):  # Wrap-up, Territory
        await confirm(arena, thread, "bob")
        await confirm(arena, thread, "carol")
    stage = open_stage(arena, thread)
    assert stage is not None and "Receive Rewards" in stage.embeds[0]["title"]
    claim = await arena.driver.slash(G, CH, "bob", "rewards claim", gang="Magpies",
                                     credit_dice=2, campaign=camp)
    assert "reward credits for Magpies" in "\n".join(
        f"{m.content} {m.embed_text()}" for m in claim.messages)
    shown = await eventually(
        lambda: "reward credits for Magpies" in stage_text(arena, thread, "Receive Rewards"),
        "the reward roll on the stage message")
    assert shown
    rolled = re.search(r"reward credits for Magpies: 2D6x10 → \[\d, \d\] = \*\*(\d+)\*\*",
                       stage_text(arena, thread, "Receive Rewards"))
    assert rolled
    credits = figure(await gang_show(arena, "Magpies", camp), "Credits")
    assert credits == 50 + int(rolled.group(1))
    await confirm(arena, thread, "bob")
    after = await arena.driver.slash(G, CH, "bob", "rewards claim", gang="Magpies",
                                     flat_credits=10, campaign=camp)
    assert after.ephemeral and "already confirmed" in after.content


async def test_start_from_a_battle_recorded_by_prebattle(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Planned Fight", "Oil Drinkers", "Lantern Men")
    await ok(arena, "bob", "prebattle", gang1="Oil Drinkers", gang2="Lantern Men", campaign=camp)
    choices = await arena.driver.autocomplete(G, CH, "bob", "postbattle start", focused="battle",
                                              winner="draw", campaign=camp, battle="")
    assert len(choices) == 1 and "Oil Drinkers vs Lantern Men" in choices[0].name
    winners = await arena.driver.autocomplete(G, CH, "bob", "postbattle start", focused="winner",
                                              winner="", battle=choices[0].value, campaign=camp)
    assert {c.name for c in winners} == {"draw", "Lantern Men", "Oil Drinkers"}
    started = await arena.driver.slash(G, CH, "bob", "postbattle start", winner="Lantern Men",
                                       battle=choices[0].value, campaign=camp)
    assert not started.ephemeral and "Won by Lantern Men" in said(started)
    for name in ("Oil Drinkers", "Lantern Men"):
        await eventually(lambda name=name: [
            m for t in arena.driver.threads(CH, guild=G) if "Oil Drinkers vs Lantern Men" in t.name
            for m in in_thread(arena, t) if titled([m], f"End of battle: {name}")],
            f"the report panel of {name}")
    again = await arena.driver.autocomplete(G, CH, "bob", "postbattle start", focused="battle",
                                            winner="draw", campaign=camp, battle="")
    assert again == []


async def test_a_step_stored_but_never_posted_is_posted_at_start_up_without_rolling(
    arena: Arena,
) -> None:
    camp, thread = await won_with_two_down(arena, "Lost Post", "Wick Men", "Ash Lungs")
    shown = stage_text(arena, thread, "Wrap-up")
    await arena.stop_bot(kill=True)
    # As if the bot had died after the commit and before posting: no message id stored.
    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        found = await storage.read(guild).get_campaign_by_name(camp)
        runs = [r for r in await storage.read(guild).list_sequences(found.id)
                if r.key.startswith("postbattle:")]
        run = await storage.read(guild).load_sequence(found.id, runs[0].key, PostBattleRun)
        assert run is not None and run.current is not None
        run.current.message_ids = []
        await storage.write(guild).save_sequence(found.id, run.key, run, battle_id=run.battle_id)
        actions = len(await storage.read(guild).list_actions(found.id, battle_id=run.battle_id))
    finally:
        await storage.close()
    # ... and nothing owed for it in the outbox (a database from before the outbox).
    with contextlib.closing(sqlite3.connect(arena.database_path)) as conn, conn:
        conn.execute("DELETE FROM outbox WHERE key LIKE ?", (f"pb:{run.sequence.id}:stage:%",))
    await arena.start_bot()
    def reposted() -> list[Message]:
        posted = titled(in_thread(arena, thread), "Wrap-up")
        return posted if len(posted) == 2 else []

    wraps = await eventually(reposted, "the Wrap-up posted again")
    assert wraps[-1].embed_text() == shown  # the stored rolls, not new ones
    assert open_stage(arena, thread) is wraps[-1]
    storage = await Storage.open(arena.database_path)
    try:
        assert len(await storage.read(guild).list_actions(
            found.id, battle_id=run.battle_id)) == actions
    finally:
        await storage.close()
    note = await confirm(arena, thread, "bob")
    assert "Confirmed Wrap-up" in note
