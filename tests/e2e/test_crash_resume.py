"""kill -9 at each point of a post-battle step, restart, and the sequence goes on as stored.

The bot is restarted with ``MUNDA_FAILPOINTS`` naming one failpoint
(bot/failpoints.py); the next click reaches it right after a commit and the
process SIGKILLs itself there. The database is then read as the crash left
it, the bot is started again without the failpoint, and the test checks:

- what was stored before the crash is shown after it: the same rolls, with
  the faces the ledger holds, and no new roll (the ledger is unchanged);
- no change is applied twice or lost (credits, battles fought, statuses);
- the messages posted before the crash keep working buttons.

Its own module: one bot process (restarted many times) and database.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from dataclasses import dataclass
from typing import Any

from bot import failpoints
from bot.battle.state import PostBattleRun
from bot.storage import ActionRecord, LedgerEvent, OutboxEntry, Storage
from demo.arena import Arena, BotExited
from fakediscord.entities import Message
from rules.models import Gang
from tests.e2e.postbattle_steps import (
    CH,
    STEPS,
    G,
    campaign_of_two,
    confirm,
    eventually,
    in_thread,
    open_stage,
    pick,
    report_panel,
    start,
    submit,
    territory_battle,
    thread_of,
    titled,
)

READY_LINE = "post-battle sequences checked at start-up"


# --------------------------------------------------------------------------- helpers


@dataclass
class Stored:
    """The database as one battle's run left it."""

    run: PostBattleRun
    events: list[LedgerEvent]
    actions: list[ActionRecord]  # newest first
    gangs: dict[str, Gang]
    owed: list[OutboxEntry]

    def rolls(self, step: str) -> list[LedgerEvent]:
        return [e for e in self.events if e.kind == "roll" and e.step == step]

    def pending(self) -> list[str]:
        return [e.key for e in self.owed if e.pending]


async def stored(arena: Arena, camp: str) -> Stored:
    """Read the campaign's only run straight from the file (WAL: safe beside a live bot)."""
    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        found = await storage.read(guild).get_campaign_by_name(camp)
        keys = [r.key for r in await storage.read(guild).list_sequences(found.id)
                if r.key.startswith("postbattle:")]
        assert len(keys) == 1, keys
        run = await storage.read(guild).load_sequence(found.id, keys[0], PostBattleRun)
        assert run is not None
        events = await storage.read(guild).battle_events(found.id, run.battle_id)
        actions = await storage.read(guild).list_actions(found.id, battle_id=run.battle_id,
                                             limit=1000)
        gangs = {g.name: g for g in await storage.read(guild).list_gangs(found.id)}
        owed = await storage.read(guild).outbox_entries(f"pb:{run.sequence.id}:")
    finally:
        await storage.close()
    return Stored(run, events, actions, gangs, owed)


def starts(arena: Arena) -> int:
    return arena.log_path.read_text(errors="replace").count(READY_LINE)


async def restart(arena: Arena, *, failpoint: str | None = None) -> None:
    """(Re)start the bot and wait until it has resumed the runs in progress."""
    before = starts(arena)
    env = {failpoints.ENV_VAR: failpoint} if failpoint else None
    if arena.process is not None:
        await arena.stop_bot()
    await arena.start_bot(env)
    await eventually(lambda: starts(arena) > before, "the bot to resume its runs", timeout=30.0)


async def killed_at(arena: Arena, point: str) -> None:
    """The bot died by SIGKILL at ``point`` (and not anywhere else)."""
    process = arena.process
    assert process is not None
    code = await asyncio.wait_for(process.wait(), 20.0)
    assert code == -signal.SIGKILL, f"exit {code}\n{arena.log_tail()}"
    assert f"failpoint {point}: killing the process" in arena.log_tail(5)
    arena.process = None


def shown(message: Message) -> str:
    return f"{message.content}\n{message.embed_text()}"


def roll_line(event: LedgerEvent) -> str:
    """The line a stored roll is shown with (bot.render.dice_line)."""
    faces = ", ".join(str(face) for face in event.faces or [])
    return f"{event.purpose}: {event.expression} → [{faces}] = **{event.total}**"


async def to_step(arena: Arena, thread: Any, label: str, players: list[str]) -> Message:
    """Confirm steps until ``label`` is open; its message."""
    for _ in STEPS:
        stage = open_stage(arena, thread)
        assert stage is not None
        if label in stage.embeds[0]["title"]:
            return stage
        for player in players:
            await confirm(arena, thread, player)
    raise AssertionError(f"never reached {label}")


