"""Objects kept by the stored row they were built from (bot/storage/decoded.py).

Every click reads its campaign's row and its gangs' names and owners; what was built
from that very row is handed out again instead of being built again. The row is still
read every time, so a changed row is never answered with what was built from the old
one. Real database.
"""

from __future__ import annotations

from bot.storage import Campaign, Storage, TradingPostEntry, campaigns, gangs
from bot.storage.decoded import KeptByRow
from rules.models import CampaignSettings, EquipmentKind, Gang
from tests import factories as f
from tests.storage.conftest import ACTOR, GUILD_A, campaign

__all__ = ["campaign"]  # a fixture; db_path and storage come from tests/conftest.py


async def test_a_campaign_read_from_the_same_row_is_the_one_built_before_and_never_stale(
    storage: Storage, campaign: Campaign
) -> None:
    first = await storage.read(GUILD_A).get_campaign(campaign.id)
    assert await storage.read(GUILD_A).get_campaign(campaign.id) is first

    await storage.write(GUILD_A).rename_campaign(campaign.id, "Glass Wastes")
    renamed = await storage.read(GUILD_A).get_campaign(campaign.id)
    assert renamed.name == "Glass Wastes" and first.name == "Ash Wastes"

    entry = TradingPostEntry(name="Lasgun", cost=15, kind=EquipmentKind.WEAPON,
                             category="Basic Weapons")
    await storage.write(GUILD_A).set_trading_post(campaign.id, [entry], actor=ACTOR, note="t")
    priced = await storage.read(GUILD_A).get_campaign(campaign.id)
    dearer = entry.model_copy(update={"cost": 20})
    await storage.write(GUILD_A).set_trading_post(campaign.id, [dearer], actor=ACTOR, note="t")
    repriced = await storage.read(GUILD_A).get_campaign(campaign.id)
    assert priced.trading_post == [entry] and repriced.trading_post == [dearer]

    await storage.write(GUILD_A).set_trading_post(campaign.id, None, actor=ACTOR, note="t")
    await storage.write(GUILD_A).rename_campaign(campaign.id, "Ash Wastes")
    # The very row read first: the very campaign built from it, untouched since.
    assert await storage.read(GUILD_A).get_campaign(campaign.id) is first


async def test_a_listing_builds_its_campaigns_and_keeps_none_of_them(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Dust Falls"))
    read = await storage.read(GUILD_A).get_campaign(campaign.id)
    listed = [c for c in await storage.read(GUILD_A).list_campaigns() if c.id == campaign.id]
    assert listed == [read] and listed[0] is not read
    assert await storage.read(GUILD_A).get_campaign(campaign.id) is read


def test_kept_rows_are_bounded_in_number_and_in_length() -> None:
    kept: KeptByRow[list[str]] = KeptByRow(entries=2, max_chars=10)
    built: list[tuple[str, ...]] = []

    def get(*row: str) -> list[str]:
        return kept.get(row, lambda: built.append(row) or list(row))

    a = get("a", "1")
    assert get("a", "1") is a and get("a", "2") is not a
    get("b", "1")  # a third row: the least recently used one ("a", "1") goes
    assert len(kept) == 2
    assert get("a", "1") is not a
    long = "x" * 11
    assert get(long) is not get(long)  # too long to keep: built every time
    assert built == [("a", "1"), ("a", "2"), ("b", "1"), ("a", "1"), (long,), (long,)]


def test_a_row_whose_values_cannot_be_a_key_is_built_every_time() -> None:
    kept: KeptByRow[int] = KeptByRow(entries=2, max_chars=10)
    assert kept.get([[1]], lambda: 1) == 1 and len(kept) == 0


def test_the_rows_kept_are_few_and_short() -> None:
    assert campaigns.CAMPAIGNS_KEPT <= 512 and campaigns.KEPT_ROW_CHARS <= 32_000
    assert gangs.GANGS_KEPT <= 512 and gangs.KEPT_GANG_ROW_CHARS <= 8_000


async def test_a_gangs_names_and_owners_from_the_same_row_are_those_built_before(
    storage: Storage, campaign: Campaign
) -> None:
    for gang_id, name in (("g1", "Ash Wolves"), ("g2", "Iron Fangs")):
        gang = f.gang(name, fighters=[], id=gang_id, owner="10")
        await storage.write(GUILD_A).create_gang(campaign.id, gang, actor=ACTOR)

    async def rosterless() -> dict[str, Gang]:
        async with storage.read_only(GUILD_A) as tx:
            return await tx.gangs_without_rosters(campaign.id, ["g1", "g2"])

    first = await rosterless()
    again = await rosterless()
    assert again["g1"] is first["g1"] and again["g2"] is first["g2"]

    await storage.write(GUILD_A).rename_gang(campaign.id, "g1", "Glass Wolves", actor=ACTOR)
    renamed = await rosterless()
    assert renamed["g1"].name == "Glass Wolves" and first["g1"].name == "Ash Wolves"
    assert renamed["g2"] is first["g2"]  # its row did not change

    async with storage.read_only(GUILD_A) as tx:
        every = await tx.gangs_without_rosters(campaign.id, None)
    assert every == renamed and every["g2"] is not first["g2"]  # a listing keeps none
