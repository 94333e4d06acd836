"""Applying rules results: one transaction, a complete ledger, stale refusals, undo."""

from __future__ import annotations

import pytest

from bot.storage import Campaign, StaleWorld, Storage, new_id
from bot.storage.driver import IntegrityError
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest
from rules.models import FighterStatus
from rules.world import RuleResult, Workspace, World
from tests import factories as f

from .conftest import ACTOR, GUILD_A, add_credits, execute, post_battle_step, scalar, two_gangs


async def count(storage: Storage, table: str) -> int:
    return int(await scalar(storage, f"SELECT COUNT(*) FROM {table}"))


async def test_every_roll_change_and_note_is_in_the_ledger(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    result = post_battle_step(world, wolves.id, "a-ganger", faces=[3, 2])
    action = await storage.write(GUILD_A).apply(campaign.id, result, actor="42", battle_id="bt1",
                                 step="4")
    assert (action.clause, action.title, action.actor, action.battle_id, action.step) == (
        "PB-4", "Collect Income", "42", "bt1", "4",
    )
    assert action.gang_ids == [wolves.id]

    stored = await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)
    assert stored == result.world.gangs[wolves.id]
    assert stored.credits == 130
    assert stored.fighter("a-ganger").status is FighterStatus.IN_RECOVERY

    events = await storage.read(GUILD_A).battle_events(campaign.id, "bt1")
    rolls = [e.roll for e in events if e.kind == "roll"]
    assert rolls == result.rolls
    assert [e.change for e in events if e.kind == "change"] == result.changes
    assert [e.text for e in events if e.kind == "note"] == result.notes
    assert {(e.actor, e.clause, e.battle_id, e.step, e.action_id) for e in events} == {
        ("42", "PB-4", "bt1", "4", action.id)
    }
    by_path = {e.path: (e.before, e.after) for e in events if e.kind == "change"}
    assert by_path == {"credits": (100, 130), "status": ("Active", "In Recovery")}

    # A player asking about their gang sees the rolls too; the other gang sees none of it.
    mine = await storage.read(GUILD_A).recent_events(campaign.id, gang_id=wolves.id, limit=10)
    assert {e.kind for e in mine} == {"roll", "change", "note"}
    theirs = await storage.read(GUILD_A).recent_events(campaign.id, gang_id=kin.id, limit=10)
    assert all(e.action_id != action.id for e in theirs)
    newest = await storage.read(GUILD_A).recent_events(campaign.id, limit=2)
    assert [e.id for e in newest] == sorted((e.id for e in newest), reverse=True)


async def test_apply_id_returns_the_id_the_rolls_of_a_change_less_result_are_stored_under(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    ws = Workspace(world)
    dice = ws.roll(ScriptedRoller([4]), "D6", "who goes first")
    ws.note("Wolves go first.")
    result = ws.finish(RuleResult, clause="TEST", title="Rolls only")
    assert result.changes == []

    async with storage.transaction(GUILD_A) as tx:
        action_id = await tx.apply_id(campaign.id, result, actor="42", battle_id="bt1")
        events = await tx.battle_events(campaign.id, "bt1")
    assert [(e.kind, e.action_id) for e in events] == [("roll", action_id), ("note", action_id)]
    assert events[0].roll == dice

    # Undone, it puts nothing back: no gang was written.
    undone = await storage.write(GUILD_A).undo_last_action(campaign.id, actor=ACTOR)
    assert undone.id == action_id
    assert await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id]) == world


async def test_a_removed_fighter_is_deleted_and_new_ones_inserted(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, _ = await two_gangs(storage, campaign)
    ws = Workspace(await storage.read(GUILD_A).load_world(campaign.id, [wolves.id]))
    gang = ws.gang(wolves.id)
    gang.fighters.remove(gang.fighter("a-ganger"))
    recruit = gang.fighters[0].model_copy(update={"id": new_id(), "name": "Recruit"})
    gang.fighters.append(recruit)
    result = ws.finish(RuleResult, clause="PB-6A.1", title="Clean House")
    await storage.write(GUILD_A).apply(campaign.id, result, actor=ACTOR)
    stored = await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)
    assert [x.name for x in stored.fighters] == ["a Boss", "Recruit"]
    assert await count(storage, "fighters") == 4


async def test_failure_inside_a_transaction_writes_nothing(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, _ = await two_gangs(storage, campaign)
    events_before = await count(storage, "ledger_events")
    with pytest.raises(RuntimeError, match="boom"):
        async with storage.transaction(GUILD_A) as tx:
            world = await tx.load_world(campaign.id, [wolves.id])
            await tx.apply(campaign.id, add_credits(world, wolves.id, 50), actor=ACTOR)
            await tx.save_sequence(campaign.id, "seq", world)
            raise RuntimeError("boom")
    assert (await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)).credits == 100
    assert await count(storage, "ledger_events") == events_before
    assert await count(storage, "actions") == 2
    assert await storage.read(GUILD_A).list_sequences(campaign.id) == []


async def test_an_invalid_row_half_way_writes_nothing(storage: Storage, campaign: Campaign) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    events_before = await count(storage, "ledger_events")
    ws = Workspace(await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id]))
    ws.gang(wolves.id).credits += 500
    # The second gang's fighter takes a name the first gang already uses.
    ws.gang(kin.id).fighters[0].name = "A BOSS"
    result = ws.finish(RuleResult, clause="X", title="Half way")
    with pytest.raises(InvalidRequest, match="already a fighter called 'A BOSS'"):
        await storage.write(GUILD_A).apply(campaign.id, result, actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)).credits == 100
    assert await count(storage, "ledger_events") == events_before
    assert await count(storage, "actions") == 2