async def battle(arena: Arena, camp: str, first: str, second: str,
                 **options: Any) -> Any:
    await campaign_of_two(arena, camp, first, second)
    _, thread = await start(arena, "bob", camp, first, first, second, **options)
    return thread


async def killed_at_the_final_confirm(
    arena: Arena, camp: str, first: str, second: str
) -> tuple[Any, Message]:
    """Play a battle to Report Results, bob confirms, and carol's Confirm kills the bot
    right after the run is stored as finished (the report owed); the thread and the step."""
    thread = await battle(arena, camp, first, second)
    await submit(arena, thread, first, "bob")
    await submit(arena, thread, second, "carol")
    last = await to_step(arena, thread, "Report Results", ["bob", "carol"])
    assert "Confirmed" in await confirm(arena, thread, "bob")
    await restart(arena, failpoint=failpoints.AFTER_REPORT_QUEUED)
    await arena.driver.click(last, "Confirm", "carol")
    await killed_at(arena, failpoints.AFTER_REPORT_QUEUED)
    return thread, last


# --------------------------------------------------------------------------- tests


async def test_killed_after_the_wrap_up_is_stored_shows_its_stored_rolls(arena: Arena) -> None:
    camp = "Crash Wrap"
    thread = await battle(arena, camp, "Soot Eaters", "Rust Moths")
    await pick(arena, thread, "Rust Moths", "carol", "ooa", ["Rust Moths 2", "Rust Moths 3"])
    await submit(arena, thread, "Soot Eaters", "bob")
    await restart(arena, failpoint=failpoints.AFTER_STAGE_STORED)
    panel = report_panel(arena, thread, "Rust Moths")
    await arena.driver.click(panel, "Submit", "carol")  # the last report: the Wrap-up rolls
    await killed_at(arena, failpoints.AFTER_STAGE_STORED)

    crashed = await stored(arena, camp)
    assert crashed.run.current is not None and crashed.run.current.label == "Wrap-up"
    assert crashed.run.current.message_ids == []  # stored, never shown
    assert crashed.pending() == [f"pb:{crashed.run.sequence.id}:stage:1:0"]
    rolls = crashed.rolls("Wrap-up")
    assert len(rolls) >= 2  # a Lasting Injury for each fighter Out of Action
    assert {g.battles_fought for g in crashed.gangs.values()} == {1}
    assert not titled(in_thread(arena, thread), "Wrap-up")

    await restart(arena)
    wrap = await eventually(lambda: titled(in_thread(arena, thread), "Wrap-up"),
                            "the Wrap-up posted after the restart")
    assert len(wrap) == 1
    for event in rolls:
        assert roll_line(event) in shown(wrap[0]), roll_line(event)
    after = await stored(arena, camp)
    assert after.events == crashed.events  # nothing rolled or changed again
    assert {g.battles_fought for g in after.gangs.values()} == {1}
    assert [f.status for f in after.gangs["Rust Moths"].fighters] == [
        f.status for f in crashed.gangs["Rust Moths"].fighters]
    assert after.run.current is not None and after.run.current.message_ids == [wrap[0].id]
    assert after.pending() == []
    # Carol's report was stored before the crash, and the panels say so now.
    await eventually(lambda: "Submitted by" in report_panel(arena, thread, "Rust Moths")
                     .embed_text() and not report_panel(arena, thread, "Rust Moths").buttons,
                     "the report panel redrawn as stored")
    assert "Confirmed Wrap-up" in await confirm(arena, thread, "bob")
    assert "Next: Assign/Reassign Territory" in await confirm(arena, thread, "carol")


