"""A decision is saved only over the revision it was made from; a delivery is one UPDATE;
the outbox's scan is a read that does not wait for the writer."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import Campaign, StaleSequence, Storage

from .conftest import GUILD_A
from .test_sequences import sequence


async def test_a_save_over_a_moved_revision_is_refused_and_writes_nothing(
    storage: Storage, campaign: Campaign
) -> None:
    state = sequence()
    async with storage.transaction(GUILD_A) as tx:
        first = await tx.save_sequence(campaign.id, "k", state, revision=0)
    assert first == 1
    async with storage.read_only(GUILD_A) as tx:
        found = await tx.load_sequence_at(campaign.id, "k", type(state))
    assert found is not None and found[1] == 1
    state.current = 2
    async with storage.transaction(GUILD_A) as tx:
        assert await tx.save_sequence(campaign.id, "k", state, revision=1) == 2
    state.current = 3
    with pytest.raises(StaleSequence):  # decided from revision 1, but 2 is stored
        async with storage.transaction(GUILD_A) as tx:
            await tx.save_sequence(campaign.id, "k", state, revision=1)
    with pytest.raises(StaleSequence):  # "new" but there is one already
        async with storage.transaction(GUILD_A) as tx:
            await tx.save_sequence(campaign.id, "k", state, revision=0)
    stored = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert stored is not None and stored.current == 2


async def test_a_number_is_set_inside_a_stored_state_in_one_update(
    storage: Storage, campaign: Campaign
) -> None:
    state = sequence()
    await storage.write(GUILD_A).save_sequence(campaign.id, "k", state)
    async with storage.transaction(GUILD_A) as tx:
        revision = await tx.set_in_sequence(
            campaign.id, "k", [("$.battle_id", "b1"), ("$.steps[1].name", "Update Roster")],
            {"$.current": 7, "$.steps[1].rolls[0]": 5})
        refused = await tx.set_in_sequence(campaign.id, "k", [("$.battle_id", "b2")],
                                           {"$.current": 9})
    assert revision == 2 and refused is None
    stored = await storage.read(GUILD_A).load_sequence(campaign.id, "k", type(state))
    assert stored is not None and stored.current == 7 and stored.steps[1].rolls == [5]


async def test_the_outbox_scan_does_not_wait_for_a_writer(storage: Storage) -> None:
    await storage.write(GUILD_A).owe_message("note:1", 10, {"content": "hello"})
    writing = asyncio.Event()
    release = asyncio.Event()

    async def hold_the_writer() -> None:
        async with storage.transaction(GUILD_A):
            writing.set()
            await release.wait()

    holder = asyncio.create_task(hold_the_writer())
    await writing.wait()
    try:
        owed = await asyncio.wait_for(storage.undelivered_messages(guild_id=GUILD_A), 2)
    finally:
        release.set()
        await holder
    assert [entry.key for entry in owed] == ["note:1"]
