"""A delivery whose hook gives its writes as statements is recorded in one write made at
once (the row marked delivered and the hook's UPDATE together); a hook that gives none
for a row falls back to its transaction. A write made at once is one round trip on
PostgreSQL too, and all or nothing."""

from __future__ import annotations

from typing import Any

from bot.outbox import Accepted, Outbox
from bot.storage import Campaign, OutboxEntry, Storage, Transaction
from bot.storage.at_once import Statement
from bot.storage.outbox import delivered_statement
from bot.storage.sequences import set_in_state_statement

from .conftest import GUILD_A
from .test_per_click_costs import RecordingSender
from .test_sequences import sequence


async def test_a_delivery_and_its_hooks_update_are_one_write(
    storage: Storage, campaign: Campaign
) -> None:
    state = sequence()
    await storage.write(GUILD_A).save_sequence(campaign.id, "k", state)
    in_transaction: list[str] = []

    async def record(tx: Transaction, entry: OutboxEntry, accepted: Accepted) -> None:
        in_transaction.append(entry.key)
        await tx.set_in_sequence(campaign.id, "k", [], {"$.current": accepted.message_id})

    def at_once(entry: OutboxEntry, accepted: Accepted) -> list[Statement] | None:
        if entry.key == "long":
            return None
        return [set_in_state_statement(GUILD_A, campaign.id, "k",
                                       [("$.battle_id", "b1")],
                                       {"$.current": accepted.message_id})]

    sender = RecordingSender()
    outbox = Outbox(storage, sender)
    outbox.on_delivered("test", record, at_once=at_once)
    link: dict[str, Any] = {"kind": "test"}
    writes = storage.writes(GUILD_A)
    await storage.write(GUILD_A).owe_message("short", 10, {"content": "hi"}, link=link)
    await outbox.flush(GUILD_A)
    entry = await storage.read(GUILD_A).owed_message("short")
    assert entry is not None and entry.message_id == 1001 and not entry.pending
    found = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert found is not None and found.current == 1001
    assert in_transaction == []
    assert storage.writes(GUILD_A) == writes + 2  # owed, then delivered with the id
    await storage.write(GUILD_A).owe_message("long", 10, {"content": "hi"}, link=link)
    await outbox.flush(GUILD_A)
    assert in_transaction == ["long"]
    found = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert found is not None and found.current == 1002


async def test_a_write_made_at_once_keeps_nothing_when_a_required_statement_finds_no_row(
    storage: Storage, campaign: Campaign, pg_trips: list[str]
) -> None:
    state = sequence()
    await storage.write(GUILD_A).save_sequence(campaign.id, "k", state)
    owed = await storage.write(GUILD_A).owe_message("m", 10, {"content": "hi"}, link=None)
    stamp = set_in_state_statement(GUILD_A, campaign.id, "k", [("$.battle_id", "b1")],
                                   {"$.current": 7})

    pg_trips.clear()
    gone = delivered_statement(GUILD_A, owed.id + 1000, 5, 10)  # no such row: required
    assert await storage.write_at_once(GUILD_A, [gone, stamp]) is None
    if storage.driver == "postgresql":
        assert len(pg_trips) == 1, pg_trips  # one statement, rolled back whole
    found = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert found is not None and found.current == 0  # the stamp was undone too

    pg_trips.clear()
    done = await storage.write_at_once(
        GUILD_A, [delivered_statement(GUILD_A, owed.id, 5, 10), stamp])
    assert done is not None and int(done[0][0][0]) == owed.id and int(done[1][0][0]) == 2
    if storage.driver == "postgresql":
        assert len(pg_trips) == 1, pg_trips  # no BEGIN nor COMMIT: one statement
    found = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert found is not None and found.current == 7
    entry = await storage.read(GUILD_A).owed_message("m")
    assert entry is not None and entry.message_id == 5


async def test_rows_posted_one_after_another_in_a_channel_are_recorded_in_one_write(
    storage: Storage, campaign: Campaign, pg_trips: list[str]
) -> None:
    state = sequence()
    await storage.write(GUILD_A).save_sequence(campaign.id, "k", state)

    async def record(tx: Transaction, entry: OutboxEntry, accepted: Accepted) -> None:
        raise AssertionError("recorded the long way")

    def at_once_many(delivered: Any) -> tuple[list[Statement], list[list[int]]]:
        # Both rows set the same stored row: one statement for the two.
        last = delivered[-1][1].message_id
        return ([set_in_state_statement(GUILD_A, campaign.id, "k", [], {"$.current": last})],
                [[0] for _ in delivered])

    seen_after: list[tuple[str, Any]] = []

    async def after(entry: OutboxEntry, accepted: Accepted, recorded: Any) -> None:
        seen_after.append((entry.key, recorded))

    sender = RecordingSender()
    outbox = Outbox(storage, sender)
    outbox.on_delivered("test", record, after, at_once_many=at_once_many)
    assert await outbox.deliver_due() is None  # nothing owed: every row is known from now
    link: dict[str, Any] = {"kind": "test"}
    async with storage.transaction(GUILD_A) as tx:
        await tx.owe_message("a", 10, {"content": "a"}, link=link)
        await tx.owe_message("b", 10, {"content": "b"}, link=link)
        await tx.owe_message("plain", 10, {"content": "c"})
    writes = storage.writes(GUILD_A)
    pg_trips.clear()
    await outbox.flush(GUILD_A)
    assert sender.sent == [10, 10, 10]
    assert storage.writes(GUILD_A) == writes + 1
    if storage.driver == "postgresql":
        assert len(pg_trips) == 1, pg_trips  # no scan; the three records as one statement
    for key, message_id in (("a", 1001), ("b", 1002), ("plain", 1003)):
        entry = await storage.read(GUILD_A).owed_message(key)
        assert entry is not None and entry.message_id == message_id and not entry.pending
    found = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert found is not None and found.current == 1002
    assert [key for key, _ in seen_after] == ["a", "b"]
    assert seen_after[0][1] == seen_after[1][1] and seen_after[0][1][0]  # the run's revision