async def test_killed_after_a_confirmation_is_stored_posts_the_next_step_as_rolled(
    arena: Arena,
) -> None:
    camp = "Crash Income"
    await campaign_of_two(arena, camp, "Ember Dogs", "Grey Fangs")
    thread = await territory_battle(arena, camp, "Ember Dogs", "Ember Dogs", "Grey Fangs",
                                    "Sump Vents", "D6x10")
    rewards = await to_step(arena, thread, "Receive Rewards", ["bob", "carol"])
    assert "Confirmed" in await confirm(arena, thread, "bob")
    before = await stored(arena, camp)
    await restart(arena, failpoint=failpoints.AFTER_CONFIRM_STORED)
    await arena.driver.click(rewards, "Confirm", "carol")  # opens Collect Income: it rolls
    await killed_at(arena, failpoints.AFTER_CONFIRM_STORED)

    crashed = await stored(arena, camp)
    income = crashed.rolls("Collect Income")
    assert len(income) == 1 and income[0].total is not None
    gained = crashed.gangs["Ember Dogs"].credits - before.gangs["Ember Dogs"].credits
    assert gained == income[0].total
    assert crashed.run.current is not None and crashed.run.current.label == "Collect Income"
    assert crashed.run.current.message_ids == []
    assert not titled(in_thread(arena, thread), "Collect Income")

    await restart(arena)
    step = await eventually(lambda: titled(in_thread(arena, thread), "Collect Income"),
                            "Collect Income posted after the restart")
    assert len(step) == 1 and roll_line(income[0]) in shown(step[0])
    after = await stored(arena, camp)
    assert after.events == crashed.events
    assert after.gangs["Ember Dogs"].credits == crashed.gangs["Ember Dogs"].credits
    # The step before was confirmed by both: its message is redrawn closed.
    await eventually(lambda: not titled(in_thread(arena, thread), "Receive Rewards")[-1]
                     .buttons, "Receive Rewards redrawn without its buttons")
    carol = arena.fake.user("carol").id
    assert f"✅ Grey Fangs: <@{carol}>" in titled(in_thread(arena, thread),
                                                 "Receive Rewards")[-1].embed_text()
    assert "Confirmed Collect Income" in await confirm(arena, thread, "bob")
    assert "Next: Post-battle Actions" in await confirm(arena, thread, "carol")


async def test_killed_after_an_action_is_stored_posts_its_lines_and_keeps_the_old_buttons(
    arena: Arena,
) -> None:
    camp = "Crash Rewards"
    thread = await battle(arena, camp, "Lamp Thieves", "Coil Saints")
    await submit(arena, thread, "Lamp Thieves", "bob")
    await submit(arena, thread, "Coil Saints", "carol")
    rewards = await to_step(arena, thread, "Receive Rewards", ["bob", "carol"])
    before = await stored(arena, camp)
    await restart(arena, failpoint=failpoints.AFTER_ACTION_STORED)
    await arena.driver.slash(G, CH, "bob", "rewards claim", gang="Lamp Thieves",
                             credit_dice=2, campaign=camp, wait_deferred=False)
    await killed_at(arena, failpoints.AFTER_ACTION_STORED)

    crashed = await stored(arena, camp)
    rolled = crashed.rolls("Receive Rewards")
    assert len(rolled) == 1 and rolled[0].purpose == "reward credits for Lamp Thieves"
    gained = crashed.gangs["Lamp Thieves"].credits - before.gangs["Lamp Thieves"].credits
    assert gained == rolled[0].total
    assert [k.split(":")[2] for k in crashed.pending()] == ["notice"]
    assert roll_line(rolled[0]) not in "\n".join(shown(m) for m in in_thread(arena, thread))

    await restart(arena)
    notice = await eventually(
        lambda: [m for m in in_thread(arena, thread) if roll_line(rolled[0]) in m.content],
        "the action's lines posted after the restart")
    assert len(notice) == 1
    # The step's own message, posted before the crash, is redrawn with the roll.
    await eventually(lambda: roll_line(rolled[0]) in rewards.embed_text(),
                     "the stage message redrawn with the stored roll")
    after = await stored(arena, camp)
    assert after.events == crashed.events
    assert after.gangs["Lamp Thieves"].credits == crashed.gangs["Lamp Thieves"].credits
    again = await arena.driver.slash(G, CH, "bob", "rewards claim", gang="Lamp Thieves",
                                     credit_dice=2, campaign=camp)
    assert again.ephemeral and "already rolled its reward dice" in again.content
    # The buttons of the message posted before the crash still work.
    assert open_stage(arena, thread) is rewards
    confirmed = await arena.driver.click(rewards, "Confirm", "bob")
    assert "Confirmed Receive Rewards" in (await confirmed.wait_followups(1))[-1].content
    confirmed = await arena.driver.click(rewards, "Confirm", "carol")
    assert "Next: Collect Income" in (await confirmed.wait_followups(1))[-1].content


