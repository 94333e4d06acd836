"""What the benchmarks (docs/benchmarks.md) changed in storage and the outbox.

- Reads have a connection of their own: a read never waits for a write
  transaction in progress, and sees the last commit.
- A transaction resolves each campaign once, and forgets it when a campaign
  is deleted in it.
- ``gangs_without_rosters`` reads the gangs' own fields only.
- ``Outbox.flush(guild_id)`` delivers that server's owed messages only.

Everything runs on a real SQLite file; the outbox's sender is replaced at the
network edge by one that records what it was asked to post.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import pytest

from bot.outbox import Accepted, Outbox
from bot.storage import Campaign, Storage
from rules.errors import NotFound
from tests.storage.conftest import ACTOR, GUILD_A, GUILD_B, full_gang

# A guard against a hang, not a measurement: a read that waited for the open
# write transaction below would wait for ever.
NO_HANG = 10.0


@asynccontextmanager
async def held_open(
    transaction: AbstractAsyncContextManager[Any], work: Callable[[Any], Awaitable[object]]
) -> AsyncIterator[asyncio.Task[None]]:
    """``work`` done in ``transaction``, which then stays open (in a task of its own) until
    the block ends; the block gets that task."""
    done, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with transaction as tx:
            await work(tx)
            done.set()
            await release.wait()

    task = asyncio.create_task(hold())
    try:
        await asyncio.wait_for(done.wait(), NO_HANG)
    except TimeoutError:
        task.cancel()  # still waiting to begin: it must not hold anything after the test
        raise
    try:
        yield task
    finally:
        release.set()
        await task


async def test_a_read_does_not_wait_for_a_write_in_progress_and_sees_the_last_commit(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    richer = gang.model_copy(update={"credits": 999})
    async with held_open(storage.transaction(GUILD_A),
                         lambda tx: tx.update_gang(campaign.id, richer, actor=ACTOR)) as task:
        async with asyncio.timeout(NO_HANG):
            during = await storage.read(GUILD_A).get_gang(campaign.id, gang.id)
            async with storage.read_only(GUILD_A) as tx:
                in_snapshot = await tx.get_gang(campaign.id, gang.id)
        assert not task.done()
    assert during.credits == in_snapshot.credits == gang.credits  # not the uncommitted 999
    assert (await storage.read(GUILD_A).get_gang(campaign.id, gang.id)).credits == 999


async def test_reads_inside_the_same_tasks_own_transaction_are_refused(
    storage: Storage, campaign: Campaign
) -> None:
    async with storage.transaction(GUILD_A):
        with pytest.raises(RuntimeError, match="inside its own transaction"):
            await storage.read(GUILD_A).get_campaign(campaign.id)
    async with storage.read_only(GUILD_A):
        with pytest.raises(RuntimeError, match="inside its own transaction"):
            await storage.read(GUILD_A).list_gangs(campaign.id)


async def test_read_only_transactions_cannot_write(storage: Storage, campaign: Campaign) -> None:
    async with storage.read_only(GUILD_A) as tx:
        with pytest.raises(RuntimeError, match="read-only"):
            await tx.create_gang(campaign.id, full_gang(), actor=ACTOR)
    assert await storage.read(GUILD_A).list_gangs(campaign.id) == []


async def test_an_in_memory_database_reads_through_its_one_connection() -> None:
    from rules.models import CampaignSettings

    async with await Storage.open(":memory:") as storage:
        made = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Ash Wastes"))
        async with storage.read_only(GUILD_A) as tx:
            assert (await tx.get_campaign(made.id)).name == "Ash Wastes"


async def test_a_campaign_deleted_in_a_transaction_is_not_found_again_in_it(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    async with storage.transaction(GUILD_A) as tx:
        assert len(await tx.list_gangs(campaign.id)) == 1  # resolved (and remembered) here
        await tx.delete_campaign(campaign.id)
        with pytest.raises(NotFound):
            await tx.list_gangs(campaign.id)


async def test_gangs_without_rosters_have_their_own_fields_and_nothing_else(
    storage: Storage, campaign: Campaign
) -> None:
    wolves = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    fangs = await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Iron Fangs", "b"),
                                      actor=ACTOR)
    assert wolves.fighters and wolves.stash
    async with storage.read_only(GUILD_A) as tx:
        light = await tx.gangs_without_rosters(campaign.id, [fangs.id, wolves.id])
        with pytest.raises(NotFound):
            await tx.gangs_without_rosters(campaign.id, [wolves.id, "nobody"])
    assert list(light) == [fangs.id, wolves.id]
    for full in (wolves, fangs):
        got = light[full.id]
        assert (got.name, got.owner, got.house, got.credits) == (
            full.name, full.owner, full.house, full.credits)
        assert got.fighters == got.vehicles == got.stash == got.stash_vehicles == []


class RecordingSender:
    """Stands in for Discord's REST API: accepts every message and remembers the channel."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    async def send(self, channel_id: int, body: dict[str, Any]) -> Accepted:
        self.sent.append(channel_id)
        return Accepted(message_id=1000 + len(self.sent), channel_id=channel_id)

    async def close(self) -> None:
        pass