async def test_a_result_from_a_stale_load_is_refused(storage: Storage, campaign: Campaign) -> None:
    wolves, _ = await two_gangs(storage, campaign)
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id])
    first = add_credits(world, wolves.id, 10)
    second = add_credits(world, wolves.id, 20)  # computed from the same, now old, load
    await storage.write(GUILD_A).apply(campaign.id, first, actor=ACTOR)
    with pytest.raises(StaleWorld, match="Ash Wolves changed while"):
        await storage.write(GUILD_A).apply(campaign.id, second, actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)).credits == 110


async def test_undo_restores_the_snapshot_and_keeps_the_ledger(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    turf = await storage.write(GUILD_A).add_territory(
        campaign.id,
        f.territory("Sump", id="t1", controller=kin.id),
        actor=ACTOR,
    )
    original = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])

    ws = Workspace(original)
    ws.gang(wolves.id).credits += 40
    ws.gang(kin.id).fighters.pop()
    ws.world.territory(turf.id).controller = wolves.id
    step = ws.finish(RuleResult, clause="PB-2", title="Territory won")
    await storage.write(GUILD_A).apply(campaign.id, step, actor=ACTOR, battle_id="bt")
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, [wolves.id])
        await tx.save_sequence(campaign.id, "post:bt", world)
        await tx.apply(campaign.id, add_credits(world, wolves.id, 5), actor=ACTOR,
                       battle_id="bt")
    events_before = await count(storage, "ledger_events")

    with pytest.raises(InvalidRequest, match="not part of this battle"):
        await storage.write(GUILD_A).undo_last_action(campaign.id, actor="7", battle_id="other")
    undone = await storage.write(GUILD_A).undo_last_action(campaign.id, actor="7", battle_id="bt")
    assert undone.title == "+5 credits" and undone.undone_by is not None
    assert (await storage.read(GUILD_A).get_gang(campaign.id, wolves.id)).credits == 140
    # The sequence saved with the undone action is rewound too (it did not exist).
    assert await storage.read(GUILD_A).list_sequences(campaign.id) == []

    undone = await storage.write(GUILD_A).undo_last_action(campaign.id, actor="7")
    assert undone.title == "Territory won"
    restored = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    assert restored == original

    undo_events = [e for e in await storage.read(GUILD_A).recent_events(campaign.id, limit=100)
                   if e.kind == "undo"]
    assert len(undo_events) == 2 and all(e.actor == "7" for e in undo_events)
    assert await count(storage, "ledger_events") > events_before
    actions = await storage.read(GUILD_A).list_actions(campaign.id, limit=10)
    assert [a.undoes for a in actions[:2]] == [actions[3].id, actions[2].id]

    # Undo goes back through the roster edits too, then runs out.
    for _ in range(3):
        await storage.write(GUILD_A).undo_last_action(campaign.id, actor="7")
    assert await storage.read(GUILD_A).list_gangs(campaign.id) == []
    with pytest.raises(InvalidRequest, match="nothing to undo"):
        await storage.write(GUILD_A).undo_last_action(campaign.id, actor="7")


async def test_undo_rewinds_a_sequence_to_its_previous_state(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, _ = await two_gangs(storage, campaign)
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id])
    await storage.write(GUILD_A).save_sequence(campaign.id, "seq", world)
    async with storage.transaction(GUILD_A) as tx:
        result = add_credits(world, wolves.id, 5)
        await tx.apply(campaign.id, result, actor=ACTOR)
        await tx.save_sequence(campaign.id, "seq", result.world)
    assert await storage.read(GUILD_A).load_sequence(campaign.id, "seq", World) == result.world
    await storage.write(GUILD_A).undo_last_action(campaign.id, actor=ACTOR)
    assert await storage.read(GUILD_A).load_sequence(campaign.id, "seq", World) == world


async def test_ledger_rows_cannot_be_changed_or_deleted(
    storage: Storage, campaign: Campaign
) -> None:
    await two_gangs(storage, campaign)
    for sql in ("UPDATE ledger_events SET actor = 'x'", "DELETE FROM ledger_events",
                "UPDATE actions SET title = 'x'", "DELETE FROM actions"):
        with pytest.raises(IntegrityError, match="append-only"):
            await execute(storage, sql)


async def test_one_action_may_move_a_fighter_and_swap_names_across_gangs(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, kin = await two_gangs(storage, campaign)
    ws = Workspace(await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id]))
    a, b = ws.gang(wolves.id), ws.gang(kin.id)
    a.name, b.name = b.name, a.name
    a.fighters[0].name, b.fighters[0].name = b.fighters[0].name, a.fighters[0].name
    # A fighter changes gangs with its equipment, and an item changes hands.
    deserter = a.fighters.pop()
    b.fighters.append(deserter)
    b.stash.append(a.stash.pop())
    result = ws.finish(RuleResult, clause="X", title="Shuffle")
    await storage.write(GUILD_A).apply(campaign.id, result, actor=ACTOR)
    assert await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id]) == result.world
    assert (await storage.read(GUILD_A).get_gang_by_name(campaign.id, "Iron Kin")).id == wolves.id
    await storage.write(GUILD_A).undo_last_action(campaign.id, actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang_by_name(campaign.id, "Iron Kin")).id == kin.id
    assert await storage.read(GUILD_A).get_gang(campaign.id, wolves.id) == wolves