async def test_killed_with_the_report_owed_and_again_before_its_id_is_kept_posts_it_once(
    arena: Arena,
) -> None:
    camp = "Crash Report"
    await killed_at_the_final_confirm(arena, camp, "Brass Hounds", "Mire Kin")

    def reports() -> list[Message]:
        return [m for m in titled(arena.driver.messages("campaign", guild=G), "Battle report")
                if "Brass Hounds vs Mire Kin" in m.embeds[0]["title"]]

    crashed = await stored(arena, camp)
    assert crashed.run.phase == "finished" and crashed.run.report_message_id is None
    report_key = f"pb:{crashed.run.sequence.id}:report"
    assert crashed.pending() == [report_key]
    assert reports() == []

    # Started again, the bot sends the report, and dies before it records that it did
    # (maybe before it has even connected to the gateway: the outbox starts first).
    with contextlib.suppress(BotExited):
        await arena.start_bot({failpoints.ENV_VAR: failpoints.AFTER_OUTBOX_SENT})
    await killed_at(arena, failpoints.AFTER_OUTBOX_SENT)
    assert len(reports()) == 1
    assert (await stored(arena, camp)).pending() == [report_key]

    await restart(arena)  # sends it again with the same nonce: Discord keeps the one it has
    done = await _delivered(arena, camp, report_key)
    posted = reports()
    assert [m.id for m in posted] == [done.message_id]
    after = await stored(arena, camp)
    assert after.run.report_message_id == posted[0].id
    assert after.events == crashed.events


async def _delivered(arena: Arena, camp: str, key: str) -> OutboxEntry:
    for _ in range(600):
        entry = next(e for e in (await stored(arena, camp)).owed if e.key == key)
        if not entry.pending:
            return entry
        await asyncio.sleep(0.05)
    raise AssertionError(f"{key} never delivered\n{arena.log_tail()}")


async def test_killed_at_the_final_confirm_redraws_the_last_step_as_finished(
    arena: Arena,
) -> None:
    camp = "Crash Final"
    thread, last = await killed_at_the_final_confirm(arena, camp, "Tar Wardens", "Glass Jaws")
    crashed = await stored(arena, camp)
    assert crashed.run.phase == "finished"
    assert any(b.get("label") == "Confirm" for b in last.buttons)  # stale: the run is over

    await restart(arena)
    carol = arena.fake.user("carol").id
    await eventually(lambda: not last.buttons and f"✅ Glass Jaws: <@{carol}>"
                     in last.embed_text(), "Report Results redrawn as finished, no buttons")
    assert open_stage(arena, thread) is None
    after = await stored(arena, camp)
    assert after.events == crashed.events


async def test_killed_after_a_downtime_confirm_posts_the_next_step_once(arena: Arena) -> None:
    """A Downtime step confirmed, the next one stored and owed, the bot killed before it is
    posted: after the restart the outbox posts it once, from what was stored."""
    camp = "Crash Downtime"
    await campaign_of_two(arena, camp, "Resting Soot", "Resting Moths")
    opened = await arena.driver.slash(G, CH, "alice", "campaign downtime open", campaign=camp)
    assert not opened.ephemeral, opened.text()
    thread = await thread_of(arena, "Downtime: Resting Soot")

    def step(label: str) -> list[Message]:
        return [m for m in in_thread(arena, thread)
                if any(label in str(e.get("title", "")) for e in m.embeds)]

    first = (await eventually(lambda: step("A. Fighters Recover"), "step A"))[0]
    await restart(arena, failpoint=failpoints.AFTER_CONFIRM_STORED)
    await arena.driver.click(first, "Confirm", "bob")
    await killed_at(arena, failpoints.AFTER_CONFIRM_STORED)
    assert not step("B. Captives are Returned")

    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        found = await storage.read(guild).get_campaign_by_name(camp)
        owed = [e.key for e in await storage.read(guild).outbox_entries("dt:") if e.pending]
        actions = await storage.read(guild).list_actions(found.id, limit=100)
    finally:
        await storage.close()
    assert len(owed) == 1 and owed[0].endswith(":stage:2:1"), owed

    await restart(arena)
    second = await eventually(lambda: step("B. Captives are Returned"),
                              "step B posted after the restart")
    await asyncio.sleep(0.5)
    assert len(step("B. Captives are Returned")) == 1
    storage = await Storage.open(arena.database_path)
    try:
        assert await storage.read(guild).list_actions(found.id, limit=100) == actions
    finally:
        await storage.close()
    # Its buttons work: bob confirms it and C opens.
    await arena.driver.click(second[0], "Confirm", "bob")
    await eventually(lambda: step("C. Experienced Juves"), "step C")
