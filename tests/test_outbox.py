"""The outbox (bot/outbox.py, bot/storage/outbox.py) on a real SQLite file, sending over
real HTTP to the project's fake Discord with injected 5xx and 429 answers; and the
failpoints (bot/failpoints.py) the crash tests kill the bot with.

The retry policy and the reading of Discord's answers are pure functions and
are checked as such; everything else goes through the worker exactly as the
bot uses it, without the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from bot import failpoints
from bot.outbox import (
    Accepted,
    DeliveryFailed,
    HttpSender,
    Outbox,
    RetryPolicy,
    classify,
    decide,
)
from bot.shards import ShardSet
from bot.storage import OutboxEntry, Storage, Transaction
from fakediscord import FakeDiscord, guild_id_on_shard
from fakediscord.entities import Message
from tests.conftest import FAKE_TOKEN

GUILD = 1001
OTHER_GUILD = 2002
# Short waits so the tests do not sleep long; the arithmetic is the production one.
FAST = RetryPolicy(first_delay=0.05, factor=2.0, max_delay=1.0)


# --------------------------------------------------------------------------- pure parts


def test_backoff_doubles_from_the_first_delay_and_stops_at_the_cap() -> None:
    policy = RetryPolicy(first_delay=0.5, factor=2.0, max_delay=300.0)
    assert [policy.backoff(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert policy.backoff(20) == 300.0
    assert policy.backoff(10_000) == 300.0  # a row failing for days does not overflow


def test_discord_answers_are_read_as_retry_redirect_or_give_up() -> None:
    limited = classify(429, {"message": "You are being rate limited.", "retry_after": 2.5,
                             "global": True})
    assert (limited.retry_after, limited.is_global, limited.permanent) == (2.5, True, False)
    from_header = classify(429, "rate limited", {"Retry-After": "3"})
    assert from_header.retry_after == 3.0
    for status in (500, 502, 503, 504):
        failure = classify(status, {"message": "oops"})
        assert not failure.permanent and failure.retry_after is None, status
    assert classify(404, {"code": 10003}).wrong_channel
    assert classify(403, {"code": 50013}).wrong_channel
    assert classify(400, {"code": 50083, "message": "Thread is archived"}).wrong_channel
    bad_form = classify(400, {"code": 50035, "message": "Invalid Form Body"})
    assert bad_form.permanent and not bad_form.wrong_channel
    assert not classify(401, {"message": "401: Unauthorized"}).permanent


def _entry(**fields: Any) -> OutboxEntry:
    base: dict[str, Any] = {
        "id": 1, "guild_id": GUILD, "key": "k", "channel_id": 10, "payload": {},
        "nonce": "n", "created_at": "2026-01-01T00:00:00+00:00", "due_at": 0.0,
    }
    return OutboxEntry(**{**base, **fields})


def test_decisions_follow_retry_after_backoff_and_the_fallback_channel() -> None:
    policy = RetryPolicy(first_delay=1.0, factor=2.0, max_delay=60.0)
    assert decide(_entry(attempts=2), DeliveryFailed("x", status=429, retry_after=7.0),
                  policy).delay == 7.0
    assert decide(_entry(attempts=2), DeliveryFailed("x", status=503), policy).delay == 4.0
    gone = DeliveryFailed("x", status=404, wrong_channel=True)
    assert decide(_entry(fallback_channel_id=11), gone, policy).action == "redirect"
    assert decide(_entry(), gone, policy).action == "give up"
    assert decide(_entry(), DeliveryFailed("x", status=400, permanent=True),
                  policy).action == "give up"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
async def outbox(storage: Storage, fake: FakeDiscord) -> AsyncIterator[Outbox]:
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN, timeout=5.0),
                    policy=FAST)
    try:
        yield worker
    finally:
        await worker.stop()


def channel_id(fake: FakeDiscord, name: str) -> int:
    return fake.channel(name, "Underhive").id


def posted(fake: FakeDiscord, name: str) -> list[Message]:
    return [m for m in fake.channel(name, "Underhive").messages if not m.deleted]


def text(content: str) -> dict[str, Any]:
    return {"content": content, "allowed_mentions": {"parse": []}}


async def drain(outbox: Outbox, passes: int = 50) -> None:
    """Run delivery passes, sleeping what the worker asks for, until nothing is owed."""
    for _ in range(passes):
        wait = await outbox.deliver_due()
        if wait is None:
            return
        await asyncio.sleep(wait)
    raise AssertionError("the outbox still owes messages")


# --------------------------------------------------------------------------- storage


async def test_owing_the_same_key_twice_owes_one_message_per_server(storage: Storage) -> None:
    first = await storage.write(GUILD).owe_message("report:1", 10, text("a"))
    again = await storage.write(GUILD).owe_message("report:1", 10, text("b"))
    assert again == first and again.payload == text("a")
    assert len(first.nonce) <= 25  # Discord's limit
    elsewhere = await storage.write(OTHER_GUILD).owe_message("report:1", 20, text("c"))
    assert elsewhere.id != first.id
    assert [e.key for e in await storage.read(GUILD).outbox_entries()] == ["report:1"]
    assert await storage.read(OTHER_GUILD).outbox_entry(first.id) is None  # scoped by server


async def test_a_rolled_back_transaction_owes_nothing(storage: Storage) -> None:
    with pytest.raises(RuntimeError):
        async with storage.transaction(GUILD) as tx:
            await tx.owe_message("stage:1", 10, text("a"))
            raise RuntimeError("the change failed")
    assert await storage.undelivered_messages() == []


# --------------------------------------------------------------------------- delivering


async def test_owed_messages_are_posted_once_with_their_ids_recorded(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    hello = f"Hello <@{fake.user('bob').id}> @everyone"
    await storage.write(GUILD).owe_message("hello", general, text(hello))
    assert await outbox.deliver_due() is None
    messages = posted(fake, "general")
    assert [m.content for m in messages] == [hello]
    assert messages[0].mentioned_user_ids() == [fake.user("bob").id]
    assert messages[0].pinged_user_ids() == []  # allowed_mentions went with it
    entry = await storage.read(GUILD).owed_message("hello")
    assert entry is not None and not entry.pending
    assert (entry.message_id, entry.delivered_channel_id) == (messages[0].id, general)
    assert await outbox.deliver_due() is None
    assert len(posted(fake, "general")) == 1


async def test_three_500s_then_delivered_once(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    campaign = channel_id(fake, "campaign")
    fault = fake.fail_requests("POST", f"/channels/{campaign}/messages", status=500, times=3)
    await storage.write(GUILD).owe_message("report", campaign, text("Battle report"))
    first_wait = await outbox.deliver_due()
    assert first_wait is not None and posted(fake, "campaign") == []
    entry = await storage.read(GUILD).owed_message("report")
    assert entry is not None and entry.pending and entry.attempts == 1
    assert entry.last_error is not None and "500" in entry.last_error
    await drain(outbox)
    assert len(fault.hits) == 3 and fault.remaining == 0
    assert [m.content for m in posted(fake, "campaign")] == ["Battle report"]
    entry = await storage.read(GUILD).owed_message("report")
    assert entry is not None and entry.attempts == 4 and not entry.pending


async def test_a_429_waits_its_retry_after_before_trying_again(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    campaign = channel_id(fake, "campaign")
    fault = fake.fail_requests("POST", f"/channels/{campaign}/messages", status=429,
                               retry_after=0.4)
    await storage.write(GUILD).owe_message("report", campaign, text("Battle report"))
    wait = await outbox.deliver_due()
    # The worker asks to wait what Discord said (a little less: time went by since).
    assert wait is not None and 0.3 < wait <= 0.4
    entry = await storage.read(GUILD).owed_message("report")
    assert entry is not None and entry.attempts == 1 and "429" in (entry.last_error or "")
    assert await outbox.deliver_due() is not None  # still too early: no second request
    assert len(fault.hits) == 1 and posted(fake, "campaign") == []
    await drain(outbox)
    assert [m.content for m in posted(fake, "campaign")] == ["Battle report"]


async def test_a_global_429_holds_every_channel(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general, campaign = channel_id(fake, "general"), channel_id(fake, "campaign")
    fake.fail_requests("POST", re.compile(r"/channels/\d+/messages"), status=429,
                       retry_after=0.3, is_global=True)
    await storage.write(GUILD).owe_message("a", general, text("a"))
    first = await outbox.deliver_due()
    assert first is not None
    await storage.write(GUILD).owe_message("b", campaign, text("b"))
    assert await outbox.deliver_due() is not None
    assert posted(fake, "campaign") == []  # the other channel waits for the global limit too
    await drain(outbox)
    assert [m.content for m in posted(fake, "general")] == ["a"]
    assert [m.content for m in posted(fake, "campaign")] == ["b"]


async def test_a_channel_keeps_its_order_while_others_go_on(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general, campaign = channel_id(fake, "general"), channel_id(fake, "campaign")
    fake.fail_requests("POST", f"/channels/{general}/messages", status=503, times=2)
    await storage.write(GUILD).owe_message("step 4", general, text("step 4"))
    await storage.write(GUILD).owe_message("step 5", general, text("step 5"))
    await storage.write(GUILD).owe_message("report", campaign, text("report"))
    assert await outbox.deliver_due() is not None
    assert posted(fake, "general") == []  # step 5 waits behind step 4
    assert [m.content for m in posted(fake, "campaign")] == ["report"]
    await drain(outbox)
    assert [m.content for m in posted(fake, "general")] == ["step 4", "step 5"]


def count_row_reads(storage: Storage) -> list[int]:
    """Count the outbox's reads of one row (a spy on the real storage's one-call reads)."""
    reads: list[int] = []
    one_call = storage.read

    class Counted:
        def __init__(self, guild_id: int) -> None:
            self.reading = one_call(guild_id)

        def __getattr__(self, name: str) -> Any:
            method = getattr(self.reading, name)
            if name != "outbox_entry":
                return method

            async def counted(pk: int) -> OutboxEntry | None:
                reads.append(pk)
                return cast(OutboxEntry | None, await method(pk))

            return counted

    storage.read = lambda guild_id: cast(Transaction, Counted(guild_id))  # type: ignore[method-assign]
    return reads


async def test_a_pass_posts_what_it_scanned_without_reading_each_row_again(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    for step in ("step 1", "step 2", "step 3"):
        await storage.write(GUILD).owe_message(step, general, text(step))
    reads = count_row_reads(storage)
    assert await outbox.deliver_due() is None
    assert [m.content for m in posted(fake, "general")] == ["step 1", "step 2", "step 3"]
    assert reads == []  # nothing settled them since the scan: one read of the table


async def test_two_passes_at_once_post_each_row_once_reading_again_only_what_the_other_settled(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general, campaign = channel_id(fake, "general"), channel_id(fake, "campaign")
    for step in ("step 1", "step 2", "step 3"):
        await storage.write(GUILD).owe_message(step, general, text(step))
    await storage.write(GUILD).owe_message("report", campaign, text("report"))
    reads = count_row_reads(storage)
    # A click's flush and the loop's pass scan the same rows before either posts one.
    assert await asyncio.gather(outbox.flush(GUILD), outbox.deliver_due()) == [None, None]
    assert [m.content for m in posted(fake, "general")] == ["step 1", "step 2", "step 3"]
    assert [m.content for m in posted(fake, "campaign")] == ["report"]
    # The pass that came second to a channel read again the rows the first one posted
    # (and so skipped them); no row was read twice more.
    assert sorted(reads) == sorted(set(reads)) and len(reads) <= 4


async def posted_by_a_lost_attempt(fake: FakeDiscord, channel: int, entry: OutboxEntry) -> Accepted:
    """Post ``entry`` as an attempt would whose answer never came back to the outbox."""
    sender = HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN)
    try:
        return await sender.send(channel, {**entry.payload, "nonce": entry.nonce,
                                           "enforce_nonce": True})
    finally:
        await sender.close()


async def test_an_answer_lost_after_discord_accepted_posts_nothing_new(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    entry = await storage.write(GUILD).owe_message("report", general, text("Battle report"))
    # As if an earlier attempt had reached Discord and its answer had been lost (a
    # timeout, or the bot killed before it recorded the id): the message exists.
    earlier = await posted_by_a_lost_attempt(fake, general, entry)
    await drain(outbox)
    assert [m.id for m in posted(fake, "general")] == [earlier.message_id]
    delivered = await storage.read(GUILD).owed_message("report")
    assert delivered is not None and delivered.message_id == earlier.message_id


async def test_a_channel_that_is_gone_hands_the_message_to_its_fallback(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    general = channel_id(fake, "general")
    missing = 999_999_999
    await storage.write(GUILD).owe_message("report", missing, text("report"),
                              fallback_channel_id=general)
    await storage.write(GUILD).owe_message("lost", missing, text("lost"))
    await storage.write(GUILD).owe_message("after", missing, text("after"))
    with caplog.at_level(logging.ERROR, logger="bot.outbox"):
        await drain(outbox)
    assert [m.content for m in posted(fake, "general")] == ["report"]
    report = await storage.read(GUILD).owed_message("report")
    assert report is not None and report.delivered_channel_id == general
    lost = await storage.read(GUILD).owed_message("lost")
    assert lost is not None and lost.failed_at is not None and not lost.pending
    assert "refused lost for good" in caplog.text
    after = await storage.read(GUILD).owed_message("after")  # not stuck behind the lost one
    assert after is not None and after.failed_at is not None


async def test_hooks_store_the_id_with_the_delivery_and_a_failing_hook_sends_nothing_twice(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    seen: list[tuple[str, int, bool]] = []

    async def record(tx: Transaction, entry: OutboxEntry, accepted: Accepted) -> None:
        stored = await tx.outbox_entry(entry.id)
        assert stored is not None
        seen.append(("in", accepted.message_id, stored.pending))  # delivered in this tx
        if entry.key == "bad":
            raise RuntimeError("hook bug")

    async def after(entry: OutboxEntry, accepted: Accepted, _recorded: object) -> None:
        stored = await storage.read(GUILD).outbox_entry(entry.id)  # committed by now
        seen.append(("after", accepted.message_id, stored is not None and stored.pending))

    outbox.on_delivered("test", record, after)
    await storage.write(GUILD).owe_message("good", general, text("good"), link={"kind": "test"})
    await storage.write(GUILD).owe_message("bad", general, text("bad"), link={"kind": "test"})
    await drain(outbox)
    good, bad = posted(fake, "general")
    assert seen == [("in", good.id, False), ("after", good.id, False), ("in", bad.id, False)]
    entry = await storage.read(GUILD).owed_message("bad")
    assert entry is not None and entry.message_id == bad.id  # delivered, not sent again
    await drain(outbox)
    assert len(posted(fake, "general")) == 2


async def test_what_is_owed_survives_a_restart_and_the_loop_delivers_it(
    tmp_path: Path, fake: FakeDiscord
) -> None:
    path = tmp_path / "restart.sqlite3"
    general = channel_id(fake, "general")
    first = await Storage.open(path)
    await first.write(GUILD).owe_message("report", general, text("Battle report"))
    await first.close()  # the bot stops before sending it

    storage = await Storage.open(path)
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN), policy=FAST)
    try:
        worker.start()
        await fake.world.notifier.wait_for(lambda: bool(posted(fake, "general")),
                                           timeout=10.0, what="the owed report")
        worker.kick()  # a kick with nothing owed sends nothing more
        await storage.write(GUILD).owe_message("next", general, text("next"))
        worker.kick()
        await fake.world.notifier.wait_for(lambda: len(posted(fake, "general")) == 2,
                                           timeout=10.0, what="the next message")
    finally:
        await worker.stop()
        await storage.close()
    assert [m.content for m in posted(fake, "general")] == ["Battle report", "next"]


async def test_old_delivered_rows_are_pruned_and_pending_ones_kept(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, tmp_path: Path
) -> None:
    general = channel_id(fake, "general")
    await storage.write(GUILD).owe_message("sent", general, text("sent"))
    await outbox.deliver_due()
    fake.fail_requests("POST", f"/channels/{general}/messages", status=503, times=5)
    await storage.write(GUILD).owe_message("waiting", general, text("waiting"))
    await outbox.deliver_due()
    assert await storage.prune_outbox(timedelta(days=30)) == 0
    assert await storage.prune_outbox(timedelta(0)) == 1
    assert [e.key for e in await storage.read(GUILD).outbox_entries()] == ["waiting"]


def test_delivered_and_failed_are_exclusive_in_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "schema.sqlite3"
    asyncio.run(_open_and_close(path))
    with contextlib.closing(sqlite3.connect(path)) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO outbox (guild_id, key, channel_id, payload, nonce, created_at, due_at,"
            " delivered_at, failed_at) VALUES (1, 'k', 1, '{}', 'n', 'now', 0, 'now', 'now')"
        )


async def _open_and_close(path: Path) -> None:
    await (await Storage.open(path)).close()


async def test_a_failed_flush_wakes_the_loop_to_retry_when_due(
    storage: Storage, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    # The default scan interval: without being woken the loop would sleep a minute.
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN), policy=FAST)
    try:
        await storage.write(GUILD).owe_message("first", general, text("first"))
        worker.start()
        await fake.world.notifier.wait_for(lambda: len(posted(fake, "general")) == 1,
                                           timeout=10.0, what="the first message")
        fake.fail_requests("POST", f"/channels/{general}/messages", status=503)
        await storage.write(GUILD).owe_message("second", general, text("second"))
        await worker.flush()  # what the bot does right after a commit: this attempt fails
        entry = await delivered(storage, "second")
    finally:
        await worker.stop()
    assert entry.attempts == 2
    assert [m.content for m in posted(fake, "general")] == ["first", "second"]


async def delivered(storage: Storage, key: str) -> OutboxEntry:
    """Wait until the worker has recorded ``key`` as delivered."""
    for _ in range(200):
        entry = await storage.read(GUILD).owed_message(key)
        if entry is not None and not entry.pending:
            return entry
        await asyncio.sleep(0.05)
    raise AssertionError(f"{key} was never delivered")


# --------------------------------------------------------------------------- without a scan
# A commit hands the rows it owed to the worker (Storage.on_owed): once the worker has
# seen all of a server's owed rows, the flush after a commit delivers them without
# reading the table. The loop's scan is the safety net for what it misses.


def count_scans(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The servers the outbox scanned for owed rows (None: every server)."""
    scans: list[int | None] = []
    scan = storage.undelivered_messages

    async def counted(*args: Any, **kwargs: Any) -> list[OutboxEntry]:
        scans.append(kwargs.get("guild_id"))
        return await scan(*args, **kwargs)

    monkeypatch.setattr(storage, "undelivered_messages", counted)
    return scans


