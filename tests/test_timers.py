"""Durable timers (bot/timers.py, bot/storage/timers.py) on a real database, with a clock
moved by hand: fired once, in the transaction that marks them fired; after a restart
across their time, once and late; never another server's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import FileClock, ManualClock, clock_from
from bot.storage import Storage, Timer, Transaction
from bot.timers import (
    LATE_AFTER,
    TimerWorker,
    late_line,
    on_timer,
    post_later,
    retry_delay,
)
from rules.models import CampaignSettings

GUILD = 1001
OTHER_GUILD = 2002
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
RECORD = "test-record"
FAILING = "test-failing"

fired: list[tuple[int, str, timedelta | None]] = []
failures_left: list[int] = [0]


@on_timer(RECORD)
async def _record(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    # Runs in the timer's own server's transaction: a write here is kept only with it.
    assert tx.guild_id == timer.guild_id
    await tx.owe_message(f"record:{timer.key}", 42, {"content": timer.key})
    fired.append((timer.guild_id, timer.key, late))


@on_timer(FAILING)
async def _failing(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    await tx.owe_message(f"record:{timer.key}", 42, {"content": timer.key})
    if failures_left[0] > 0:
        failures_left[0] -= 1
        raise RuntimeError("the handler broke")
    fired.append((timer.guild_id, timer.key, late))


@pytest.fixture(autouse=True)
def _forget_fired() -> None:
    fired.clear()
    failures_left[0] = 0


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def worker(storage: Storage, clock: ManualClock) -> AsyncIterator[TimerWorker]:
    timers = TimerWorker(storage, clock)
    yield timers
    await timers.stop()


async def owed(storage: Storage, guild: int = GUILD) -> list[str]:
    return [e.key for e in await storage.read(guild).outbox_entries("record:")]


async def test_a_timer_fires_once_when_its_time_comes(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    await storage.write(GUILD).set_timer("a", RECORD, START + timedelta(hours=1), {})
    assert await worker.fire_due() == 0
    clock.move(timedelta(minutes=59))
    assert await worker.fire_due() == 0
    clock.move(timedelta(minutes=1))
    assert await worker.fire_due() == 1
    assert await worker.fire_due() == 0
    clock.move(timedelta(days=3))
    assert await worker.fire_due() == 0
    assert fired == [(GUILD, "a", None)]
    assert await owed(storage) == ["record:a"]
    stored = await storage.read(GUILD).timer("a")
    assert stored is not None and stored.fired_at == START + timedelta(hours=1)


async def test_setting_a_timer_again_is_idempotent_and_a_new_time_moves_it(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    due = START + timedelta(hours=1)
    await storage.write(GUILD).set_timer("a", RECORD, due, {"n": 1})
    clock.move(timedelta(hours=1))
    assert await worker.fire_due() == 1
    # The same timer set again (a retried transaction): it stays fired.
    await storage.write(GUILD).set_timer("a", RECORD, due, {"n": 1})
    assert await worker.fire_due() == 0
    # Moved: due again at its new time, and only then.
    await storage.write(GUILD).set_timer("a", RECORD, due + timedelta(hours=2), {"n": 1})
    assert await worker.fire_due() == 0
    clock.move(timedelta(hours=2))
    assert await worker.fire_due() == 1
    # Cancelled before its time: never fires.
    await storage.write(GUILD).set_timer("b", RECORD, clock.now() + timedelta(hours=1), {})
    assert await storage.write(GUILD).cancel_timer("b")
    clock.move(timedelta(hours=1))
    assert await worker.fire_due() == 0
    assert [key for _, key, _ in fired] == ["a", "a"]


async def test_a_failing_handler_changes_nothing_and_is_tried_again_later(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    failures_left[0] = 1
    await storage.write(GUILD).set_timer("f", FAILING, START, {})
    assert await worker.fire_due() == 0
    # Its transaction was rolled back: no post owed, the timer still due, the error kept.
    assert await owed(storage) == []
    stored = await storage.read(GUILD).timer("f")
    assert stored is not None and stored.pending and "the handler broke" in (
        stored.last_error or "")
    assert await worker.fire_due() == 0  # not before its retry time
    clock.move(retry_delay(1))
    assert await worker.fire_due() == 1
    assert await owed(storage) == ["record:f"]
    assert fired == [(GUILD, "f", None)]


async def test_a_failed_timer_set_anew_is_due_at_its_new_time_not_its_old_retry(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    failures_left[0] = 1
    await storage.write(GUILD).set_timer("f", FAILING, START, {"n": 1})
    assert await worker.fire_due() == 0  # failed: retried after 30 s
    # Set anew (another change made it due now, with other arguments): due now.
    await storage.write(GUILD).set_timer("f", FAILING, START, {"n": 2})
    stored = await storage.read(GUILD).timer("f")
    assert stored is not None and stored.last_error is None and stored.attempts == 0
    assert await worker.fire_due() == 1
    assert fired == [(GUILD, "f", None)]


async def test_after_a_restart_across_its_time_it_fires_once_and_late(
    db_path: Path, clock: ManualClock
) -> None:
    storage = await Storage.open(db_path)
    await storage.write(GUILD).set_timer("r", RECORD, START + timedelta(hours=1), {})
    await storage.close()  # the bot stops before the timer's time...
    clock.move(timedelta(hours=3))  # ...and comes back two hours after it
    storage = await Storage.open(db_path)
    try:
        first = TimerWorker(storage, clock)
        assert await first.fire_due() == 1
        # A second start (another restart) finds it fired.
        assert await TimerWorker(storage, clock).fire_due() == 0
        assert fired == [(GUILD, "r", timedelta(hours=2))]
    finally:
        await storage.close()


async def test_another_servers_timers_are_never_touched(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    await storage.write(GUILD).set_timer("same", RECORD, START, {})
    await storage.write(OTHER_GUILD).set_timer("same", RECORD, START + timedelta(hours=5), {})
    # Cancelling and moving one server's key leaves the other's alone.
    assert await storage.write(GUILD).cancel_timer("same")
    assert await storage.read(OTHER_GUILD).timer("same") is not None
    await storage.write(GUILD).set_timer("mine", RECORD, START, {})
    assert await worker.fire_due() == 1
    assert fired == [(GUILD, "mine", None)]
    assert await owed(storage, OTHER_GUILD) == []
    other = await storage.read(OTHER_GUILD).timer("same")
    assert other is not None and other.pending
    clock.move(timedelta(hours=5))
    assert await worker.fire_due() == 1
    assert fired[-1] == (OTHER_GUILD, "same", None)


async def test_deleting_a_campaign_forgets_its_timers_only(
    storage: Storage, worker: TimerWorker
) -> None:
    tx = storage.write(GUILD)
    doomed = await tx.create_campaign(CampaignSettings(name="Doomed"))
    kept = await tx.create_campaign(CampaignSettings(name="Kept"))
    await tx.set_timer("x", RECORD, START, {"campaign": doomed.id})
    await tx.set_timer("y", RECORD, START, {"campaign": kept.id})
    await tx.delete_campaign(doomed.id)
    assert [t.key for t in await storage.read(GUILD).list_timers()] == ["y"]


async def test_the_running_worker_wakes_when_the_clock_is_moved(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    worker.start()
    await storage.write(GUILD).set_timer("w", RECORD, START + timedelta(days=1), {})
    worker.kick()
    await asyncio.sleep(0.2)
    assert fired == []
    clock.move(timedelta(days=1))
    for _ in range(100):
        if fired:
            break
        await asyncio.sleep(0.05)
    assert fired == [(GUILD, "w", None)]


async def test_a_timed_post_is_owed_only_at_its_time_and_says_when_it_is_late(
    storage: Storage, clock: ManualClock, worker: TimerWorker
) -> None:
    async with storage.transaction(GUILD) as tx:
        await post_later(tx, "post:now", 7, {"content": "on time"}, START)
        await post_later(tx, "post:later", 7, {"content": "next week"},
                         START + timedelta(days=7))
    assert await worker.fire_due() == 1
    # The post for next week is no outbox row: it cannot hold up the channel's others.
    assert [e.key for e in await storage.read(GUILD).outbox_entries()] == ["post:now"]
    clock.move(timedelta(days=7) + LATE_AFTER)
    assert await worker.fire_due() == 1
    later = await storage.read(GUILD).owed_message("post:later")
    assert later is not None
    assert later.payload["content"] == late_line(START + timedelta(days=7), LATE_AFTER) + \
        "next week"
    assert "Posted late" in later.payload["content"]
    now = await storage.read(GUILD).owed_message("post:now")
    assert now is not None and now.payload["content"] == "on time"


async def test_a_file_clock_is_moved_by_writing_its_file(tmp_path: Path) -> None:
    path = tmp_path / "clock"
    clock = clock_from({"MUNDA_CLOCK_FILE": str(path)})
    assert isinstance(clock, FileClock)
    before = clock.now()
    clock.move(timedelta(days=2))
    assert clock.now() - before >= timedelta(days=2)
    # A sleep of a day ends at once once the clock is a day further on.
    sleeping = asyncio.ensure_future(clock.sleep(86_400))
    await asyncio.sleep(0.05)
    clock.move(timedelta(days=1))
    await asyncio.wait_for(sleeping, 2)


async def test_a_pass_of_the_worker_with_nothing_due_is_two_round_trips(
    storage: Storage, clock: ManualClock, worker: TimerWorker, pg_trips: list[str],
    trips: list[int],
) -> None:
    await storage.write(GUILD).set_timer("a", RECORD, START + timedelta(hours=1), {})
    for _ in range(2):  # the second time, as the first: no read needs a snapshot
        await storage.read_whole(0, _warm, background=True)  # readers' connections opened
        made: list[object] = trips if storage.driver == "sqlite" else pg_trips
        made.clear()
        assert await worker.fire_due() == 0
        assert await worker._seconds_to_next() == timedelta(hours=1).total_seconds()
        assert len(made) == 2, made  # the scan for what is due; the next one's time


async def _warm(tx: Transaction) -> None:
    await tx.list_timers()