async def test_a_flush_for_one_server_delivers_that_servers_messages_only(
    storage: Storage,
) -> None:
    for guild, channel in ((GUILD_A, 10), (GUILD_B, 20), (GUILD_A, 11)):
        await storage.write(guild).owe_message(f"message-{channel}", channel, {"content": "hi"})
    sender = RecordingSender()
    outbox = Outbox(storage, sender)
    await outbox.flush(GUILD_A)
    assert sorted(sender.sent) == [10, 11]
    assert [e.channel_id for e in await storage.undelivered_messages()] == [20]
    assert await storage.undelivered_messages(guild_id=GUILD_A) == []
    await outbox.flush()
    assert sorted(sender.sent) == [10, 11, 20]
    assert await storage.undelivered_messages() == []


async def test_a_background_read_does_not_wait_for_a_check_in_progress(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    async with held_open(storage.read_only(GUILD_A),
                         lambda tx: tx.get_gang(campaign.id, gang.id)) as task:
        async with asyncio.timeout(NO_HANG):
            async with storage.read_only(GUILD_A, background=True) as tx:
                assert (await tx.get_gang(campaign.id, gang.id)).name == gang.name
        assert not task.done()
    async with storage.read_only(GUILD_A, background=True):
        with pytest.raises(RuntimeError, match="inside its own transaction"):
            await storage.read(GUILD_A).get_gang(campaign.id, gang.id)


async def test_a_gang_found_by_name_without_its_roster(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    light = await storage.read(GUILD_A).get_gang_by_name(campaign.id, gang.name.upper(),
                                           rosters=False)
    full = await storage.read(GUILD_A).get_gang_by_name(campaign.id, gang.name)
    assert (light.id, light.name, light.owner) == (gang.id, gang.name, gang.owner)
    assert light.fighters == [] and full.fighters == gang.fighters
    by_id = await storage.read(GUILD_A).gangs_without_rosters(campaign.id, [gang.id])
    assert by_id == {gang.id: light}


async def test_checks_held_open_together_do_not_wait_for_each_other(
    storage: Storage, campaign: Campaign
) -> None:
    from bot.storage.repository import ANSWERING_LANES

    assert ANSWERING_LANES >= 2
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    async with AsyncExitStack() as held:
        # Every lane but one is held by a check that stays open.
        tasks = [
            await held.enter_async_context(held_open(
                storage.read_only(GUILD_A), lambda tx: tx.get_gang(campaign.id, gang.id)))
            for _ in range(ANSWERING_LANES - 1)
        ]
        async with asyncio.timeout(NO_HANG):
            # This check still gets the last one at once.
            async with storage.read_only(GUILD_A) as tx:
                assert (await tx.get_gang(campaign.id, gang.id)).id == gang.id
        assert not any(task.done() for task in tasks)
