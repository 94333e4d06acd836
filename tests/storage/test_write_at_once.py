"""A run saved over its revision in one round trip: the same refusals as a save in a
transaction, nothing written when refused, and only into the server's own campaign."""

from __future__ import annotations

import pytest

from bot.storage import Campaign, StaleSequence, Storage
from bot.storage.driver import IntegrityError

from .conftest import GUILD_A, GUILD_B
from .test_sequences import sequence


async def test_a_save_at_once_writes_over_its_revision_only(
    storage: Storage, campaign: Campaign
) -> None:
    state = sequence()
    writes = storage.writes(GUILD_A)
    first = await storage.save_sequence_at_once(GUILD_A, campaign.id, "k", state,
                                                battle_id=None, revision=0)
    assert first == 1 and storage.writes(GUILD_A) == writes + 1
    with pytest.raises(StaleSequence):  # "new", but one is stored already
        await storage.save_sequence_at_once(GUILD_A, campaign.id, "k", state,
                                            battle_id=None, revision=0)
    state.current = 2
    assert await storage.save_sequence_at_once(GUILD_A, campaign.id, "k", state,
                                               battle_id="b1", revision=1) == 2
    state.current = 3
    with pytest.raises(StaleSequence):  # decided from revision 1, but 2 is stored
        await storage.save_sequence_at_once(GUILD_A, campaign.id, "k", state,
                                            battle_id="b1", revision=1)
    assert storage.writes(GUILD_A) == writes + 2  # the refused ones wrote nothing
    async with storage.read_only(GUILD_A) as tx:
        found = await tx.load_sequence_at(campaign.id, "k", type(state))
    assert found is not None
    stored, revision = found
    assert (stored.current, revision) == (2, 2)
    records = await storage.read(GUILD_A).list_sequences(campaign.id)
    assert [(r.key, r.battle_id) for r in records] == [("k", "b1")]


async def test_a_save_at_once_never_reaches_another_servers_campaign(
    storage: Storage, campaign: Campaign
) -> None:
    with pytest.raises(IntegrityError):
        await storage.save_sequence_at_once(GUILD_B, campaign.id, "k", sequence(),
                                            battle_id=None, revision=0)
    assert await storage.read(GUILD_A).list_sequences(campaign.id) == []
    async with storage.transaction(GUILD_A) as tx:  # the writer is free again
        assert await tx.save_sequence(campaign.id, "k", sequence(), revision=0) == 1
