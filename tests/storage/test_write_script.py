"""A write transaction on PostgreSQL sends what nobody reads the answer of as one script
with COMMIT (bot/storage/postgres.py): BEGIN goes with its first round trip, a guard
failing keeps nothing, and the values written into the script's text come back exactly
as they went in. The same calls keep the same meaning on SQLite."""

from __future__ import annotations

import pytest

from bot.storage import Campaign, StaleSequence, Storage, Transaction
from bot.storage.campaigns import CampaignGone
from bot.storage.literals import inlined, literal
from bot.storage.postgres import PostgresStorage
from rules.errors import NotFound
from rules.models import CampaignSettings

from .conftest import GUILD_A
from .test_sequences import sequence

AWKWARD = [
    "plain", "", "it's", "''", "back\\slash", "\\'", "E'x'", "-- not a comment", "? and $1",
    "line\nbreak\ttab", "Ümlaut ☠ 𝔘", "'; DROP TABLE campaigns; --", "\\x00 text",
]


async def test_values_written_into_a_statement_come_back_as_they_went_in(
    storage: Storage,
) -> None:
    if not isinstance(storage, PostgresStorage):
        pytest.skip("PostgreSQL's literals")
    async with storage._pool.acquire() as raw:
        for text in AWKWARD:
            assert await raw.fetchval(f"SELECT {literal(text)}::text") == text
        for number in (0, 7, -7, 2**62, -(2**62)):
            assert await raw.fetchval(f"SELECT 1 - {literal(number)}") == 1 - number
        for real in (0.5, -0.25, 1e-9, 3.0e20):
            assert await raw.fetchval(f"SELECT {literal(real)}::float8") == real
        raw_bytes = bytes([0, 255, 92, 39])  # NUL, 0xff, a backslash, a quote
        assert await raw.fetchval("SELECT " + literal(raw_bytes)) == raw_bytes
        assert await raw.fetchval(f"SELECT {literal(None)}::text IS NULL")
        assert await raw.fetchval(f"SELECT {literal(True)} AND NOT {literal(False)}")
        # A placeholder inside a quoted string is text, not a value to fill.
        filled = inlined("SELECT '?' || ? || ?", ["it's", -1])
        assert await raw.fetchval(filled) == "?it's-1"
    with pytest.raises(TypeError):
        literal(object())
    with pytest.raises(ValueError):
        literal("NUL \x00")
    with pytest.raises(ValueError):
        inlined("SELECT ?", [])


async def test_begin_goes_with_the_first_trip_and_the_writes_with_commit(
    storage: Storage, campaign: Campaign, pg_trips: list[str]
) -> None:
    await storage.read(GUILD_A).get_campaign(campaign.id)  # its key is known from now on
    pg_trips.clear()
    async with storage.transaction(GUILD_A) as tx:
        assert await tx.load_sequence(campaign.id, "k", type(sequence())) is None
        assert await tx.save_sequence(campaign.id, "k", sequence(), revision=0) == 1
        assert await tx.save_sequence(campaign.id, "k", sequence(), revision=1) == 2
    if storage.driver == "postgresql":
        # BEGIN with the claim and its check; the read; the state before the first save,
        # read to be kept for an action's undo; both saves with COMMIT.
        assert len(pg_trips) == 4, pg_trips
        assert pg_trips[0].startswith("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory"
                                      ), pg_trips
        assert pg_trips[-1].startswith("WITH guarded AS (INSERT INTO sequences"), pg_trips
    found = await storage.read(GUILD_A).load_sequence_at(campaign.id, "k", type(sequence()))
    assert found is not None and found[1] == 2

    pg_trips.clear()
    async with storage.transaction(GUILD_A):
        pass
    assert pg_trips == []


async def test_a_stale_save_sent_with_commit_keeps_nothing_of_its_transaction(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).save_sequence(campaign.id, "k", sequence())
    with pytest.raises(StaleSequence):
        async with storage.transaction(GUILD_A) as tx:
            await tx.rename_campaign(campaign.id, "Ash Wastes")
            await tx.save_sequence(campaign.id, "other", sequence(), revision=0)
            await tx.save_sequence(campaign.id, "k", sequence(), revision=0)  # it is at 1
    assert (await storage.read(GUILD_A).get_campaign(campaign.id)).name == campaign.name
    assert await storage.read(GUILD_A).load_sequence(campaign.id, "other",
                                                     type(sequence())) is None


async def test_a_campaign_key_known_from_before_is_checked_with_begin(
    storage: Storage, campaign: Campaign
) -> None:
    """What another process did meanwhile: the campaign deleted, or deleted and brought
    back as a new row under its id. The key this process knows then names nothing."""
    other = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Dust Falls"))
    await storage.read(GUILD_A).get_campaign(campaign.id)
    await storage.read(GUILD_A).get_campaign(other.id)
    old = storage._known.get((GUILD_A, campaign.id)) if isinstance(
        storage, PostgresStorage) else None
    await storage.write(GUILD_A).delete_campaign(campaign.id)
    if isinstance(storage, PostgresStorage):
        assert old is not None
        storage._known.found(GUILD_A, campaign.id, old)
    with pytest.raises(NotFound):
        await storage.write(GUILD_A).save_sequence(campaign.id, "k", sequence(), revision=0)

    def misremember() -> None:
        if isinstance(storage, PostgresStorage):
            storage._known.found(GUILD_A, other.id, 1_000_000)

    async def save(tx: Transaction) -> int:
        return await tx.save_sequence(other.id, "k", sequence(), revision=0)

    misremember()
    assert await storage.transaction_whole(GUILD_A, save) == 1  # made again, key read
    misremember()
    if isinstance(storage, PostgresStorage):
        with pytest.raises(CampaignGone):
            await storage.write(GUILD_A).save_sequence(other.id, "j", sequence(), revision=0)
    # Found gone, the key is forgotten: the next write reads it.
    assert await storage.write(GUILD_A).save_sequence(other.id, "j", sequence(),
                                                      revision=0) == 1
    assert (await storage.read(GUILD_A).load_sequence_at(
        other.id, "k", type(sequence())))[1] == 1  # type: ignore[index]
