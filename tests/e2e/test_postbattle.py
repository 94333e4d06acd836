"""/postbattle through the real bot process: reports, seven steps, confirmations, the report.

Alice (server owner) starts every campaign, so she is its Arbitrator; Carol
has an Administrator role, so she is one too; Bob is a plain player. Each
test plays its own campaign, since the module shares one bot and database.
"""

from __future__ import annotations

import asyncio
import re

from demo.arena import Arena
from tests.e2e.helpers import ok, said
from tests.e2e.postbattle_steps import (
    CH,
    STEPS,
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
    reports_in,
    run_through,
    stage_text,
    start,
    submit,
    territory_battle,
    titled,
)


async def test_two_gang_campaign_battle_all_seven_steps_and_report(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Ash Wastes", "Iron Fangs", "Sump Rats")
    await ok(arena, "alice", "campaign territory add", name="Old Ruins", income="D6x10",
             campaign=camp)
    result, thread = await start(arena, "bob", camp, "Iron Fangs", "Iron Fangs", "Sump Rats",
                                 territory="Old Ruins", scenario="Border Dispute")
    assert "Won by Iron Fangs" in said(result)

    await pick(arena, thread, "Sump Rats", "carol", "ooa", ["Sump Rats 3"])
    await pick(arena, thread, "Iron Fangs", "bob", "enemies", ["1"])
    panel = report_panel(arena, thread, "Sump Rats").embed_text()
    assert "Sump Rats 3" in panel
    assert "Waiting for: Sump Rats" in await submit(arena, thread, "Iron Fangs", "bob")
    assert "Wrap-up" in await submit(arena, thread, "Sump Rats", "carol")

    wrap = stage_text(arena, thread, "Wrap-up")
    assert "Lasting Injury for Sump Rats 3" in wrap
    for label in STEPS:
        current = open_stage(arena, thread)
        assert current is not None and label in current.embeds[0]["title"], (
            label, current and current.embeds[0]["title"])
        assert "Sump Rats" in current.embed_text()  # awaited
        assert "Confirmed" in await confirm(arena, thread, "bob")
        assert "Already confirmed" in await confirm(arena, thread, "bob")
        await confirm(arena, thread, "carol")
    assert open_stage(arena, thread) is None

    report = (await eventually(
        lambda: titled(arena.driver.messages("campaign", guild=G), "Battle report"),
        "the battle report"))[-1]
    text = report.embed_text()
    assert "Won by Iron Fangs" in text and "Territory won: Old Ruins" in text
    assert "Enemies Out of Action: 1" in text
    # What the battle did to each gang, in words the whole campaign reads.
    fields = {f["name"]: f["value"] for f in report.embeds[0]["fields"]}
    assert "Out of Action: Sump Rats 3 (" in fields["Sump Rats"], fields
    assert "from income" in fields["Iron Fangs"] and "Territory won: Old Ruins" in fields[
        "Iron Fangs"]
    assert "Territory won: Old Ruins" not in fields["Sump Rats"]
    assert "PB-7" not in text
    for name in ("Iron Fangs", "Sump Rats"):
        shown = await gang_show(arena, name, camp)
        field = report.embeds[0]["fields"]
        value = next(f["value"] for f in field if name in f["name"])
        assert figure(value, "Gang Rating") == figure(shown, "Gang Rating")
        assert figure(value, "Wealth") == figure(shown, "Wealth")
        assert figure(shown, "Battles fought") == 1
    assert "discord.com/channels/" in text or "thread" in text.lower()


async def test_three_gang_battle_names_captors_and_reports_every_gang(arena: Arena) -> None:
    camp = await campaign(arena, "Three Domes")
    await gang(arena, "alice", "Glass Eyes", camp)
    await gang(arena, "bob", "Hook Hands", camp)
    await gang(arena, "carol", "Rust Saints", camp)
    _, thread = await start(arena, "alice", camp, "Hook Hands",
                            "Glass Eyes", "Hook Hands", "Rust Saints")
    await pick(arena, thread, "Rust Saints", "carol", "ooa", ["Rust Saints 2", "Rust Saints 3"])
    refusal = await submit(arena, thread, "Rust Saints", "carol")
    assert "which enemy took each fighter" in refusal and "Rust Saints 2" in refusal
    await pick(arena, thread, "Rust Saints", "carol", "Taken Out of Action by Hook Hands",
               ["Rust Saints 2"])
    await pick(arena, thread, "Rust Saints", "carol", "Taken Out of Action by Glass Eyes",
               ["Rust Saints 3"])
    panel = report_panel(arena, thread, "Rust Saints").embed_text()
    assert "Rust Saints 2, by Hook Hands" in panel and "Rust Saints 3, by Glass Eyes" in panel
    await pick(arena, thread, "Hook Hands", "bob", "enemies", ["1"])
    await pick(arena, thread, "Glass Eyes", "alice", "enemies", ["1"])
    for name, player in (("Rust Saints", "carol"), ("Hook Hands", "bob"),
                         ("Glass Eyes", "alice")):
        await submit(arena, thread, name, player)
    wrap = stage_text(arena, thread, "Wrap-up")
    assert "Lasting Injury for Rust Saints 2" in wrap and "Lasting Injury for Rust Saints 3" in wrap
    steps = await run_through(arena, thread, ["alice", "bob", "carol"])
    assert len(steps) == len(STEPS)
    report = (await eventually(lambda: titled(arena.driver.messages("campaign", guild=G),
                                              "Glass Eyes vs Hook Hands vs Rust Saints"),
                               "the three-gang report"))[-1]
    text = report.embed_text()
    assert "Won by Hook Hands" in text and "Territory won: none" in text
    assert text.count("Enemies Out of Action: 1") == 2


async def test_draw_over_a_controlled_territory_leaves_it_with_its_controller(
    arena: Arena,
) -> None:
    camp = await campaign_of_two(arena, "Dust Flats", "Cinder Kin", "Pale Host")
    thread = await territory_battle(arena, camp, "draw", "Cinder Kin", "Pale Host", "Slag Pit",
                                    "10", held_by="Pale Host")
    await run_through(arena, thread, ["bob", "carol"])
    assert "draw: Slag Pit stays with Pale Host" in stage_text(arena, thread, "Assign/Reassign")
    assert "Pale Host collects 10 credits" in stage_text(arena, thread, "Collect Income")
    report = (await eventually(lambda: titled(arena.driver.messages("campaign", guild=G),
                                              "Cinder Kin vs Pale Host"), "the report"))[-1]
    assert "Draw" in report.embed_text() and "Territory won: none" in report.embed_text()
    listing = await ok(arena, "alice", "campaign territory list", campaign=camp)
    assert re.search(r"Slag Pit.*Pale Host", listing, re.S)


async def test_a_third_user_is_refused_and_nothing_changes(arena: Arena) -> None:
    camp = await campaign(arena, "Closed Doors")
    await gang(arena, "alice", "Gilt Jaws", camp)
    await gang(arena, "carol", "Veil Born", camp)
    _, thread = await start(arena, "alice", camp, "Gilt Jaws", "Gilt Jaws", "Veil Born")
    panel = report_panel(arena, thread, "Veil Born")
    refused = await arena.driver.select(panel, "Report which part?", ["ooa"], "bob")
    assert refused.ephemeral and "Only Veil Born's player or an Arbitrator" in refused.content
    refused = await arena.driver.click(panel, "Submit", "bob")
    assert refused.ephemeral and "Submitted" not in report_panel(arena, thread, "Veil Born")\
        .embed_text()
    await submit(arena, thread, "Gilt Jaws", "alice")
    await submit(arena, thread, "Veil Born", "carol")
    stage = open_stage(arena, thread)
    assert stage is not None
    before = (stage.embed_text(), stage.edits)
    refused = await arena.driver.click(stage, "Confirm", "bob")
    assert refused.ephemeral
    assert "Only the players of this battle and the Arbitrators" in refused.content
    refused = await arena.driver.click(stage, "Undo", "bob")
    assert refused.ephemeral and "Only an Arbitrator" in refused.content
    refused = await arena.driver.select(stage, "Arbitrator: confirm on a player's behalf",
                                        ["Veil Born"], "bob")
    assert refused.ephemeral
    stage = open_stage(arena, thread)
    assert stage is not None and (stage.embed_text(), stage.edits) == before
    assert "Wrap-up" in stage.embeds[0]["title"]
    status = await ok(arena, "bob", "postbattle status", gang="Veil Born", campaign=camp)
    assert "At step 1: Wrap-up" in status and "Gilt Jaws" in status


async def test_arbitrator_confirms_for_a_player_then_undoes_a_step(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Second Chances", "Ember Dogs", "Null Choir")
    await ok(arena, "alice", "campaign territory add", name="Sink Hole", income="D6x10",
             campaign=camp)
    _, thread = await start(arena, "bob", camp, "Ember Dogs", "Ember Dogs", "Null Choir",
                            territory="Sink Hole")
    await submit(arena, thread, "Ember Dogs", "bob")
    await submit(arena, thread, "Null Choir", "carol")
    await confirm(arena, thread, "bob")
    stage = open_stage(arena, thread)
    assert stage is not None
    behalf = await arena.driver.select(stage, "Arbitrator: confirm on a player's behalf",
                                       ["Null Choir"], "alice")
    await behalf.wait_followups(1)
    wrap = stage_text(arena, thread, "Wrap-up")
    assert "on the player's behalf" in wrap
    territory = open_stage(arena, thread)
    assert territory is not None and "Assign/Reassign" in territory.embeds[0]["title"]
    assert "Ember Dogs won and takes control of Sink Hole" in territory.embed_text()
    listing = await ok(arena, "alice", "campaign territory list", campaign=camp)
    assert re.search(r"Sink Hole.*Ember Dogs", listing, re.S)

    question = await arena.driver.click(territory, "Undo", "alice")
    assert question.ephemeral and "Undo **Assign/Reassign Territory**" in question.content
    done = await arena.driver.click(question, "Yes, undo", "alice")
    await done.wait_for_update()
    undone = titled(in_thread(arena, thread), "Assign/Reassign Territory")[-1]
    assert "(undone)" in undone.embeds[0]["title"] and "Undone by" in undone.embed_text()
    assert not undone.buttons
    reopened = open_stage(arena, thread)
    assert reopened is not None and "Wrap-up" in reopened.embeds[0]["title"]
    assert "Reopened by an undo" in reopened.embed_text()
    listing = await ok(arena, "alice", "campaign territory list", campaign=camp)
    assert not re.search(r"Sink Hole[^\n]*Ember Dogs", listing)
    ledger = await ok(arena, "alice", "ledger", campaign=camp)
    assert "Undo" in ledger or "undid" in ledger.lower()

    # Confirming again opens the Territory step anew, with the same outcome.
    await confirm(arena, thread, "bob")
    await confirm(arena, thread, "carol")
    again = open_stage(arena, thread)
    assert again is not None and "Assign/Reassign" in again.embeds[0]["title"]
    assert again.id != territory.id
    listing = await ok(arena, "alice", "campaign territory list", campaign=camp)
    assert re.search(r"Sink Hole.*Ember Dogs", listing, re.S)


async def test_skirmish_skips_the_campaign_only_parts_and_posts_no_report(
    arena: Arena,
) -> None:
    camp = await campaign_of_two(arena, "Side Show", "Tin Crowns", "Wire Wolves")
    await ok(arena, "carol", "fighter status", fighter="Wire Wolves 3", status="In Recovery",
             campaign=camp)
    before = len(await reports_in(arena, "campaign")) + len(await reports_in(arena, CH))
    _, thread = await start(arena, "bob", camp, "Tin Crowns", "Tin Crowns", "Wire Wolves",
                            skirmish=True)
    panel = report_panel(arena, thread, "Wire Wolves")
    ooa = await arena.driver.select(panel, "Report which part?", ["ooa"], "carol")
    await ooa.wait_for_update()
    options = [o["label"] for s in report_panel(arena, thread, "Wire Wolves").selects
               for o in s.get("options", [])]
    assert "Wire Wolves 3" not in options  # In Recovery: could not fight
    await submit(arena, thread, "Tin Crowns", "bob")
    await submit(arena, thread, "Wire Wolves", "carol")
    steps = await run_through(arena, thread, ["bob", "carol"])
    joined = " | ".join(steps)
    assert "Post-battle Actions" not in joined and "Advancements" not in joined
    assert "Report Results" not in joined and "F. Update Gang Rating" in steps[-1]
    assert len(steps) == len(STEPS) - 3
    await asyncio.sleep(0.3)
    after = len(await reports_in(arena, "campaign")) + len(await reports_in(arena, CH))
    assert after == before
    shown = await gang_show(arena, "Wire Wolves", camp)
    assert "In Recovery" in shown  # a skirmish does not clear the box

