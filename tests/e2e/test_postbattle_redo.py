"""/postbattle: an undone step is redone with fresh dice, and the secret seeds never show.

Its own module, so its own bot process, run at the DEBUG log level (the most a
log ever says), with every version of every message the fake Discord stores
kept as it was sent or edited. The helpers are those of test_postbattle.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.battle.state import PostBattleRun
from bot.storage import Storage
from demo.arena import Arena, open_arena
from fakediscord.entities import Message
from rules.dice import SeededRoller
from rules.sequence import STAGES, Step
from tests.e2e.helpers import ok
from tests.e2e.postbattle_steps import (
    CH,
    G,
    campaign_of_two,
    confirm,
    eventually,
    in_thread,
    open_stage,
    pick,
    start,
    submit,
    titled,
)
from tests.e2e.test_crash_resume import stored

WRAP_UP = STAGES.index((Step.WRAP_UP, None))
# A 64-bit seed like the bot's own, whose first two D66 differ from those of the next
# actions' rollers: the faces a redo would show if it replayed the undone Wrap-up are
# known exactly.
FORCED_SEED = 0x5EED_0000_0000_0000

# Every version of every message the bot made (content, embeds, components), as JSON.
SENT: list[str] = []


def _keep(event: str, subject: object) -> None:
    if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and isinstance(subject, Message):
        SENT.append(json.dumps([subject.content, subject.embeds, subject.components]))


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    workdir: Path = tmp_path_factory.mktemp("arena")
    async with open_arena(workdir, log_level="DEBUG", start=False) as running:
        running.fake.world.listeners.append(_keep)
        await running.start_bot()
        yield running


# --------------------------------------------------------------------------- the stored runs


async def _force_wrap_up_seed(arena: Arena, camp: str) -> PostBattleRun:
    """Give the campaign's run a known Wrap-up seed (what a leaked seed would be)."""
    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        found = await storage.read(guild).get_campaign_by_name(camp)
        async with storage.transaction(guild) as tx:
            [record] = [r for r in await tx.list_sequences(found.id)
                        if r.key.startswith("postbattle:")]
            run = await tx.load_sequence(found.id, record.key, PostBattleRun)
            assert run is not None
            run.seeds[WRAP_UP] = FORCED_SEED
            await tx.save_sequence(found.id, run.key, run, battle_id=run.battle_id)
        return run
    finally:
        await storage.close()


def _d66(counter: int) -> list[list[int]]:
    """The first two D66 the Wrap-up's roller gives at ``counter`` with the forced seed."""
    roller = SeededRoller(f"{FORCED_SEED}:{WRAP_UP}:{counter}")
    faces = [roller.face(6) for _ in range(4)]
    return [faces[:2], faces[2:]]


def _injury_faces(text: str) -> list[list[int]]:
    return [[int(a), int(b)] for a, b in re.findall(r"D66 → \[(\d), (\d)\]", text)]


# --------------------------------------------------------------------------- tests