async def test_the_flush_after_a_commit_delivers_what_it_owed_without_reading_the_table(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, pg_trips: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    general, campaign = channel_id(fake, "general"), channel_id(fake, "campaign")
    assert await outbox.deliver_due() is None  # the loop's first pass: nothing owed
    scans = count_scans(storage, monkeypatch)
    async with storage.transaction(GUILD) as tx:
        for step in ("step 1", "step 2"):
            await tx.owe_message(step, general, text(step))
        await tx.owe_message("report", campaign, text("report"))
    pg_trips.clear()
    await outbox.flush(GUILD)
    assert [m.content for m in posted(fake, "general")] == ["step 1", "step 2"]
    assert [m.content for m in posted(fake, "campaign")] == ["report"]
    assert scans == []
    assert not [trip for trip in pg_trips if "FROM outbox" in trip], pg_trips
    for key in ("step 1", "step 2", "report"):
        entry = await storage.read(GUILD).owed_message(key)
        assert entry is not None and not entry.pending and entry.attempts == 1

    # A deletion of the server's rows is the table's to tell: the next flush reads it.
    await storage.write(GUILD).owe_message("gone", general, text("gone"))
    await storage.write(GUILD).forget_server()
    await outbox.flush(GUILD)
    assert scans == [GUILD]
    assert [m.content for m in posted(fake, "general")] == ["step 1", "step 2"]


async def test_a_row_the_flush_after_its_commit_misses_is_delivered_once_by_the_loop(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch,
) -> None:
    general = channel_id(fake, "general")
    scans = count_scans(storage, monkeypatch)
    assert await outbox.deliver_due() is None  # the loop's first pass
    # Discord fails the click's own delivery: the row is left to the loop's retry.
    fault = fake.fail_requests("POST", f"/channels/{general}/messages", status=503, times=1)
    async with storage.transaction(GUILD) as tx:
        await tx.owe_message("step 4", general, text("step 4"))
    await outbox.flush(GUILD)
    assert len(fault.hits) == 1 and posted(fake, "general") == []
    await drain(outbox)  # the loop's passes, as it runs them
    step_4 = await storage.read(GUILD).owed_message("step 4")
    assert step_4 is not None and not step_4.pending
    assert step_4.attempts == 2  # the failed try and the loop's
    # The next click's commit: its row goes after the one the loop delivered, and the
    # flush delivers it without a scan (the loop's last pass saw every owed row).
    before = len(scans)
    async with storage.transaction(GUILD) as tx:
        await tx.owe_message("step 5", general, text("step 5"))
    await outbox.flush(GUILD)
    assert len(scans) == before
    assert await outbox.deliver_due() is None
    assert [m.content for m in posted(fake, "general")] == ["step 4", "step 5"]
    assert len(fault.hits) == 1


async def test_rows_owed_without_waiting_for_them_are_delivered_by_the_flush_after_commit(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A message owed whose row nobody waits for (PostgreSQL sends its insert with COMMIT)
    is not handed to the worker; the flush after the commit reads the server's outbox
    for it, once. SQLite owes it as any other and hands it over: no scan."""
    general = channel_id(fake, "general")
    assert await outbox.deliver_due() is None  # the loop's first pass: nothing owed
    scans = count_scans(storage, monkeypatch)
    async with storage.transaction(GUILD) as tx:
        await tx.owe_message_unanswered("notice", general, text("notice"))
    await outbox.flush(GUILD)
    assert [m.content for m in posted(fake, "general")] == ["notice"]
    assert scans == ([GUILD] if storage.driver == "postgresql" else [])
    async with storage.transaction(GUILD) as tx:
        await tx.owe_message("step", general, text("step"))
    await outbox.flush(GUILD)  # that scan saw every owed row: handed over again
    assert [m.content for m in posted(fake, "general")] == ["notice", "step"]
    assert len(scans) == (1 if storage.driver == "postgresql" else 0)


# --------------------------------------------------------------------------- nonces
# Every attempt of an outbox row carries the row's nonce, retries included: the nonce
# is what makes a retry safe when an earlier attempt reached Discord but its answer
# was lost; a retry without it would post the message twice.


async def test_the_retry_after_a_5xx_carries_the_rows_nonce(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    campaign = channel_id(fake, "campaign")
    fault = fake.fail_requests("POST", f"/channels/{campaign}/messages", status=502, times=2)
    entry = await storage.write(GUILD).owe_message("report", campaign, text("Battle report"))
    await drain(outbox)
    assert len(fault.hits) == 2
    [message] = posted(fake, "campaign")
    # What reached Discord on the third attempt: the row's own nonce, enforced.
    assert message.extra.get("nonce") == entry.nonce
    assert message.extra.get("enforce_nonce") is True
    delivered = await storage.read(GUILD).owed_message("report")
    assert delivered is not None and delivered.attempts == 3
    assert delivered.message_id == message.id


async def test_an_answer_lost_on_a_retry_posts_nothing_new(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    fake.fail_requests("POST", f"/channels/{general}/messages", status=500)
    entry = await storage.write(GUILD).owe_message("report", general, text("Battle report"))
    assert await outbox.deliver_due() is not None  # the first attempt: a 500, nothing made
    assert posted(fake, "general") == []
    # As if the second attempt had reached Discord and its answer had been lost: the
    # message exists, and the row is still owed.
    earlier = await posted_by_a_lost_attempt(fake, general, entry)
    await drain(outbox)
    assert [m.id for m in posted(fake, "general")] == [earlier.message_id]
    delivered = await storage.read(GUILD).owed_message("report")
    assert delivered is not None and delivered.message_id == earlier.message_id
    assert delivered.attempts == 2


# --------------------------------------------------------------------------- failpoints
# (the crash tests' tool: tests/e2e/test_crash_resume.py kills the bot with them)


def _run_failpoint(env_value: str | None, name: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != failpoints.ENV_VAR}
    if env_value is not None:
        env[failpoints.ENV_VAR] = env_value
    code = f"from bot import failpoints; failpoints.hit({name!r}); print('still alive')"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)


def test_an_armed_failpoint_kills_the_process_on_the_spot() -> None:
    died = _run_failpoint(f"nothing-else, {failpoints.AFTER_REPORT_QUEUED}",
                          failpoints.AFTER_REPORT_QUEUED)
    assert died.returncode == -signal.SIGKILL
    assert "still alive" not in died.stdout
    assert "unknown failpoints" in died.stderr and "nothing-else" in died.stderr


def test_a_failpoint_not_armed_does_nothing() -> None:
    for armed in (None, failpoints.AFTER_STAGE_STORED):
        lived = _run_failpoint(armed, failpoints.AFTER_REPORT_QUEUED)
        assert lived.returncode == 0 and "still alive" in lived.stdout, lived.stderr
    with pytest.raises(ValueError):
        failpoints.hit("no-such-point")


# --------------------------------------------------------------------------- shards


async def test_a_process_holding_some_shards_delivers_only_its_own_servers_rows(
    storage: Storage, fake: FakeDiscord
) -> None:
    mine, theirs = guild_id_on_shard(1, 2), guild_id_on_shard(0, 2)
    general, campaign = channel_id(fake, "general"), channel_id(fake, "campaign")
    # More of the other process's rows, all older, than one scan reads: had they been
    # read and then skipped, this process's row would never come up.
    async with storage.transaction(theirs) as tx:
        for n in range(501):
            await tx.owe_message(f"theirs {n}", campaign, text(f"theirs {n}"))
    await storage.write(mine).owe_message("mine", general, text("mine"))
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN, timeout=5.0),
                    policy=FAST, shards=ShardSet.of(2, [1]))
    try:
        assert await worker.deliver_due() is None
        assert await worker.deliver_due(theirs) is None
    finally:
        await worker.stop()
    assert [m.content for m in posted(fake, "general")] == ["mine"]
    assert posted(fake, "campaign") == []
    owed = await storage.undelivered_messages(1000)
    assert len(owed) == 501 and {e.guild_id for e in owed} == {theirs}
    assert all(e.attempts == 0 for e in owed)
