"""What a Confirm costs the database (docs/benchmarks.md): each ``await`` on a connection
is a trip to its thread and back, and under load every trip back waits its turn on a
busy event loop, the writer's while it holds the writer lock. A Confirm reads and
decides in one trip to a reader's thread, and writes in one trip to the writer's,
whether it only saves the run or closes the step (the next step's rolls in the ledger,
its message owed, the run). Real SQLite file; the trips are counted with a spy on
aiosqlite's own queueing of each call.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

import pytest

from bot.battle import engine, flow, owed
from bot.battle.panel import ReportEdit
from bot.battle.state import PostBattleRun, run_key
from bot.battle.store import load_battle_world
from bot.storage import Storage, Transaction
from bot.storage.repository import ANSWERING_LANES, WRITER_LOCK
from rules.models import Battle, CampaignSettings, FighterCategory
from tests import factories as f
from tests.test_battle_flow import ALICE, ARBITER, BOB

GUILD = 1001
# Round trips of the Confirm that closes a step (its rolls, the message owed, the run),
# its read included: one to write on SQLite (the whole transaction on the database
# thread); on PostgreSQL one to read and four to write: BEGIN with the claim of the
# campaign (its key known from the read), the battle with the rosters, the captives'
# gangs and the keys the run owed already, the ledger's action, and one script of the
# ledger's events, the message owed (its key new), the run's state before it kept, the
# run saved and COMMIT (docs/battle.md).
CLOSING_TRIPS = {"sqlite": 2, "postgresql": 5}


class Bot:
    """What deciding and storing a click uses of the bot: its storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage


async def _stored_run(storage: Storage) -> tuple[str, PostBattleRun]:
    """A campaign whose battle's reports are in and whose Wrap-up is open, as stored."""
    campaign = await storage.write(GUILD).create_campaign(
        CampaignSettings(name="Underhive"), arbitrator_user_ids=[99])
    rats = [f.fighter(f"Rat {n}", FighterCategory.GANGER, id=f"r{n}") for n in range(3)]
    wolves = [f.fighter(f"Wolf {n}", FighterCategory.GANGER, id=f"w{n}") for n in range(2)]
    gangs = [f.gang("Ash Wolves", fighters=wolves, id="g1", owner="10"),
             f.gang("Iron Fangs", fighters=rats, id="g2", owner="20")]
    for gang in gangs:
        await storage.write(GUILD).create_gang(campaign.id, gang, actor="10")
    battle = await storage.write(GUILD).create_battle(campaign.id, Battle(
        id="b1", gang_ids=["g1", "g2"], winner="g1", campaign=True))
    world = f.world(*gangs)
    run = flow.new_run(ALICE, campaign, battle, world, skirmish=False, sequence_id="s1",
                       channel_id=5)
    run = flow.submit_report(ALICE, campaign, run, world, 0).run
    decision = flow.submit_report(BOB, campaign, run, world, 1)
    world = flow.open_wrap_up(decision, BOB, campaign, battle, world)

    async def store(tx: Transaction) -> None:
        for pending in decision.actions:
            await tx.apply(campaign.id, pending.result, actor="20", battle_id="b1",
                           step=pending.step)
        assert decision.battle is not None
        await tx.update_battle(campaign.id, decision.battle)
        await tx.save_sequence(campaign.id, run_key("b1"), decision.run, battle_id="b1")

    async with storage.transaction(GUILD) as tx:
        await store(tx)
    return campaign.id, decision.run


@pytest.mark.sqlite_only("counts the trips to aiosqlite's threads")
async def test_a_confirm_is_one_trip_to_read_and_decide_and_one_to_write(
    storage: Storage, trips: list[int]
) -> None:
    campaign_id, run = await _stored_run(storage)
    bot = cast(Any, Bot(storage))
    for _ in range(ANSWERING_LANES):  # each reader's connection is opened at its first read
        await storage.read(GUILD).get_campaign(campaign_id)
    held = WRITER_LOCK.holds

    trips.clear()
    alice = await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), 1)
    assert alice.revision and not alice.decision.actions  # one confirmation of two
    assert len(trips) == 2, trips  # the read and decision; the run saved

    trips.clear()
    closing = await engine.confirm_stage(engine.RunCall(bot, GUILD, BOB, campaign_id, "b1"), 1)
    assert closing.decision.actions and closing.decision.scene.owe_stages == [2]
    assert len(trips) == 2, trips  # the read and decision; rolls, message owed and run
    assert WRITER_LOCK.holds - held == 2

    async with storage.read_only(GUILD) as tx:
        stored = await tx.load_sequence_at(campaign_id, run_key("b1"), PostBattleRun)
        actions = await tx.list_actions(campaign_id, battle_id="b1")
        entry = await tx.owed_message(owed.owed_key(run, "stage", 2, 0))
    assert stored is not None and stored[1] == closing.revision
    assert stored[0].stage_record(1) is not None and stored[0].current is not None
    assert stored[0].current.number == 2
    assert [a.step for a in actions[:len(closing.decision.actions)]] == [
        p.step for p in reversed(closing.decision.actions)]
    assert entry is not None and entry.message_id is None