async def test_an_undone_wrap_up_is_redone_with_fresh_dice_and_the_old_rolls_kept_undone(
    arena: Arena,
) -> None:
    camp = await campaign_of_two(arena, "Fresh Dice", "Cold Iron", "Soot Kings")
    _, thread = await start(arena, "bob", camp, "Cold Iron", "Cold Iron", "Soot Kings")
    run = await _force_wrap_up_seed(arena, camp)
    await pick(arena, thread, "Soot Kings", "carol", "ooa", ["Soot Kings 1", "Soot Kings 2"])
    await submit(arena, thread, "Cold Iron", "bob")
    await submit(arena, thread, "Soot Kings", "carol")
    first = open_stage(arena, thread)
    assert first is not None and "Wrap-up" in first.embeds[0]["title"]
    shown = first.embed_text()
    old_rolls = re.findall(r"🎲 [^\n]+", shown)
    assert _injury_faces(shown)[:2] == _d66(0)  # the forced seed rolled them

    question = await arena.driver.click(first, "Undo", "alice")
    done = await arena.driver.click(question, "Yes, undo", "alice")
    await done.wait_for_update()
    assert "reports are open again" in (done.message.content if done.message else "")
    await submit(arena, thread, "Cold Iron", "bob")
    await submit(arena, thread, "Soot Kings", "carol")

    # The redo is a new message with dice nobody saw: not the undone faces again.
    redo = await eventually(lambda: open_stage(arena, thread), "the redone Wrap-up")
    assert redo.id != first.id and "▶️ Wrap-up" in redo.embeds[0]["title"]
    redone = redo.embed_text()
    new_rolls = re.findall(r"🎲 [^\n]+", redone)
    assert new_rolls and new_rolls != old_rolls
    assert _injury_faces(redone)[:2] != _d66(0)
    assert _injury_faces(redone)[0] != _d66(0)[0]

    # The undone message stays in the thread with its rolls, marked undone, no buttons.
    wraps = titled(in_thread(arena, thread), "Wrap-up")
    old = next(m for m in wraps if m.id == first.id)
    assert old.embeds[0]["title"] == "↩️ Wrap-up (undone)"
    alice = arena.fake.world.user("alice").id
    assert f"Undone by <@{alice}>" in old.embed_text()
    assert re.findall(r"🎲 [^\n]+", old.embed_text()) == old_rolls
    assert not old.buttons and not old.selects

    # The ledger keeps both: the undone rolls marked undone, the redone ones standing.
    events = (await stored(arena, camp)).events
    d66 = [(e.faces, e.undone) for e in events if e.kind == "roll" and e.expression == "D66"]
    assert [faces for faces, undone in d66 if undone] == _injury_faces(shown)
    assert [faces for faces, undone in d66 if not undone] == _injury_faces(redone)
    # /ledger marks what was undone: here the Wrap-up's other action, the battle recorded
    # (Cold Iron's ledger is short enough to show the undone one within 25 events).
    ledger = await ok(arena, "alice", "ledger", battle=run.battle_id, gang="Cold Iron",
                      campaign=camp, limit=25)
    headers = re.findall(r"\*\*#\d+ Battle recorded\*\* \(PB-1\.5\) · ([^<]*)<@", ledger)
    assert headers == ["", "↩️ undone · "], ledger  # newest first: the redo, the undone


async def test_no_seed_reaches_a_log_a_message_or_an_error(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Kept Secret", "Lamp Eaters", "Bone Choir")
    _, thread = await start(arena, "bob", camp, "Bone Choir", "Lamp Eaters", "Bone Choir")
    await pick(arena, thread, "Lamp Eaters", "bob", "ooa", ["Lamp Eaters 2"])
    await submit(arena, thread, "Lamp Eaters", "bob")
    await submit(arena, thread, "Bone Choir", "carol")
    for user in ("bob", "carol"):
        await confirm(arena, thread, user)  # the Wrap-up
    # An undo of Assign/Reassign Territory, confirmed again, refusals and a status.
    stage = await eventually(lambda: open_stage(arena, thread), "Assign/Reassign Territory")
    question = await arena.driver.click(stage, "Undo", "alice")
    done = await arena.driver.click(question, "Yes, undo", "alice")
    await done.wait_for_update()
    reopened = await eventually(lambda: open_stage(arena, thread), "the Wrap-up reopened")
    refused = await arena.driver.click(reopened, "Undo", "bob")
    assert refused.ephemeral
    for user in ("bob", "carol"):
        await confirm(arena, thread, user)
    refused = await arena.driver.slash(G, CH, "bob", "postbattle undo", gang="Bone Choir",
                                       campaign=camp)
    assert refused.ephemeral
    status = await ok(arena, "carol", "postbattle status", gang="Bone Choir", campaign=camp)
    assert "Assign/Reassign Territory" in status

    seeds = [seed for name in ("Fresh Dice", "Kept Secret")
             for seed in (await stored(arena, name)).run.seeds]
    assert len(seeds) >= 13
    log = arena.log_path.read_text(errors="replace")
    assert " DEBUG " in log  # the bot really logged all it logs
    kept = [json.dumps([m.content, m.embeds, m.components])
            for m in arena.fake.world.messages.values()]
    assert SENT and kept
    for seed in seeds:
        for text in (str(seed), f"{seed:x}"):
            assert text not in log, f"a seed is in the bot's log: {text}"
            assert not any(text in sent for sent in SENT), f"a seed was posted: {text}"
            assert not any(text in message for message in kept)