@pytest.mark.sqlite_only("runs the transaction on aiosqlite's thread")
async def test_a_transaction_run_whole_is_written_on_the_database_thread_all_or_nothing(
    storage: Storage, trips: list[int]
) -> None:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Underhive"))
    loop_thread = threading.get_ident()
    threads: list[int] = []

    async def rename_twice_then_fail(tx: Transaction) -> None:
        threads.append(threading.get_ident())
        await tx.rename_campaign(campaign.id, "Ash Wastes")
        await tx.rename_campaign(campaign.id, "Dust Falls")
        raise RuntimeError("refused after the writes")

    trips.clear()
    with pytest.raises(RuntimeError, match="refused after the writes"):
        await storage.transaction_whole(GUILD, rename_twice_then_fail)
    assert len(trips) == 1 and threads and threads[0] != loop_thread
    assert (await storage.read(GUILD).get_campaign(campaign.id)).name == "Underhive"

    async def rename(tx: Transaction) -> str:
        return (await tx.rename_campaign(campaign.id, "Dust Falls")).name

    assert await storage.transaction_whole(GUILD, rename) == "Dust Falls"
    assert (await storage.read(GUILD).get_campaign(campaign.id)).name == "Dust Falls"


@pytest.mark.sqlite_only("the one SQLite writer lock and its connection's thread")
async def test_a_write_made_in_one_trip_lets_the_writer_lock_go_once_it_is_queued(
    storage: Storage
) -> None:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Underhive"))
    started, gate = threading.Event(), threading.Event()

    async def slow_rename(tx: Transaction) -> None:
        started.set()
        gate.wait()  # holds up the writer's thread, not the event loop
        await tx.rename_campaign(campaign.id, "Ash Wastes")

    async def rename(tx: Transaction) -> None:
        await tx.rename_campaign(campaign.id, "Dust Falls")

    first = asyncio.create_task(storage.transaction_whole(GUILD, slow_rename))
    try:
        await asyncio.to_thread(started.wait)
        # Its transaction is running on the writer's thread and the lock is free already:
        # what the next writer sends is queued behind it.
        assert not first.done() and not storage.writer_busy
        second = asyncio.create_task(storage.transaction_whole(GUILD, rename))
        await asyncio.sleep(0)
        assert not second.done()
    finally:
        gate.set()  # the thread is never left waiting
    await asyncio.gather(first, second)
    assert (await storage.read(GUILD).get_campaign(campaign.id)).name == "Dust Falls"


async def test_a_transaction_or_read_run_whole_keeps_all_or_nothing_on_either_driver(
    storage: Storage
) -> None:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Underhive"))

    async def rename_then_fail(tx: Transaction) -> None:
        await tx.rename_campaign(campaign.id, "Ash Wastes")
        raise RuntimeError("refused after the write")

    with pytest.raises(RuntimeError, match="refused after the write"):
        await storage.transaction_whole(GUILD, rename_then_fail)

    async def name(tx: Transaction) -> str:
        return (await tx.get_campaign(campaign.id)).name

    assert await storage.read_whole(GUILD, name) == "Underhive"

    async def rename(tx: Transaction) -> str:
        return (await tx.rename_campaign(campaign.id, "Dust Falls")).name

    assert await storage.transaction_whole(GUILD, rename) == "Dust Falls"
    assert await storage.read_whole(GUILD, name) == "Dust Falls"
    assert await storage.read_whole(GUILD, name, background=True) == "Dust Falls"


async def _counting(
    storage: Storage, campaign_id: str, trips: list[int], pg_trips: list[str]
) -> tuple[Any, list[Any]]:
    """What a click is decided with (the bot), every reader's connection opened first,
    and the list this database's round trips are counted in."""
    for _ in range(ANSWERING_LANES):  # each reader's connection is opened at its first read
        await storage.read(GUILD).get_campaign(campaign_id)
    made: list[Any] = trips if storage.driver == "sqlite" else pg_trips
    return cast(Any, Bot(storage)), made


async def test_a_confirm_reads_in_one_trip_and_writes_in_one_on_postgresql_too(
    storage: Storage, trips: list[int], pg_trips: list[str]
) -> None:
    campaign_id, _run = await _stored_run(storage)
    bot, made = await _counting(storage, campaign_id, trips, pg_trips)
    # A read with the rosters (a report's select) makes several statements, so PostgreSQL
    # makes it a snapshot of its own from then on: not a Confirm's, still one statement.
    await engine.decide_and_store(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"),
                                  lambda _c, run, _w: flow.answer_only(run, "seen"), rosters=True)

    made.clear()
    alice = await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), 1)
    assert alice.revision and not alice.decision.actions
    assert len(made) == 2, made  # the read and decision; the run saved

    made.clear()
    closing = await engine.confirm_stage(engine.RunCall(bot, GUILD, BOB, campaign_id, "b1"), 1)
    assert closing.decision.actions and closing.decision.scene.owe_stages == [2]
    assert len(made) <= CLOSING_TRIPS[storage.driver], "\n".join(map(str, made))
    assert not [sql for sql in pg_trips if "pg_advisory_unlock_all" in sql]  # no pool reset


async def _reporting_run(storage: Storage) -> str:
    """A campaign whose battle's report panels are open (nothing reported yet); a gang
    outside the battle has a fighter held Captive by one of its gangs. Its id."""
    campaign = await storage.write(GUILD).create_campaign(
        CampaignSettings(name="Underhive"), arbitrator_user_ids=[99])
    held = f.fighter("Held", FighterCategory.GANGER, id="h1")
    held.capture("g1")
    gangs = [f.gang("Ash Wolves", fighters=[f.fighter("Wolf", FighterCategory.GANGER, id="w1")],
                    id="g1", owner="10"),
             f.gang("Iron Fangs", fighters=[f.fighter("Rat", FighterCategory.GANGER, id="r1")],
                    id="g2", owner="20"),
             f.gang("Dust Kin", fighters=[held], id="g3", owner="30")]
    for gang in gangs:
        await storage.write(GUILD).create_gang(campaign.id, gang, actor="10")
    battle = await storage.write(GUILD).create_battle(campaign.id, Battle(
        id="b1", gang_ids=["g1", "g2"], winner="g1", campaign=True))
    run = flow.new_run(ALICE, campaign, battle, f.world(*gangs), skirmish=False,
                       sequence_id="s1", channel_id=5)
    await storage.write(GUILD).save_sequence(campaign.id, run.key, run, battle_id="b1")
    return campaign.id


async def test_a_report_panels_select_reads_in_one_trip_and_writes_in_one(
    storage: Storage, trips: list[int], pg_trips: list[str]
) -> None:
    campaign_id = await _reporting_run(storage)
    bot, made = await _counting(storage, campaign_id, trips, pg_trips)
    at = engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1")

    for kind in ("bottled", "left"):  # the first time too: no read needs a snapshot
        made.clear()
        stored = await engine.edit_report(at, 0, ReportEdit(kind=kind))
        assert stored.revision
        assert len(made) == 2, "\n".join(map(str, made))  # the read and decision; the save

    # The rosters, the territories and the captive's gang outside the battle, as a read
    # of the world by the gangs' ids finds them.
    async with storage.read_only(GUILD) as tx:
        world = await load_battle_world(tx, campaign_id, stored.run)
    assert list(stored.world.gangs) == ["g1", "g2", "g3"] == list(world.gangs)
    assert stored.world == world
    report = stored.run.reports["g1"]
    assert report.bottled_out and not report.models_left


async def test_the_question_of_an_undo_is_one_read_of_one_trip(
    storage: Storage, trips: list[int], pg_trips: list[str]
) -> None:
    campaign_id, _run = await _stored_run(storage)
    bot, made = await _counting(storage, campaign_id, trips, pg_trips)
    arbitrator = engine.RunCall(bot, GUILD, ARBITER, campaign_id, "b1")
    for _ in range(2):  # the second time, as the first: no read needs a snapshot
        made.clear()
        question = await engine.undo_or_cancel_question(arbitrator, "undo", 1)
        assert "Undo **Wrap-up**?" in question
        assert len(made) == 1, made


async def test_a_read_of_one_statement_is_one_trip_and_one_of_more_is_one_snapshot(
    storage: Storage, pg_trips: list[str]
) -> None:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Underhive"))

    async def name(tx: Transaction) -> str:
        return (await tx.get_campaign(campaign.id)).name

    async def name_and_count(tx: Transaction) -> tuple[str, int]:
        return (await tx.get_campaign(campaign.id)).name, len(await tx.list_campaigns())

    pg_trips.clear()
    assert await storage.read_whole(GUILD, name) == "Underhive"
    assert len(pg_trips) == (1 if storage.driver == "postgresql" else 0), pg_trips
    pg_trips.clear()  # a one-call read is one too: no BEGIN nor COMMIT around it
    assert (await storage.read(GUILD).get_campaign(campaign.id)).name == "Underhive"
    assert len(pg_trips) == (1 if storage.driver == "postgresql" else 0), pg_trips
    for _ in range(2):  # the second time it is known to need a snapshot
        assert await storage.read_whole(GUILD, name_and_count) == ("Underhive", 1)
    if storage.driver == "postgresql":
        pg_trips.clear()
        await storage.read_whole(GUILD, name_and_count)
        assert pg_trips[0].startswith("BEGIN ISOLATION LEVEL REPEATABLE READ"), pg_trips
        assert len(pg_trips) == 4, pg_trips  # BEGIN, the two reads, COMMIT
